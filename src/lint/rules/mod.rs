//! The rules: one file each, listed once in [`RULES`] with a stable code and a
//! kebab-case name. A rule reads one reference and the pinned catalogue and
//! reports violations; it never prints. Its file's `//!` doc comment is the
//! text `knobs explain CODE` shows.

mod bad_value;
mod broken_continuation;
mod ctx;
mod deprecated_knob;
mod dropped_false;
mod env_key_case;
mod histogram_base_name;
mod invented_flag;
mod invented_member;
mod missing_value;
mod quantile_of_non_histogram;
mod rate_of_gauge;
mod reads;
mod removed_flag;
mod renamed_binary;
mod stray_argument;
mod subject;
mod swallowed_option;
mod unknown_env_knob;
mod unknown_label;
pub(crate) mod unknown_metric;
pub(crate) mod unknown_suppression;
mod unread_env_line;
pub(crate) mod unused_suppression;
pub(crate) mod wrong_binary;
mod wrong_metric_prefix;

use serde::Serialize;

use crate::catalog::model::{Flag, Kind};
use crate::catalog::query::{self, kind_phrase, Verdict};
use crate::lint::refs::{FlagSite, Ref};

use super::span::Span;

pub use ctx::{CatalogFacts, Ctx};
pub use reads::{ByKind, Reads};
pub use subject::Subject;

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
    /// The kinds of reference its check reads: it is asked of no other.
    pub reads: Reads,
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
    &missing_value::RULE,
    &swallowed_option::RULE,
    &unread_env_line::RULE,
    &env_key_case::RULE,
    &renamed_binary::RULE,
    &dropped_false::RULE,
    &broken_continuation::RULE,
    &deprecated_knob::RULE,
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

/// An option given another option as its value: on an engine whose
/// options take the next word whatever it is, a dash word after an option
/// that takes a value is that value. It is a missing value (the
/// swallowed-option rule's finding, not a wrong value) when the word is an
/// option of the build or a value the option refuses: the flag and the word.
pub fn swallowed<'c, 'r>(s: &Subject<'r, 'c>, ctx: &Ctx<'_>) -> Option<(&'c Flag, &'r str)> {
    let Ref::Flag { site: FlagSite::Argv, joined: false, value: Some(_), .. } = s.r else { return None };
    let (flag, word, _) = s.setting()?;
    let dashed = word.len() > 1 && word.starts_with('-') && word.parse::<f64>().is_err();
    if !ctx.profile.argv.dash_values || !dashed {
        return None;
    }
    (ctx.flag(word).is_some() || s.verdict != Verdict::Fine).then_some((flag, word))
}

/// What a flag that takes a value wants, for the value rules' help:
/// `` `-fa` takes one of `on`, `off`, `auto` in llama.cpp b4100 (`-fa
/// [on|off|auto]`) ``, and — when another catalogued version has it as a
/// switch, the commonest stale line — which (with a history, the tag spans
/// in which it was one: `b3000–b4100`).
pub fn wanted_value(written: &str, flag: &Flag, ctx: &Ctx<'_>) -> String {
    let mut out = format!("`{written}` takes {} in {}", kind_phrase(flag), ctx.build());
    if !flag.metavar.is_empty() {
        out.push_str(&format!(" (`{written} {}`)", flag.metavar));
    }
    if let Some((spans, before)) = ctx.switch_spans(&flag.name) {
        let when = if before { "was" } else { "is" };
        out.push_str(&format!(", and {when} a switch in {} {}", ctx.catalog.source.engine, spans.join(", ")));
        return out;
    }
    let pinned = ctx.all.iter().position(|c| c.source.tag == ctx.catalog.source.tag);
    let switch = ctx.all.iter().enumerate().rev().find(|(_, c)| {
        c.source.tag != ctx.catalog.source.tag
            && query::flag(c, ctx.profile, written).is_some_and(|f| f.kind == Kind::Switch)
    });
    if let Some((i, c)) = switch {
        let when = if pinned.is_some_and(|p| i < p) { "was" } else { "is" };
        out.push_str(&format!(", and {when} a switch in {} {}", c.source.engine, c.source.tag));
    }
    out
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
