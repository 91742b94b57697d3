//! The words of a shell command line as the shell readers produce them (and
//! as `invocation` and `argv` read them): a command's words as [`Part`]s and
//! the arrays a script builds, with the quoting rules they share. The fast
//! reader (`simple`) and tree-sitter-bash (`full`) each import these, and the
//! argv they read is judged the same whichever read it.

use crate::lint::pairing::Word;

/// A word's text with its quotes removed and its `\` escapes read (none
/// inside single quotes).
pub(crate) fn unquote(raw: &str) -> String {
    unquoted(raw).into_owned()
}

/// [`unquote`], borrowing a word that has nothing to remove.
pub(crate) fn unquoted(raw: &str) -> std::borrow::Cow<'_, str> {
    if !raw.contains(['"', '\'', '\\']) {
        return std::borrow::Cow::Borrowed(raw);
    }
    let mut out = String::with_capacity(raw.len());
    let mut quote: Option<char> = None;
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (q, '\\') if q != Some('\'') => {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            }
            _ => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The array name of `"${args[@]}"` / `${args[*]}`.
pub(crate) fn array_name(raw: &str) -> Option<String> {
    let t = raw.trim_matches('"');
    let inner = t.strip_prefix("${")?.strip_suffix('}')?;
    let name = inner.strip_suffix("[@]").or_else(|| inner.strip_suffix("[*]"))?;
    name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_').then(|| name.to_string())
}

/// One word of a command, read by either reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Part<'s> {
    pub word: Word<'s>,
    /// True when a command-name match may read the word (a command's
    /// name, or a plain or quoted word): see [`Part::name`].
    pub named: bool,
    /// The array a `"${args[@]}"` word expands.
    pub array: Option<String>,
}

impl Part<'_> {
    /// The literal text a command-name match reads, when there is one.
    pub fn name<'t>(&self, src: &'t str) -> Option<std::borrow::Cow<'t, str>> {
        let raw = src.get(self.word.start..self.word.end).unwrap_or("");
        // A command substitution (or any very long word) names no command:
        // not read, so nested `$(…)` cost no more than their length.
        let b = raw.as_bytes();
        // Command names are short: one pass over the bytes finds both marks.
        let substitution =
            |b: &[u8]| b.iter().enumerate().any(|(i, c)| *c == b'`' || (*c == b'$' && b.get(i + 1) == Some(&b'(')));
        if !self.named || raw.len() > 4096 || substitution(b) {
            return None;
        }
        Some(unquoted(raw))
    }
}

/// Arrays built in a script (`args=(…)`, `args+=(…)`): name → each literal.
pub(crate) type Arrays<'s> = rustc_hash::FxHashMap<String, Vec<Vec<Word<'s>>>>;

/// One command of a script, as either reader reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Command<'s> {
    pub parts: Vec<Part<'s>>,
    /// The `K=V` words before its name (`K=V radiance …`): their byte ranges.
    pub assigns: Vec<std::ops::Range<usize>>,
    /// The function whose body holds it (`serve() { radiance "$@"; }`).
    pub func: Option<String>,
}

/// A variable a script sets (`BIN=/opt/x`, `export ARGS="--a 1"`,
/// `ARGS+=" --b"`), outside any command: its name and the byte range of
/// its value as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Var {
    pub name: String,
    pub value: std::ops::Range<usize>,
    /// Set by `export NAME=…`: the environment of the commands after it.
    pub exported: bool,
}

/// What a reader reads of a script.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Script<'s> {
    pub commands: Vec<Command<'s>>,
    pub arrays: Arrays<'s>,
    pub vars: Vec<Var>,
}

/// A word's text with its quotes removed, as [`unquote`] reads it, and for
/// each byte of that text the offset in `raw` it came from (and one more
/// entry: where the text ends), so a place in the text is a place in the
/// word as written.
pub(crate) fn unquote_map(raw: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(raw.len());
    let mut map = Vec::with_capacity(raw.len() + 1);
    let mut quote: Option<char> = None;
    let mut chars = raw.char_indices();
    let push = |out: &mut String, map: &mut Vec<usize>, c: char, at: usize| {
        out.push(c);
        map.extend(std::iter::repeat_n(at, c.len_utf8()));
    };
    while let Some((at, c)) = chars.next() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (q, '\\') if q != Some('\'') => {
                if let Some((n_at, n)) = chars.next() {
                    push(&mut out, &mut map, n, n_at);
                }
            }
            _ => push(&mut out, &mut map, c, at),
        }
    }
    map.push(raw.len());
    (out, map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unquoting_keeps_each_byte_where_it_was_written() {
        for raw in ["plain", "'a b'", "\"x\\\"y\"", "a\\ b", "'é'x", "--k=\"v w\""] {
            let (text, map) = unquote_map(raw);
            assert_eq!(text, unquote(raw), "{raw}");
            assert_eq!(map.len(), text.len() + 1);
            for (i, c) in text.char_indices() {
                assert!(raw[map[i]..].starts_with(c), "{raw}: byte {i}");
            }
        }
        let (text, map) = unquote_map("'radiance --port 1'");
        assert_eq!((text.as_str(), map[9]), ("radiance --port 1", 10));
    }
}
