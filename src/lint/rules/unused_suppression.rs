//! Reports a suppression comment that silences nothing.
//!
//! ## What it does
//! A `knobs: ignore[...]` comment whose lines produce no finding of the rules
//! it names is reported.
//!
//! ## Why is this bad?
//! A stale suppression hides the next real mistake written on that line, and
//! tells the reader a problem exists where none does.
//!
//! ## Example
//! ```markdown
//! <!-- knobs: ignore[invented-member] -->
//! Set `--checkpoint-policy tip-only`.
//! ```
//! Use instead: delete the comment.

use super::{Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::lint::span::Span;

pub const RULE: Rule = Rule {
    code: "KNB008",
    name: "unused-suppression",
    severity: Severity::Warning,
    source: include_str!("unused_suppression.rs"),
    reads: Reads::NONE,
    check,
};

/// Reported by the suppression pass, not per reference.
fn check(_: &Subject<'_, '_>, _: &Ctx<'_>, _: &mut Vec<Violation>) {}

/// The finding for a suppression at `span` of `rules` (empty: any rule)
/// that silenced nothing.
pub(crate) fn violation(span: Span, rules: &[String]) -> Violation {
    let what = if rules.is_empty() { "any rule".to_string() } else { rules.join(", ") };
    Violation {
        rule: &RULE,
        span,
        message: format!("this suppression of {what} silences nothing"),
        help: Some("remove it".into()),
        fix: None,
    }
}
