//! A YAML file of the engine's options, the file a profile's `[argv] config`
//! option names (`--config serve.yaml`): each top-level key is an option's
//! name without its dashes (`max-model-len: 8192` is `--max-model-len
//! 8192`), a `true` is a switch given, a list or a map is the option's
//! value. Such a file is known by its keys: two or more, and at least three
//! in four of them options of the build it is judged against. A `false` is
//! marked as such (a profile may say the engine's reader drops it).

use super::yaml::Node;
use super::Scan;
use crate::catalog::model::Catalog;
use crate::catalog::profile::Profile;
use crate::catalog::query;
use crate::lint::refs::{FlagSite, Ref, Value};
use crate::lint::span::Span;

/// The words YAML 1.1 (as Python's `yaml.safe_load` reads it) takes for a
/// boolean, in their lower-case spellings: `(word, value)`.
const BOOLEANS: &[(&str, bool)] =
    &[("true", true), ("yes", true), ("on", true), ("false", false), ("no", false), ("off", false)];

/// True when a YAML document is a file of the engine's options: the profile
/// names an option that reads one, and its keys are the build's options.
pub fn is_options_file(doc: &Node, catalog: &Catalog, profile: &Profile) -> bool {
    if profile.argv.config.is_none() {
        return false;
    }
    let keys = doc.entries();
    let options = keys.iter().filter(|(k, _, _)| query::flag(catalog, profile, &format!("--{k}")).is_some()).count();
    keys.len() >= 2 && options * 4 >= keys.len() * 3
}

/// The boolean a plain (unquoted) YAML scalar is, if it is one.
fn boolean(text: &str, quoted: bool) -> Option<bool> {
    // Every YAML boolean word is ASCII (and `text[..1]` below needs it).
    if quoted || text.is_empty() || !text.is_ascii() {
        return None;
    }
    let lower = text.to_ascii_lowercase();
    let spelt =
        text == lower || text == text.to_ascii_uppercase() || text[..1].to_ascii_uppercase() + &text[1..] == text;
    (!quoted && spelt).then(|| BOOLEANS.iter().find(|(w, _)| *w == lower).map(|(_, b)| *b)).flatten()
}

/// Each top-level key of an options file as a flag reference: its value
/// judged as the option's (a scalar); a `true` as a switch given; a
/// `false` as [`FlagSite::Dropped`].
pub fn scan(doc: &Node, text: &str, span: &dyn Fn(usize, usize) -> Span, out: &mut Scan) {
    for (key, at, value) in doc.entries() {
        let name = format!("--{key}");
        let quoted = |r: &std::ops::Range<usize>| {
            r.start.checked_sub(1).and_then(|i| text.as_bytes().get(i)).is_some_and(|c| matches!(c, b'"' | b'\''))
        };
        let (site, value) = match value {
            Node::Scalar { text: v, at: vat } if !v.is_empty() => match boolean(v, quoted(vat)) {
                Some(true) => (FlagSite::Options, None),
                Some(false) => (FlagSite::Dropped, None),
                None => {
                    let value = Value { text: Some(v.clone()), span: span(vat.start, vat.end), var: None };
                    (FlagSite::Options, Some(value))
                }
            },
            _ => (FlagSite::Options, None),
        };
        out.refs.push(Ref::Flag {
            name,
            span: span(at.start, at.end),
            value,
            site,
            binary: None,
            joined: false,
            gap: None,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn booleans_are_yaml_1_1_words_unquoted() {
        assert_eq!(boolean("false", false), Some(false));
        assert_eq!(boolean("False", false), Some(false));
        assert_eq!(boolean("NO", false), Some(false));
        assert_eq!(boolean("on", false), Some(true));
        assert_eq!(boolean("false", true), None, "a quoted word is a string");
        assert_eq!(boolean("fAlse", false), None);
        assert_eq!(boolean("8192", false), None);
        assert_eq!(boolean("Ñandú", false), None, "a word starting with a multi-byte character");
        assert_eq!(boolean("", false), None);
    }
}
