//! Reports a flag the build has, given to a binary that does not accept it.
//!
//! ## What it does
//! Where the engine's source scopes each option to the binaries (examples,
//! tools) that accept it, checks every flag in a binary's argv against that
//! scope: an option of the server passed to the command-line client is
//! refused by the client, however real it is elsewhere.
//!
//! ## Why is this bad?
//! The binary fails at start-up with an unknown argument, and the command
//! line reads as right to anyone who knows the flag from another binary's
//! help. Docs copied between binaries go stale this way.
//!
//! ## Example
//! ```sh
//! llama-cli -m model.gguf --host 0.0.0.0
//! ```
//! Use instead:
//! ```sh
//! llama-server -m model.gguf --host 0.0.0.0
//! ```

use super::{Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::lint::refs::Ref;

pub const RULE: Rule = Rule {
    code: "KNB010",
    name: "wrong-binary",
    severity: Severity::Error,
    source: include_str!("wrong_binary.rs"),
    reads: Reads::FLAG,
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let r = s.r;
    let Ref::Flag { name, span, binary: Some(binary), .. } = r else { return };
    let Some(flag) = s.flag.filter(|f| f.removed.is_none()) else { return };
    if accepts(ctx.profile, &ctx.catalog.source.tag, binary, flag) {
        return;
    }
    let accepting = ctx.profile.binaries_accepting(&flag.scopes, &flag.excludes);
    let shown: Vec<&str> = accepting.iter().take(5).map(String::as_str).collect();
    let more = if accepting.len() > shown.len() {
        format!(" and {} more", accepting.len() - shown.len())
    } else {
        String::new()
    };
    out.push(Violation {
        rule: &RULE,
        span: *span,
        message: format!("`{name}` is not an option of {} in {}", binary.command, ctx.build()),
        help: Some(if shown.is_empty() {
            "no binary accepts it".to_string()
        } else {
            format!("accepted by {}{more}", shown.join(", "))
        }),
        fix: None,
    });
}

/// True when `binary` (as the build tagged `tag` names it) accepts `flag`.
/// A binary run by an old name takes the options of the binary the pinned
/// build calls it (none: a build older than the rename, whose binary
/// accepts its own table). Completion offers only what this accepts.
pub fn accepts(
    profile: &crate::catalog::profile::Profile,
    tag: &str,
    binary: &crate::lint::refs::Binary,
    flag: &crate::catalog::model::Flag,
) -> bool {
    let scope = match &binary.renamed {
        Some(old) => {
            let hops = profile.renames_at(old, tag);
            let Some(to) = hops.last() else { return true };
            profile.scope_of(&to.to)
        }
        None => binary.scope.as_deref(),
    };
    profile.accepts(&flag.scopes, &flag.excludes, scope)
}
