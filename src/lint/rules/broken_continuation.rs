//! Reports a `\` that escapes a space where a line continuation was meant.
//!
//! ## What it does
//! Finds a `\` at the end of an engine's command line with a space after it
//! (and then blanks or a `# comment`), in serve scripts, shell blocks,
//! Dockerfiles and every other place a shell command line is read.
//!
//! ## Why is this bad?
//! A `\` continues a line only when the line ends right after it. Followed by
//! a space, it escapes that space: the engine is given a lone space as an
//! argument, the command ends on that line, and the next line runs as a
//! command of its own — its options never reach the engine, and the shell
//! fails on a command named after the first of them. Trailing blanks are
//! invisible in most editors; a comment after `\` reads naturally and is
//! just as fatal.
//!
//! ## Example
//! ```sh
//! radiance --port 8080 \ # the public port
//!   --max-num-seqs 4
//! ```
//! Use instead:
//! ```sh
//! # the public port
//! radiance --port 8080 \
//!   --max-num-seqs 4
//! ```

use super::{Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::lint::refs::Ref;

pub const RULE: Rule = Rule {
    code: "KNB022",
    name: "broken-continuation",
    severity: Severity::Error,
    source: include_str!("broken_continuation.rs"),
    reads: Reads::BROKEN,
    check,
};

fn check(s: &Subject<'_, '_>, _ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let Ref::Broken { span, next } = s.r else { return };
    let message = match next {
        Some(next) => format!(
            "this `\\` escapes the space after it, not the line end: the command ends here, and line {next} runs as a command of its own"
        ),
        None => "this `\\` escapes the space after it: the engine is given a lone space as an argument".to_string(),
    };
    out.push(Violation {
        rule: &RULE,
        span: *span,
        message,
        help: Some("end the line with `\\` and nothing after it; put the comment on a line of its own".to_string()),
        fix: None,
    });
}
