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

pub(crate) use crate::pictures::{pictures_only, visible, visible_lines};

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
