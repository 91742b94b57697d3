//! Turns a merged candidate into a catalogue flag: settles its kind from all
//! the evidence, splits a `(default: X)` clause out of the help, and reads
//! what `auto` means.

use super::candidate::Candidate;
use super::parsed::Parsed;
use super::text::{auto_meaning, split_default};
use crate::catalog::model::{Flag, Kind, MembersFrom};

/// Placeholders that stand for a whole number.
fn int_placeholder(m: &str) -> bool {
    let m = m.trim_matches(['<', '>']).to_ascii_uppercase();
    matches!(
        m.as_str(),
        "N" | "NUM"
            | "COUNT"
            | "INT"
            | "INTEGER"
            | "TOKENS"
            | "SIZE"
            | "BYTES"
            | "SECONDS"
            | "SECS"
            | "MS"
            | "PORT"
            | "SLOTS"
            | "STEPS"
            | "K"
            | "M"
            | "DEPTH"
            | "LIMIT"
            | "MAX"
    )
}

fn float_placeholder(m: &str) -> bool {
    let m = m.trim_matches(['<', '>']).to_ascii_uppercase();
    matches!(m.as_str(), "GIB" | "GB" | "FLOAT" | "FRACTION" | "RATIO" | "FACTOR" | "PERCENT" | "X" | "F" | "REAL")
}

fn kind_of(c: &Candidate, default: &str) -> Kind {
    let metavar = c.metavar.as_deref().unwrap_or("");
    let parts: Vec<&str> = metavar.split('|').map(str::trim).filter(|s| !s.is_empty()).collect();
    let auto_or_int = (parts.len() == 2
        && parts.iter().any(|p| p.eq_ignore_ascii_case("auto"))
        && parts.iter().any(|p| int_placeholder(p)))
        || (default == "auto" && (int_placeholder(metavar) || c.evidence == Some(Kind::Int)));
    let closed_members = c.members.as_ref().is_some_and(|(_, f)| f.closed);
    match c.kind {
        Some(Kind::String) | None if closed_members => return Kind::Enum,
        Some(k) => return k,
        None => {}
    }
    if auto_or_int || c.evidence == Some(Kind::AutoOrInt) {
        return Kind::AutoOrInt;
    }
    if parts.len() >= 2
        && parts
            .iter()
            .all(|p| p.chars().all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || "-_.".contains(ch)))
    {
        return Kind::Enum;
    }
    if let Some(k) = c.evidence {
        return k;
    }
    if int_placeholder(metavar) {
        return Kind::Int;
    }
    if float_placeholder(metavar) {
        return Kind::Float;
    }
    if !default.is_empty() {
        if default.parse::<i64>().is_ok() {
            return Kind::Int;
        }
        if default.parse::<f64>().is_ok() {
            return Kind::Float;
        }
        // A boolean default says switch unless the parser reads a word.
        if (default == "true" || default == "false") && c.takes_value != Some(true) {
            return Kind::Switch;
        }
    }
    if metavar.is_empty() && c.takes_value != Some(true) {
        return Kind::Switch;
    }
    Kind::String
}

pub(crate) fn finish(mut c: Candidate, files: &[Parsed<'_>]) -> Flag {
    let p = &files[c.file.min(files.len().saturating_sub(1))];
    let raw_help = c.help.take().unwrap_or_default();
    let (help, help_default) = split_default(raw_help.trim());
    // `(default: %d)` is filled in at run time: no default is stated.
    let help_default = help_default.filter(|d| !d.contains('%') && !d.contains('…'));
    let default = c.default.clone().filter(|d| !d.is_empty()).or(help_default).unwrap_or_default();
    let kind = kind_of(&c, &default);
    // An open set from a metavar such as `fast|safe`, when no validator spoke.
    if c.members.is_none() && kind == Kind::Enum {
        let metavar = c.metavar.as_deref().unwrap_or("");
        let parts: Vec<String> = metavar.split('|').map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect();
        if parts.len() >= 2 {
            c.members = Some((parts, MembersFrom { origin: "help".into(), location: p.loc(c.line), closed: false }));
        }
    }
    let auto_means = if kind == Kind::AutoOrInt { auto_meaning(&help) } else { None };
    let (members, members_from) = match c.members {
        Some((m, f)) => (m, Some(f)),
        None => (Vec::new(), None),
    };
    let list = c.list || {
        let h = help.to_ascii_lowercase();
        h.contains("comma-separated") || h.contains("comma separated")
    };
    let mut aliases = c.aliases;
    aliases.retain(|a| *a != c.name);
    Flag {
        name: c.name,
        aliases,
        metavar: c.metavar.unwrap_or_default(),
        kind,
        default,
        auto_means,
        members,
        members_from,
        help,
        location: p.loc(c.line),
        negated: c.negated,
        env: c.env,
        scopes: c.scopes,
        excludes: c.excludes,
        removed: c.removed,
        arity: c.arity,
        nargs: None,
        list,
        deprecated: false,
        successors: Vec::new(),
    }
}
