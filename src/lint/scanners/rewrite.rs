//! A text rewritten as shell for the shell reader, with the place of every
//! byte kept: Windows batch, PowerShell, a Makefile's recipes and a YAML
//! scalar are each turned into shell text here and there (`^` → `\`,
//! `%PORT%` → `${PORT}`, `$$` → `$`), the shell reader reads that text, and
//! every place it reports maps back to where it was written. No second
//! argv reader: only the text changes.

use std::ops::Range;

use super::{shell, Scan, ScanCtx};
use crate::lint::span::Span;

/// Shell text and, for each of its bytes, the offset it came from.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Rewrite {
    text: String,
    at: Vec<usize>,
}

impl Rewrite {
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Copies `from[range]` as it is.
    pub fn keep(&mut self, from: &str, range: Range<usize>) {
        let Some(s) = from.get(range.clone()) else { return };
        self.text.push_str(s);
        self.at.extend(range);
    }

    /// Writes `s` in place of the bytes `range` of the source: its bytes map
    /// onto the range in order, the last ones onto its last byte (and its
    /// last byte always there: the whole of `s` stands for the whole range).
    pub fn put(&mut self, s: &str, range: Range<usize>) {
        let last = range.end.saturating_sub(1).max(range.start);
        self.text.push_str(s);
        let end = s.len().saturating_sub(1);
        self.at.extend((0..s.len()).map(|i| if i == end && i > 0 { last } else { (range.start + i).min(last) }));
    }

    /// Copies the bytes `range` of another rewrite of the same source, with
    /// their places.
    pub fn append(&mut self, other: &Rewrite, range: Range<usize>) {
        let Some(t) = other.text.get(range.clone()) else { return };
        self.text.push_str(t);
        self.at.extend_from_slice(&other.at[range]);
    }

    /// The source offset of byte `i` of the text.
    fn start(&self, i: usize) -> usize {
        match self.at.get(i) {
            Some(&a) => a,
            None => self.at.last().map_or(0, |a| a + 1),
        }
    }

    /// The source offset just past byte `i - 1` (an exclusive end).
    fn end(&self, i: usize) -> usize {
        match i.checked_sub(1).and_then(|j| self.at.get(j)) {
            Some(&a) => a + 1,
            None => self.start(i),
        }
    }

    /// The source range of a range of the text.
    pub fn source(&self, s: usize, e: usize) -> Range<usize> {
        let start = self.start(s);
        start..self.end(e).max(start)
    }

    /// This rewrite's text rewritten again by `f`, its places kept.
    pub fn then(&self, f: impl Fn(&str) -> Rewrite) -> Rewrite {
        let inner = f(&self.text);
        let at = inner.at.iter().map(|&i| self.start(i)).collect();
        Rewrite { text: inner.text, at }
    }

    /// Reads the text as shell; `span` maps a source range to a span.
    pub fn scan_shell(&self, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan) {
        shell::scan(
            &self.text,
            &|s, e| {
                let r = self.source(s, e);
                span(r.start, r.end)
            },
            ctx,
            out,
        );
    }
}

/// A scalar's text as the file holds it: each line found in `file` from
/// `at` on (a block scalar holds the same lines, indented); a line that is
/// not there as written (a folded scalar, escapes) points at its start.
pub(crate) fn scalar(text: &str, file: &str, at: Range<usize>) -> Rewrite {
    let mut out = Rewrite::default();
    let mut from = at.start;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        let found = file.get(from..).and_then(|rest| rest.find(body)).map(|i| from + i);
        match found {
            Some(i) if !body.is_empty() => {
                out.keep(file, i..i + body.len());
                from = i + body.len();
            }
            // A folded scalar (`>`) joins lines: each word is found on its own.
            _ => from = words(body, file, from, &mut out),
        }
        if line.ends_with('\n') {
            out.put("\n", from..from + 1);
        }
    }
    out
}

/// `line`'s words, each where it is found in `file` from `from` on (the
/// spaces between them where the word before ends); a word not found
/// points at where the search stands. Returns where the search ends.
fn words(line: &str, file: &str, mut from: usize, out: &mut Rewrite) -> usize {
    let mut i = 0;
    for word in line.split(' ') {
        if !word.is_empty() {
            match file.get(from..).and_then(|rest| rest.find(word)).map(|at| from + at) {
                Some(at) => {
                    out.keep(file, at..at + word.len());
                    from = at + word.len();
                }
                None => out.put(word, from..from + 1),
            }
        }
        i += word.len();
        if i < line.len() {
            out.put(" ", from..from + 1);
            i += 1;
        }
    }
    from
}

/// Every `${{ … }}` of a GitHub Actions expression as a shell expansion
/// (`${_}`): a value known only when the workflow runs.
pub(crate) fn expressions(text: &str) -> Rewrite {
    let mut out = Rewrite::default();
    let mut i = 0;
    while let Some(s) = text[i..].find("${{").map(|s| i + s) {
        out.keep(text, i..s);
        let e = text[s..].find("}}").map_or(text.len(), |e| s + e + 2);
        out.put("${_}", s..e);
        i = e;
    }
    out.keep(text, i..text.len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_map_back() {
        let src = "a %PORT% b";
        let mut r = Rewrite::default();
        r.keep(src, 0..2);
        r.put("${PORT}", 2..8);
        r.keep(src, 8..10);
        assert_eq!(r.text(), "a ${PORT} b");
        // `b` is at 10 in the rewrite, 9 in the source.
        assert_eq!(r.source(10, 11), 9..10);
        // The whole expansion is the whole `%PORT%`.
        assert_eq!(r.source(2, 9), 2..8);
        let twice = r.then(|t| {
            let mut o = Rewrite::default();
            o.keep(t, 10..11);
            o
        });
        assert_eq!((twice.text(), twice.source(0, 1)), ("b", 9..10));
    }

    #[test]
    fn block_scalar_lines_are_found_in_the_file() {
        let file = "run: |\n  llama-server \\\n    --port 8080\n";
        let r = scalar("llama-server \\\n  --port 8080\n", file, 5..file.len());
        let at = r.text().find("--port").expect("there");
        assert_eq!(&file[r.source(at, at + 6)], "--port");
        // Folded: one line in the scalar, two in the file.
        let file = "cmd: >\n  llama-server\n  --port 8080\n";
        let r = scalar("llama-server --port 8080\n", file, 5..file.len());
        assert_eq!(r.text(), "llama-server --port 8080\n");
        let at = r.text().find("--port").expect("there");
        assert_eq!(r.source(at, at + 6), file.find("--port").map(|p| p..p + 6).expect("in the file"));
        let e = expressions("x ${{ inputs.port }} y");
        assert_eq!(e.text(), "x ${_} y");
        assert_eq!(e.source(7, 8), 21..22);
    }
}
