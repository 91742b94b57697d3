//! The default format: each finding as a miette diagnostic with the source
//! line, a label under the offending text and the help (`[*]` after the
//! code when `--fix` rewrites it), then a summary.

use std::fmt::Write as _;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceSpan};

use super::{counts, plural, Context};
use crate::lint::finding::{Excerpt, Finding, Report};
use crate::lint::rules::Severity;

/// The line a finding points at (with a line of context on each side), cut
/// to a window around it: the renderer never formats a line of any length
/// or a column of any size, and the header still says the exact line and
/// column.
#[derive(Debug)]
struct Snippet {
    name: String,
    /// The lines shown: the finding's, cut around it when long, and its
    /// neighbours, cut at the same width.
    window: String,
    /// 0-based line of the window's first line in the file.
    first_line: usize,
    /// 0-based line and column (in characters) of the finding in the file.
    line: usize,
    column: usize,
    lines: usize,
}

impl miette::SourceCode for Snippet {
    fn read_span<'a>(
        &'a self,
        _span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn miette::SpanContents<'a> + 'a>, miette::MietteError> {
        // Asked with context, the whole window (numbered from its first
        // line); asked without, the finding's own line and column (the header).
        let (line, column) = if before + after > 0 { (self.first_line, 0) } else { (self.line, self.column) };
        Ok(Box::new(miette::MietteSpanContents::new_named(
            self.name.clone(),
            self.window.as_bytes(),
            SourceSpan::from(0..self.window.len()),
            line,
            column,
            self.lines,
        )))
    }
}

/// Longest line shown whole; a longer one is cut to a window this wide.
const MAX_LINE: usize = 160;
const WINDOW: usize = 120;

/// Characters `from..to` of a line, with `…` where it was cut.
fn cut(line: &str, from: usize, to: usize) -> (String, usize) {
    let chars: Vec<usize> = line.char_indices().map(|(b, _)| b).collect();
    let n = chars.len();
    let byte = |c: usize| chars.get(c).copied().unwrap_or(line.len());
    let (from, to) = (from.min(n), to.min(n));
    let mut w = String::new();
    if from > 0 {
        w.push('…');
    }
    let lead = w.len();
    w.push_str(&line[byte(from)..byte(to)]);
    if to < n {
        w.push('…');
    }
    (w, lead)
}

/// The snippet of a finding and its label's span within it.
fn snippet(file: &str, excerpt: &Excerpt, f: &Finding) -> (Snippet, SourceSpan) {
    // The file's own text is shown safely, one character for one, so the
    // columns below are those of the file.
    let line = |n: usize| super::visible(excerpt.line(n));
    let target = line(f.span.line);
    let target = target.as_ref();
    let chars: Vec<usize> = target.char_indices().map(|(b, _)| b).collect();
    let n = chars.len();
    let byte = |c: usize| chars.get(c).copied().unwrap_or(target.len());
    let col = f.span.column.saturating_sub(1).min(n);
    let end_col = if f.span.end_line == f.span.line { f.span.end_column.saturating_sub(1).clamp(col, n) } else { n };
    let (from, to) = if n <= MAX_LINE {
        (0, n)
    } else {
        let from = col.saturating_sub(WINDOW / 3);
        (from, (from + WINDOW).min(n))
    };
    let (shown, lead) = cut(target, from, to);
    let label_from = lead + byte(col.min(to)) - byte(from);
    let label_to = lead + byte(end_col.min(to)) - byte(from);
    // A line of context each side, cut at the same width.
    let mut window = String::new();
    let mut first_line = f.span.line.saturating_sub(1);
    let mut offset = 0;
    if f.span.line > 1 {
        let (prev, _) = cut(&line(f.span.line - 1), from, to.max(from + WINDOW.min(MAX_LINE)));
        window.push_str(&prev);
        window.push('\n');
        offset = window.len();
        first_line -= 1;
    }
    window.push_str(&shown);
    let mut lines = f.span.line - first_line;
    if f.span.line < excerpt.count() {
        let next = line(f.span.line + 1);
        if !(f.span.line + 1 == excerpt.count() && next.is_empty()) {
            let (next, _) = cut(&next, from, to.max(from + WINDOW.min(MAX_LINE)));
            window.push('\n');
            window.push_str(&next);
            lines += 1;
        }
    }
    let label = offset + label_from..offset + label_to.max(label_from);
    let snippet = Snippet {
        name: super::visible(file).into_owned(),
        window,
        first_line,
        line: f.span.line.saturating_sub(1),
        column: col,
        lines,
    };
    (snippet, SourceSpan::from(label))
}

#[derive(Debug)]
struct Shown<'a> {
    finding: &'a Finding,
    source: Snippet,
    span: SourceSpan,
}

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&super::visible(&self.finding.message))
    }
}

impl std::error::Error for Shown<'_> {}

impl Diagnostic for Shown<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        // `[*]`: `--fix` rewrites it (as ruff marks its fixable findings).
        let mark = if self.finding.fix.is_some() { " [*]" } else { "" };
        Some(Box::new(format!("{}{mark} {}", self.finding.code, self.finding.rule)))
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.finding.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }
    fn help<'b>(&'b self) -> Option<Box<dyn std::fmt::Display + 'b>> {
        self.finding.help.as_ref().map(|h| Box::new(super::visible(h)) as Box<dyn std::fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(None, self.span))))
    }
}

pub fn render(report: &Report, ctx: &Context<'_>) -> String {
    let theme = if ctx.color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    // Unwrapped: a message or help naming a long path stays one line.
    let handler = GraphicalReportHandler::new_themed(theme).with_width(100).with_wrap_lines(false);
    let mut out = String::new();
    for file in &report.files {
        for f in &file.findings {
            let (source, span) = snippet(&file.path, &file.lines, f);
            let shown = Shown { finding: f, source, span };
            if handler.render_report(&mut out, &shown).is_err() {
                let (path, message) = (super::visible(&f.path), super::visible(&f.message));
                let _ = writeln!(out, "{path}:{}:{}: {} {message}", f.span.line, f.span.column, f.code);
            }
            // A blank line between findings (and before the summary).
            if !out.ends_with("\n\n") {
                out.push('\n');
            }
        }
    }
    let c = counts(report);
    let total = c.errors + c.warnings;
    if !ctx.summary {
        return out;
    }
    let against = against(report, ctx.build);
    let mut tail = String::new();
    // Files whose content was not read (binary, too large) are counted
    // apart: each may hide findings, and each has a warning above.
    let warned = report.skipped.iter().filter(|s| s.hides_findings()).count();
    if warned > 0 {
        tail = format!("; {} passed over with a warning", plural(warned, "file"));
    }
    let passed = report.skipped.len() - warned + report.excluded;
    if passed > 0 {
        tail.push_str(&format!("; {} passed over (-v names them)", plural(passed, "file")));
    }
    if report.baselined > 0 {
        tail.push_str(&format!("; {} in the baseline", plural(report.baselined, "finding")));
    }
    if total == 0 {
        let _ = writeln!(out, "No findings in {} (against {against}){tail}.", plural(c.files, "file"));
    } else {
        let _ = writeln!(
            out,
            "{} ({}, {}) in {} (against {against}){tail}.",
            plural(total, "finding"),
            plural(c.errors, "error"),
            plural(c.warnings, "warning"),
            plural(c.files, "file"),
        );
    }
    if c.fixable > 0 {
        let _ = writeln!(out, "[*] {} fixable with `knobs lint --fix`.", c.fixable);
    }
    out
}

/// `radiance v1.8.1`, and how many files a folder's pin judged against
/// another version: `radiance v1.8.1; 2 files against v1.0.13`.
fn against(report: &Report, build: &str) -> String {
    let default = build.rsplit(' ').next().unwrap_or("");
    let mut others: Vec<(&str, usize)> = Vec::new();
    for f in &report.files {
        if f.tag != default {
            match others.iter_mut().find(|(t, _)| *t == f.tag) {
                Some(e) => e.1 += 1,
                None => others.push((&f.tag, 1)),
            }
        }
    }
    let mut out = build.to_string();
    for (tag, n) in others {
        out.push_str(&format!("; {} against {tag}", plural(n, "file")));
    }
    out
}
