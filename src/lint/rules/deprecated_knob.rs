//! Reports a flag or an env key that the pinned build marks deprecated.
//!
//! ## What it does
//! A flag the catalogue records as `deprecated` (its help, or the custom
//! action that parses it, says so: SGLang's `--disable-cuda-graph`), or an
//! engine-wide env key the build still reads only to warn and forward it
//! (SGLang's `_DEPRECATED_ENVS`: `SGLANG_GC_LOG` → `SGLANG_LOG_GC`), is
//! reported with what the source says to use instead. A flag named in
//! prose without a value is not a use of it.
//!
//! ## Why is this bad?
//! It works today, with a warning in the log that nobody reads; a later
//! build drops it, and the upgrade fails at start-up (a flag) or runs
//! silently on the default (an env key).
//!
//! ## Example
//! ```sh
//! SGLANG_GC_LOG=1 sglang serve Qwen/Qwen3-8B --disable-cuda-graph
//! ```
//! Use instead:
//! ```sh
//! SGLANG_LOG_GC=1 sglang serve Qwen/Qwen3-8B --cuda-graph-backend-decode disabled
//! ```

use super::{Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::lint::refs::{FlagSite, Ref};

pub const RULE: Rule = Rule {
    code: "KNB023",
    name: "deprecated-knob",
    severity: Severity::Warning,
    source: include_str!("deprecated_knob.rs"),
    reads: Reads::FLAG.and(Reads::ENV),
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    match s.r {
        Ref::Flag { site: FlagSite::Loose, value: None, .. } => {}
        Ref::Flag { name, span, .. } => {
            let Some(flag) = s.flag.filter(|f| f.deprecated && f.removed.is_none()) else { return };
            let help = match first_sentences(&flag.help) {
                Some(said) => format!("{} says: {said}", ctx.build()),
                None => format!("{} still takes it, and warns; a later build may drop it", ctx.build()),
            };
            let name = if *name == flag.name { format!("`{name}`") } else { format!("`{name}` (`{}`)", flag.name) };
            out.push(Violation {
                rule: &RULE,
                span: *span,
                message: format!("{name} is deprecated in {}", ctx.build()),
                help: Some(help),
                fix: None,
            });
        }
        Ref::Env { key, span, .. } => {
            // The key as written: an old prefix read as the new one is not this finding.
            let Some(k) = s.env_key.filter(|k| k.deprecated && k.name == *key) else { return };
            let help = if !k.successor.is_empty() {
                format!("{} reads it as `{}`: set that instead", ctx.build(), k.successor)
            } else {
                match first_sentences(&k.help) {
                    Some(said) => format!("{} says: {said}", ctx.build()),
                    None => format!("{} only warns about it; a later build may not read it at all", ctx.build()),
                }
            };
            out.push(Violation {
                rule: &RULE,
                span: *span,
                message: format!("`{key}` is deprecated in {}", ctx.build()),
                help: Some(help),
                fix: None,
            });
        }
        _ => {}
    }
}

/// The help text's first two sentences, at most 200 characters, when it has any.
fn first_sentences(help: &str) -> Option<String> {
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    if help.is_empty() {
        return None;
    }
    let mut end = help.len();
    let mut seen = 0;
    for (i, _) in help.match_indices(". ") {
        seen += 1;
        if seen == 2 {
            end = i + 1;
            break;
        }
    }
    let text: String = help[..end].chars().take(200).collect();
    Some(text)
}
