//! What a piece of a flag declaration means: from a field or setter name
//! (`.doc`, `set_default`) or, failing that, from its content.

use crate::catalog::model::Kind;

use super::text::{is_long_flag, is_short_flag};

/// The part of a flag declaration a value fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Name,
    Alias,
    Metavar,
    Default,
    Help,
    Kind,
    Env,
    Members,
    /// The scopes (binaries, examples) an option is limited to.
    Scopes,
    /// Scopes an option is taken away from.
    Excludes,
}

/// Reads a role from a field, designator or setter name. Generous on purpose:
/// `.def`, `.fallback`, `set_default`, `with_help`, `m_doc` all count.
pub fn role_of_name(name: &str) -> Option<Role> {
    let lower = name.to_ascii_lowercase();
    let mut n = lower.trim_start_matches("m_").trim_matches('_');
    for prefix in ["set_", "with_", "add_", "set", "with"] {
        if let Some(rest) = n.strip_prefix(prefix) {
            if !rest.is_empty() {
                n = rest.trim_start_matches('_');
                break;
            }
        }
    }
    let n = n.replace('_', "");
    let role = match n.as_str() {
        "flag" | "name" | "long" | "longname" | "longopt" | "opt" | "option" | "key" | "spelling" | "switch"
        | "cli" | "longflag" => Role::Name,
        "alias" | "aliases" | "short" | "shortname" | "shorts" | "abbrev" | "shortflag" | "alt" => Role::Alias,
        "metavar" | "meta" | "arg" | "argname" | "valuename" | "valname" | "placeholder" | "param" | "hint" | "var"
        | "valuehint" | "argument" | "value_name" | "usage_arg" => Role::Metavar,
        "def" | "default" | "defaults" | "defaultvalue" | "defaultval" | "defval" | "dflt" | "fallback" | "init"
        | "initial" | "value" | "orelse" | "implicit" => Role::Default,
        "help" | "doc" | "docs" | "desc" | "description" | "summary" | "text" | "usage" | "about" | "brief"
        | "info" | "describe" | "explain" | "comment" | "helptext" | "docstring" => Role::Help,
        "kind" | "type" | "ty" | "argtype" | "valuetype" | "argkind" | "parser" | "valuekind" => Role::Kind,
        "env" | "envvar" | "environment" | "envname" | "envkey" => Role::Env,
        "choices" | "members" | "values" | "allowed" | "oneof" | "enumvalues" | "accepted" | "options" => Role::Members,
        "examples" | "example" | "scopes" | "scope" | "binaries" | "tools" | "programs" | "commands" => Role::Scopes,
        "excludes" | "exclude" | "excluded" => Role::Excludes,
        _ => return None,
    };
    Some(role)
}

/// Reads a kind from an identifier or type: `ArgKind::Int`, `kAutoOrInt`,
/// `FlagType::SWITCH`, `add_int`, `std::string`, `int64_t`.
pub fn kind_of_ident(ident: &str) -> Option<Kind> {
    let last = ident.rsplit("::").next().unwrap_or(ident);
    // kInt → Int
    let last = match last.strip_prefix('k') {
        Some(rest) if rest.chars().next().is_some_and(|c| c.is_ascii_uppercase()) => rest,
        _ => last,
    };
    let n: String = last.chars().filter(|c| c.is_ascii_alphanumeric()).collect::<String>().to_ascii_lowercase();
    let exact = match n.as_str() {
        "autoorint" | "autoint" | "autoorinteger" | "autoornum" | "autocount" | "autoorcount" | "autonumber"
        | "autoorsize" | "autotokens" => Some(Kind::AutoOrInt),
        "switch" | "bool" | "boolean" | "toggle" | "flag" | "noarg" | "noargument" | "presence" | "none" => {
            Some(Kind::Switch)
        }
        "choice" | "choices" | "enum" | "enumeration" | "oneof" | "select" | "member" | "members" | "keyword" => {
            Some(Kind::Enum)
        }
        "float" | "double" | "real" | "f32" | "f64" | "decimal" | "fraction" | "ratio" => Some(Kind::Float),
        "int" | "integer" | "int32" | "int64" | "int32t" | "int64t" | "uint" | "uint32" | "uint64" | "uint32t"
        | "uint64t" | "sizet" | "size" | "i32" | "i64" | "u32" | "u64" | "count" | "long" | "unsigned" | "number"
        | "num" | "tokens" => Some(Kind::Int),
        "text" | "string" | "str" | "path" | "file" | "stringview" | "cstr" | "charptr" | "word" => Some(Kind::String),
        _ => None,
    };
    exact.or_else(|| {
        if n.contains("auto") {
            Some(Kind::AutoOrInt)
        } else if n.contains("bool") || n.contains("switch") {
            Some(Kind::Switch)
        } else if n.contains("choice") || n.contains("enum") {
            Some(Kind::Enum)
        } else if n.contains("float") || n.contains("double") {
            Some(Kind::Float)
        } else if n.ends_with("int") || n.starts_with("int") || n.contains("integer") {
            Some(Kind::Int)
        } else if n.contains("string") || n.ends_with("str") {
            Some(Kind::String)
        } else {
            None
        }
    })
}

/// Reads a kind from the words of a call name: `add_int_flag` → int,
/// `addSwitch` → switch. Words that are not kinds are skipped.
pub fn kind_of_call_name(name: &str) -> Option<Kind> {
    let mut words = Vec::new();
    let mut cur = String::new();
    for c in name.chars() {
        if c == '_' || (c.is_ascii_uppercase() && !cur.is_empty()) {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            if c == '_' {
                continue;
            }
        }
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    // "flag" and "option" name the thing declared, not its kind.
    words
        .iter()
        .filter(|w| !matches!(w.as_str(), "flag" | "option" | "opt" | "arg" | "add" | "knob" | "param"))
        .find_map(|w| kind_of_ident(w))
}

/// A string piece of a declaration, classified by what it looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Looks {
    Flag,
    Short,
    Prose,
    Metavar,
    Value,
    Empty,
}

/// Classifies a string by content: a flag, a placeholder, prose, or a value.
pub fn looks(s: &str) -> Looks {
    let t = s.trim();
    if t.is_empty() {
        return Looks::Empty;
    }
    if is_long_flag(t) {
        return Looks::Flag;
    }
    if is_short_flag(t) {
        return Looks::Short;
    }
    // A value or placeholder is one word; anything with a space is prose.
    if t.split_whitespace().count() >= 2 {
        return Looks::Prose;
    }
    let placeholder = (t.starts_with('<') && t.ends_with('>'))
        || (t.starts_with('{') && t.ends_with('}'))
        || t.contains('|')
        || (t.chars().any(|c| c.is_ascii_uppercase())
            && t.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || "_-.".contains(c)));
    if placeholder {
        Looks::Metavar
    } else {
        Looks::Value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_names() {
        let cases = [
            ("flag", Some(Role::Name)),
            ("arg", Some(Role::Metavar)),
            ("def", Some(Role::Default)),
            ("fallback", Some(Role::Default)),
            ("doc", Some(Role::Help)),
            ("m_help_", Some(Role::Help)),
            ("set_default", Some(Role::Default)),
            ("setEnv", Some(Role::Env)),
            ("set_env", Some(Role::Env)),
            ("value_name", Some(Role::Metavar)),
            ("choices", Some(Role::Members)),
            ("kind", Some(Role::Kind)),
            ("handler", None),
        ];
        for (name, want) in cases {
            assert_eq!(role_of_name(name), want, "{name}");
        }
    }

    #[test]
    fn kinds_from_identifiers() {
        let cases = [
            ("ArgKind::Int", Some(Kind::Int)),
            ("kAutoOrInt", Some(Kind::AutoOrInt)),
            ("FlagType::SWITCH", Some(Kind::Switch)),
            ("Kind::Choice", Some(Kind::Enum)),
            ("std::string", Some(Kind::String)),
            ("int64_t", Some(Kind::Int)),
            ("ValueKind::kDouble", Some(Kind::Float)),
            ("Widget", None),
        ];
        for (ident, want) in cases {
            assert_eq!(kind_of_ident(ident), want, "{ident}");
        }
        assert_eq!(kind_of_call_name("add_int_flag"), Some(Kind::Int));
        assert_eq!(kind_of_call_name("addSwitch"), Some(Kind::Switch));
        assert_eq!(kind_of_call_name("add_flag"), None);
    }

    #[test]
    fn content() {
        let cases = [
            ("--max-num-seqs", Looks::Flag),
            ("-s", Looks::Short),
            ("N", Looks::Metavar),
            ("auto|N", Looks::Metavar),
            ("<path>", Looks::Metavar),
            ("2048", Looks::Value),
            ("geometric-backoff", Looks::Value),
            ("", Looks::Empty),
            ("tokens between two snapshots", Looks::Prose),
            ("queue order", Looks::Prose),
            ("-cd", Looks::Short),
            ("-1", Looks::Value),
        ];
        for (s, want) in cases {
            assert_eq!(looks(s), want, "{s}");
        }
    }
}
