//! Reports an env key that is a near miss of a knob's key.
//!
//! ## What it does
//! An env key sets a flag by convention (`FRANK_ARCHON_PREFILL_INTERLEAVE`
//! sets `--prefill-interleave`: service prefix stripped, lower-cased, `_`
//! to `-`) or through the serve script that passes it. A key that sets no
//! flag but is one or two letters away from one that does is reported.
//! Keys that resemble no knob (`HF_TOKEN`, `MODEL_DIR`) are left alone.
//!
//! ## Why is this bad?
//! A misspelt key is silently ignored: the serve script never passes it, the
//! engine runs on its default, and the change the trio records never
//! happened.
//!
//! ## Example
//! ```sh
//! CHECKPOINT_POLICE=tip-only
//! ```
//! Use instead:
//! ```sh
//! CHECKPOINT_POLICY=tip-only
//! ```

use super::{Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::catalog::query::{env_key, env_key_judged, env_target};
use crate::lint::refs::Ref;
use crate::suggest::suggest;

pub const RULE: Rule = Rule {
    code: "KNB006",
    name: "unknown-env-knob",
    severity: Severity::Warning,
    source: include_str!("unknown_env_knob.rs"),
    reads: Reads::ENV,
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let r = s.r;
    let Ref::Env { key, span, .. } = r else { return };
    if s.env.is_some() || ctx.all.iter().any(|c| env_target(key, c, ctx.profile, ctx.env_flags).is_some()) {
        return;
    }
    if env_key_judged(ctx.catalog, ctx.profile, key) {
        engine_key(s, key, *span, ctx, out);
        return;
    }
    // Another tag of the history reads it: removed-flag's finding.
    if ctx.env_flag_elsewhere(key).is_some() {
        return;
    }
    let keys = ctx.env_keys();
    let report = |prefix: &str, near: &str, out: &mut Vec<Violation>| {
        let flag = keys.iter().find(|(k, _)| k == near).map_or("", |(_, f)| f.as_str());
        out.push(Violation {
            rule: &RULE,
            span: *span,
            message: format!("`{key}` sets no flag of {}", ctx.build()),
            help: Some(format!("did you mean `{prefix}{near}` (`{flag}`)?")),
            fix: None,
        });
    };
    if !ctx.profile.env.convention {
        if let Some(near) = suggest(key, keys.iter().map(|(k, _)| k.as_str())) {
            report("", near, out);
        }
        return;
    }
    let words: Vec<&str> = key.split('_').collect();
    // Try the key with each service prefix stripped; keep at least two words.
    for i in 0..words.len().saturating_sub(1) {
        let rest = words[i..].join("_");
        if rest.len() < 8 {
            break;
        }
        if let Some(near) = suggest(&rest, keys.iter().map(|(k, _)| k.as_str())) {
            let prefix = if i == 0 { String::new() } else { format!("{}_", words[..i].join("_")) };
            report(&prefix, near, out);
            return;
        }
    }
}

/// A key with the engine's env prefix, judged against the engine-wide keys
/// the pinned build reads: one it does not read, and no other catalogued
/// version reads either (removed-flag's finding), is reported with the
/// nearest it does read.
fn engine_key(s: &Subject<'_, '_>, key: &str, span: crate::lint::span::Span, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    if s.env_key.is_some() || ctx.all.iter().any(|c| env_key(c, key).is_some()) || ctx.env_key_in_history(key) {
        return;
    }
    let names = ctx.catalog.env_keys.iter().map(|k| k.name.as_str());
    let help = match suggest(key, names) {
        Some(near) => format!("did you mean `{near}`?"),
        None => {
            let prefix = ctx.profile.env.prefix.as_deref().unwrap_or("");
            let count = ctx.catalog.env_keys.iter().filter(|k| k.name.starts_with(prefix)).count();
            format!("{} reads {count} keys starting `{prefix}`, and this is none of them", ctx.build())
        }
    };
    out.push(Violation {
        rule: &RULE,
        span,
        message: format!("`{key}` is not an env key of {}", ctx.build()),
        help: Some(help),
        fix: None,
    });
}
