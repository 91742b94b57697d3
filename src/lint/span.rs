//! Positions in a file: byte offsets turned into 1-based lines and columns
//! counted in characters, as editors and SARIF count them.

/// A region of a file, 1-based, columns in characters, end exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    pub line: usize,
    pub col: usize,
    pub end_line: usize,
    pub end_col: usize,
}

/// Maps byte offsets of one text to lines and columns.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
    /// An all-ASCII text counts columns in bytes.
    ascii: bool,
    /// A leading byte-order mark is not a column: editors do not show it.
    bom: bool,
    /// The line the last position was on (1-based): places are mostly
    /// asked for in the order of the text, so the next is usually on it.
    last: std::cell::Cell<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = Vec::with_capacity(text.len() / 32 + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex { starts, ascii: text.is_ascii(), bom: text.starts_with('\u{feff}'), last: std::cell::Cell::new(1) }
    }

    /// Characters in `text[from..to]` (clamped to char boundaries by `get`).
    fn chars(&self, text: &str, from: usize, to: usize) -> usize {
        if self.ascii {
            return to - from;
        }
        let n = text.get(from..to).map_or(to - from, |s| s.chars().count());
        if self.bom && from == 0 && to >= 3 {
            n - 1
        } else {
            n
        }
    }

    /// 1-based (line, column) of a byte offset; the column counts characters.
    pub fn position(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let last = self.last.get();
        // On the line of the last position, or the one after it (places
        // come in the order of the text), else searched for.
        let on = |line: usize| {
            self.starts.get(line - 1).is_some_and(|&s| s <= offset) && self.starts.get(line).is_none_or(|&n| offset < n)
        };
        let line = if on(last) {
            last
        } else if on(last + 1) {
            last + 1
        } else {
            self.starts.partition_point(|&s| s <= offset).max(1)
        };
        self.last.set(line);
        let start = self.starts[line - 1];
        (line, self.chars(text, start, offset) + 1)
    }

    pub fn span(&self, text: &str, start: usize, end: usize) -> Span {
        let (line, col) = self.position(text, start);
        let end = end.max(start).min(text.len());
        let start = start.min(text.len());
        // An end on the same line is counted on from the start.
        let same_line = self.starts.get(line).is_none_or(|next| end < *next);
        if same_line && text.is_char_boundary(start) {
            return Span { line, col, end_line: line, end_col: col + self.chars(text, start, end) };
        }
        let (end_line, end_col) = self.position(text, end);
        Span { line, col, end_line, end_col }
    }

    /// The text of a 1-based line, without its newline.
    pub fn line_text<'t>(&self, text: &'t str, line: usize) -> &'t str {
        let Some(&start) = self.starts.get(line.wrapping_sub(1)) else { return "" };
        let end = self.starts.get(line).map_or(text.len(), |e| e - 1);
        text.get(start..end.max(start)).unwrap_or("").trim_end_matches('\r')
    }

    pub fn line_count(&self) -> usize {
        self.starts.len()
    }

    /// Byte offset where a 1-based line starts.
    pub fn line_start(&self, line: usize) -> usize {
        self.starts.get(line.wrapping_sub(1)).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_characters() {
        let text = "ab\n→ x\n";
        let idx = LineIndex::new(text);
        assert_eq!(idx.position(text, 0), (1, 1));
        assert_eq!(idx.position(text, 3), (2, 1));
        let x = text.find('x').expect("x");
        assert_eq!(idx.position(text, x), (2, 3));
        assert_eq!(idx.line_text(text, 2), "→ x");
        assert_eq!(idx.line_text(text, 9), "");
        assert_eq!(idx.span(text, 3, x + 1), Span { line: 2, col: 1, end_line: 2, end_col: 4 });
        assert_eq!(idx.span(text, 1, 4), Span { line: 1, col: 2, end_line: 2, end_col: 2 });
        let bom = "\u{feff}X=1\nY=2\n";
        let idx = LineIndex::new(bom);
        assert_eq!(idx.position(bom, 3), (1, 1), "the mark is not a column");
        assert_eq!(idx.position(bom, 5), (1, 3));
        assert_eq!(idx.position(bom, 7), (2, 1));
        // Asked out of order, each place is still found.
        let many = "a\nbb\n\nccc\nd";
        let idx = LineIndex::new(many);
        let by_search = |o: usize| {
            let line = idx.starts.partition_point(|&s| s <= o).max(1);
            (line, o - idx.starts[line - 1] + 1)
        };
        for o in [0, 5, 1, 9, 2, 2, 3, 12, 4, 0, 11, 6, 7, 100] {
            assert_eq!(idx.position(many, o), by_search(o.min(many.len())), "offset {o}");
        }
        // Every place in order, then backwards: the line after the last
        // one asked is looked at before a search.
        for o in (0..=many.len()).chain((0..=many.len()).rev()) {
            assert_eq!(idx.position(many, o), by_search(o), "offset {o}");
        }
        let ascii = "ab\ncd\n";
        let idx = LineIndex::new(ascii);
        assert_eq!(idx.span(ascii, 3, 5), Span { line: 2, col: 1, end_line: 2, end_col: 3 });
        assert_eq!(idx.span(ascii, 2, 3), Span { line: 1, col: 3, end_line: 2, end_col: 1 });
    }
}
