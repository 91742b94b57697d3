//! SARIF 2.1.0 for code scanning: the rules with their documentation, and one
//! result per finding with a stable fingerprint.

use serde_json::{json, Value};

use crate::lint::finding::Report;
use crate::lint::rules::{Severity, RULES};

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// FNV-1a, hex: stable across runs and machines.
fn fingerprint(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain(std::iter::once(0)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// A relative path as a URI reference (RFC 3986): `\\` becomes `/`, `/`
/// stays, and every byte outside the unreserved characters and the few
/// sub-delimiters a path may hold is percent-encoded — a space, `%`, `#`,
/// `?`, control characters and non-ASCII (as UTF-8 bytes).
fn uri(path: &str) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(path.len());
    for b in path.replace('\\', "/").bytes() {
        let keep = b.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=@".contains(&b);
        if keep {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

pub fn render(report: &Report) -> String {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.code,
                "name": r.name,
                "shortDescription": {"text": r.summary()},
                "fullDescription": {"text": r.doc()},
                "help": {"text": r.doc(), "markdown": r.doc()},
                "defaultConfiguration": {"level": level(r.severity)},
            })
        })
        .collect();
    let mut results = Vec::new();
    for file in &report.files {
        for f in &file.findings {
            let line_text = file.lines.line(f.span.line).trim();
            let mut text = f.message.clone();
            if let Some(h) = &f.help {
                text.push_str(". ");
                text.push_str(h);
            }
            results.push(json!({
                "ruleId": f.code,
                "ruleIndex": RULES.iter().position(|r| r.code == f.code).unwrap_or(0),
                "level": level(f.severity),
                "message": {"text": text},
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri(&f.path)},
                        "region": {
                            "startLine": f.span.line,
                            "startColumn": f.span.column,
                            "endLine": f.span.end_line,
                            "endColumn": f.span.end_column,
                        },
                    },
                }],
                "partialFingerprints": {"knobs/v1": fingerprint(&[f.code, &f.path, line_text, &f.message])},
            }));
        }
    }
    // Files of a kind knobs reads whose content was not read (binary, too
    // large) may hide findings: each is a tool notification, at the file.
    let passed_over: Vec<Value> = report
        .skipped
        .iter()
        .filter(|s| s.hides_findings())
        .map(|s| {
            let path = s.path.display().to_string();
            json!({
                "level": "warning",
                "message": {"text": format!("passed over {path}: {}", s.reason)},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri(&path)}}}],
            })
        })
        .collect();
    let mut doc = json!({
        "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "knobs",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    if !passed_over.is_empty() {
        doc["runs"][0]["invocations"] =
            json!([{"executionSuccessful": true, "toolExecutionNotifications": passed_over}]);
    }
    serde_json::to_string_pretty(&doc).map(|s| s + "\n").unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::uri;

    #[test]
    fn uris_are_percent_encoded() {
        assert_eq!(uri("docs/run book #1?.md"), "docs/run%20book%20%231%3F.md");
        assert_eq!(uri("50%\\é\n.md"), "50%25/%C3%A9%0A.md");
        assert_eq!(uri("a/b-c_d.~e.md"), "a/b-c_d.~e.md");
    }
}
