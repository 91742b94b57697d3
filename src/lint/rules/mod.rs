//! The rules: one file each, listed once in [`RULES`] with a stable code and a
//! kebab-case name. A rule reads one reference and the pinned catalogue and
//! reports violations; it never prints. Its file's `//!` doc comment is the
//! text `knobs explain CODE` shows.

mod bad_value;
mod histogram_base_name;
mod invented_flag;
mod invented_member;
mod quantile_of_non_histogram;
mod rate_of_gauge;
mod removed_flag;
mod stray_argument;
mod unknown_env_knob;
mod unknown_label;
mod unknown_metric;
pub(crate) mod unknown_suppression;
pub(crate) mod unused_suppression;
mod wrong_binary;
mod wrong_metric_prefix;

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Serialize;

use crate::catalog::model::{Catalog, Flag, Metric};
use crate::catalog::profile::Profile;
use crate::catalog::query::{self, env_target, find_metric, judge, EnvTarget, Verdict};

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
    pub check: fn(&Subject<'_, '_>, &Ctx<'_>, &mut Vec<Violation>),
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
    &wrong_binary::RULE,
    &stray_argument::RULE,
    &rate_of_gauge::RULE,
    &quantile_of_non_histogram::RULE,
    &histogram_base_name::RULE,
    &unknown_label::RULE,
];

/// A rule by code (`KNB002`) or name (`invented-member`), case-insensitive.
pub fn find(id: &str) -> Option<&'static Rule> {
    RULES.iter().copied().find(|r| r.code.eq_ignore_ascii_case(id) || r.name.eq_ignore_ascii_case(id))
}

/// What a rule reports: where, what, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub rule: &'static Rule,
    pub span: Span,
    pub message: String,
    pub help: Option<String>,
    /// The one right rewrite of `span`, when there is one (`--fix`).
    pub fix: Option<String>,
}

impl PartialEq for Rule {
    fn eq(&self, other: &Self) -> bool {
        self.code == other.code
    }
}
impl Eq for Rule {}

/// What the rules judge against.
pub struct Ctx<'a> {
    /// The engine's profile: its argv, env and metric rules.
    pub profile: &'a Profile,
    /// The pinned version's catalogue for this file.
    pub catalog: &'a Catalog,
    /// Every catalogued version of the engine, oldest first.
    pub all: &'a [Catalog],
    /// Env variables a serve script passes to a flag.
    pub env_flags: &'a HashMap<String, String>,
    /// What is worked out once per catalogue, on first need.
    pub derived: &'a Derived,
    /// Labels a scrape adds to every series (`[lint] target_labels`).
    pub target_labels: &'a [String],
}

/// Facts about one catalogue that rules ask for often and that take work
/// to find: each is computed once, when first asked for, and shared by
/// every file judged against that catalogue.
#[derive(Debug, Default)]
pub struct Derived {
    /// Old name → the catalogue's name, over every other catalogued version.
    renames: OnceLock<HashMap<String, String>>,
    /// Every env key the build reads, sorted, with its flag.
    env_keys: OnceLock<Vec<(String, String)>>,
}

impl<'a> Ctx<'a> {
    /// `radiance v1.8.1`
    pub fn build(&self) -> String {
        format!("{} {}", self.catalog.source.engine, self.catalog.source.tag)
    }

    /// Other versions that have a flag of this name.
    pub fn versions_with_flag(&self, name: &str) -> Vec<&Catalog> {
        self.all
            .iter()
            .filter(|c| c.source.tag != self.catalog.source.tag && query::flag(c, self.profile, name).is_some())
            .collect()
    }

    /// The pinned build's name for a flag an older version called `old`.
    pub fn renamed(&self, old: &str) -> Option<&'a str> {
        let all = self.all;
        let catalog = self.catalog;
        let map = self.derived.renames.get_or_init(|| {
            let mut map = HashMap::new();
            for other in all.iter().filter(|c| c.source.tag != catalog.source.tag) {
                for r in crate::catalog::diff::diff(other, catalog).flags_renamed {
                    map.entry(r.from).or_insert(r.to);
                }
            }
            map
        });
        map.get(old).map(String::as_str)
    }

    /// Every env key the pinned build reads: declared ones (and their
    /// negated forms), and the convention's where the profile has one; only
    /// keys of two words or more, sorted, each with its flag.
    pub fn env_keys(&self) -> &'a [(String, String)] {
        let (catalog, profile) = (self.catalog, self.profile);
        self.derived.env_keys.get_or_init(|| {
            let mut keys: Vec<(String, String)> = Vec::new();
            for f in &catalog.flags {
                for k in f.env.iter().cloned().chain(query::env_key_for(f, profile)) {
                    if let (Some([from, to]), false) = (&profile.env.negated, f.negated.is_empty()) {
                        if let Some(rest) = k.strip_prefix(from.as_str()) {
                            keys.push((format!("{to}{rest}"), f.name.clone()));
                        }
                    }
                    keys.push((k, f.name.clone()));
                }
            }
            keys.retain(|(k, _)| k.contains('_'));
            keys.sort();
            keys.dedup();
            keys
        })
    }

    /// The pinned build's flag of a written spelling.
    pub fn flag(&self, name: &str) -> Option<&'a Flag> {
        query::flag(self.catalog, self.profile, name)
    }
}

/// When a value word is itself a flag of the build, the engine still reads
/// it as the value (it consumes the next word): say so, since the line reads
/// as two flags to a person.
pub fn consumed_flag(value: &str, flag: &Flag, ctx: &Ctx<'_>) -> Option<String> {
    let other = ctx.flag(value)?;
    Some(format!(
        "`{}` takes a value in {}, so it reads the next word, `{value}` (itself `{}`), as that value",
        flag.name,
        ctx.build(),
        other.name
    ))
}

/// A reference and what the pinned build makes of it, resolved once for
/// every rule: the flag a spelling names, the flag an env key sets, the
/// metric a name is, and the verdict on the value set.
pub struct Subject<'r, 'c> {
    pub r: &'r Ref,
    /// `Ref::Flag`: the pinned build's flag of that spelling.
    pub flag: Option<&'c Flag>,
    /// `Ref::Env`: what the key sets in the pinned build.
    pub env: Option<EnvTarget<'c>>,
    /// `Ref::Metric` (a name, not a pattern): the metric it is.
    pub metric: Option<&'c Metric>,
    /// The value the reference sets, judged against its flag.
    pub verdict: Verdict,
}

impl<'r, 'c> Subject<'r, 'c> {
    pub fn new(r: &'r Ref, ctx: &Ctx<'c>) -> Self {
        let mut s = Subject { r, flag: None, env: None, metric: None, verdict: Verdict::Fine };
        match r {
            Ref::Flag { name, .. } => s.flag = ctx.flag(name),
            Ref::Env { key, .. } => s.env = env_target(key, ctx.catalog, ctx.profile, ctx.env_flags),
            Ref::Metric { name, pattern: false, .. } => s.metric = find_metric(ctx.catalog, name),
            Ref::Metric { .. } | Ref::Stray { .. } => {}
        }
        if let Some((flag, value, _)) = s.setting() {
            s.verdict = judge(flag, value);
        }
        s
    }

    /// The flag and value the reference sets, for the value rules. A
    /// removed flag's value is not judged (the flag itself is the finding),
    /// nor the value of a key that turns a flag off (any value does).
    pub fn setting(&self) -> Option<(&'c Flag, &'r str, Span)> {
        match self.r {
            Ref::Flag { value: Some(v), .. } => {
                let flag = self.flag.filter(|f| f.removed.is_none())?;
                Some((flag, v.text.as_deref()?, v.span))
            }
            Ref::Env { value: Some(v), .. } => {
                let t = self.env.filter(|t| !t.negated && t.flag.removed.is_none())?;
                Some((t.flag, v.text.as_deref()?, v.span))
            }
            _ => None,
        }
    }

    /// How a finding names what was written: `` `--flag` `` or
    /// `` `KEY` (`--flag`) ``.
    pub fn written(&self) -> String {
        match (self.r, self.env) {
            (Ref::Env { key, .. }, Some(t)) => format!("`{key}` (`{}`)", t.flag.name),
            (Ref::Flag { name, .. }, _) | (Ref::Env { key: name, .. }, None) => format!("`{name}`"),
            (Ref::Metric { name, .. }, _) | (Ref::Stray { word: name, .. }, _) => format!("`{name}`"),
        }
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
}
