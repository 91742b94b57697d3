//! `--fix` and `--diff`: rewrite what has one right answer — each rule says
//! which of its findings have one (a renamed flag, a metric's prefix, an env
//! key's spelling; see README's `--fix`). A finding
//! with several possible answers (an invented member) has no fix. Files are
//! rewritten in place after a checked copy, keeping owner, mode and links;
//! one that is read-only, not UTF-8, hard-linked, or a symlink out of its
//! project is left alone with a note; `--diff` prints the rewrite as
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

/// Why `--fix` stopped: the output could not be written, or a file could
/// not be rewritten (named, and left as it was).
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum FixError {
    #[error("cannot write output: {0}")]
    #[diagnostic(code(knobs::output))]
    Output(#[from] std::io::Error),
    #[error("{}", crate::pictures::visible(&.0.to_string()))]
    #[diagnostic(code(knobs::fix))]
    File(#[from] crate::fsutil::FixWriteError),
}

/// Applies (or, with `preview`, prints) the fixes of a report; returns how
/// many findings were fixed.
pub fn apply(
    report: &Report,
    source: &dyn Input,
    root: &Path,
    preview: bool,
    out: &mut dyn Write,
) -> Result<usize, FixError> {
    let mut total = 0;
    for file in &report.files {
        if !file.findings.iter().any(|f| f.fix.is_some()) {
            continue;
        }
        let shown = crate::pictures::visible(&file.path).into_owned();
        // The text as it was linted; the file is re-read to make sure it has
        // not changed since.
        let Some(linted) = file.text.as_deref() else { continue };
        match source.read(Path::new(&file.path)) {
            Ok(now) if now.text == linted => {}
            _ => {
                writeln!(out, "note: {shown} changed while it was linted; not fixed")?;
                continue;
            }
        }
        let (new, n) = fixed(file, linted);
        if n == 0 {
            continue;
        }
        if preview {
            out.write_all(diff(&file.path, linted, &new).as_bytes())?;
        } else {
            let path = root.join(&file.path);
            let checked = match refusal(&path) {
                Err(why) => {
                    writeln!(out, "note: {shown} {}; not fixed", crate::pictures::visible(&why))?;
                    continue;
                }
                Ok(checked) => checked,
            };
            // Symlinks inside the project were judged above: resolved once
            // here, and the file at the end opened without following one.
            let real = std::fs::canonicalize(&path).unwrap_or(path);
            let mut handle = crate::fsutil::open_checked(&real, checked)?;
            crate::fsutil::write_in_place(&mut handle, &real, new.as_bytes())?;
        }
        total += n;
    }
    Ok(total)
}

/// Why `--fix` must not rewrite the file at `path`, if it must not; else
/// which file was checked, for the write to make sure it writes that one.
/// The text linted was decoded, so a file that is not UTF-8 would lose its
/// invalid bytes; a hard link or a symlink may be a file outside the tree.
fn refusal(path: &Path) -> Result<crate::fsutil::Checked, String> {
    if let Err(e) = crate::confine::outside_git(path) {
        return Err(format!("is not project content: {e}"));
    }
    let link = std::fs::symlink_metadata(path).map_err(|e| format!("cannot be read: {e}"))?;
    if link.file_type().is_symlink() {
        let project = crate::confine::project_root(path.parent().unwrap_or(Path::new(".")));
        if let Err(e) = crate::confine::inside(&project, path) {
            return Err(format!("is a symlink: {e}"));
        }
    }
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot be read: {e}"))?;
    if !meta.is_file() {
        return Err("is not a regular file".into());
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        // The mode bits, not a trial write: root may write anything.
        if meta.permissions().mode() & 0o222 == 0 {
            return Err("is read-only".into());
        }
        if meta.nlink() > 1 {
            return Err(format!("has {} hard links, which may be outside the project", meta.nlink()));
        }
    }
    #[cfg(not(unix))]
    if meta.permissions().readonly() {
        return Err("is read-only".into());
    }
    match crate::bounded::read(path, u64::MAX) {
        Ok(bytes) if std::str::from_utf8(&bytes).is_err() => {
            Err("is not UTF-8: fixing it would replace its invalid bytes".into())
        }
        Ok(_) => Ok(crate::fsutil::Checked::of(&meta)),
        Err(e) => Err(format!("cannot be read: {e}")),
    }
}
