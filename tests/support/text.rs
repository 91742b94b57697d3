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

/// `--format short` findings as (file, line, code), the column left out.
pub fn file_line_code(out: &str) -> Vec<(String, usize, String)> {
    out.lines()
        .filter_map(|l| {
            let mut parts = l.splitn(4, ':');
            let file = parts.next()?.to_string();
            let line = parts.next()?.parse().ok()?;
            let _col = parts.next()?;
            let code = parts.next()?.split_whitespace().next()?.to_string();
            Some((file, line, code))
        })
        .collect()
}
