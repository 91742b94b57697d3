//! The words of an argv written in a structured file — a YAML list item,
//! an exec-form array element, a word of a unit's command line — each with
//! its place in the file, and the splitting of a one-string command line
//! (a unit's `ExecStart=`, a compose `command:` string) into such words.

/// One word of an argv written in a structured file (a YAML list item, an
/// exec-form array element, a word of a unit's command line): its text and
/// where the text is in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item {
    pub text: String,
    pub at: std::ops::Range<usize>,
}

/// Splits a command line the way a unit file or a compose string is split:
/// on white space, with `"…"` and `'…'` quoting and `\` escapes. Each word's
/// place is its text's place in `src` from `base` (inside the quotes of a
/// word that is quoted whole).
pub(crate) fn split_words(src: &str, base: usize) -> Vec<Item> {
    let mut out = Vec::new();
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        let start = i;
        let mut text = String::new();
        let mut quote: Option<u8> = None;
        while i < b.len() {
            let c = b[i];
            match (quote, c) {
                (None, c) if c.is_ascii_whitespace() => break,
                (None, b'"' | b'\'') => quote = Some(c),
                (Some(q), c) if c == q => quote = None,
                (q, b'\\') if q != Some(b'\'') && i + 1 < b.len() => {
                    i += 1;
                    let ch = src[i..].chars().next().unwrap_or(' ');
                    text.push(ch);
                    i += ch.len_utf8();
                    continue;
                }
                _ => {
                    let ch = src[i..].chars().next().unwrap_or(' ');
                    text.push(ch);
                    i += ch.len_utf8();
                    continue;
                }
            }
            i += 1;
        }
        let raw = &src[start..i];
        // A word quoted whole points inside its quotes.
        let quoted_whole = raw.len() >= 2
            && matches!(raw.as_bytes()[0], b'"' | b'\'')
            && raw.as_bytes()[raw.len() - 1] == raw.as_bytes()[0];
        let at = if quoted_whole { base + start + 1..base + i - 1 } else { base + start..base + i };
        out.push(Item { text, at });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_like_a_unit_file() {
        let src = r#"radiance --model "/m/a b" --log-level=warn 'x y' a\ b"#;
        let items = split_words(src, 10);
        let texts: Vec<&str> = items.iter().map(|i| i.text.as_str()).collect();
        assert_eq!(texts, ["radiance", "--model", "/m/a b", "--log-level=warn", "x y", "a b"]);
        assert_eq!(&src[items[2].at.start - 10..items[2].at.end - 10], "/m/a b", "inside the quotes");
    }
}
