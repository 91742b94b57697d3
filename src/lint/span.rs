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
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// 1-based (line, column) of a byte offset; the column counts characters.
    pub fn position(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts[line - 1];
        let col = text.get(start..offset).map_or(offset - start, |s| s.chars().count()) + 1;
        (line, col)
    }

    pub fn span(&self, text: &str, start: usize, end: usize) -> Span {
        let (line, col) = self.position(text, start);
        let (end_line, end_col) = self.position(text, end.max(start));
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
    }
}
