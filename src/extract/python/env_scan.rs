//! Env keys found word by word in files that are not parsed: every call of
//! one of the profile's readers (`os.getenv`, `os.environ.get`,
//! `get_bool_env_var`) whose first argument is a literal key. A package of
//! thousands of modules is searched in a fraction of the time parsing it
//! takes; a key built at run time (`os.getenv(f"{P}_X")`) is not a literal
//! and is not read.

use crate::catalog::model::EnvKey;

use super::env::is_key;

/// The keys `readers` are called with in `text` (the file `path`), those
/// starting with one of `prefixes` (none: every key), in order. A key one of
/// `deprecating` is called with (`_print_deprecated_env("OLD", "NEW")`) is
/// deprecated, and a literal key as the next argument is its successor.
pub fn scan(
    path: &str,
    text: &str,
    readers: &[String],
    deprecating: &[String],
    prefixes: &[String],
    out: &mut Vec<EnvKey>,
) {
    let tagged = readers.iter().map(|r| (r, false)).chain(deprecating.iter().map(|r| (r, true)));
    for (reader, deprecates) in tagged {
        let mut from = 0;
        while let Some(at) = text[from..].find(reader.as_str()).map(|i| from + i) {
            from = at + reader.len();
            let before = text[..at].chars().next_back();
            let starts_word = reader.starts_with(|c: char| c.is_alphanumeric() || c == '_');
            if starts_word && before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            if text[line_start..at].contains('#') {
                continue;
            }
            let Some(key) = first_literal(&text[from..], reader.ends_with(['(', '['])) else { continue };
            if reader.ends_with('[') && assigned(&text[from..], key) {
                // `os.environ["KEY"] = "1"` sets the key for a child, not a read.
                continue;
            }
            if !is_key(key) || !(prefixes.is_empty() || prefixes.iter().any(|p| key.starts_with(p.as_str()))) {
                continue;
            }
            let line = text[..at].matches('\n').count() + 1;
            let successor = if deprecates { next_literal(&text[from..], key).filter(|k| is_key(k)) } else { None };
            out.push(EnvKey {
                name: key.to_string(),
                default: String::new(),
                members: Vec::new(),
                help: String::new(),
                location: format!("{path}:{line}"),
                kind: String::new(),
                deprecated: deprecates,
                successor: successor.unwrap_or_default().to_string(),
            });
        }
    }
}

/// The literal string right after a reader's name: `("KEY"` (or, when the
/// reader ends with its bracket, `"KEY"`), spaces and line breaks allowed.
fn first_literal(rest: &str, opened: bool) -> Option<&str> {
    let mut rest = rest.trim_start();
    if !opened {
        rest = rest.strip_prefix('(')?.trim_start();
    }
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let body = &rest[1..];
    let end = body.find(quote)?;
    Some(&body[..end])
}

/// The literal string argument after the first (`key`) in `rest`: `"KEY", "NEXT"`.
fn next_literal<'t>(rest: &'t str, key: &str) -> Option<&'t str> {
    let at = rest.find(key)? + key.len();
    let after = rest[at..].strip_prefix(['"', '\''])?.trim_start().strip_prefix(',')?;
    first_literal(after, true)
}

/// True when the subscript `["KEY"]` at the start of `rest` is assigned to.
fn assigned(rest: &str, key: &str) -> bool {
    let Some(at) = rest.find(key) else { return false };
    let after = rest[at + key.len()..].trim_start_matches(['"', '\'']).trim_start();
    let Some(after) = after.strip_prefix(']') else { return false };
    let after = after.trim_start();
    after.starts_with('=') && !after.starts_with("==")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str, readers: &[&str], prefixes: &[&str]) -> Vec<String> {
        let readers: Vec<String> = readers.iter().map(|s| s.to_string()).collect();
        let prefixes: Vec<String> = prefixes.iter().map(|s| s.to_string()).collect();
        let mut out = Vec::new();
        scan("m.py", text, &readers, &[], &prefixes, &mut out);
        out.into_iter().map(|k| format!("{}@{}", k.name, k.location)).collect()
    }

    #[test]
    fn literal_keys_of_each_reader_are_found_with_their_lines() {
        let text = "import os\nA = os.getenv(\"SGLANG_A\", \"1\")\nB = os.environ.get(\n    'SGL_B'\n)\n\
                    C = get_bool_env_var(\"SGLANG_C\")\nD = my_getenv(\"SGLANG_D\")\n# os.getenv(\"SGLANG_E\")\n\
                    F = os.getenv(f\"{P}_F\")\nG = os.getenv(name)\nH = os.environ[\"SGLANG_H\"]\n\
                    os.environ[\"SGLANG_SET\"] = \"1\"\nif os.environ[\"SGLANG_EQ\"] == \"1\": pass\n";
        assert_eq!(
            keys(text, &["getenv", "environ.get", "get_bool_env_var", "environ["], &[]),
            ["SGLANG_A@m.py:2", "SGL_B@m.py:3", "SGLANG_C@m.py:6", "SGLANG_H@m.py:11", "SGLANG_EQ@m.py:13"]
        );
        assert_eq!(keys(text, &["getenv", "environ.get"], &["SGLANG_"]), ["SGLANG_A@m.py:2"]);
    }

    #[test]
    fn a_deprecating_call_marks_its_key_and_names_the_next_key_as_successor() {
        let text = "def _convert():\n    _warn_old(\"SGLANG_OLD_A\", \"SGLANG_NEW_A\")\n    _warn_old(\n        \
                    \"SGL_OLD_B\",\n        \"SGLANG_NEW_B\",\n    )\n    _warn_old(\"SGLANG_GONE\")\n    \
                    _warn_old(\"SGLANG_TO_FLAG\", \"Please use '--x' instead.\")\n";
        let mut out = Vec::new();
        scan("e.py", text, &[], &["_warn_old".to_string()], &[], &mut out);
        let got: Vec<(String, bool, String, String)> =
            out.into_iter().map(|k| (k.name, k.deprecated, k.successor, k.location)).collect();
        let want = [
            ("SGLANG_OLD_A", true, "SGLANG_NEW_A", "e.py:2"),
            ("SGL_OLD_B", true, "SGLANG_NEW_B", "e.py:3"),
            ("SGLANG_GONE", true, "", "e.py:7"),
            ("SGLANG_TO_FLAG", true, "", "e.py:8"),
        ];
        let want: Vec<(String, bool, String, String)> =
            want.iter().map(|(a, b, c, d)| (a.to_string(), *b, c.to_string(), d.to_string())).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn words_that_are_not_keys_are_left() {
        assert!(keys("x = os.getenv(\"path/to\")\ny = os.getenv(\"lower\")\n", &["getenv"], &[]).is_empty());
    }
}
