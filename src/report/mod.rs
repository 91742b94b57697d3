//! Output formats for lint findings, one file each, chosen by [`Format`].
//! Only `human` uses miette's rendering.

mod github;
mod human;
mod json;
mod notes;
mod sarif;
mod short;

use clap::ValueEnum;

use crate::lint::finding::Report;

pub use notes::notes;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Source snippets with labels and help (miette)
    Human,
    /// `path:line:col: CODE message`, one per line
    Short,
    /// One JSON document: findings and a summary
    Json,
    /// SARIF 2.1.0, for code scanning
    Sarif,
    /// GitHub Actions workflow commands (annotations)
    Github,
}

/// How the run was set up, for summaries.
pub struct Context<'a> {
    /// `radiance v1.8.1`
    pub build: &'a str,
    pub color: bool,
    /// False under --quiet: no summary line.
    pub summary: bool,
}

/// Renders a report in a format.
pub fn render(report: &Report, format: Format, ctx: &Context<'_>) -> String {
    match format {
        Format::Human => human::render(report, ctx),
        Format::Short => short::render(report),
        Format::Json => json::render(report, ctx),
        Format::Sarif => sarif::render(report),
        Format::Github => github::render(report),
    }
}

/// `s` safe to print on one line of a terminal or a CI log: control
/// characters a linted file (or its name) carries are shown as their
/// Unicode pictures (`␛`, `␀`, `␇`, `␊`), one character each so that columns
/// stay where they were, instead of reaching the terminal as escape
/// sequences or starting a line a CI runner reads as a command
/// (`::error …::`). Tabs stay.
pub(crate) fn visible(s: &str) -> std::borrow::Cow<'_, str> {
    pictures(s, false)
}

/// As [`visible`], but line breaks stay: for text of several lines that
/// knobs lays out itself (an error, `explain`, `catalog show`).
pub(crate) fn visible_lines(s: &str) -> std::borrow::Cow<'_, str> {
    pictures(s, true)
}

fn pictures(s: &str, keep_lines: bool) -> std::borrow::Cow<'_, str> {
    let hidden = |c: char| c.is_control() && c != '\t' && !(keep_lines && c == '\n');
    if !s.chars().any(hidden) {
        return std::borrow::Cow::Borrowed(s);
    }
    s.chars()
        .map(|c| match c {
            c if !hidden(c) => c,
            '\u{7f}' => '\u{2421}',
            c if (c as u32) < 0x20 => char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'),
            _ => '\u{fffd}',
        })
        .collect()
}

/// `--statistics`: how many findings each rule has, most first.
pub fn statistics(report: &Report) -> String {
    use std::fmt::Write as _;
    let mut counts: Vec<(usize, &str, &str)> = Vec::new();
    for f in report.findings() {
        match counts.iter_mut().find(|(_, c, _)| *c == f.code) {
            Some(e) => e.0 += 1,
            None => counts.push((1, f.code, f.rule)),
        }
    }
    counts.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let width = counts.first().map_or(1, |c| c.0.to_string().len());
    let mut out = String::new();
    for (n, code, name) in &counts {
        let _ = writeln!(out, "{n:>width$}  {code}  {name}");
    }
    let total: usize = counts.iter().map(|c| c.0).sum();
    let _ = writeln!(out, "{} in {}.", plural(total, "finding"), plural(report.linted(), "file"));
    out
}

/// The counts every summary quotes.
pub(crate) struct Counts {
    pub files: usize,
    pub errors: usize,
    pub warnings: usize,
    /// Findings `--fix` rewrites.
    pub fixable: usize,
}

pub(crate) fn counts(report: &Report) -> Counts {
    use crate::lint::rules::Severity;
    let errors = report.findings().filter(|f| f.severity == Severity::Error).count();
    let warnings = report.findings().filter(|f| f.severity == Severity::Warning).count();
    let fixable = report.findings().filter(|f| f.fix.is_some()).count();
    Counts { files: report.linted(), errors, warnings, fixable }
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    use super::{visible, visible_lines};

    #[test]
    fn control_characters_are_shown_as_pictures() {
        assert_eq!(visible("fl\u{1b}]0;pwned\u{7}oor\u{0}\u{7f}\u{9b}\tx\n"), "fl␛]0;pwned␇oor␀␡\u{fffd}\tx␊");
        assert_eq!(visible_lines("a\r\n::error::x\u{1b}\n"), "a␍\n::error::x␛\n");
        assert!(matches!(visible("plain `text`"), std::borrow::Cow::Borrowed(_)));
    }
}
