//! Reports an option that would read the next option as its value.
//!
//! ## What it does
//! On an engine whose options take the next word whatever it is (the
//! profile's `dash_values`, as llama.cpp's parser does), finds an option of
//! the pinned build that takes a value and is followed by another option —
//! one of the build's, or a dash word the option refuses as a value. It
//! names what the option takes (its members, for an enum) and, when
//! another catalogued version had it as a switch, which.
//!
//! ## Why is this bad?
//! The line reads as two options to a person, and as one option and its
//! value to the engine: `--color --port 8080` gives `--color` the value
//! `--port`, which it refuses, and `--port` is never set (its `8080` is then
//! a stray word). Where the first option takes any string (`--alias
//! --port`), nothing is refused and the second option silently vanishes.
//! It is most often an option that was a switch in an older build.
//!
//! ## Example
//! ```sh
//! llama-server -m model.gguf --color --port 8080
//! ```
//! Use instead:
//! ```sh
//! llama-server -m model.gguf --color on --port 8080
//! ```

use super::missing_value::{accepted, give};
use super::{swallowed, Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::lint::refs::Ref;

pub const RULE: Rule = Rule {
    code: "KNB017",
    name: "swallowed-option",
    severity: Severity::Error,
    source: include_str!("swallowed_option.rs"),
    reads: Reads::FLAG,
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let Ref::Flag { name, span, .. } = s.r else { return };
    let Some((flag, word)) = swallowed(s, ctx).filter(|(f, _)| accepted(f, s.r, ctx)) else { return };
    let what = match ctx.flag(word) {
        Some(other) if other.name != word => format!("`{word}` (`{}`) is read as its value and never set", other.name),
        Some(_) => format!("`{word}` is read as its value and never set"),
        None => format!("`{word}` is read as its value"),
    };
    out.push(Violation {
        rule: &RULE,
        span: *span,
        message: format!("`{name}` takes a value and would swallow `{word}`"),
        help: Some(format!("{what}; {}", give(name, flag, ctx))),
        fix: None,
    });
}
