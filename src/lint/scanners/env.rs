//! Env files: `KEY=value` lines, with `export`, quotes, comments, CRLF and a
//! byte-order mark. Every key is reported; the rules decide which keys set a
//! flag. Image pins (`…/radiance:1.0.13`) are collected for version selection.

use std::sync::LazyLock;

use regex::Regex;

use super::{Commands, Scan, ScanCtx};
use crate::lint::refs::{Ref, Value};
use crate::lint::span::{LineIndex, Span};
use crate::lint::suppress;

static LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\s*(?:export\s+)?)([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$").expect("valid regex"));

/// Splits a raw value into its text and byte range within `raw`: quotes
/// removed, a trailing ` # comment` dropped from unquoted values.
fn value_of(raw: &str) -> (String, usize, usize) {
    let bytes = raw.as_bytes();
    if let Some(&q) = bytes.first().filter(|b| **b == b'"' || **b == b'\'') {
        if let Some(end) = raw[1..].find(q as char) {
            return (raw[1..1 + end].to_string(), 1, 1 + end);
        }
    }
    let end = raw.find(" #").or_else(|| raw.find("\t#")).unwrap_or(raw.len());
    let v = raw[..end].trim_end();
    (v.to_string(), 0, v.len())
}

/// Pins of an engine image in a text: `ghcr.io/org/radiance:1.0.13`; the
/// profile says which image names are the engine's and which part of the
/// tag is the catalogue's.
pub fn image_pins(text: &str, commands: &Commands, span: &dyn Fn(usize, usize) -> Span, out: &mut Vec<(String, Span)>) {
    static PIN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:^|[/\s=])([A-Za-z0-9_.-]+):([A-Za-z0-9][A-Za-z0-9_.-]*)").expect("valid regex")
    });
    if !commands.may_pin(text) {
        return;
    }
    for c in PIN.captures_iter(text) {
        let (Some(name), Some(tag)) = (c.get(1), c.get(2)) else { continue };
        if !commands.images().iter().any(|e| e == name.as_str()) {
            continue;
        }
        if let Some(pinned) = commands.image_tag(tag.as_str()) {
            out.push((pinned, span(tag.start(), tag.end())));
        }
    }
}

/// Env lines among shell code: a line that is only an assignment to an
/// upper-case key (`export CHECKPOINT_POLICY=tip-only`, `MAX_SEQS=2`), not
/// one that prefixes a command (`KEY=v radiance …`).
pub fn assignment_lines(text: &str, span: &dyn Fn(usize, usize) -> Span, _ctx: &ScanCtx<'_>, out: &mut Scan) {
    static ALONE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^(\s*(?:export\s+)?)([A-Z][A-Z0-9_]*)=("[^"]*"|'[^']*'|[^\s;&|]*)\s*(?:#.*)?$"#)
            .expect("valid regex")
    });
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        // Only a line that starts with a capital (or `export`) and holds `=`
        // can be an assignment alone: most lines are decided here.
        let lead = content.trim_start();
        if !(lead.starts_with(|c: char| c.is_ascii_uppercase()) || lead.starts_with("export")) || !lead.contains('=') {
            continue;
        }
        let Some(c) = ALONE.captures(content) else { continue };
        let (Some(key), Some(raw)) = (c.get(2), c.get(3)) else { continue };
        let (value, vs, ve) = value_of(raw.as_str());
        let value = (!value.is_empty()).then(|| Value {
            text: Some(value.clone()),
            span: span(start + raw.start() + vs, start + raw.start() + ve),
            var: None,
        });
        out.refs.push(Ref::Env {
            key: key.as_str().to_string(),
            span: span(start + key.start(), start + key.end()),
            value,
        });
    }
}

/// Scans an env file.
pub fn scan(text: &str, ctx: &ScanCtx<'_>, out: &mut Scan) {
    let idx = LineIndex::new(text);
    let span = |s: usize, e: usize| idx.span(text, s, e);
    scan_text(text, &span, ctx, out);
    out.suppressions.extend(suppress::line_comments(text));
}

/// Scans env lines in `text`; `span` maps byte ranges of `text` into the file.
pub fn scan_text(text: &str, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan) {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let bom = text.len() - body.len();
    let mut offset = bom;
    for line in body.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let start = offset;
        offset += line.len();
        let trimmed = content.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let Some(c) = LINE.captures(content) else { continue };
        let (Some(key), Some(raw)) = (c.get(2), c.get(3)) else { continue };
        let (value, vs, ve) = value_of(raw.as_str());
        let key_span = span(start + key.start(), start + key.end());
        let value = (!value.is_empty()).then(|| Value {
            text: Some(value.clone()),
            span: span(start + raw.start() + vs, start + raw.start() + ve),
            var: None,
        });
        out.refs.push(Ref::Env { key: key.as_str().to_string(), span: key_span, value });
    }
    ctx.metrics.scan(text, span, &mut out.refs);
    image_pins(text, ctx.commands, span, &mut out.pins);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_lines() {
        let text = "\u{feff}# trio\r\nexport BUSY_PREFILL_CHUNK=\"auto\" # keep\r\nMAX_SEQS=2 # two\nEMPTY=\nIMAGE=ghcr.io/x/radiance:1.0.13\n";
        let mut scan_out = Scan::default();
        super::super::test_ctx(|ctx| scan(text, ctx, &mut scan_out));
        let envs: Vec<(String, Option<String>, usize, usize)> = scan_out
            .refs
            .iter()
            .filter_map(|r| match r {
                Ref::Env { key, value, span } => {
                    Some((key.clone(), value.as_ref().and_then(|v| v.text.clone()), span.line, span.col))
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            envs,
            vec![
                ("BUSY_PREFILL_CHUNK".into(), Some("auto".into()), 2, 8),
                ("MAX_SEQS".into(), Some("2".into()), 3, 1),
                ("EMPTY".into(), None, 4, 1),
                ("IMAGE".into(), Some("ghcr.io/x/radiance:1.0.13".into()), 5, 1),
            ]
        );
        assert_eq!(scan_out.pins.iter().map(|p| p.0.as_str()).collect::<Vec<_>>(), ["1.0.13"]);
    }
}
