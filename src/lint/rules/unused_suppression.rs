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

use super::{Ctx, Rule, Severity, Subject, Violation};

pub const RULE: Rule = Rule {
    code: "KNB008",
    name: "unused-suppression",
    severity: Severity::Warning,
    source: include_str!("unused_suppression.rs"),
    check,
};

/// Reported by the suppression pass, not per reference.
fn check(_: &Subject<'_, '_>, _: &Ctx<'_>, _: &mut Vec<Violation>) {}
