//! Reports a value of the wrong kind for its flag.
//!
//! ## What it does
//! Checks that the value given to a flag fits the kind the catalogue records:
//! an integer for `int`, `auto` or an integer for `auto-or-int`, a number for
//! `float`. Placeholders (`N`, `<n>`, `TOKENS`) and shell variables are not
//! values and are left alone.
//!
//! ## Why is this bad?
//! The engine refuses the value at boot, or — worse — parses a prefix of it.
//! `2k` is not 2048 to a validator, and `automatic` is not `auto`.
//!
//! ## Example
//! ```sh
//! radiance --checkpoint-interval 2k
//! BUSY_PREFILL_CHUNK=automatic
//! ```
//! Use instead:
//! ```sh
//! radiance --checkpoint-interval 2048
//! BUSY_PREFILL_CHUNK=auto
//! ```

use super::{swallowed, Ctx, Rule, Severity, Subject, Violation};
use crate::catalog::query::{kind_phrase, Verdict};

pub const RULE: Rule =
    Rule { code: "KNB003", name: "bad-value", severity: Severity::Error, source: include_str!("bad_value.rs"), check };

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let Verdict::WrongKind(bad) = &s.verdict else { return };
    let Some((flag, _, span)) = s.setting() else { return };
    // An option read as the value: swallowed-option's finding.
    if swallowed(s, ctx).is_some() {
        return;
    }
    let help = format!("`{}` takes {} ({})", flag.name, kind_phrase(flag), flag.kind.as_str());
    out.push(Violation {
        rule: &RULE,
        span,
        message: format!("`{bad}` is not a valid value for {}", s.written()),
        help: Some(help),
        fix: None,
    });
}
