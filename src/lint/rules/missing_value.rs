//! Reports an option that takes a value and is given none.
//!
//! ## What it does
//! Finds an option of the pinned build that takes a value where none
//! follows it in the engine's argv: the command line ends after it, or —
//! on an engine whose values may not start with `-` — the next word is
//! another option. It names what the option takes (its members, for an
//! enum) and, when another catalogued version had it as a switch, which.
//!
//! ## Why is this bad?
//! The engine refuses the command line at start-up ("expects a value"). The
//! commonest form is a stale line: an option that was a switch in an older
//! build and takes a value now (`-fa` that became `-fa on|off|auto`), kept
//! bare in a serve script or a runbook that no one re-ran.
//!
//! ## Example
//! ```sh
//! radiance --model /models/m --checkpoint-policy
//! radiance --checkpoint-policy --max-num-seqs 2
//! ```
//! Use instead:
//! ```sh
//! radiance --model /models/m --checkpoint-policy tip-only
//! radiance --checkpoint-policy tip-only --max-num-seqs 2
//! ```

use super::{wanted_value, Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::lint::refs::{FlagSite, Gap, Ref};

pub const RULE: Rule = Rule {
    code: "KNB016",
    name: "missing-value",
    severity: Severity::Error,
    source: include_str!("missing_value.rs"),
    reads: Reads::FLAG,
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let Ref::Flag { name, span, site: FlagSite::Argv, gap: Some(gap), .. } = s.r else { return };
    // A removed option is removed-flag's finding.
    // An option whose value may be left out (`nargs="?"`, `"*"`) is given none on purpose.
    let Some(flag) = s.flag.filter(|f| f.removed.is_none() && f.values() > 0 && !f.value_optional()) else { return };
    if !accepted(flag, s.r, ctx) {
        return;
    }
    let message = match gap {
        Gap::End => format!("`{name}` is given no value: the command line ends after it"),
        Gap::Option(next) => format!("`{name}` is given no value: the next word, `{next}`, is an option"),
    };
    out.push(Violation { rule: &RULE, span: *span, message, help: Some(give(name, flag, ctx)), fix: None });
}

/// False when the binary whose argv it is does not accept the option:
/// wrong-binary's finding, whatever follows it.
pub(super) fn accepted(flag: &crate::catalog::model::Flag, r: &Ref, ctx: &Ctx<'_>) -> bool {
    let Ref::Flag { binary, .. } = r else { return true };
    binary.as_ref().is_none_or(|b| ctx.profile.accepts(&flag.scopes, &flag.excludes, b.scope.as_deref()))
}

/// The help both value-less findings end with: what the option takes, and
/// how to write the line.
pub(super) fn give(name: &str, flag: &crate::catalog::model::Flag, ctx: &Ctx<'_>) -> String {
    let wanted = wanted_value(name, flag, ctx);
    if flag.default.is_empty() {
        format!("{wanted}: give it a value")
    } else {
        format!("{wanted}: give it a value, or drop it to keep the default (`{}`)", flag.default)
    }
}
