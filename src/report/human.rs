//! The default format: each finding as a miette diagnostic with the source
//! line, a label under the offending text and the help, then a summary.

use std::fmt::Write as _;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceSpan};

use super::{counts, plural, Context};
use crate::lint::rules::Severity;
use crate::lint::span::LineIndex;
use crate::lint::{Finding, Report};

#[derive(Debug)]
struct Shown<'a> {
    finding: &'a Finding,
    source: NamedSource<String>,
    span: SourceSpan,
}

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.finding.message)
    }
}

impl std::error::Error for Shown<'_> {}

impl Diagnostic for Shown<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        Some(Box::new(format!("{} {}", self.finding.code, self.finding.rule)))
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.finding.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }
    fn help<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        self.finding.help.as_ref().map(|h| Box::new(h) as Box<dyn std::fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(None, self.span))))
    }
}

/// Byte offset of a 1-based line and character column.
fn offset(text: &str, idx: &LineIndex, line: usize, col: usize) -> usize {
    let start = idx.line_start(line);
    let rest = text.get(start..).unwrap_or("");
    start + rest.char_indices().nth(col.saturating_sub(1)).map_or(rest.len(), |(i, _)| i)
}

pub fn render(report: &Report, ctx: &Context<'_>) -> String {
    let theme = if ctx.color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(100);
    let mut out = String::new();
    for file in &report.files {
        if file.findings.is_empty() {
            continue;
        }
        let idx = LineIndex::new(&file.text);
        for f in &file.findings {
            let start = offset(&file.text, &idx, f.span.line, f.span.column);
            let end = offset(&file.text, &idx, f.span.end_line, f.span.end_column).max(start);
            let shown = Shown {
                finding: f,
                source: NamedSource::new(&file.path, file.text.clone()),
                span: SourceSpan::from(start..end),
            };
            if handler.render_report(&mut out, &shown).is_err() {
                let _ = writeln!(out, "{}:{}:{}: {} {}", f.path, f.span.line, f.span.column, f.code, f.message);
            }
        }
    }
    let c = counts(report);
    let total = c.errors + c.warnings;
    if !ctx.summary {
        return out;
    }
    if total == 0 {
        let _ = writeln!(out, "No findings in {} (against {}).", plural(c.files, "file"), ctx.build);
    } else {
        let _ = writeln!(
            out,
            "{} ({}, {}) in {} (against {}).",
            plural(total, "finding"),
            plural(c.errors, "error"),
            plural(c.warnings, "warning"),
            plural(c.files, "file"),
            ctx.build
        );
    }
    out
}
