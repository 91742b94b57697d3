//! Reports a value of the wrong kind for its flag.
//!
//! ## What it does
//! Checks that the value given to a flag fits the kind the catalogue records:
//! an integer for `int`, `auto` or an integer for `auto-or-int`, a number for
//! `float`; and the value of an engine-wide env key against the kind its
//! source parses it as (`OLLAMA_NUM_PARALLEL` an unsigned integer,
//! `OLLAMA_KEEP_ALIVE` a duration). Placeholders (`N`, `<n>`, `TOKENS`)
//! and shell variables are not values and are left alone. A switch's env
//! key that the engine reads itself is given a word its build ignores when
//! the profile (or its era) says which words set a switch:
//! `LLAMA_ARG_MLOCK=yes` sets nothing where only `1` and `true` do.
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

use super::{swallowed, Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::catalog::model::Kind;
use crate::catalog::query::{env_kind_phrase, env_value_fits, kind_phrase, Verdict};
use crate::lint::refs::{FlagSite, Ref};

pub const RULE: Rule = Rule {
    code: "KNB003",
    name: "bad-value",
    severity: Severity::Error,
    source: include_str!("bad_value.rs"),
    reads: Reads::ALL,
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    switch_given_value(s, ctx, out);
    env_key_kind(s, ctx, out);
    if switch_env_ignored(s, ctx, out) {
        return;
    }
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

/// A switch's env key, read by the engine itself, set to a word its build
/// ignores: the profile's `[env.switch]` (or its era's) says which words
/// set the switch and which mean off, as the source compares them (exactly:
/// `yes` and `TRUE` set nothing where only `1` and `true` do). True when
/// the value was judged so (reported or not), so no other kind check runs.
fn switch_env_ignored(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) -> bool {
    let (Ref::Env { key, value: Some(v), .. }, Some(words)) = (s.r, ctx.profile.env.switch.as_ref()) else {
        return false;
    };
    let Some(t) = s.env.filter(|t| !t.negated && t.flag.kind == Kind::Switch && t.flag.removed.is_none()) else {
        return false;
    };
    // A key a serve script turns into argv is not read by the engine's env parser.
    if ctx.env_flags.contains_key(key) || !t.flag.env.iter().any(|k| k == key) {
        return false;
    }
    let Some(text) = v.text.as_deref().filter(|t| !t.is_empty() && !t.contains('$')) else { return true };
    if v.var.is_some() || !words.ignores(text) {
        return true;
    }
    let quote = |w: &[String]| w.iter().map(|w| format!("`{w}`")).collect::<Vec<_>>().join(", ");
    let mut help = format!("`{key}` turns `{}` on only with {}", t.flag.name, quote(&words.on));
    if !words.off.is_empty() {
        help.push_str(&format!("; {} leave it off", quote(&words.off)));
    }
    out.push(Violation {
        rule: &RULE,
        span: v.span,
        message: format!("`{key}={text}` is ignored by {}: `{}` stays off", ctx.build(), t.flag.name),
        help: Some(help),
        fix: None,
    });
    true
}

/// `--switch=value` where the profile says a switch takes none
/// (`switch_values = false`): the parser refuses the word.
fn switch_given_value(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let Ref::Flag { name, joined: true, site: FlagSite::Argv, value: Some(v), .. } = s.r else { return };
    let Some(flag) = s.flag.filter(|f| f.kind == Kind::Switch && f.removed.is_none()) else { return };
    if ctx.profile.argv.switch_values {
        return;
    }
    let text = v.text.as_deref().unwrap_or("");
    let off = matches!(text.to_ascii_lowercase().as_str(), "false" | "0" | "no" | "off");
    let help = match flag.negated.first() {
        Some(neg) if off && flag.name == *name => {
            format!("`{name}` takes no value in {}; write `{neg}` to turn it off", ctx.build())
        }
        _ => format!("`{name}` takes no value in {}; write `{name}` alone", ctx.build()),
    };
    out.push(Violation {
        rule: &RULE,
        span: v.span,
        message: format!("`{name}={text}` is refused: `{name}` is a switch and takes no value"),
        help: Some(help),
        fix: None,
    });
}

/// A value given to an engine-wide env key whose source parses it as a
/// kind (`OLLAMA_NUM_PARALLEL=four`), when the parse refuses it: the engine
/// warns and uses its default, or takes a refused bool as true.
fn env_key_kind(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let (Some(k), Ref::Env { key, value: Some(v), .. }) = (s.env_key, s.r) else { return };
    if k.kind.is_empty() || s.env.is_some() {
        return;
    }
    // Quotes and spaces around the value are trimmed by the readers that trim.
    let Some(text) = v.text.as_deref().map(str::trim).filter(|t| !t.is_empty() && !t.contains('$')) else {
        return;
    };
    if env_value_fits(&k.kind, text) || !k.members.is_empty() {
        return;
    }
    out.push(Violation {
        rule: &RULE,
        span: v.span,
        message: format!("`{text}` is not a valid value for `{key}`"),
        help: Some(format!("`{key}` takes {} in {} ({})", env_kind_phrase(&k.kind), ctx.build(), k.location)),
        fix: None,
    });
}
