//! The rules: one file each, listed once in [`RULES`] with a stable code and a
//! kebab-case name. A rule reads one reference and the pinned catalogue and
//! reports violations; it never prints. Its file's `//!` doc comment is the
//! text `knobs explain CODE` shows.

mod bad_value;
mod invented_flag;
mod invented_member;
mod removed_flag;
mod unknown_env_knob;
mod unknown_metric;
mod unknown_suppression;
mod unused_suppression;
mod wrong_metric_prefix;

use std::collections::HashMap;

use serde::Serialize;

use crate::catalog::model::{Catalog, Flag, Kind, Metric, MetricType};

use super::refs::Ref;
use super::span::Span;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// One rule: its identity, default severity, documentation and check.
pub struct Rule {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
    /// The rule's source file; its `//!` lines are the documentation.
    source: &'static str,
    pub check: fn(&Ref, &Ctx<'_>, &mut Vec<Violation>),
}

impl Rule {
    /// The rule's documentation: its file's `//!` doc comment.
    pub fn doc(&self) -> String {
        let mut out = String::new();
        for line in self.source.lines() {
            let Some(rest) = line.strip_prefix("//!") else { break };
            out.push_str(rest.strip_prefix(' ').unwrap_or(rest));
            out.push('\n');
        }
        out.trim_end().to_string()
    }

    /// The first line of the documentation, for listings.
    pub fn summary(&self) -> String {
        self.doc().lines().find(|l| !l.trim().is_empty() && !l.starts_with('#')).unwrap_or("").to_string()
    }
}

impl std::fmt::Debug for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.code, self.name)
    }
}

/// Every rule, in code order. Adding a rule is one file and one line here.
pub static RULES: &[&Rule] = &[
    &invented_flag::RULE,
    &invented_member::RULE,
    &bad_value::RULE,
    &unknown_metric::RULE,
    &wrong_metric_prefix::RULE,
    &unknown_env_knob::RULE,
    &removed_flag::RULE,
    &unused_suppression::RULE,
    &unknown_suppression::RULE,
];

/// A rule by code (`KNB002`) or name (`invented-member`), case-insensitive.
pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.code.eq_ignore_ascii_case(id) || r.name.eq_ignore_ascii_case(id))
}

pub(crate) use unknown_suppression::RULE as UNKNOWN_SUPPRESSION;
pub(crate) use unused_suppression::RULE as UNUSED_SUPPRESSION;

/// What a rule reports: where, what, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub rule: &'static Rule,
    pub span: Span,
    pub message: String,
    pub help: Option<String>,
}

impl PartialEq for Rule {
    fn eq(&self, other: &Self) -> bool {
        self.code == other.code
    }
}
impl Eq for Rule {}

/// What the rules judge against.
pub struct Ctx<'a> {
    /// The pinned version's catalogue for this file.
    pub catalog: &'a Catalog,
    /// Every catalogued version of the engine, oldest first.
    pub all: &'a [Catalog],
    /// Env variables a serve script passes to a flag.
    pub env_flags: &'a HashMap<String, String>,
}

impl Ctx<'_> {
    /// `radiance v1.8.1`
    pub fn build(&self) -> String {
        format!("{} {}", self.catalog.source.engine, self.catalog.source.tag)
    }

    /// Other versions that have a flag of this name.
    pub fn versions_with_flag(&self, name: &str) -> Vec<&Catalog> {
        self.all.iter().filter(|c| c.source.tag != self.catalog.source.tag && c.flag(name).is_some()).collect()
    }
}

/// The closest candidate to `name`, when it is close enough to be a typo.
pub fn suggest<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let limit = match name.chars().count() {
        0..=4 => 1,
        5..=11 => 2,
        _ => 3,
    };
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| (strsim::damerau_levenshtein(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, *c))
        .map(|(_, c)| c)
}

/// Flag names and aliases of a catalogue.
pub fn flag_names(c: &Catalog) -> impl Iterator<Item = &str> {
    c.flags.iter().flat_map(|f| std::iter::once(f.name.as_str()).chain(f.aliases.iter().map(String::as_str)))
}

/// `--checkpoint-policy` → `CHECKPOINT_POLICY`.
pub fn env_key_of(flag: &str) -> String {
    flag.trim_start_matches('-').replace('-', "_").to_ascii_uppercase()
}

/// The flag an env key sets in `catalog`: by a serve script's mapping, else
/// by convention — an optional service prefix stripped, lower-cased, `_`→`-`
/// (`FRANK_ARCHON_PREFILL_INTERLEAVE` → `--prefill-interleave`). A stripped
/// key must keep at least two words, so `FRANK_PORT` does not read as `--port`.
pub fn env_flag<'c>(key: &str, catalog: &'c Catalog, env_flags: &HashMap<String, String>) -> Option<&'c Flag> {
    if let Some(f) = env_flags.get(key).and_then(|f| catalog.flag(f)) {
        return Some(f);
    }
    let words: Vec<&str> = key.split('_').filter(|w| !w.is_empty()).collect();
    (0..words.len())
        .filter(|&i| i == 0 || words.len() - i >= 2)
        .find_map(|i| catalog.flag(&format!("--{}", words[i..].join("-").to_ascii_lowercase())))
}

/// Values that stand for a value rather than being one: a metavar (`N`,
/// `TOKENS`, `<n>`), an ellipsis, an unexpanded variable.
pub fn is_placeholder(value: &str, flag: &Flag) -> bool {
    let v = value.trim();
    v.is_empty()
        || v == flag.metavar
        || v.contains('$')
        || v.contains("...")
        || v.contains('…')
        || (v.starts_with('<') && v.ends_with('>'))
        || (v.starts_with('{') && v.ends_with('}'))
        || (v.starts_with('[') && v.ends_with(']'))
        || (v.len() <= 16
            && v.chars().any(|c| c.is_ascii_uppercase())
            && v.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_' || c == '|'))
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
    match flag.kind {
        Kind::Int => "an integer".into(),
        Kind::Float => "a number".into(),
        Kind::AutoOrInt => "`auto` or an integer".into(),
        Kind::Switch => "no value (or, in an env file, 1/0, true/false)".into(),
        Kind::String => "a string".into(),
        Kind::Enum => format!("one of {}", members_list(flag)),
    }
}

pub fn members_list(flag: &Flag) -> String {
    flag.members.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
}

/// The metric a name refers to, allowing histogram and summary series
/// suffixes (`_bucket`, `_sum`, `_count`).
pub fn find_metric<'c>(catalog: &'c Catalog, name: &str) -> Option<&'c Metric> {
    if let Some(m) = catalog.metric(name) {
        return Some(m);
    }
    for suffix in ["_bucket", "_sum", "_count"] {
        if let Some(m) = name.strip_suffix(suffix).and_then(|base| catalog.metric(base)) {
            if matches!(m.kind, MetricType::Histogram | MetricType::Summary) || suffix != "_bucket" {
                return Some(m);
            }
        }
    }
    None
}

/// The same metric name under the other prefix.
pub fn other_prefix(name: &str) -> Option<String> {
    if let Some(rest) = name.strip_prefix("radiance:") {
        Some(format!("vllm:{rest}"))
    } else {
        name.strip_prefix("vllm:").map(|rest| format!("radiance:{rest}"))
    }
}

/// The value checks shared by argv flags and env keys.
pub enum Verdict {
    Fine,
    NotMember(String),
    WrongKind(String),
}

/// Judges every part of a written value against a flag.
pub fn judge(flag: &Flag, value: &str) -> Verdict {
    for part in value_parts(value) {
        if is_placeholder(part, flag) {
            continue;
        }
        let closed = flag.members_from.as_ref().is_some_and(|m| m.closed);
        if flag.kind == Kind::Enum && closed && !flag.members.iter().any(|m| m == part) {
            return Verdict::NotMember(part.to_string());
        }
        if !fits_kind(flag.kind, part) {
            return Verdict::WrongKind(part.to_string());
        }
    }
    Verdict::Fine
}

/// The flag and value a reference sets, for the value rules.
pub fn flag_and_value<'c>(r: &Ref, ctx: &Ctx<'c>) -> Option<(&'c Flag, String, Span, String)> {
    match r {
        Ref::Flag { name, value: Some(v), .. } => {
            let flag = ctx.catalog.flag(name)?;
            Some((flag, v.text.clone()?, v.span, format!("`{name}`")))
        }
        Ref::Env { key, value: Some(v), .. } => {
            let flag = env_flag(key, ctx.catalog, ctx.env_flags)?;
            Some((flag, v.text.clone()?, v.span, format!("`{key}` (`{}`)", flag.name)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_documents_itself() {
        let mut codes = std::collections::HashSet::new();
        for r in RULES {
            let doc = r.doc();
            for heading in ["## What it does", "## Why is this bad?", "## Example"] {
                assert!(doc.contains(heading), "{} lacks `{heading}`", r.code);
            }
            assert!(codes.insert(r.code), "duplicate code {}", r.code);
            assert!(r.name.chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{} is not kebab-case", r.name);
            assert!(!r.summary().is_empty());
        }
    }

    #[test]
    fn suggestions_and_placeholders() {
        assert_eq!(suggest("--checkpoint-polcy", ["--checkpoint-policy", "--port"]), Some("--checkpoint-policy"));
        assert_eq!(suggest("--cpuset-cpus", ["--checkpoint-policy", "--port"]), None);
        assert_eq!(value_parts("0→1"), ["0", "1"]);
        assert_eq!(env_key_of("--checkpoint-policy"), "CHECKPOINT_POLICY");
    }
}
