//! An error that points into a file: the file's text, the place, a label and
//! a help line, rendered by miette with the offending line shown. Every file
//! knobs reads and refuses (knobs.toml, a catalogue, an overlay) says where.

use std::ops::Range;
use std::path::Path;

use miette::{LabeledSpan, NamedSource, SourceSpan};

/// An error at a place in a file.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct FileError {
    pub message: String,
    pub src: NamedSource<String>,
    pub span: Option<SourceSpan>,
    pub label: String,
    pub help: Option<String>,
    /// The diagnostic code shown above the message (`knobs::config`).
    pub code: Option<&'static str>,
}

impl miette::Diagnostic for FileError {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.code.map(|c| Box::new(c) as Box<dyn std::fmt::Display>)
    }

    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.help.as_ref().map(|h| Box::new(h) as Box<dyn std::fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.src)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let span = self.span?;
        Some(Box::new(std::iter::once(LabeledSpan::new_with_span(Some(self.label.clone()), span))))
    }
}

impl FileError {
    pub fn new(path: &Path, text: &str, span: Option<Range<usize>>, message: String, label: &str) -> FileError {
        // A span past the end (or inside a character) would make miette
        // refuse to draw; it is moved back onto the text.
        let span = span.map(|r| {
            let end = floor_boundary(text, r.end.min(text.len()));
            let start = floor_boundary(text, r.start.min(end));
            start..end
        });
        // An empty file has no line to draw the label under: it joins the
        // message instead.
        let (message, span) = if text.trim().is_empty() {
            (format!("{message}: {label} (the file is empty)"), None)
        } else {
            (message, span)
        };
        match span.clone().and_then(|r| excerpt(text, r)) {
            Some((short, r, at)) => FileError::raw(path, &short, Some(r), message, &format!("{label} ({at})")),
            None => FileError::raw(path, text, span, message, label),
        }
    }

    /// A file that could not be read: the message alone.
    pub fn unreadable(path: &Path, message: String) -> FileError {
        FileError::raw(path, "", None, message, "")
    }

    fn raw(path: &Path, text: &str, span: Option<Range<usize>>, message: String, label: &str) -> FileError {
        FileError {
            message,
            // The file's name is shown on one line, whatever it holds.
            src: NamedSource::new(crate::pictures::visible(&path.display().to_string()), text.to_string()),
            span: span.map(|r| SourceSpan::from(r.start..r.end)),
            label: label.to_string(),
            help: None,
            code: None,
        }
    }

    /// Shows `code` above the message.
    pub fn with_code(mut self, code: &'static str) -> FileError {
        self.code = Some(code);
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> FileError {
        self.help = Some(help.into());
        self
    }

    /// A TOML parse or type error: its own message, at its own place.
    pub fn from_toml(path: &Path, text: &str, what: &str, e: &toml::de::Error) -> FileError {
        FileError::new(
            path,
            text,
            e.span(),
            format!("{} is not {what}", crate::pictures::visible(&path.display().to_string())),
            e.message(),
        )
    }
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Where `key = …` or a `[table."key"]` header first names `name` in TOML
/// text: the quoted or bare name's byte range.
pub fn find_key(text: &str, name: &str) -> Option<Range<usize>> {
    for quoted in [format!("\"{name}\""), format!("'{name}'")] {
        if let Some(i) = text.find(&quoted) {
            return Some(i..i + quoted.len());
        }
    }
    let mut from = 0;
    while let Some(i) = text[from..].find(name) {
        let at = from + i;
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        let bare = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-'));
        if bare(before) && bare(after) {
            return Some(at..at + name.len());
        }
        from = at + name.len();
    }
    None
}

/// The most of one line an error shows around its place.
const EXCERPT: usize = 160;

/// For a place on a line longer than an excerpt: the text the error shows
/// instead — the lines before it blank (so the line number holds), and of
/// the line only [`EXCERPT`] bytes either side of the place, cut at
/// characters and marked `…` — with the place moved onto it and the true
/// line and column spelled out. A file that parsed as text is never shown
/// whole on one line (a megabyte of one line, or the environment).
fn excerpt(text: &str, r: Range<usize>) -> Option<(String, Range<usize>, String)> {
    let line_start = text[..r.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[r.start..].find('\n').map_or(text.len(), |i| r.start + i);
    if line_end - line_start <= 2 * EXCERPT {
        return None;
    }
    let from = floor_boundary(text, r.start.saturating_sub(EXCERPT).max(line_start));
    let to = floor_boundary(text, (r.end.min(line_end)).saturating_add(EXCERPT).min(line_end));
    let line = text[..line_start].matches('\n').count();
    let column = text[line_start..r.start].chars().count() + 1;
    let lead = if from > line_start { "…" } else { "" };
    let tail = if to < line_end { "…" } else { "" };
    let mut short = "\n".repeat(line);
    short.push_str(lead);
    let start = short.len() + (r.start - from);
    let end = start + (r.end.min(to) - r.start);
    short.push_str(&text[from..to]);
    short.push_str(tail);
    Some((short, start..end, format!("line {}, column {column}", line + 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_stay_on_the_text() {
        let e = FileError::new(Path::new("x"), "é", Some(1..40), "m".into(), "l");
        assert_eq!(e.span, Some(SourceSpan::from(0..2)));
        assert_eq!(find_key("[flag.\"--a\"]\nx = 1\n", "--a"), Some(6..11));
        assert_eq!(find_key("a-b = 1\nb = 2\n", "b"), Some(8..9));
    }
}
