//! Whether a value fits an engine-wide env key's kind, as the parse calls
//! a Go source reads it with accept it: `bool` is `strconv.ParseBool`'s
//! twelve words, `int`/`uint` base-10 integers (a sign only for `int`),
//! `float` a decimal or exponent number, `duration` `time.ParseDuration`'s
//! `1h30m`, `500ms`, `0`. `url` and `string` take anything. A kind of
//! several (`duration|int`) takes what any of them takes.

use regex::Regex;
use std::sync::LazyLock;

const BOOLS: [&str; 12] = ["1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE", "false", "False"];

static DURATION: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^[-+]?(?:0|(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:ns|us|µs|μs|ms|s|m|h))+)$").ok());
static FLOAT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"^[-+]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|(?i:inf|infinity|nan))$").ok()
});

fn fits_one(kind: &str, value: &str) -> bool {
    let digits = |v: &str| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
    match kind {
        "bool" => BOOLS.contains(&value),
        "uint" => digits(value),
        "int" => digits(value.strip_prefix(['-', '+']).unwrap_or(value)),
        "float" => FLOAT.as_ref().is_none_or(|re| re.is_match(value)),
        "duration" => DURATION.as_ref().is_none_or(|re| re.is_match(value)),
        // `url`, `string`, and a kind this knobs does not know: anything.
        _ => true,
    }
}

/// True when `value` is one the key's `kind` accepts (an empty kind: any).
pub fn env_value_fits(kind: &str, value: &str) -> bool {
    kind.is_empty() || kind.split('|').any(|k| fits_one(k, value))
}

/// The kind as a finding says it: `an unsigned integer`, `a duration (such
/// as 5m or 1h30m) or an integer`.
pub fn env_kind_phrase(kind: &str) -> String {
    let one = |k: &str| match k {
        "bool" => "a boolean (1, true, t, 0, false, f)",
        "uint" => "an unsigned integer",
        "int" => "an integer",
        "float" => "a number",
        "duration" => "a duration (such as 5m or 1h30m)",
        "url" => "a URL",
        _ => "a string",
    };
    let parts: Vec<&str> = kind.split('|').map(one).collect();
    parts.join(" or ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Go's `strconv` and `time.ParseDuration` on these words, by their
    /// documentation: ParseBool's twelve, ParseUint no sign, a duration's
    /// unit required except for `0`.
    #[test]
    fn values_fit_the_kinds_go_parses() {
        for (kind, good, bad) in [
            ("bool", vec!["1", "true", "T", "FALSE", "f"], vec!["yes", "on", "tRUE", "2", ""]),
            ("uint", vec!["0", "4", "512"], vec!["four", "-1", "+1", "1.5", "4k"]),
            ("int", vec!["-1", "+3", "0"], vec!["1e3", "x"]),
            ("float", vec!["0.85", "1e-3", ".5", "Inf"], vec!["0,85", "one"]),
            ("duration", vec!["5m", "1h30m", "0", "-1s", "1.5h", "300ms"], vec!["5", "5 minutes", "m", "1d"]),
            ("duration|int", vec!["5m", "300", "-1"], vec!["forever"]),
        ] {
            for v in good {
                assert!(env_value_fits(kind, v), "{kind} takes {v}");
            }
            for v in bad {
                assert!(!env_value_fits(kind, v), "{kind} refuses {v}");
            }
        }
        assert!(env_value_fits("", "anything") && env_value_fits("url", "0.0.0.0:11434"));
        assert_eq!(env_kind_phrase("duration|int"), "a duration (such as 5m or 1h30m) or an integer");
    }
}
