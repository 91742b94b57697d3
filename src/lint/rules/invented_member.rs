//! Reports an enum value the pinned build's validator refuses.
//!
//! ## What it does
//! Checks the value given to an enum flag — in argv, a lone inline code span
//! or an env file — against the members the validator accepts, and names the
//! members and where the validator lists them. With the engine's history,
//! a member a later build added says from which tag it exists, and one an
//! earlier build accepted in which tag it was removed — also for an open
//! set (one that passes any other word on as a name), when the value is a
//! member an earlier build listed and the pinned one no longer does.
//!
//! ## Why is this bad?
//! `config_parse` refuses an unknown member at boot. An invented member
//! (`--checkpoint-policy floor`) once made a recorded change undeployable and
//! cost a doc rewrite. Members come from the validator's error string, never
//! from memory.
//!
//! ## Example
//! ```sh
//! CHECKPOINT_POLICY=floor
//! ```
//! Use instead:
//! ```sh
//! CHECKPOINT_POLICY=tip-only
//! ```

use super::{swallowed, Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::catalog::query::{members_list, Verdict};
use crate::suggest::suggest;

pub const RULE: Rule = Rule {
    code: "KNB002",
    name: "invented-member",
    severity: Severity::Error,
    source: include_str!("invented_member.rs"),
    reads: Reads::ALL,
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    env_key_member(s, ctx, out);
    dropped_from_open_set(s, ctx, out);
    let Verdict::NotMember(bad) = &s.verdict else { return };
    let Some((flag, _, span)) = s.setting() else { return };
    // An option read as the value: swallowed-option's finding.
    if swallowed(s, ctx).is_some() {
        return;
    }
    let mut help = format!("{} accepts {}", ctx.build(), members_list(flag));
    if let Some(from) = &flag.members_from {
        help.push_str(&format!(
            " ({} at {} @ {})",
            from.origin.replace('-', " "),
            from.location,
            ctx.catalog.source.short_commit()
        ));
    }
    if let Some(from) = ctx.member_from(&flag.name, bad) {
        // A later build's member: when it came, not a near miss.
        help = format!("`{bad}` exists from {from}; this file pins {}. {help}", ctx.catalog.source.tag);
    } else if let Some((last, gone)) = ctx.member_removal(&flag.name, bad) {
        // An earlier build's member: when it went.
        help = format!("`{bad}` was removed in {gone} (the last build that accepts it is {last}). {help}");
    } else if let Some(n) = suggest(bad, flag.members.iter().map(String::as_str)) {
        help = format!("did you mean `{n}`? {help}");
    }
    out.push(Violation {
        rule: &RULE,
        span,
        message: format!("`{bad}` is not a member of {}", s.written()),
        help: Some(help),
        fix: None,
    });
}

/// A value an open member set takes (anything else is passed on as a
/// name) that earlier builds listed and the pinned one no longer does: the
/// history says when it left the list.
fn dropped_from_open_set(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    if s.verdict != Verdict::Fine {
        return;
    }
    let Some((flag, value, span)) = s.setting() else { return };
    let open = flag.members_from.as_ref().is_some_and(|m| !m.closed);
    if !open || flag.members.is_empty() || flag.members.iter().any(|m| m == value) || flag.list {
        return;
    }
    let Some((last, gone)) = ctx.member_removal(&flag.name, value) else { return };
    out.push(Violation {
        rule: &RULE,
        span,
        message: format!("`{value}` is no longer a member of {} in {}", s.written(), ctx.build()),
        help: Some(format!(
            "`{value}` was removed in {gone} (the last build that lists it is {last}); the set is open, so {} passes it on as another name. It lists {}",
            ctx.catalog.source.tag,
            members_list(flag)
        )),
        fix: None,
    });
}

/// A value given to an engine-wide env key that lists its values
/// (`VLLM_LOGGING_LEVEL=VERBOSE`), when the value is none of them.
fn env_key_member(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let (Some(k), crate::lint::refs::Ref::Env { key, value: Some(v), .. }) = (s.env_key, s.r) else { return };
    let Some(text) = v.text.as_deref().filter(|t| !k.members.is_empty() && !t.is_empty() && !t.contains('$')) else {
        return;
    };
    if k.members.iter().any(|m| m == text) {
        return;
    }
    let list = k.members.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ");
    let mut help = format!("{} accepts {list}", ctx.build());
    if let Some(n) = suggest(text, k.members.iter().map(String::as_str)) {
        help = format!("did you mean `{n}`? {help}");
    }
    out.push(Violation {
        rule: &RULE,
        span: v.span,
        message: format!("`{text}` is not a member of `{key}`"),
        help: Some(help),
        fix: None,
    });
}
