//! In-file suppressions: `<!-- knobs: ignore[invented-member] -->` in
//! Markdown (the next line or block), `# knobs: ignore[KNB002]` in env and
//! shell files and in a Markdown shell block (its own line when trailing,
//! else the next line), and `knobs: ignore-file` (optionally with rules)
//! anywhere in a file for the whole file. Enforced here too: what a
//! suppression names is dropped, and one that silences nothing, or names
//! no rule or a directive knobs has not got (`knobs: disable-file`), is
//! reported itself (KNB008, KNB009).

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
    /// A comment shaped as a directive knobs has not got
    /// (`<!-- knobs: disable-file -->`): it silences nothing and is reported.
    pub unknown: Option<String>,
}

impl Suppression {
    /// A suppression of `rules` at `span`, covering lines `first..=last`.
    pub fn new(rules: Vec<String>, span: Span, first_line: usize, last_line: usize) -> Suppression {
        Suppression { rules, span, first_line, last_line, unknown: None }
    }

    /// A comment at `span` naming the directive `word`, which knobs has not got.
    pub fn unknown(word: String, span: Span) -> Suppression {
        Suppression { rules: Vec::new(), span, first_line: 0, last_line: 0, unknown: Some(word) }
    }
}

/// The directive a comment's text names when it is one knobs has not got:
/// `knobs: WORD` or `knobs: WORD[…]` as the whole comment (`# knobs:
/// disable-file`, `<!-- knobs: ignroe[KNB002] -->`). A sentence that only
/// starts with `knobs:` (`# knobs: the tuning below`) is not a directive.
pub fn unknown_directive(comment: &str) -> Option<String> {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"^(?:#|<!--)\s*knobs:\s*([A-Za-z][\w-]*)(?:\[[^\]]*\])?\s*(?:-->)?\s*$").expect("valid regex")
    });
    let word = RE.captures(comment.trim())?.get(1)?.as_str();
    (word != "ignore" && word != "ignore-file").then(|| word.to_string())
}

/// `knobs: ignore-file` or `knobs: ignore-file[KNB002]` anywhere in a file:
/// the rules silenced for the whole file (empty: every rule).
pub fn file_directive(text: &str) -> Option<Vec<String>> {
    static RE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"knobs:\s*ignore-file(?:\[([^\]]*)\])?").expect("valid regex"));
    static IGNORE_FILE: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(b"ignore-file"));
    IGNORE_FILE.find(text.as_bytes())?;
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
    static KNOBS: LazyLock<memchr::memmem::Finder<'static>> = LazyLock::new(|| memchr::memmem::Finder::new(b"knobs:"));
    if KNOBS.find(text.as_bytes()).is_none() {
        return Vec::new();
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(hash) = line.find("# knobs:").or_else(|| line.find("#knobs:")) else { continue };
        let col = line[..hash].chars().count() + 1;
        let span = Span { line: i + 1, col, end_line: i + 1, end_col: line.chars().count() + 1 };
        let Some(rules) = directive(&line[hash..]) else {
            if let Some(word) = unknown_directive(&line[hash..]) {
                out.push(Suppression::unknown(word, span));
            }
            continue;
        };
        let target = if line[..hash].trim().is_empty() {
            (i + 1..lines.len()).find(|j| !lines[*j].trim().is_empty()).map_or(i + 1, |j| j + 1)
        } else {
            i + 1
        };
        out.push(Suppression::new(rules, span, target, target));
    }
    out
}

/// Drops what suppressions silence; reports unused and unknown suppressions.
pub(crate) fn apply(violations: Vec<Violation>, suppressions: &[Suppression]) -> Vec<Violation> {
    let mut used = vec![false; suppressions.len()];
    let mut kept = Vec::new();
    for v in violations {
        let hit = suppressions.iter().position(|s| {
            s.unknown.is_none() && (s.first_line..=s.last_line).contains(&v.span.line) && names(&s.rules, v.rule)
        });
        match hit {
            Some(i) => used[i] = true,
            None => kept.push(v),
        }
    }
    for (s, used) in suppressions.iter().zip(used) {
        if let Some(word) = &s.unknown {
            kept.push(rules::unknown_suppression::directive_violation(s.span, word));
            continue;
        }
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
    fn unknown_directives() {
        assert_eq!(unknown_directive("<!-- knobs: disable-file -->"), Some("disable-file".into()));
        assert_eq!(unknown_directive("# knobs: ignroe[KNB002]"), Some("ignroe".into()));
        assert_eq!(unknown_directive("#knobs: skip"), Some("skip".into()));
        assert_eq!(unknown_directive("<!-- knobs: ignore-file -->"), None, "a file directive");
        assert_eq!(unknown_directive("# knobs: ignore[KNB002]"), None);
        assert_eq!(unknown_directive("# knobs: the tuning below"), None, "a sentence");
        assert_eq!(unknown_directive("<!-- a note about knobs: here -->"), None);
        let s = line_comments("X=1\n  # knobs: disable\n");
        assert_eq!((s[0].unknown.as_deref(), s[0].span.line, s[0].span.col), (Some("disable"), 2, 3));
    }

    #[test]
    fn line_targets() {
        let s = line_comments("# knobs: ignore[bad-value]\n\nX=1\nY=2 # knobs: ignore\n");
        assert_eq!((s[0].first_line, s[0].last_line), (3, 3));
        assert_eq!((s[1].first_line, s[1].span.col), (4, 5));
    }
}
