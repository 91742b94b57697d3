//! In-file suppressions: `<!-- knobs: ignore[invented-member] -->` in
//! Markdown (the next line or block), `# knobs: ignore[KNB002]` in env and
//! shell files and in a Markdown shell block (its own line when trailing,
//! else the next line), and `knobs: ignore-file` (optionally with rules)
//! anywhere in a file for the whole file. Enforced here too: what a
//! suppression names is dropped, and one that silences nothing, or names
//! no rule, is reported itself (KNB008, KNB009).

use std::sync::LazyLock;

use regex::Regex;

use super::rules::{self, Rule, Violation};
use super::span::Span;

/// One suppression comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suppression {
    /// Rule codes or names; empty means every rule.
    pub rules: Vec<String>,
    /// Where the comment stands (for reporting it).
    pub span: Span,
    /// The lines it covers, inclusive.
    pub first_line: usize,
    pub last_line: usize,
}

/// `knobs: ignore-file` or `knobs: ignore-file[KNB002]` anywhere in a file:
/// the rules silenced for the whole file (empty: every rule).
pub fn file_directive(text: &str) -> Option<Vec<String>> {
    static RE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"knobs:\s*ignore-file(?:\[([^\]]*)\])?").expect("valid regex"));
    memchr::memmem::find(text.as_bytes(), b"ignore-file")?;
    let c = RE.captures(text)?;
    Some(
        c.get(1)
            .map(|m| m.as_str().split(',').map(|r| r.trim().to_string()).filter(|r| !r.is_empty()).collect())
            .unwrap_or_default(),
    )
}

/// True when a list of rule names or codes (empty: all) names `rule`.
pub fn names(rules: &[String], rule: &Rule) -> bool {
    rules.is_empty() || rules.iter().any(|r| r.eq_ignore_ascii_case(rule.code) || r.eq_ignore_ascii_case(rule.name))
}

/// Reads `knobs: ignore` or `knobs: ignore[a, b]` out of a comment's text.
pub fn directive(comment: &str) -> Option<Vec<String>> {
    static RE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"knobs:\s*ignore(?:\[([^\]]*)\])?(?:[^-\w]|$)").expect("valid regex"));
    let c = RE.captures(comment)?;
    Some(
        c.get(1)
            .map(|m| m.as_str().split(',').map(|r| r.trim().to_string()).filter(|r| !r.is_empty()).collect())
            .unwrap_or_default(),
    )
}

/// Suppressions in a line-oriented file (env, shell): a trailing comment
/// covers its own line, a comment alone on a line covers the next non-blank one.
pub fn line_comments(text: &str) -> Vec<Suppression> {
    if memchr::memmem::find(text.as_bytes(), b"knobs:").is_none() {
        return Vec::new();
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(hash) = line.find("# knobs:").or_else(|| line.find("#knobs:")) else { continue };
        let Some(rules) = directive(&line[hash..]) else { continue };
        let col = line[..hash].chars().count() + 1;
        let span = Span { line: i + 1, col, end_line: i + 1, end_col: line.chars().count() + 1 };
        let target = if line[..hash].trim().is_empty() {
            (i + 1..lines.len()).find(|j| !lines[*j].trim().is_empty()).map_or(i + 1, |j| j + 1)
        } else {
            i + 1
        };
        out.push(Suppression { rules, span, first_line: target, last_line: target });
    }
    out
}

/// Drops what suppressions silence; reports unused and unknown suppressions.
pub(crate) fn apply(violations: Vec<Violation>, suppressions: &[Suppression]) -> Vec<Violation> {
    let mut used = vec![false; suppressions.len()];
    let mut kept = Vec::new();
    for v in violations {
        let hit = suppressions
            .iter()
            .position(|s| (s.first_line..=s.last_line).contains(&v.span.line) && names(&s.rules, v.rule));
        match hit {
            Some(i) => used[i] = true,
            None => kept.push(v),
        }
    }
    for (s, used) in suppressions.iter().zip(used) {
        let unknown: Vec<&str> = s.rules.iter().map(String::as_str).filter(|r| rules::find(r).is_none()).collect();
        if !unknown.is_empty() {
            kept.push(rules::unknown_suppression::violation(s.span, &unknown));
        } else if !used {
            kept.push(rules::unused_suppression::violation(s.span, &s.rules));
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives() {
        assert_eq!(directive("<!-- knobs: ignore[invented-member] -->"), Some(vec!["invented-member".into()]));
        assert_eq!(directive("# knobs: ignore[KNB001, bad-value]"), Some(vec!["KNB001".into(), "bad-value".into()]));
        assert_eq!(directive("# knobs: ignore"), Some(vec![]));
        assert_eq!(directive("# knobs is great"), None);
        assert_eq!(directive("<!-- knobs: ignore-file -->"), None, "a file directive is not a line one");
        assert_eq!(file_directive("x\n<!-- knobs: ignore-file[KNB004] -->\n"), Some(vec!["KNB004".into()]));
        assert_eq!(file_directive("# knobs: ignore-file\n"), Some(vec![]));
    }

    #[test]
    fn line_targets() {
        let s = line_comments("# knobs: ignore[bad-value]\n\nX=1\nY=2 # knobs: ignore\n");
        assert_eq!((s[0].first_line, s[0].last_line), (3, 3));
        assert_eq!((s[1].first_line, s[1].span.col), (4, 5));
    }
}
