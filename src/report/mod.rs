//! Output formats for lint findings, one file each, chosen by [`Format`].
//! Only `human` uses miette's rendering.

mod github;
mod human;
mod json;
mod sarif;
mod short;

use clap::ValueEnum;

use crate::lint::Report;

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

/// The counts every summary quotes.
pub(crate) struct Counts {
    pub files: usize,
    pub errors: usize,
    pub warnings: usize,
}

pub(crate) fn counts(report: &Report) -> Counts {
    use crate::lint::rules::Severity;
    let errors = report.findings().filter(|f| f.severity == Severity::Error).count();
    let warnings = report.findings().filter(|f| f.severity == Severity::Warning).count();
    Counts { files: report.files.len(), errors, warnings }
}

fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}
