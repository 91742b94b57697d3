//! Reports a flag the pinned build does not have.
//!
//! ## What it does
//! Checks every flag in the engine's argv — and every lone `--flag` in an
//! inline code span that is a near miss of a real one — against the flags
//! the pinned build's help table declares.
//!
//! ## Why is this bad?
//! `config_parse` refuses an unknown flag at boot, so a runbook step or serve
//! script that passes one fails the deploy, usually at the worst moment. A
//! flag recalled from memory or from another engine reads plausibly and is
//! still wrong.
//!
//! ## Example
//! ```sh
//! radiance --prefill-interleaving 1
//! ```
//! Use instead:
//! ```sh
//! radiance --prefill-interleave 1
//! ```

use super::{Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::catalog::query::{abbreviated, flag_names};
use crate::lint::refs::{FlagSite, Ref};
use crate::suggest::{suggest, suggest_within};

pub const RULE: Rule = Rule {
    code: "KNB001",
    name: "invented-flag",
    severity: Severity::Error,
    source: include_str!("invented_flag.rs"),
    reads: Reads::FLAG,
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let r = s.r;
    let Ref::Flag { name, span, site, joined, .. } = r else { return };
    // (A name of ASCII letters with no white space, the usual one, is not split.)
    let may_split = *site == FlagSite::Argv && name.bytes().any(|b| b.is_ascii_whitespace() || b == 0x0b || b >= 0x80);
    if let Some((first, rest)) = may_split.then(|| name.split_once(char::is_whitespace)).flatten() {
        out.push(one_word(name, first, rest.trim(), *span, ctx));
        return;
    }
    if s.flag.is_some() {
        // `--x=v` is one unknown word to an engine that takes no `=` form.
        if *joined && *site == FlagSite::Argv && !ctx.profile.argv.equals {
            out.push(Violation {
                rule: &RULE,
                span: *span,
                message: format!("`{name}=…` is not a flag of {}: it takes no `=` form", ctx.build()),
                help: Some(format!("write `{name} VALUE`, two words")),
                fix: None,
            });
        }
        return;
    }
    if !ctx.versions_with_flag(name).is_empty() || ctx.in_other_tags(name) {
        // Another catalogued version or tag has it: removed-flag's finding.
        return;
    }
    let read = if ctx.profile.argv.underscores { name.replace('_', "-") } else { name.clone() };
    let could = abbreviated(ctx.catalog, ctx.profile, &read);
    if could.len() > 1 && *site == FlagSite::Argv {
        // A prefix of several options: the engine's parser refuses it as ambiguous.
        let shown: Vec<String> = could.iter().take(4).map(|(s, _)| format!("`{s}`")).collect();
        let more = if could.len() > 4 { format!(" and {} more", could.len() - 4) } else { String::new() };
        out.push(Violation {
            rule: &RULE,
            span: *span,
            message: format!("`{name}` is ambiguous in {}: it is a prefix of {} flags", ctx.build(), could.len()),
            help: Some(format!("it could be {}{more}; write the whole name", shown.join(", "))),
            fix: None,
        });
        return;
    }
    let near = suggest(name, flag_names(ctx.catalog));
    if *site == FlagSite::Loose && !judged_in_prose(name, r, ctx) {
        // A lone flag of some other tool, named in prose.
        return;
    }
    out.push(Violation {
        rule: &RULE,
        span: *span,
        message: format!("`{name}` is not a flag of {}", ctx.build()),
        help: Some(match near {
            Some(n) => format!("did you mean `{n}`?"),
            None => format!("`knobs flags --tag {}` lists the flags this build accepts", ctx.catalog.source.tag),
        }),
        fix: None,
    });
}

/// An argv word holding several words (`"--port 8000"` as one exec-form
/// element, or quoted whole in a shell line): the engine looks the whole
/// word up as one option and refuses it.
fn one_word(name: &str, first: &str, rest: &str, span: crate::lint::span::Span, ctx: &Ctx<'_>) -> Violation {
    let mut help = format!("split it into separate words: `{first}` and `{rest}`");
    if ctx.flag(first).is_none() {
        help.push_str(&format!("; `{first}` is not a flag of {} either", ctx.build()));
        if let Some(n) = suggest(first, flag_names(ctx.catalog)) {
            help.push_str(&format!(" (did you mean `{n}`?)"));
        }
    }
    Violation {
        rule: &RULE,
        span,
        message: format!("the engine receives `{name}` as one word, which is no flag of {}", ctx.build()),
        help: Some(help),
        fix: None,
    }
}

/// A lone `--flag` in prose is the engine's when it is one typo from a
/// flag of the build, or when it is given a value and shares its first word
/// with two or more of the build's flags (`--prefill-chunks 512` beside
/// `--prefill-interleave`, `--prefill-span`). Anything else is some other
/// program's option.
fn judged_in_prose(name: &str, r: &Ref, ctx: &Ctx<'_>) -> bool {
    if suggest_within(name, flag_names(ctx.catalog), 1).is_some() {
        return true;
    }
    let Ref::Flag { value: Some(_), .. } = r else { return false };
    let family = |f: &str| f.trim_start_matches('-').split('-').next().unwrap_or("").to_string();
    let mine = family(name);
    !mine.is_empty() && ctx.catalog.flags.iter().filter(|f| family(&f.name) == mine).count() >= 2
}
