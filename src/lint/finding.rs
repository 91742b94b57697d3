//! The output model of a lint run: a [`Finding`] (one rule's verdict on
//! one place, ready for any format), the [`FileReport`] of a file, and the
//! [`Report`] of a run. `report/` renders these and imports nothing else
//! of the lint but the rules' names and severities.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use super::rules::{Severity, Violation};
use super::span::{LineIndex, Span};
use crate::walk::Skipped;

/// One finding, ready for any output format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub code: &'static str,
    pub rule: &'static str,
    pub severity: Severity,
    pub path: String,
    #[serde(flatten)]
    pub span: SpanOut,
    pub message: String,
    pub help: Option<String>,
    /// The text that replaces the span under `--fix`, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// A span as the JSON output names its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SpanOut {
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

impl Finding {
    /// A rule's violation in `path` (as shown), at the severity the run
    /// gives the rule; over-long quoted words in its texts are cut.
    pub(crate) fn new(v: Violation, severity: Severity, path: &str) -> Finding {
        Finding {
            code: v.rule.code,
            rule: v.rule.name,
            severity,
            path: path.to_string(),
            span: v.span.into(),
            message: elide_quoted(&v.message),
            help: v.help.as_deref().map(elide_quoted),
            fix: v.fix,
        }
    }
}

impl From<Span> for SpanOut {
    fn from(s: Span) -> Self {
        SpanOut { line: s.line, column: s.col, end_line: s.end_line, end_column: s.end_col }
    }
}

/// A linted file: its findings, the lines around them (for snippets), and
/// its whole text only where fixes will be applied.
#[derive(Debug, Clone)]
pub struct FileReport {
    pub path: String,
    /// The whole text as linted, kept only when [`super::Settings::keep_text`] asks.
    pub text: Option<String>,
    /// The lines a snippet shows: each finding's line and one each side.
    pub lines: Excerpt,
    pub findings: Vec<Finding>,
    /// Which build the file was judged against.
    pub tag: String,
    /// Why that build, when the file names none itself and something around
    /// it does (`the build deploy/compose.yaml runs`): said with `-v`.
    pub judged_by: Option<String>,
    /// Things about this file the user should know that are not findings.
    pub notes: Vec<String>,
    /// Env files this unit names (`EnvironmentFile=`), beside it.
    pub env_files: Vec<PathBuf>,
    /// YAML files of options its argv names (`--config FILE`), with the
    /// build that argv is judged against.
    pub options_files: Vec<(PathBuf, String)>,
}

impl FileReport {
    /// Nothing to say: no findings, no notes, judged against `tag`.
    pub(crate) fn is_clean(&self, tag: &str) -> bool {
        self.findings.is_empty() && self.notes.is_empty() && self.tag == tag
    }
}

/// Some lines of a file, by 1-based number, and how many lines it has.
#[derive(Debug, Clone, Default)]
pub struct Excerpt {
    lines: BTreeMap<usize, String>,
    count: usize,
}

impl Excerpt {
    /// The lines around every finding in `text`.
    pub(crate) fn around(text: &str, idx: &LineIndex, findings: &[Finding]) -> Excerpt {
        let mut lines = BTreeMap::new();
        for f in findings {
            for n in f.span.line.saturating_sub(1).max(1)..=f.span.line + 1 {
                if n <= idx.line_count() {
                    // A byte-order mark is not shown (nor counted as a column).
                    let line = idx.line_text(text, n);
                    let line = if n == 1 { line.strip_prefix('\u{feff}').unwrap_or(line) } else { line };
                    lines.entry(n).or_insert_with(|| line.to_string());
                }
            }
        }
        Excerpt { lines, count: idx.line_count() }
    }

    /// The text of a 1-based line without its line ending ("" when not kept).
    pub fn line(&self, n: usize) -> &str {
        self.lines.get(&n).map_or("", String::as_str)
    }

    /// How many lines the file has (a final newline starts an empty one).
    pub fn count(&self) -> usize {
        self.count
    }
}

/// Everything one `knobs lint` run found.
#[derive(Debug, Default)]
pub struct Report {
    /// Files with something to say: findings, notes, or a version other
    /// than the run's (every file with [`super::Settings::keep_clean`]).
    pub files: Vec<FileReport>,
    /// Files linted with nothing to say, counted, not kept.
    pub clean: usize,
    /// Files knobs failed on (a bug): the run goes on and exits 2.
    pub failed: Vec<(PathBuf, String)>,
    pub skipped: Vec<Skipped>,
    /// Files a walk left out by `exclude` or ignore files.
    pub excluded: usize,
    /// Things about the run the user should know that are not findings.
    pub notes: Vec<String>,
    /// Files linted as env files because a unit names them, not by their name.
    pub named_env: Vec<PathBuf>,
    /// Findings left out because the baseline records them.
    pub baselined: usize,
}

impl Report {
    /// How many files were linted.
    pub fn linted(&self) -> usize {
        self.files.len() + self.clean
    }

    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.files.iter().flat_map(|f| f.findings.iter())
    }

    /// Adds another run's files, counts and notes (a run over several
    /// projects, each under its own knobs.toml).
    pub fn absorb(&mut self, other: Report) {
        self.files.extend(other.files);
        self.clean += other.clean;
        self.failed.extend(other.failed);
        self.skipped.extend(other.skipped);
        self.excluded += other.excluded;
        self.notes.extend(other.notes);
        self.baselined += other.baselined;
    }

    /// Every note: the run's, then file by file.
    pub fn all_notes(&self) -> impl Iterator<Item = &String> {
        self.notes.iter().chain(self.files.iter().flat_map(|f| f.notes.iter()))
    }
}

/// Words quoted in a message (`` `…` ``) longer than this are shortened.
const QUOTED_MAX: usize = 80;

/// A message with each over-long quoted word cut in the middle: a 5 MB
/// value is named, not printed.
fn elide_quoted(message: &str) -> String {
    if message.len() <= QUOTED_MAX {
        return message.to_string();
    }
    let mut out = String::with_capacity(message.len().min(1024));
    for (i, part) in message.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        let quoted = i % 2 == 1;
        let n = part.chars().count();
        if quoted && n > QUOTED_MAX {
            out.extend(part.chars().take(QUOTED_MAX - 20));
            out.push('…');
            out.extend(part.chars().skip(n - 10));
        } else {
            out.push_str(part);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_quoted_words_are_cut_in_the_middle() {
        let long = format!("`{}x` is not a member of `--a`", "a".repeat(5000));
        let cut = elide_quoted(&long);
        assert_eq!(cut, format!("`{}…{}x` is not a member of `--a`", "a".repeat(60), "a".repeat(9)));
        assert_eq!(elide_quoted("`short` is fine"), "`short` is fine");
    }
}
