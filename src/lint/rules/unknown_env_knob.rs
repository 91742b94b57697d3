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

use super::{Ctx, Rule, Severity, Subject, Violation};
use crate::catalog::query::{env_key_for, env_target, suggest};
use crate::lint::refs::Ref;

pub const RULE: Rule = Rule {
    code: "KNB006",
    name: "unknown-env-knob",
    severity: Severity::Warning,
    source: include_str!("unknown_env_knob.rs"),
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let r = s.r;
    let Ref::Env { key, span, .. } = r else { return };
    if s.env.is_some() || ctx.all.iter().any(|c| env_target(key, c, ctx.profile, ctx.env_flags).is_some()) {
        return;
    }
    // Every key the build reads: declared ones (and their negated forms),
    // and the convention's where the profile has one.
    let mut keys: Vec<(String, &str)> = Vec::new();
    for f in &ctx.catalog.flags {
        for k in f.env.iter().cloned().chain(env_key_for(f, ctx.profile)) {
            if let (Some([from, to]), false) = (&ctx.profile.env.negated, f.negated.is_empty()) {
                if let Some(rest) = k.strip_prefix(from.as_str()) {
                    keys.push((format!("{to}{rest}"), f.name.as_str()));
                }
            }
            keys.push((k, f.name.as_str()));
        }
    }
    keys.retain(|(k, _)| k.contains('_'));
    keys.sort();
    keys.dedup();
    let report = |prefix: &str, near: &str, out: &mut Vec<Violation>| {
        let flag = keys.iter().find(|(k, _)| k == near).map_or("", |(_, f)| f);
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
