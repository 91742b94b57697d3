//! Reports a suppression comment naming a rule that does not exist.
//!
//! ## What it does
//! Checks every code or name in `knobs: ignore[...]` against the rule
//! registry.
//!
//! ## Why is this bad?
//! A misspelt rule name silences nothing, while the comment says it does.
//!
//! ## Example
//! ```sh
//! CHECKPOINT_POLICY=floor  # knobs: ignore[invented-membr]
//! ```
//! Use instead:
//! ```sh
//! CHECKPOINT_POLICY=floor  # knobs: ignore[invented-member]
//! ```

use super::{Ctx, Rule, Severity, Subject, Violation};

pub const RULE: Rule = Rule {
    code: "KNB009",
    name: "unknown-suppression",
    severity: Severity::Warning,
    source: include_str!("unknown_suppression.rs"),
    check,
};

/// Reported by the suppression pass, not per reference.
fn check(_: &Subject<'_, '_>, _: &Ctx<'_>, _: &mut Vec<Violation>) {}
