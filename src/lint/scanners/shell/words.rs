//! The words both shell readers produce: a command's words as [`Part`]s and
//! the arrays a script builds, with the quoting rules they share. The fast
//! reader (`simple`) and tree-sitter-bash (`full`) each import these, and the
//! argv they read is judged the same whichever read it.

use std::collections::HashMap;

use crate::lint::refs::Word;

/// A word's text with its quotes removed and its `\` escapes read (none
/// inside single quotes).
pub(crate) fn unquote(raw: &str) -> String {
    if !raw.contains(['"', '\'', '\\']) {
        return raw.to_string();
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
    out
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
    pub fn name(&self, src: &str) -> Option<String> {
        let raw = src.get(self.word.start..self.word.end).unwrap_or("");
        // A command substitution (or any very long word) names no command:
        // not read, so nested `$(…)` cost no more than their length.
        if !self.named || raw.len() > 4096 || raw.contains("$(") || raw.contains('`') {
            return None;
        }
        Some(unquote(raw))
    }
}

/// Arrays built in a script (`args=(…)`, `args+=(…)`): name → each literal.
pub(crate) type Arrays<'s> = HashMap<String, Vec<Vec<Word<'s>>>>;
