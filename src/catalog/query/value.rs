//! Whether a written value is acceptable for a flag: a placeholder that
//! stands for one, the parts of a list or a range, its kind and members;
//! and how a flag's kind and members are said in messages.

use crate::catalog::model::{Flag, Kind};

/// Values that stand for a value rather than being one: the flag's metavar
/// (`N`, `TOKENS`) or one of its words in lower case (`n`, `port` for
/// `PORT`; a word of the flag's name is not one: `--stats-port stats` may
/// be a real mistake), a single
/// capital letter, a bracketed word (`<n>`, `{N}`, `[N]`, `(N)`), a word
/// holding one (`<user>/<model>`), an ellipsis, an unexpanded variable
/// (`$X`, `%X%`); for a number, any all-capital word (`--port PORT`). An
/// upper-case word that is not the metavar is a value of an enum or a
/// string (the validator compares exactly: `FLOOR` is not `floor`).
pub fn is_placeholder(value: &str, flag: &Flag) -> bool {
    let v = value.trim();
    let metavar_parts = || flag.metavar.split(['|', ' ', ',', ':']).map(str::trim).filter(|p| !p.is_empty());
    let capitals = v.len() >= 2
        && v.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        && v.chars().any(|c| c.is_ascii_uppercase())
        && !flag.members.iter().any(|m| m.eq_ignore_ascii_case(v));
    // Where the source states no metavar (`--spec-type TYPE`), or where the
    // value is a number (no word of capitals is one), such a word stands for it.
    let numeric = matches!(flag.kind, Kind::Int | Kind::Float | Kind::AutoOrInt);
    let unnamed = capitals && (flag.metavar.is_empty() || (numeric && !v.eq_ignore_ascii_case("auto")));
    let lower = !v.is_empty() && v.chars().all(|c| c.is_ascii_lowercase() || c == '_' || c == '-');
    let metavar_word =
        lower && metavar_parts().any(|p| p.chars().any(|c| c.is_ascii_uppercase()) && p.eq_ignore_ascii_case(v));
    let wrapped = |open: char, close: char| v.len() > 2 && v.starts_with(open) && v.ends_with(close);
    let holds = |open: char, close: char| {
        v.split(open).skip(1).any(|rest| rest.find(close).is_some_and(|end| end > 0 && !rest[..end].contains(' ')))
    };
    unnamed
        || metavar_word
        || v.is_empty()
        || v == flag.metavar
        || metavar_parts().any(|p| p == v && p.chars().any(|c| c.is_ascii_uppercase()))
        || v.contains('$')
        || v.contains("...")
        || v.contains('…')
        || wrapped('%', '%')
        || wrapped('(', ')')
        || (v.starts_with('<') && v.ends_with('>'))
        || (v.starts_with('{') && v.ends_with('}'))
        || (v.starts_with('[') && v.ends_with(']'))
        || holds('<', '>')
        || holds('{', '}')
        || (v.len() == 1 && v.chars().all(|c| c.is_ascii_uppercase()))
}

/// The values a written value stands for: `0→1` and `0->1` are two.
pub fn value_parts(value: &str) -> Vec<&str> {
    value
        .split(['→'])
        .flat_map(|p| p.split("->"))
        .map(|p| p.trim().trim_matches(['"', '\'', '`']))
        .filter(|p| !p.is_empty())
        .collect()
}

/// True when `value` is acceptable for a flag of `kind` (members aside).
pub fn fits_kind(kind: Kind, value: &str) -> bool {
    let int = |v: &str| v.parse::<i64>().is_ok();
    match kind {
        Kind::Int => int(value),
        Kind::Float => value.parse::<f64>().is_ok_and(f64::is_finite),
        Kind::AutoOrInt => value == "auto" || int(value),
        Kind::Switch => {
            matches!(value.to_ascii_lowercase().as_str(), "0" | "1" | "true" | "false" | "yes" | "no" | "on" | "off")
        }
        Kind::String | Kind::Enum => true,
    }
}

/// What a flag of `kind` takes, for messages.
pub fn kind_phrase(flag: &Flag) -> String {
    let words = if flag.members.is_empty() || flag.kind == Kind::Enum {
        String::new()
    } else {
        format!(", or {}", members_list(flag))
    };
    match flag.kind {
        Kind::Int => format!("an integer{words}"),
        Kind::Float => format!("a number{words}"),
        Kind::AutoOrInt => "`auto` or an integer".into(),
        Kind::Switch => "no value (or, in an env file, 1/0, true/false)".into(),
        Kind::String => format!("a string{words}"),
        Kind::Enum => format!("one of {}", members_list(flag)),
    }
}

pub fn members_list(flag: &Flag) -> String {
    flag.members.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
}

/// The value checks shared by argv flags, env keys and the overlay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Fine,
    NotMember(String),
    WrongKind(String),
}

/// True when a value holds what [`value_parts`] splits or trims: an arrow
/// (`→`, `->`), a quote, a backtick or white space. One pass over the
/// bytes: this is asked of every value the lint judges.
fn is_mixed(value: &str) -> bool {
    let b = value.as_bytes();
    // `→` is E2 86 92 in UTF-8; its first byte starts no other byte asked for.
    b.iter().enumerate().any(|(i, c)| match c {
        b'"' | b'\'' | b'`' | b' ' | b'\t' => true,
        b'-' => b.get(i + 1) == Some(&b'>'),
        0xE2 => b.get(i + 1..i + 3) == Some(&[0x86, 0x92][..]),
        _ => false,
    })
}

/// Judges every part of a written value against a flag. A closed member
/// set refuses anything else; an open one (words beside a number) admits
/// its words and otherwise the kind; a comma list is judged part by part.
pub fn judge(flag: &Flag, value: &str) -> Verdict {
    let closed = flag.members_from.as_ref().is_some_and(|m| m.closed);
    // A plain value (one part, no list, nothing to trim) that is a member or
    // fits the kind is fine whatever else holds: the usual case, decided
    // without splitting.
    let mixed = is_mixed(value);
    let split = mixed || (flag.list && value.contains(','));
    let plain = !split;
    if plain
        && !value.is_empty()
        && (flag.members.iter().any(|m| m == value)
            || (!(flag.kind == Kind::Enum && closed) && fits_kind(flag.kind, value)))
    {
        return Verdict::Fine;
    }
    for part in value_parts(value) {
        if is_placeholder(part, flag) {
            continue;
        }
        let pieces: Vec<&str> = if !flag.list || !part.contains(',') {
            vec![part]
        } else {
            part.split(',').map(str::trim).filter(|p| !p.is_empty()).collect()
        };
        for piece in pieces {
            if flag.members.iter().any(|m| m == piece) {
                continue;
            }
            if flag.kind == Kind::Enum && closed {
                return Verdict::NotMember(piece.to_string());
            }
            if !fits_kind(flag.kind, piece) {
                return Verdict::WrongKind(piece.to_string());
            }
        }
    }
    Verdict::Fine
}

#[cfg(test)]
mod tests {
    use super::super::tests::flag;
    use super::*;

    /// The one-pass test says what the two searches it replaced said.
    #[test]
    fn mixed_values_are_found_in_one_pass() {
        let old = |v: &str| v.contains(['→', '"', '\'', '`', ' ', '\t']) || v.contains("->");
        let pieces = ["a", "-", ">", "→", "\"", "'", "`", " ", "\t", "é", "–", "⇒", "1", ",", "x-y", "\u{2192}"];
        // Every string of up to three pieces.
        let mut cases = vec![String::new()];
        for _ in 0..3 {
            let longer: Vec<String> =
                cases.iter().flat_map(|c| pieces.iter().map(move |p| format!("{c}{p}"))).collect();
            cases.extend(longer);
        }
        for v in &cases {
            assert_eq!(is_mixed(v), old(v), "{v:?}");
        }
        assert!(is_mixed("a->b") && is_mixed("a → b") && !is_mixed("-1") && !is_mixed("keep-all"));
    }

    #[test]
    fn judging_values() {
        let policy = flag("--checkpoint-policy", Kind::Enum, "POLICY", &["geometric-backoff", "tip-only"], true);
        // (value, verdict) written from the validator's behaviour: exact comparison.
        let cases = [
            ("tip-only", Verdict::Fine),
            ("POLICY", Verdict::Fine),
            ("<policy>", Verdict::Fine),
            ("${POLICY}", Verdict::Fine),
            ("floor", Verdict::NotMember("floor".into())),
            ("FLOOR", Verdict::NotMember("FLOOR".into())),
            ("TIP-ONLY", Verdict::NotMember("TIP-ONLY".into())),
        ];
        for (v, want) in cases {
            assert_eq!(judge(&policy, v), want, "{v}");
        }
        let level = flag("--log-level", Kind::Enum, "LEVEL", &["debug", "error"], true);
        assert_eq!(judge(&level, "ERROR"), Verdict::NotMember("ERROR".into()));
        assert_eq!(judge(&level, "LEVEL"), Verdict::Fine);
        let ngl = flag("-ngl", Kind::Int, "N", &["auto", "all"], false);
        assert_eq!(judge(&ngl, "all"), Verdict::Fine);
        assert_eq!(judge(&ngl, "99"), Verdict::Fine);
        assert_eq!(judge(&ngl, "N"), Verdict::Fine);
        assert_eq!(judge(&ngl, "most"), Verdict::WrongKind("most".into()));
        let mut spec = flag("--spec-type", Kind::Enum, "TYPES", &["none", "draft-simple", "ngram-mod"], true);
        spec.list = true;
        assert_eq!(judge(&spec, "draft-simple,ngram-mod"), Verdict::Fine);
        assert_eq!(judge(&spec, "draft-simple,ngram"), Verdict::NotMember("ngram".into()));
        let split = flag("-sm", Kind::Enum, "MODE", &["layer", "row"], true);
        assert_eq!(judge(&split, "layer,row"), Verdict::NotMember("layer,row".into()), "not a list flag");
        let interval = flag("--checkpoint-interval", Kind::Int, "TOKENS", &[], false);
        assert_eq!(judge(&interval, "2k"), Verdict::WrongKind("2k".into()));
        assert_eq!(judge(&interval, "N"), Verdict::Fine, "a one-letter capital is a placeholder");
    }

    #[test]
    fn placeholders_written_in_docs() {
        // (flag, value, verdict): what a runbook writes for "a value here".
        let threads = flag("--threads", Kind::Int, "N", &[], false);
        let port = flag("--port", Kind::Int, "PORT", &[], false);
        let stats = flag("--stats-port", Kind::Int, "N", &[], false);
        let policy = flag("--checkpoint-policy", Kind::Enum, "POLICY", &["tip-only"], true);
        let chunk = flag("--busy-prefill-chunk", Kind::AutoOrInt, "auto|N", &[], false);
        let cases = [
            (&threads, "(N)", Verdict::Fine),
            (&threads, "(8)", Verdict::Fine),
            (&threads, "n", Verdict::Fine),
            (&threads, "THREADS", Verdict::Fine),
            (&threads, "%THREADS%", Verdict::Fine),
            (&port, "port", Verdict::Fine),
            (&policy, "policy", Verdict::Fine),
            (&policy, "<dir>/<name>", Verdict::Fine),
            // Not placeholders: a word of the name, a capitalised member,
            // `AUTO` for auto-or-int, a lower-case word that is no metavar.
            (&stats, "stats", Verdict::WrongKind("stats".into())),
            (&policy, "TIP-ONLY", Verdict::NotMember("TIP-ONLY".into())),
            (&chunk, "AUTO", Verdict::WrongKind("AUTO".into())),
            (&threads, "many", Verdict::WrongKind("many".into())),
        ];
        for (f, v, want) in cases {
            assert_eq!(judge(f, v), want, "{} {v}", f.name);
        }
    }
}
