//! Reading what knobs printed: findings line by line, and error messages
//! with miette's wrapping undone.

/// The lines of `--format short` output, one finding each.
pub fn short(out: &str) -> Vec<&str> {
    out.lines().collect()
}

/// A message as one line: miette's margin (`│`) and wrapping removed, words
/// joined by single spaces (a help text may still span lines).
pub fn flat(s: &str) -> String {
    s.replace('│', " ").split_whitespace().collect::<Vec<_>>().join(" ")
}
