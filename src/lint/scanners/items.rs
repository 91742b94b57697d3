//! The words of an argv written in a structured file — a YAML list item,
//! an exec-form array element, a word of a unit's command line — each with
//! its place in the file, and the splitting of a one-string command line
//! (a unit's `ExecStart=`, a compose `command:` string) into such words. A
//! YAML scalar folded over several lines (`command: >`) holds its words at
//! other places than its value's text: [`place_map`] finds them.

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

/// The words of a YAML scalar given as one command line: split as
/// [`split_words`] splits, each word at its place in `file` even where the
/// scalar is folded or literal over several lines (`>`, `>-`, `|`, a plain
/// scalar continued on the next line). `at` is the scalar's range in `file`.
pub(crate) fn scalar_words(text: &str, at: std::ops::Range<usize>, file: &str) -> Vec<Item> {
    let raw = file.get(at.clone()).unwrap_or("");
    if raw == text {
        return split_words(text, at.start);
    }
    let Some(map) = place_map(text, raw) else { return split_words(text, at.start) };
    split_words(text, 0)
        .into_iter()
        .map(|mut w| {
            w.at = at.start + map[w.at.start]..at.start + map[w.at.end.max(w.at.start + 1) - 1] + 1;
            w
        })
        .collect()
}

/// Where each byte of `text` — a YAML scalar's value — is in `raw`, the
/// file's text of that scalar, when the value is the raw text's words with
/// line breaks and indentation changed (a folded or literal block, a plain
/// scalar on several lines): the same characters other than white space, in
/// the same order. Index `text.len()` is the end. None when a character
/// differs (escapes in a quoted scalar).
pub(crate) fn place_map(text: &str, raw: &str) -> Option<Vec<usize>> {
    let mut map = Vec::with_capacity(text.len() + 1);
    let mut r = raw.char_indices().peekable();
    let mut at = 0;
    for c in text.chars() {
        if c.is_whitespace() {
            map.extend(std::iter::repeat_n(at, c.len_utf8()));
            continue;
        }
        let (i, rc) = loop {
            match r.next()? {
                (_, w) if w.is_whitespace() => continue,
                found => break found,
            }
        };
        if rc != c {
            return None;
        }
        map.extend(i..i + c.len_utf8());
        at = i + c.len_utf8();
    }
    map.push(at);
    Some(map)
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

    #[test]
    fn a_folded_scalar_keeps_each_word_in_place() {
        // (file, the scalar's value as YAML gives it, the words' texts in the file)
        let file = "c: >\n  radiance --port ${P}\n    --model /m\n  --x 'a b'\n";
        let start = file.find("radiance").expect("start");
        let value = "radiance --port ${P}\n  --model /m\n--x 'a b'\n";
        let items = scalar_words(value, start..file.len() - 1, file);
        let placed: Vec<(&str, &str)> = items.iter().map(|i| (i.text.as_str(), &file[i.at.clone()])).collect();
        assert_eq!(
            placed,
            [
                ("radiance", "radiance"),
                ("--port", "--port"),
                ("${P}", "${P}"),
                ("--model", "--model"),
                ("/m", "/m"),
                ("--x", "--x"),
                ("a b", "a b")
            ]
        );
        // A quoted scalar with an escape is not the file's characters: the
        // places fall back to the value's own offsets.
        assert_eq!(place_map("a\"b", "\"a\\\"b\""), None);
    }
}
