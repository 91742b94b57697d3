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

use super::{consumed_flag, flag_and_value, Ctx, Rule, Severity, Violation};
use crate::catalog::query::{judge, kind_phrase, Verdict};
use crate::lint::refs::Ref;

pub const RULE: Rule =
    Rule { code: "KNB003", name: "bad-value", severity: Severity::Error, source: include_str!("bad_value.rs"), check };

fn check(r: &Ref, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let Some((flag, value, span, what)) = flag_and_value(r, ctx) else { return };
    let Verdict::WrongKind(bad) = judge(flag, &value) else { return };
    let mut help = format!("`{}` takes {} ({})", flag.name, kind_phrase(flag), flag.kind.as_str());
    if let Some(why) = consumed_flag(&bad, flag, ctx) {
        help = format!("{why}; {help}");
    }
    out.push(Violation {
        rule: &RULE,
        span,
        message: format!("`{bad}` is not a valid value for {what}"),
        help: Some(help),
        fix: None,
    });
}
