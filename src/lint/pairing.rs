//! An engine argv's words paired into flag references: `--x v`, `--x=v`,
//! `-m v`, `-O3`, `--opt.key v`, as the profile's `[argv]` says the engine
//! reads them (which flags take values comes from the catalogue). Every
//! scanner that finds an argv (shell, YAML `args:`, a literal argv for
//! `knobs verify`) hands its words here.

use super::refs::{Binary, FlagSite, Gap, Ref, Value};
use super::span::Span;

/// A word of a command line, as a scanner read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word<'s> {
    /// The literal text (quotes removed), or `None` when it is dynamic;
    /// borrowed from the scanned text when nothing was removed.
    pub text: Option<std::borrow::Cow<'s, str>>,
    /// For `${X:-d}` / `$X`: the variable and its default.
    pub var: Option<String>,
    pub default: Option<String>,
    /// Byte range in the scanned text; its span is computed only when a
    /// reference is made of it.
    pub start: usize,
    pub end: usize,
}

/// How many value words a flag takes, from the catalogue (`None`: unknown flag).
pub type TakesValue<'a> = &'a dyn Fn(&str) -> Option<usize>;

/// How argv is read: from the engine's profile.
#[derive(Debug, Clone, Copy, Default)]
pub struct ArgvRules {
    /// A value may start with `-` (the next word is taken whatever it is).
    pub dash_values: bool,
    /// Bare words are the engine's positional arguments (else they are refused).
    pub positionals: bool,
    /// `--opt.key value`: a key under `--opt`, which is the flag written.
    pub dotted: bool,
    /// The letters of the short options that take their value attached
    /// (`-O3`), as a set of ASCII letters.
    pub attached: u64,
}

impl ArgvRules {
    /// The rules a profile's `[argv]` gives.
    pub fn of(spec: &crate::catalog::profile::ArgvSpec) -> ArgvRules {
        let attached = (spec.attached.iter())
            .filter_map(|a| a.as_bytes().get(1).copied())
            .filter_map(letter_bit)
            .fold(0, |set, bit| set | bit);
        ArgvRules { dash_values: spec.dash_values, positionals: spec.positionals, dotted: spec.dotted, attached }
    }

    /// `-O3` → (`-O`, `3`), `-O=3` → (`-O`, `3`): a short option of the
    /// profile's `attached` with its value, and the value's offset in the word.
    fn attached<'t>(&self, word: &'t str) -> Option<(&'t str, &'t str, usize)> {
        let b = word.as_bytes();
        if b.len() < 3 || b[0] != b'-' || b[1] == b'-' || letter_bit(b[1]).is_none_or(|bit| self.attached & bit == 0) {
            return None;
        }
        let at = if b[2] == b'=' { 3 } else { 2 };
        Some((&word[..2], &word[at..], at))
    }
}

/// `text` split at its first `=`, as `split_once('=')` splits it (found by
/// bytes: this runs for every option word of every argv).
pub(crate) fn split_at_equals(text: &str) -> Option<(&str, &str)> {
    let at = text.bytes().position(|b| b == b'=')?;
    Some((&text[..at], &text[at + 1..]))
}

/// An ASCII letter's bit in a set of letters.
fn letter_bit(c: u8) -> Option<u64> {
    match c {
        b'a'..=b'z' => Some(1 << (c - b'a')),
        b'A'..=b'Z' => Some(1 << (26 + c - b'A')),
        _ => None,
    }
}

/// Pairs an engine argv into flag references: `--x v`, `--x=v`, `-m v`.
/// An unknown flag takes no value, so a following word is not judged as one.
/// The words are the whole argv: a flag last among them that takes a value
/// is given none ([`Gap::End`]).
pub fn argv_refs<'s, W: std::borrow::Borrow<Word<'s>>>(
    words: &[W],
    takes_value: TakesValue<'_>,
    rules: ArgvRules,
    binary: Option<&std::sync::Arc<Binary>>,
    span: &dyn Fn(usize, usize) -> Span,
    out: &mut Vec<Ref>,
) {
    pair(words, takes_value, rules, binary, span, out, true);
}

/// [`argv_refs`] on a part of an argv that more words may follow (the
/// words before an array expansion, an array's own words): a flag last
/// among them may take its value from what follows.
pub fn argv_refs_open<'s, W: std::borrow::Borrow<Word<'s>>>(
    words: &[W],
    takes_value: TakesValue<'_>,
    rules: ArgvRules,
    binary: Option<&std::sync::Arc<Binary>>,
    span: &dyn Fn(usize, usize) -> Span,
    out: &mut Vec<Ref>,
) {
    pair(words, takes_value, rules, binary, span, out, false);
}

fn pair<'s, W: std::borrow::Borrow<Word<'s>>>(
    words: &[W],
    takes_value: TakesValue<'_>,
    rules: ArgvRules,
    binary: Option<&std::sync::Arc<Binary>>,
    span: &dyn Fn(usize, usize) -> Span,
    out: &mut Vec<Ref>,
    closed: bool,
) {
    let mut i = 0;
    let mut last: Option<&str> = None;
    // A usage synopsis (`[-o FILE] ...`) is not a command line: its bare
    // words are notation. Values given to options (a quoted prompt) do not count.
    // Each option is looked up once: here, and its answer kept for the pairing.
    let mut looked_up: Vec<Option<Option<usize>>> = vec![None; words.len()];
    let mut lookup = |i: usize, t: &str| *looked_up[i].get_or_insert_with(|| takes_value(t));
    let synopsis = {
        let mut notation = false;
        let mut skip = 0usize;
        for (i, w) in words.iter().enumerate() {
            let Some(t) = w.borrow().text.as_deref() else { continue };
            if skip > 0 {
                skip -= 1;
                continue;
            }
            if t.starts_with('-') && !is_number(t) && !t.as_bytes().contains(&b'=') {
                skip = lookup(i, t).unwrap_or(0);
                continue;
            }
            let bracketed = (t.starts_with('<') && t.ends_with('>')) || t.starts_with('[') || t.ends_with(']');
            notation |= bracketed || t.contains("...") || t.contains('…');
        }
        notation
    };
    // After an unknown option, or one that swallowed a dash word, the next
    // bare word is part of a finding already made.
    let mut quiet = false;
    // Bare words taken as positional arguments so far, against the binary's limit.
    let mut positional = 0usize;
    // Where the limit varies by build, the fewest any build takes: each word
    // past it is a reference, and the pinned build's limit judges it.
    let limit = binary
        .and_then(|b| b.positionals.map(|n| b.earlier_positionals.iter().map(|(_, e)| *e).fold(n, usize::min)))
        .filter(|_| rules.positionals);
    let varies = binary.is_some_and(|b| !b.earlier_positionals.is_empty());
    while i < words.len() {
        let w: &Word<'s> = words[i].borrow();
        i += 1;
        let Some(text) = w.text.as_deref() else { continue };
        if text == "--" && rules.positionals {
            break;
        }
        if !text.starts_with('-') || text == "-" || is_number(text) {
            // A bare word an engine without positionals refuses (a literal
            // one only: an expansion may be anything), or one past the
            // binary's positionals.
            let mut past = false;
            let mut index = None;
            if let (Some(n), false, false) = (limit, quiet, text.is_empty()) {
                past = positional >= n;
                index = varies.then_some(positional);
                positional += 1;
            }
            if (past || !rules.positionals) && !synopsis && !quiet && w.var.is_none() && !text.is_empty() {
                out.push(Ref::Stray {
                    word: text.to_string(),
                    span: span(w.start, w.end),
                    after: last.map(str::to_string),
                    binary: binary.cloned(),
                    index,
                });
            }
            quiet = false;
            continue;
        }
        if let Some(key) = dotted_key(text, rules) {
            // `--compilation-config.mode 3`: the flag is the part before the
            // `.`; the value is a JSON key's, not the flag's, and is not judged.
            let wspan = span(w.start, w.end);
            let span = Span { end_line: wspan.line, end_col: wspan.col + key.chars().count(), ..wspan };
            if !text.as_bytes().contains(&b'=') && i < words.len() {
                i += 1;
            }
            last = Some(text);
            quiet = false;
            out.push(Ref::Flag {
                name: key.to_string(),
                span,
                value: None,
                site: FlagSite::Argv,
                binary: binary.cloned(),
                joined: false,
                gap: None,
            });
            continue;
        }
        if let Some((flag, value, at)) = rules.attached(text).filter(|_| lookup(i - 1, text).is_none()) {
            // `-O3`: the option and its value in one word.
            let wspan = span(w.start, w.end);
            let span = Span { end_line: wspan.line, end_col: wspan.col + 2, ..wspan };
            let vspan = Span { col: wspan.col + at, ..wspan };
            let text = if w.var.is_some() { w.default.clone() } else { Some(value.to_string()) };
            last = Some(flag);
            quiet = false;
            out.push(Ref::Flag {
                name: flag.to_string(),
                span,
                value: Some(Value { text, span: vspan, var: w.var.clone() }),
                site: FlagSite::Argv,
                binary: binary.cloned(),
                joined: true,
                gap: None,
            });
            continue;
        }
        if let Some((name, value)) = split_at_equals(text).filter(|_| text.starts_with("--")) {
            let wspan = span(w.start, w.end);
            let name_end = wspan.col + name.chars().count();
            let span = Span { end_line: wspan.line, end_col: name_end, ..wspan };
            let vspan = Span { col: name_end + 1, ..wspan };
            // `--x=$V`: the value is the expansion's default, if any.
            let text = if w.var.is_some() { w.default.clone() } else { Some(value.to_string()) };
            let value = Value { text, span: vspan, var: w.var.clone() };
            out.push(Ref::Flag {
                name: name.to_string(),
                span,
                value: Some(value),
                site: FlagSite::Argv,
                binary: binary.cloned(),
                joined: true,
                gap: None,
            });
            continue;
        }
        let known = lookup(i - 1, text);
        last = Some(text);
        quiet = known.is_none();
        let mut value = None;
        let mut more = Vec::new();
        let mut gap = None;
        for k in 0..known.unwrap_or(0) {
            let Some(next) = words.get(i).map(|n| n.borrow()) else {
                // A synopsis shows no values; an open argv may give it later.
                if k == 0 && closed && !synopsis {
                    gap = Some(Gap::End);
                }
                break;
            };
            let is_flag = next.text.as_deref().is_some_and(|t| t.starts_with('-') && !is_number(t));
            if is_flag && !rules.dash_values {
                if k == 0 && !synopsis {
                    gap = next.text.as_deref().map(|t| Gap::Option(t.to_string()));
                }
                break;
            }
            quiet |= is_flag;
            // The first value word is the flag's; each further one is judged too.
            let v = Value {
                text: next.text.as_deref().map(str::to_string).or_else(|| next.default.clone()),
                span: span(next.start, next.end),
                var: next.var.clone(),
            };
            if k == 0 {
                value = Some(v);
            } else if !is_flag {
                more.push(Ref::Value { flag: text.to_string(), value: v });
            }
            i += 1;
        }
        out.push(Ref::Flag {
            name: text.to_string(),
            span: span(w.start, w.end),
            value,
            site: FlagSite::Argv,
            binary: binary.cloned(),
            joined: false,
            gap,
        });
        out.append(&mut more);
    }
}

/// True when a word reads as a number (`-1`, `-0.5`, `-inf`): a value, not
/// an option. Most words are options, refused at their first letter without
/// running the float parser.
pub(crate) fn is_number(t: &str) -> bool {
    let b = t.as_bytes();
    let digits = b.iter().position(|c| !matches!(c, b'+' | b'-')).map_or(b'+', |i| b[i]);
    matches!(digits, b'0'..=b'9' | b'.' | b'i' | b'I' | b'n' | b'N') && t.parse::<f64>().is_ok()
}

/// The option of a dotted JSON key (`--compilation-config.mode` →
/// `--compilation-config`), where the profile reads such keys: a `.` in the
/// option's name, before any `=`.
fn dotted_key(text: &str, rules: ArgvRules) -> Option<&str> {
    if !rules.dotted || !text.starts_with('-') || is_number(text) {
        return None;
    }
    let name = text.split('=').next().unwrap_or(text);
    let (key, _) = name.split_once('.')?;
    (key.len() > 1 && key != "--").then_some(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_at_equals_splits_as_split_once() {
        for t in ["--a=1", "--a=", "=x", "--a", "", "--é=ü=2", "a==b"] {
            assert_eq!(split_at_equals(t), t.split_once('='), "{t:?}");
        }
    }

    fn words(line: &str) -> Vec<Word<'_>> {
        line.split(' ')
            .scan(0, |at, w| {
                let start = *at;
                *at += w.len() + 1;
                Some(Word { text: Some(w.into()), var: None, default: None, start, end: start + w.len() })
            })
            .collect()
    }

    /// (flag, gap) of each flag reference.
    fn gaps(line: &str, dash_values: bool, open: bool) -> Vec<(String, Option<Gap>)> {
        let tv = |n: &str| match n {
            "--policy" | "--port" => Some(1),
            "--help" => Some(0),
            _ => None,
        };
        let rules = ArgvRules { dash_values, positionals: true, ..ArgvRules::default() };
        let span = |_: usize, _: usize| Span::default();
        let mut out = Vec::new();
        let w = words(line);
        if open {
            argv_refs_open(&w, &tv, rules, None, &span, &mut out);
        } else {
            argv_refs(&w, &tv, rules, None, &span, &mut out);
        }
        out.into_iter()
            .filter_map(|r| match r {
                Ref::Flag { name, gap, .. } => Some((name, gap)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn is_number_agrees_with_the_float_parser() {
        let words = [
            "",
            "-",
            "--",
            "-1",
            "+1",
            "--1",
            "-0.5",
            ".5",
            "-.5",
            "1e3",
            "-1e-3",
            "e3",
            "-e3",
            "-inf",
            "-INF",
            "+infinity",
            "-nan",
            "NaN",
            "-n",
            "-i",
            "--port",
            "-m",
            "-O3",
            "-1x",
            "-9-",
            "٣",
            "-٣",
            "+-1",
        ];
        for w in words {
            assert_eq!(is_number(w), w.parse::<f64>().is_ok(), "{w:?}");
        }
    }

    #[test]
    fn a_flag_without_its_value_says_what_stood_there() {
        let g = |n: &str, gap: Option<Gap>| (n.to_string(), gap);
        assert_eq!(gaps("--port 1 --policy", false, false), [g("--port", None), g("--policy", Some(Gap::End))]);
        assert_eq!(
            gaps("--policy --port 1", false, false),
            [g("--policy", Some(Gap::Option("--port".into()))), g("--port", None)]
        );
        // Where values may start with `-`, the next option is the value.
        assert_eq!(gaps("--policy --port 1", true, false), [g("--policy", None)]);
        // More words may follow an open argv; a switch wants none; a
        // synopsis shows no values.
        assert_eq!(gaps("--port 1 --policy", false, true), [g("--port", None), g("--policy", None)]);
        assert_eq!(gaps("--help", false, false), [g("--help", None)]);
        assert_eq!(gaps("[OPTIONS] --policy", false, false), [g("--policy", None)]);
    }

    /// (flag, value) of each flag reference and the stray words, read with `rules`.
    fn read(line: &str, rules: ArgvRules, binary: Option<Binary>) -> Vec<String> {
        let tv = |n: &str| match n {
            "--compilation-config" | "-O" | "--max-model-len" => Some(1),
            "--enforce-eager" => Some(0),
            "--cuda-graph-bs" => Some(crate::catalog::model::MANY_VALUES),
            "--pair" => Some(2),
            _ => None,
        };
        let span = |_: usize, _: usize| Span::default();
        let mut out = Vec::new();
        let binary = binary.map(std::sync::Arc::new);
        argv_refs(&words(line), &tv, rules, binary.as_ref(), &span, &mut out);
        out.into_iter()
            .map(|r| match r {
                Ref::Flag { name, value, .. } => {
                    format!("{name}={}", value.and_then(|v| v.text).unwrap_or_else(|| "-".into()))
                }
                Ref::Stray { word, .. } => format!("stray {word}"),
                Ref::Value { flag, value } => format!("{flag}+={}", value.text.unwrap_or_default()),
                _ => String::new(),
            })
            .collect()
    }

    #[test]
    fn dotted_keys_attached_values_and_positional_limits_are_profile_data() {
        let spec = crate::catalog::profile::ArgvSpec {
            dotted: true,
            attached: vec!["-O".into()],
            ..crate::catalog::profile::ArgvSpec::default()
        };
        let on = ArgvRules::of(&spec);
        let off = ArgvRules::of(&crate::catalog::profile::ArgvSpec::default());
        let line = "--compilation-config.level 3 -O3 -O=2 --max-model-len 8 --compilation-config.mode=1";
        assert_eq!(
            read(line, on, None),
            ["--compilation-config=-", "-O=3", "-O=2", "--max-model-len=8", "--compilation-config=-"]
        );
        // Off (radiance's and llama.cpp's profiles): each word is itself.
        assert_eq!(
            read(line, off, None),
            ["--compilation-config.level=-", "-O3=-", "-O=2=-", "--max-model-len=8", "--compilation-config.mode=1"]
        );
        // A `.` in a value, not in the option, is no key.
        assert_eq!(read("--max-model-len=1.5 --x=a.b", on, None), ["--max-model-len=1.5", "--x=a.b"]);
        // A binary's limit: the first bare word is the model, the next is refused.
        let serve = Binary { command: "vllm serve".into(), positionals: Some(1), ..Binary::default() };
        assert_eq!(read("m --enforce-eager False", on, Some(serve.clone())), ["--enforce-eager=-", "stray False"]);
        assert_eq!(read("--enforce-eager m", on, Some(serve)), ["--enforce-eager=-"]);
        assert_eq!(read("m --enforce-eager False", on, None), ["--enforce-eager=-"], "no limit: any number");
    }

    #[test]
    fn each_further_value_of_an_option_that_takes_several_is_a_reference() {
        let rules = ArgvRules::default();
        assert_eq!(
            read("--cuda-graph-bs 1 two 4 --max-model-len 8", rules, None),
            ["--cuda-graph-bs=1", "--cuda-graph-bs+=two", "--cuda-graph-bs+=4", "--max-model-len=8"]
        );
        // A fixed count (N): the words past it are not its values.
        let serve = Binary { command: "serve".into(), positionals: Some(0), ..Binary::default() };
        assert_eq!(read("--pair a b c", rules, Some(serve)), ["--pair=a", "--pair+=b", "stray c"]);
        // One value: nothing more.
        assert_eq!(read("--max-model-len 8", rules, None), ["--max-model-len=8"]);
    }
}
