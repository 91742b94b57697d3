//! Reports an env key written in the wrong case.
//!
//! ## What it does
//! A key with lower-case letters that the engine would read in capitals
//! (`frank_archon_checkpoint_policy` for `FRANK_ARCHON_CHECKPOINT_POLICY`,
//! `llama_arg_ctx_size` for `LLAMA_ARG_CTX_SIZE`) is reported with the key
//! the pinned build reads.
//!
//! ## Why is this bad?
//! Env keys are case-sensitive: the line sets a variable nobody reads, the
//! engine runs on its default, and the file reads as if the knob were set.
//!
//! ## Example
//! ```sh
//! frank_archon_checkpoint_policy=tip-only
//! ```
//! Use instead:
//! ```sh
//! FRANK_ARCHON_CHECKPOINT_POLICY=tip-only
//! ```

use super::{Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::catalog::query::env_target;
use crate::lint::refs::Ref;

pub const RULE: Rule = Rule {
    code: "KNB019",
    name: "env-key-case",
    severity: Severity::Error,
    source: include_str!("env_key_case.rs"),
    reads: Reads::ENV,
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let Ref::Env { key, span, .. } = s.r else { return };
    if s.env.is_some() || !key.bytes().any(|b| b.is_ascii_lowercase()) {
        return;
    }
    let upper = key.to_ascii_uppercase();
    let Some(t) = env_target(&upper, ctx.catalog, ctx.profile, ctx.env_flags) else { return };
    // `FRANK_archon_…`: the key the convention reads is the upper-case one.
    out.push(Violation {
        rule: &RULE,
        span: *span,
        message: format!("`{key}` sets nothing: env keys are case-sensitive, and {} reads `{upper}`", ctx.build()),
        help: Some(format!("write `{upper}` (`{}`)", t.flag.name)),
        fix: Some(upper),
    });
}
