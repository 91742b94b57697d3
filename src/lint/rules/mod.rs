//! The rules: one file each, listed once in [`RULES`] with a stable code and a
//! kebab-case name. A rule reads one reference and the pinned catalogue and
//! reports violations; it never prints. Its file's `//!` doc comment is the
//! text `knobs explain CODE` shows.

mod bad_value;
mod ctx;
mod histogram_base_name;
mod invented_flag;
mod invented_member;
mod quantile_of_non_histogram;
mod rate_of_gauge;
mod removed_flag;
mod renamed_binary;
mod stray_argument;
mod subject;
mod unknown_env_knob;
mod unknown_label;
mod unknown_metric;
pub(crate) mod unknown_suppression;
pub(crate) mod unused_suppression;
mod wrong_binary;
mod wrong_metric_prefix;

use serde::Serialize;

use crate::catalog::model::Flag;

use super::span::Span;

pub use ctx::{Ctx, Derived};
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
    &renamed_binary::RULE,
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
