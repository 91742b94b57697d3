//! Reports an env line that no reader takes as it is written.
//!
//! ## What it does
//! Reads each line of an env file as the programs that load env files do (a
//! shell that sources it, `docker --env-file`, compose's `env_file:`,
//! systemd's `EnvironmentFile=`) and reports a line that sets nothing, or
//! not what it says: spaces around `=` (`KEY = value`), a `-` in a key
//! (`CHECKPOINT-POLICY=floor`), and a key set again further down (the last
//! line wins, so the earlier one is dead).
//!
//! ## Why is this bad?
//! Each of these is silently dropped somewhere: a shell runs `KEY` as a
//! command instead of setting it, no serve script can read a key with a
//! `-` in it, and of two lines for one key only the last counts — the
//! rollback someone wrote on the first line never happened.
//!
//! ## Example
//! ```sh
//! MAX_SEQS = 2
//! CHECKPOINT-POLICY=tip-only
//! BUSY_PREFILL_CHUNK=auto
//! BUSY_PREFILL_CHUNK=256
//! ```
//! Use instead:
//! ```sh
//! MAX_SEQS=2
//! CHECKPOINT_POLICY=tip-only
//! BUSY_PREFILL_CHUNK=256
//! ```

use super::{Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::catalog::query::env_target;
use crate::lint::refs::{EnvProblem, Ref};

pub const RULE: Rule = Rule {
    code: "KNB018",
    name: "unread-env-line",
    severity: Severity::Error,
    source: include_str!("unread_env_line.rs"),
    reads: Reads::ENV_LINE,
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let Ref::EnvLine { problem, span } = s.r else { return };
    let (message, help, fix) = match problem {
        EnvProblem::Spaces { key, before: true } => (
            format!("a space between `{key}` and `=`: a shell that sources this file runs `{key}` as a command, and `docker --env-file` refuses the line"),
            format!("write `{key}=` and the value, with nothing between"),
            Some("=".to_string()),
        ),
        EnvProblem::Spaces { key, before: false } => (
            format!("a space after `{key}=`: a shell that sources this file sets `{key}` to nothing and runs the value as a command, and `docker --env-file` keeps the space in the value"),
            format!("write `{key}=` and the value, with nothing between"),
            Some("=".to_string()),
        ),
        EnvProblem::Hyphen { key } => {
            let fixed = key.replace('-', "_");
            // The rewrite is the one right answer only when the key it makes
            // sets a flag of the pinned build; else it is a suggestion.
            let sets_a_flag = env_target(&fixed, ctx.catalog, ctx.profile, ctx.env_flags).is_some();
            (
                format!("`{key}` is not a key a shell or a serve script can read: a `-` cannot be in an env name"),
                format!("did you mean `{fixed}`?"),
                sets_a_flag.then_some(fixed),
            )
        }
        EnvProblem::Duplicate { key, line } => (
            format!("`{key}` is set again on line {line}, and the last line wins: this one sets nothing"),
            "keep one of the two lines".to_string(),
            None,
        ),
    };
    out.push(Violation { rule: &RULE, span: *span, message, help: Some(help), fix });
}
