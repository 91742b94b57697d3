//! Positions between knobs and the editor: knobs counts 1-based lines and
//! columns in characters (a leading byte-order mark is no column); LSP
//! counts 0-based lines and columns in UTF-16 code units unless client and
//! server agree on UTF-8 bytes (`positionEncoding`). Lines end at `\n`; a
//! `\r` before it is not part of the line.

use lsp_types::{Position, PositionEncodingKind, Range};

use crate::lint::finding::SpanOut;

/// How LSP columns are counted in this session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

impl Encoding {
    /// UTF-8 when the client offers it, else UTF-16 (the protocol's default).
    pub fn negotiate(offered: Option<&[PositionEncodingKind]>) -> Encoding {
        match offered {
            Some(kinds) if kinds.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
            _ => Encoding::Utf16,
        }
    }

    pub fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }
    }

    fn width(self, c: char) -> usize {
        match self {
            Encoding::Utf8 => c.len_utf8(),
            Encoding::Utf16 => c.len_utf16(),
        }
    }
}

/// The text of a 0-based line, without its line ending ("" past the end).
pub fn line_text(text: &str, line: usize) -> &str {
    let line_str = text.split('\n').nth(line).unwrap_or("");
    let line_str = line_str.strip_suffix('\r').unwrap_or(line_str);
    if line == 0 {
        line_str.strip_prefix('\u{feff}').unwrap_or(line_str)
    } else {
        line_str
    }
}

/// The LSP column of a 1-based character column on `line`.
fn column(line: &str, col: usize, enc: Encoding) -> u32 {
    let n: usize = line.chars().take(col.saturating_sub(1)).map(|c| enc.width(c)).sum();
    // A column past the line's end (an end at the line break) counts on in characters.
    let past = col.saturating_sub(1).saturating_sub(line.chars().count());
    u32::try_from(n + past).unwrap_or(u32::MAX)
}

/// A knobs position (1-based line, 1-based character column) as LSP's.
pub fn to_lsp(text: &str, line: usize, col: usize, enc: Encoding) -> Position {
    let l = line.saturating_sub(1);
    Position { line: u32::try_from(l).unwrap_or(u32::MAX), character: column(line_text(text, l), col, enc) }
}

/// A finding's span as an LSP range.
pub fn range(text: &str, span: &SpanOut, enc: Encoding) -> Range {
    Range { start: to_lsp(text, span.line, span.column, enc), end: to_lsp(text, span.end_line, span.end_column, enc) }
}

/// The 0-based character index on its line of an LSP position (a column
/// inside a character, or past the end, is clamped).
pub fn char_index(line: &str, character: u32, enc: Encoding) -> usize {
    let want = character as usize;
    let mut units = 0;
    for (i, c) in line.chars().enumerate() {
        if units >= want {
            return i;
        }
        units += enc.width(c);
    }
    line.chars().count()
}

/// The byte offset in `line` of an LSP column.
pub fn byte_index(line: &str, character: u32, enc: Encoding) -> usize {
    let i = char_index(line, character, enc);
    line.char_indices().nth(i).map_or(line.len(), |(b, _)| b)
}

/// The LSP column of a byte offset in `line`.
pub fn from_byte(line: &str, byte: usize, enc: Encoding) -> u32 {
    let n: usize = line.get(..byte).unwrap_or(line).chars().map(|c| enc.width(c)).sum();
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_count_utf16_units_or_bytes() {
        // `é` is one UTF-16 unit and two bytes; `🚀` two units and four bytes.
        let text = "a\n🚀é `--x`\n";
        let p = to_lsp(text, 2, 4, Encoding::Utf16);
        assert_eq!((p.line, p.character), (1, 4));
        assert_eq!(to_lsp(text, 2, 4, Encoding::Utf8).character, 7);
        assert_eq!(char_index(line_text(text, 1), 4, Encoding::Utf16), 3);
        assert_eq!(byte_index(line_text(text, 1), 7, Encoding::Utf8), 7);
        assert_eq!(from_byte(line_text(text, 1), 7, Encoding::Utf16), 4);
    }

    #[test]
    fn a_byte_order_mark_and_a_carriage_return_are_no_columns() {
        let text = "\u{feff}ab\r\ncd";
        assert_eq!(line_text(text, 0), "ab");
        assert_eq!(to_lsp(text, 1, 3, Encoding::Utf16).character, 2);
        assert_eq!(line_text(text, 1), "cd");
        assert_eq!(line_text(text, 5), "");
    }
}
