//! Reports a binary run by a name the pinned build no longer has.
//!
//! ## What it does
//! Where the engine's profile records that a binary was renamed between
//! versions (llama.cpp's `main` became `llama-cli`, then `llama-completion`;
//! `server` became `llama-server`), checks each command line that runs the
//! binary by its old name, written as a path (`./main`, `build/bin/server`,
//! `main.exe`), against the pinned build: a build older than the rename is
//! judged by its own table, and a newer one is told the binary's name in it.
//! The options after the old name are judged as the new binary's.
//!
//! ## Why is this bad?
//! The build has no binary by that name: the command fails with "No such
//! file or directory" before the engine reads a single option. Old READMEs
//! and serve scripts keep the name long after the build that had it.
//!
//! ## Example
//! ```sh
//! ./server -m model.gguf --port 8080
//! ```
//! Use instead:
//! ```sh
//! ./llama-server -m model.gguf --port 8080
//! ```

use super::{Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::lint::refs::Ref;

pub const RULE: Rule = Rule {
    code: "KNB020",
    name: "renamed-binary",
    severity: Severity::Error,
    source: include_str!("renamed_binary.rs"),
    reads: Reads::PROGRAM,
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let Ref::Program { span, binary } = s.r else { return };
    let Some(old) = binary.renamed.as_deref() else { return };
    let hops = ctx.profile.renames_at(old, &ctx.catalog.source.tag);
    let Some(last) = hops.last() else { return };
    let earlier: Vec<String> = hops[..hops.len() - 1].iter().map(|h| format!("`{}` from {}", h.to, h.since)).collect();
    let help = if earlier.is_empty() {
        format!("{} has no `{old}`: run `{}`", ctx.build(), last.to)
    } else {
        format!("{} has no `{old}`: run `{}` (it was {} on)", ctx.build(), last.to, earlier.join(", then "))
    };
    out.push(Violation {
        rule: &RULE,
        span: *span,
        message: format!("`{old}` is `{}` since {}", last.to, last.since),
        help: Some(help),
        // The word may be a variable or quoted: no rewrite is sure.
        fix: None,
    });
}
