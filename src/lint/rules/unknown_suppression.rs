//! Reports a suppression comment naming a rule or a directive that does not exist.
//!
//! ## What it does
//! Checks every code or name in `knobs: ignore[...]` against the rule
//! registry, and every comment made only of `knobs: WORD` against the two
//! directives, `ignore` and `ignore-file`.
//!
//! ## Why is this bad?
//! A misspelt rule name or directive (`knobs: disable-file`) silences
//! nothing, while the comment says it does.
//!
//! ## Example
//! ```sh
//! CHECKPOINT_POLICY=floor  # knobs: ignore[invented-membr]
//! ```
//! Use instead:
//! ```sh
//! CHECKPOINT_POLICY=floor  # knobs: ignore[invented-member]
//! ```

use super::{Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::lint::span::Span;

pub const RULE: Rule = Rule {
    code: "KNB009",
    name: "unknown-suppression",
    severity: Severity::Warning,
    source: include_str!("unknown_suppression.rs"),
    reads: Reads::NONE,
    check,
};

/// Reported by the suppression pass, not per reference.
fn check(_: &Subject<'_, '_>, _: &Ctx<'_>, _: &mut Vec<Violation>) {}

/// The finding for a suppression at `span` naming rules that do not exist.
pub(crate) fn violation(span: Span, unknown: &[&str]) -> Violation {
    let names = unknown.iter().map(|r| format!("`{r}`")).collect::<Vec<_>>().join(", ");
    Violation {
        rule: &RULE,
        span,
        message: format!("no rule is called {names}"),
        help: Some("`knobs explain RULE` and `knobs rules` list the rules".into()),
        fix: None,
    }
}

/// The finding for a comment at `span` naming the directive `word`, which
/// knobs has not got.
pub(crate) fn directive_violation(span: Span, word: &str) -> Violation {
    Violation {
        rule: &RULE,
        span,
        message: format!("`knobs: {word}` is no directive: it silences nothing"),
        help: Some(
            "the directives are `knobs: ignore[RULES]` (the next line or block) and `knobs: ignore-file[RULES]`".into(),
        ),
        fix: None,
    }
}
