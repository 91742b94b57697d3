//! Reports a bare word in the argv of an engine that takes no positional
//! arguments.
//!
//! ## What it does
//! Where the engine's profile says every argv word is an option or an
//! option's value (llama.cpp's parser), reports a word that is neither: the
//! binary refuses it at start-up. It is most often a second value given to
//! an option that takes one (`--lora-scaled FILE 0.5`, whose value is
//! `FILE:SCALE`), or a value given to a switch.
//!
//! Where a build parses such a word and then ignores it (an image whose
//! entrypoint takes a positional it never reads), says which option it
//! reads instead.
//!
//! ## Why is this bad?
//! The command line reads as right and fails with "invalid argument", or —
//! where the option before it changed arity between builds, or the word is
//! ignored — the meaning shifted silently (the default model is served).
//!
//! ## Example
//! ```sh
//! llama-cli -m model.gguf --lora-scaled adapter.gguf 0.5
//! ```
//! Use instead:
//! ```sh
//! llama-cli -m model.gguf --lora-scaled adapter.gguf:0.5
//! ```

use super::{Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::catalog::tag::compare_tags;
use crate::lint::refs::Ref;

pub const RULE: Rule = Rule {
    code: "KNB011",
    name: "stray-argument",
    severity: Severity::Error,
    source: include_str!("stray_argument.rs"),
    reads: Reads::STRAY,
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let r = s.r;
    let Ref::Stray { word, span, after, binary, index } = r else { return };
    // The pinned build's limit, where it varies by build (`sglang serve`
    // took its model as a positional word from v0.5.16).
    let tag = &ctx.catalog.source.tag;
    let limit = binary.as_ref().and_then(|b| {
        let earlier = b.earlier_positionals.iter().find(|(until, _)| compare_tags(tag, until).is_lt());
        earlier.map(|(_, n)| *n).or(b.positionals)
    });
    if let (Some(i), Some(n)) = (index, limit) {
        if *i < n {
            return;
        }
    }
    let what = binary.as_ref().map_or_else(|| ctx.catalog.source.engine.clone(), |b| b.command.clone());
    // A build that parses the word and throws it away (the profile says which option counts).
    let ignored = binary.as_ref().and_then(|b| b.ignored_positional.as_deref());
    let help = match after.as_deref().and_then(|a| ctx.flag(a).map(|f| (a, f))) {
        Some((a, f)) if f.values() == 0 => format!("`{a}` takes no value"),
        Some((a, f)) if !f.metavar.is_empty() => {
            format!("`{a}` takes {} value{}: `{}`", f.values(), if f.values() == 1 { "" } else { "s" }, f.metavar)
        }
        _ => "quote it if it belongs to the option before it".to_string(),
    };
    out.push(Violation {
        rule: &RULE,
        span: *span,
        message: match (limit.filter(|n| *n > 0), ignored) {
            (_, Some(option)) => {
                format!("`{word}` is read and ignored by {what} in {}: it uses `{option}` instead", ctx.build())
            }
            (Some(n), None) => {
                format!("`{word}` is one positional argument too many: {what} takes {n} in {}", ctx.build())
            }
            (None, None) => {
                format!("`{word}` is not an option of {what}: {} takes no positional arguments", ctx.build())
            }
        },
        help: Some(match ignored {
            Some(option) => format!("write `{option} {word}`"),
            None => help,
        }),
        fix: None,
    });
}
