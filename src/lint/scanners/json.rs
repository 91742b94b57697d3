//! JSON read for its strings: every string value with the key it stands
//! under and its place, so that a reader can pick the values that are
//! queries (a Grafana panel's `targets[].expr`, a template variable's
//! `query`) wherever the schema nests them — rows, collapsed rows, library
//! panels, Perses and Cloud Monitoring dashboards alike. The reading is
//! tolerant (a file that is not quite JSON still yields the strings it
//! holds) and walks with a stack of its own, so no nesting recurses.

use std::ops::Range;

/// A string value of a JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonString {
    /// The key of the member it is the value of; for an array's item, the
    /// key the array stands under.
    pub key: Option<String>,
    /// Its text with JSON's escapes read.
    pub value: String,
    /// Its place in the text, inside the quotes (escapes as written).
    pub at: Range<usize>,
}

/// One open object or array: the key it stands under, and for an object the
/// key of the member being read.
struct Frame {
    object: bool,
    under: Option<String>,
    key: Option<String>,
}

/// Every string value of `text` (keys are not values), in order.
pub fn strings(text: &str) -> Vec<JsonString> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' | b'[' => {
                let under = stack.last().and_then(|f| if f.object { f.key.clone() } else { f.under.clone() });
                stack.push(Frame { object: b[i] == b'{', under, key: None });
                i += 1;
            }
            b'}' | b']' => {
                stack.pop();
                i += 1;
            }
            b'"' => {
                let (end, value) = string_at(text, i + 1);
                let at = i + 1..end;
                i = (end + 1).min(b.len());
                let next = b[i..].iter().position(|c| !c.is_ascii_whitespace()).map(|k| b[i + k]);
                match stack.last_mut() {
                    Some(f) if f.object && next == Some(b':') => f.key = Some(value),
                    Some(f) => {
                        let key = if f.object { f.key.clone() } else { f.under.clone() };
                        out.push(JsonString { key, value, at });
                    }
                    None => out.push(JsonString { key: None, value, at }),
                }
            }
            _ => i += 1,
        }
    }
    out
}

/// The string whose text starts at `from` (after its opening quote): where
/// its closing quote is (or the text's end), and its text unescaped.
fn string_at(text: &str, from: usize) -> (usize, String) {
    let b = text.as_bytes();
    let mut value = String::new();
    let mut i = from;
    let mut plain = from;
    while i < b.len() {
        match b[i] {
            b'"' => break,
            b'\\' => {
                value.push_str(&text[plain..i]);
                let (c, len) = escape(text, i);
                value.push_str(&c);
                i += len;
                plain = i;
            }
            _ => i += 1,
        }
    }
    let end = i.min(b.len());
    value.push_str(text.get(plain..end).unwrap_or(""));
    (end, value)
}

/// The escape at `at` (its backslash): what it reads as, and its length.
fn escape(text: &str, at: usize) -> (String, usize) {
    let b = text.as_bytes();
    let Some(&c) = b.get(at + 1) else { return (String::new(), 1) };
    let simple = match c {
        b'"' => Some('"'),
        b'\\' => Some('\\'),
        b'/' => Some('/'),
        b'b' => Some('\u{8}'),
        b'f' => Some('\u{c}'),
        b'n' => Some('\n'),
        b'r' => Some('\r'),
        b't' => Some('\t'),
        _ => None,
    };
    if let Some(s) = simple {
        return (s.to_string(), 2);
    }
    let hex = |from: usize| text.get(from..from + 4).and_then(|h| u32::from_str_radix(h, 16).ok());
    if c == b'u' {
        if let Some(u) = hex(at + 2) {
            // A surrogate pair is two escapes for one character.
            if (0xd800..0xdc00).contains(&u) && text.get(at + 6..at + 8) == Some("\\u") {
                if let Some(low) = hex(at + 8).filter(|l| (0xdc00..0xe000).contains(l)) {
                    let c = char::from_u32(0x10000 + ((u - 0xd800) << 10) + (low - 0xdc00));
                    return (c.map(String::from).unwrap_or_default(), 12);
                }
            }
            return (char::from_u32(u).map(String::from).unwrap_or_default(), 6);
        }
    }
    // Not an escape JSON knows: kept as written.
    let len = text[at + 1..].chars().next().map_or(1, |c| 1 + c.len_utf8());
    (text[at..at + len].to_string(), len)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keyed(text: &str) -> Vec<(Option<String>, String)> {
        strings(text).into_iter().map(|s| (s.key, s.value)).collect()
    }

    #[test]
    fn values_with_their_keys_and_places() {
        let text = r#"{"panels": [{"title": "Queue", "targets": [{"expr": "rate(a{b=\"c\"}[5m])"}]}], "tags": ["x"]}"#;
        let found = strings(text);
        let expr = found.iter().find(|s| s.key.as_deref() == Some("expr")).expect("expr");
        assert_eq!(expr.value, r#"rate(a{b="c"}[5m])"#);
        assert_eq!(&text[expr.at.clone()], r#"rate(a{b=\"c\"}[5m])"#, "the place is the text as written");
        assert_eq!(
            keyed(text),
            [
                (Some("title".into()), "Queue".into()),
                (Some("expr".into()), r#"rate(a{b="c"}[5m])"#.into()),
                (Some("tags".into()), "x".into()),
            ]
        );
    }

    #[test]
    fn escapes_are_read() {
        assert_eq!(keyed(r#"{"q": "a\nb\u00e9\ud83d\ude00\/\q"}"#), [(Some("q".into()), "a\nbé😀/\\q".into())]);
    }

    #[test]
    fn broken_and_deep_texts_yield_what_they_hold() {
        assert_eq!(
            keyed(r#"{"expr": "up", "x": "unterminated"#),
            [(Some("expr".into()), "up".into()), (Some("x".into()), "unterminated".into())]
        );
        let deep = format!("{}\"s\"{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(keyed(&deep), [(None, "s".into())]);
        assert!(strings("\\").is_empty() && strings("\"\\").len() == 1);
    }
}
