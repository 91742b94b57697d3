//! Reports a flag that exists in another catalogued version, not the pinned one.
//!
//! ## What it does
//! A flag (or the env key that sets it) that the pinned build lacks but
//! another catalogued build has is reported with the versions that have it,
//! and its new name when the catalogue diff shows a rename, or the flag
//! whose alias it was when only the alias left (`-m` of `--model`). With
//! the engine's history (every tag), it says instead in which tag the flag
//! was removed and what it became, or from which later tag it exists. A
//! flag the build keeps only to refuse is reported with the source's
//! message, or (a history of facts only) the successors that message names.
//!
//! ## Why is this bad?
//! Runbooks outlive builds. A step written against an older pin passes a flag
//! the deployed build refuses — or, through an env file, silently drops.
//!
//! ## Example
//! ```sh
//! radiance --prefill-chunk auto      # 1.0.13's name
//! ```
//! Use instead:
//! ```sh
//! radiance --busy-prefill-chunk auto # 1.8.1
//! ```

use super::{Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::catalog::history::REMOVED_UNSAID;
use crate::catalog::query::{env_key, env_key_judged, env_target};
use crate::lint::refs::{FlagSite, Ref};

pub const RULE: Rule = Rule {
    code: "KNB007",
    name: "removed-flag",
    severity: Severity::Error,
    source: include_str!("removed_flag.rs"),
    reads: Reads::ALL,
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let r = s.r;
    let (name, span, what) = match r {
        // A removed option named in prose (its own help row, a changelog)
        // is not a use of it.
        Ref::Flag { site: FlagSite::Loose, .. } if s.flag.is_some_and(|f| f.removed.is_some()) => return,
        // Nor is a flag of another build named alone (an upgrade note lists
        // the old name beside the new by design); given a value, it is an
        // instruction, and judged.
        Ref::Flag { site: FlagSite::Loose, value: None, .. } => return,
        // A flag the pinned build has and still takes: nothing to say.
        Ref::Flag { .. } if s.flag.is_some_and(|f| f.removed.is_none()) => return,
        Ref::Flag { name, span, .. } => (name.clone(), *span, format!("`{name}`")),
        Ref::Env { key, span, .. } => match s.env {
            Some(t) if t.flag.removed.is_some() => (t.flag.name.clone(), *span, format!("`{key}` (`{}`)", t.flag.name)),
            Some(_) => return,
            // A key in lower case sets nothing (KNB019).
            None if key.bytes().any(|b| b.is_ascii_lowercase()) => return,
            None if env_key_judged(ctx.catalog, ctx.profile, key) => {
                engine_key(s, key, *span, ctx, out);
                return;
            }
            None => {
                let found = ctx.all.iter().find_map(|c| env_target(key, c, ctx.profile, ctx.env_flags));
                let Some(name) = found.map(|t| t.flag.name.clone()).or_else(|| ctx.env_flag_elsewhere(key)) else {
                    return;
                };
                (name.clone(), *span, format!("`{key}` (`{name}`)"))
            }
        },
        Ref::Metric { .. }
        | Ref::Stray { .. }
        | Ref::EnvLine { .. }
        | Ref::Program { .. }
        | Ref::Broken { .. }
        | Ref::Value { .. } => return,
    };
    // Still parsed by the pinned build, but always refused.
    if let Some(f) = ctx.flag(&name) {
        if let Some(why) = &f.removed {
            let named: Vec<String> = f.successors.iter().map(|n| format!("`{n}`")).collect();
            let help = match (why.as_str(), named.is_empty()) {
                // A history of facts only keeps the successors, not the sentence.
                (REMOVED_UNSAID, false) => format!("the build names {} in its place; {why}", named.join(" or ")),
                _ => format!("the source says: {why}"),
            };
            out.push(Violation {
                rule: &RULE,
                span,
                message: format!("{what} was removed from {}: it is refused at start-up", ctx.build()),
                help: Some(help),
                fix: None,
            });
        }
        return;
    }
    if let Some(v) = from_history(r, &name, &what, span, ctx) {
        out.push(v);
        return;
    }
    let others = ctx.versions_with_flag(&name);
    if others.is_empty() {
        return;
    }
    let tags: Vec<&str> = others.iter().map(|c| c.source.tag.as_str()).collect();
    // An alias that left a flag the pinned build still has (`-m` of `--model`).
    let alias_of = (others.iter())
        .filter_map(|c| crate::catalog::query::flag(c, ctx.profile, &name))
        .map(|f| f.name.clone())
        .find(|owner| *owner != name && ctx.flag(owner).is_some());
    let renamed = ctx.renamed(&name).map(str::to_string).or(alias_of.clone());
    let mut help = format!("it exists in {} {}", ctx.catalog.source.engine, tags.join(", "));
    match (&alias_of, &renamed) {
        (Some(owner), _) => {
            help = format!(
                "it was `{owner}`'s alias in {} {}; write `{owner}`",
                ctx.catalog.source.engine,
                tags.join(", ")
            )
        }
        (None, Some(to)) => help.push_str(&format!("; {} calls it `{to}`", ctx.catalog.source.tag)),
        (None, None) => {}
    }
    // A renamed flag written in argv has one right rewrite; an env key's
    // new name depends on the serve script, so it is not rewritten.
    // Prose is never rewritten: the sentence may name the old flag on purpose.
    let fix = match r {
        Ref::Flag { site, .. } if *site != FlagSite::Loose => renamed,
        _ => None,
    };
    out.push(Violation {
        rule: &RULE,
        span,
        message: format!("{what} is not a flag of {}", ctx.build()),
        help: Some(help),
        fix,
    });
}

/// An engine-wide env key (the catalogue's `[[env_key]]` table) the pinned
/// build does not read but another catalogued version does.
fn engine_key(s: &Subject<'_, '_>, key: &str, span: crate::lint::span::Span, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    if s.env_key.is_some() {
        return;
    }
    if let Some((last, gone)) = ctx.env_key_removal(key) {
        out.push(Violation {
            rule: &RULE,
            span,
            message: format!("`{key}` was removed in {gone}: it is not an env key of {}", ctx.build()),
            help: Some(format!("the last build that reads it is {} {last}", ctx.catalog.source.engine)),
            fix: None,
        });
        return;
    }
    if let Some(from) = ctx.env_key_from(key) {
        out.push(Violation {
            rule: &RULE,
            span,
            message: format!("`{key}` is not an env key of {}: the engine ignores it", ctx.build()),
            help: Some(format!("`{key}` exists from {from}; this file pins {}", ctx.catalog.source.tag)),
            fix: None,
        });
        return;
    }
    let tags: Vec<&str> = (ctx.all.iter())
        .filter(|c| c.source.tag != ctx.catalog.source.tag && env_key(c, key).is_some())
        .map(|c| c.source.tag.as_str())
        .collect();
    if tags.is_empty() {
        return;
    }
    out.push(Violation {
        rule: &RULE,
        span,
        message: format!("`{key}` is not an env key of {}: the engine ignores it", ctx.build()),
        help: Some(format!("it exists in {} {}", ctx.catalog.source.engine, tags.join(", "))),
        fix: None,
    });
}

/// What the history says of a flag the pinned build lacks: the tag it was
/// removed in (the first after the last run holding it) and what it became
/// there, or the later tag it exists from. `None`: the history is silent.
fn from_history(r: &Ref, name: &str, what: &str, span: crate::lint::span::Span, ctx: &Ctx<'_>) -> Option<Violation> {
    if let Some(gone) = ctx.removal(name) {
        let mut help = match (&gone.became, &gone.alias_of) {
            (Some(to), _) => format!("it became `{to}` in {}", gone.gone),
            (None, Some(owner)) => {
                format!("it was `{owner}`'s alias until {} {}; write `{owner}`", ctx.catalog.source.engine, gone.last)
            }
            (None, None) => format!("the last build with it is {} {}", ctx.catalog.source.engine, gone.last),
        };
        if let Some(back) = &gone.back {
            help.push_str(&format!("; it is back from {back}"));
        }
        // A flag written in argv whose new name the pinned build has: one right rewrite.
        let fix = match r {
            Ref::Flag { .. } => gone.became.or(gone.alias_of).filter(|to| ctx.flag(to).is_some()),
            _ => None,
        };
        return Some(Violation {
            rule: &RULE,
            span,
            message: format!("{what} was removed in {}: it is not a flag of {}", gone.gone, ctx.build()),
            help: Some(help),
            fix,
        });
    }
    let from = ctx.flag_from(name)?;
    Some(Violation {
        rule: &RULE,
        span,
        message: format!("{what} is not a flag of {}", ctx.build()),
        help: Some(format!("`{name}` exists from {from}; this file pins {}", ctx.catalog.source.tag)),
        fix: None,
    })
}
