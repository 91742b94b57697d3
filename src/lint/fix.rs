//! `--fix` and `--diff`: rewrite what has one right answer — a flag renamed
//! between catalogued versions, a metric under the wrong prefix. A finding
//! with several possible answers (an invented member) has no fix. Files are
//! rewritten atomically, keeping their mode; `--diff` prints the rewrite as
//! a unified diff (three lines of context: `knobs lint --diff | git apply`
//! works) and changes nothing.

use std::io::Write;
use std::path::Path;

use super::input::Input;
use super::span::LineIndex;
use super::{FileReport, Report};

/// One replacement, as byte offsets into a file's text.
struct Edit {
    start: usize,
    end: usize,
    text: String,
}

fn byte_of(text: &str, idx: &LineIndex, line: usize, col: usize) -> usize {
    let mut start = idx.line_start(line);
    // Columns on the first line start after a byte-order mark.
    if start == 0 && text.starts_with('\u{feff}') {
        start = '\u{feff}'.len_utf8();
    }
    let rest = text.get(start..).unwrap_or("");
    start + rest.char_indices().nth(col.saturating_sub(1)).map_or(rest.len(), |(i, _)| i)
}

/// The file's text with every fix applied, and how many were.
fn fixed(file: &FileReport, text: &str) -> (String, usize) {
    let idx = LineIndex::new(text);
    let mut edits: Vec<Edit> = file
        .findings
        .iter()
        .filter_map(|f| {
            let replacement = f.fix.clone()?;
            let start = byte_of(text, &idx, f.span.line, f.span.column);
            let end = byte_of(text, &idx, f.span.end_line, f.span.end_column).max(start);
            Some(Edit { start, end, text: replacement })
        })
        .collect();
    edits.sort_by_key(|e| (e.start, e.end));
    // Overlapping edits cannot both be right: keep the first.
    let mut kept: Vec<Edit> = Vec::new();
    for e in edits {
        if kept.last().is_none_or(|k| e.start >= k.end) {
            kept.push(e);
        }
    }
    let mut out = text.to_string();
    for e in kept.iter().rev() {
        out.replace_range(e.start..e.end, &e.text);
    }
    (out, kept.len())
}

/// A unified diff of two texts with three lines of context around each
/// change, as `git apply` and `patch` take it.
fn diff(path: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

/// Applies (or, with `preview`, prints) the fixes of a report; returns how
/// many findings were fixed.
pub fn apply(
    report: &Report,
    source: &dyn Input,
    root: &Path,
    preview: bool,
    out: &mut dyn Write,
) -> std::io::Result<usize> {
    let mut total = 0;
    for file in &report.files {
        if !file.findings.iter().any(|f| f.fix.is_some()) {
            continue;
        }
        // The text as it was linted; the file is re-read to make sure it has
        // not changed since.
        let Some(linted) = file.text.as_deref() else { continue };
        match source.read(Path::new(&file.path)) {
            Ok(now) if now.text == linted => {}
            _ => {
                writeln!(out, "note: {} changed while it was linted; not fixed", file.path)?;
                continue;
            }
        }
        let (new, n) = fixed(file, linted);
        if n == 0 {
            continue;
        }
        total += n;
        if preview {
            out.write_all(diff(&file.path, linted, &new).as_bytes())?;
        } else {
            write_keeping_mode(&root.join(&file.path), &new)?;
        }
    }
    Ok(total)
}

/// Rewrites a file atomically (a temporary file renamed over it) with the
/// mode it had. A file named through a symlink is rewritten where the link
/// points: renaming over the link would replace it and leave its target
/// unfixed.
fn write_keeping_mode(path: &Path, text: &str) -> std::io::Result<()> {
    let path = &std::fs::canonicalize(path)?;
    let perms = std::fs::metadata(path)?.permissions();
    crate::fsutil::write_atomic(path, text, crate::fsutil::Mode::Exactly(perms))
        .map_err(crate::fsutil::WriteError::into_io)
}
