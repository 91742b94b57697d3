//! Since and until when, relative to a pinned build: the questions a
//! finding asks of an engine's [`History`] — when a flag went (and what it
//! became), from which tag a flag or a member exists, in which tags a flag
//! was a switch — and the spans and changes `knobs explain` shows. Each is
//! asked only on the path of a finding or an explanation, so a lint that
//! finds nothing never reads the history.

use std::collections::HashMap;

use super::diff::diff;
use super::history::{merge, History, Run};
use super::model::{Flag, Kind};
use super::profile::Profile;

/// Where a pinned tag sits in a history: the index of its own entry, or of
/// the nearest earlier tag when it has none (`own` false); `None` when it
/// is older than every tag held. The questions below take the index as
/// `at` (`None`: before every tag).
pub fn position(h: &History, tag: &str) -> Option<(usize, bool)> {
    match h.index(tag) {
        Some(i) => Some((i, true)),
        None => h.nearest_before(tag).map(|i| (i, false)),
    }
}

/// A flag gone before the pin: the last tag that had it, the first that
/// did not, its new name there (when the catalogue diff of the two shows a
/// rename), and the first later tag that has it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removal {
    pub last: String,
    pub gone: String,
    pub became: Option<String>,
    pub back: Option<String>,
    /// The written spelling was an alias of this flag, which the tag it
    /// left in still has (`-m` of `--model`): the alias went, not the flag.
    pub alias_of: Option<String>,
}

/// The spellings a history is asked about for a written one: as written,
/// and with `_` read as `-` where the engine reads it so.
fn spellings(written: &str, underscores: bool) -> Vec<String> {
    let mut out = vec![written.to_string()];
    if underscores && written.starts_with("--") && written.contains('_') {
        out.push(written.replace('_', "-"));
    }
    out
}

/// The tag runs holding any flag spelled so (or its `_`-as-`-` form).
pub fn presence(h: &History, written: &str, underscores: bool) -> Vec<Run> {
    merge(spellings(written, underscores).iter().flat_map(|s| h.flag_presence(s)))
}

/// True when a tag before or after `at` holds a flag spelled so (no
/// catalogue is materialised: the cheap question a rule asks first).
pub fn elsewhere(h: &History, written: &str, underscores: bool, at: Option<usize>) -> bool {
    presence(h, written, underscores).iter().any(|r| after(r, at) || at.is_some_and(|at| *r.end() < at))
}

/// The flag an env key sets in some tag of the history, read as
/// [`super::query::env_target`] reads it in one catalogue: a serve script's
/// mapping, a declared key (or its negated form), else the profile's
/// convention. Only the distinct records are scanned, no catalogue is
/// materialised.
pub fn env_flag(h: &History, key: &str, profile: &Profile, env_flags: &HashMap<String, String>) -> Option<String> {
    let held = |name: &str| !h.flag_presence(name).is_empty();
    if let Some(f) = env_flags.get(key).filter(|f| held(f)) {
        return Some(f.clone());
    }
    if let Some(f) = h.flags.iter().find(|f| f.env.iter().any(|k| k == key)) {
        return Some(f.name.clone());
    }
    if let Some([from, to]) = &profile.env.negated {
        if let Some(rest) = key.strip_prefix(to.as_str()) {
            let positive = format!("{from}{rest}");
            let negatable = |f: &&Flag| !f.negated.is_empty() && f.env.contains(&positive);
            if let Some(f) = h.flags.iter().find(negatable) {
                return Some(f.name.clone());
            }
        }
    }
    if !profile.env.convention {
        return None;
    }
    let words: Vec<&str> = key.split('_').filter(|w| !w.is_empty()).collect();
    (0..words.len())
        .filter(|&i| i == 0 || words.len() - i >= 2)
        .map(|i| format!("--{}", words[i..].join("-").to_ascii_lowercase()))
        .find(|n| held(n))
}

/// When a flag the pinned build lacks was removed: the last run holding it
/// ends before `at` (the pin's position).
pub fn removal(h: &History, written: &str, underscores: bool, at: Option<usize>) -> Option<Removal> {
    let at = at?;
    let runs = presence(h, written, underscores);
    let last_run = runs.iter().rev().find(|r| *r.end() < at)?;
    let (last, gone) = (*last_run.end(), *last_run.end() + 1);
    let back = runs.iter().find(|r| after(r, Some(at))).and_then(|r| h.tag(*r.start())).map(str::to_string);
    let (became, alias_of) = match (h.catalog_at(last), h.catalog_at(gone)) {
        (Some(a), Some(b)) => {
            let names: Vec<String> =
                spellings(written, underscores).iter().filter_map(|s| a.flag(s).map(|f| f.name.clone())).collect();
            let became = diff(a, b).flags_renamed.into_iter().find(|r| names.contains(&r.from)).map(|r| r.to);
            let spelled = spellings(written, underscores);
            let alias_of = names.into_iter().find(|n| !spelled.contains(n) && b.flag(n).is_some());
            (became, alias_of)
        }
        _ => (None, None),
    };
    let alias_of = alias_of.filter(|_| became.is_none());
    Some(Removal { last: h.tag(last)?.to_string(), gone: h.tag(gone)?.to_string(), became, back, alias_of })
}

/// The first tag after `at` (the pin's position) that has a flag the
/// pinned build lacks.
pub fn flag_from<'h>(h: &'h History, written: &str, underscores: bool, at: Option<usize>) -> Option<&'h str> {
    presence(h, written, underscores).iter().find(|r| after(r, at)).and_then(|r| h.tag(*r.start()))
}

/// True when a run starts after `at` (every run does when `at` is none).
fn after(r: &Run, at: Option<usize>) -> bool {
    at.is_none_or(|at| *r.start() > at)
}

/// The first tag after `at` whose record of flag `name` accepts `member`.
pub fn member_from<'h>(h: &'h History, name: &str, member: &str, at: Option<usize>) -> Option<&'h str> {
    h.flag_spans(name)
        .into_iter()
        .filter(|(f, _)| f.members.iter().any(|m| m == member))
        .flat_map(|(_, runs)| runs.iter().filter(|r| after(r, at)).map(|r| *r.start()))
        .min()
        .and_then(|i| h.tag(i))
}

/// When the pinned build's flag `name` stopped accepting `member`: the
/// last tag before `at` whose record of it did, and the tag after it.
pub fn member_removal(h: &History, name: &str, member: &str, at: Option<usize>) -> Option<(String, String)> {
    let at = at?;
    let runs = merge(
        h.flag_spans(name)
            .into_iter()
            .filter(|(f, _)| f.members.iter().any(|m| m == member))
            .flat_map(|(_, r)| r.iter().cloned()),
    );
    let last = *runs.iter().rev().find(|r| *r.end() < at)?.end();
    Some((h.tag(last)?.to_string(), h.tag(last + 1)?.to_string()))
}

/// When an engine-wide env key stopped being read before `at` (the pin's
/// position): the last tag reading it and the tag after it.
pub fn env_key_removal(h: &History, key: &str, at: usize) -> Option<(String, String)> {
    let runs = merge(h.env_key_spans(key).into_iter().flat_map(|(_, r)| r.iter().cloned()));
    let last = *runs.iter().rev().find(|r| *r.end() < at)?.end();
    Some((h.tag(last)?.to_string(), h.tag(last + 1)?.to_string()))
}

/// The tag runs in which flag `name` was a switch, merged, as labels.
pub fn switch_spans(h: &History, name: &str) -> Vec<(Run, String)> {
    let runs = merge(
        h.flag_spans(name).into_iter().filter(|(f, _)| f.kind == Kind::Switch).flat_map(|(_, r)| r.iter().cloned()),
    );
    runs.into_iter().map(|r| (r.clone(), h.span_label(&r))).collect()
}

/// What a flag record is, as a span of explain names it: its members
/// (`on|off|auto`) or its kind, and its default.
pub fn shape(f: &Flag) -> String {
    let what = if f.members.is_empty() { f.kind.as_str().to_string() } else { f.members.join("|") };
    if f.default.is_empty() {
        what
    } else {
        format!("{what}, default {}", f.default)
    }
}

/// A flag's history as spans: one per run of tags in which it kept one
/// shape (kind, members, default), oldest first: `("b3000–b4100",
/// "switch")`, `("b4200–", "on|off|auto")`.
pub fn spans(h: &History, name: &str) -> Vec<(String, String)> {
    let mut by_shape: Vec<(String, Vec<Run>)> = Vec::new();
    for (f, runs) in h.flag_spans(name) {
        let s = shape(f);
        match by_shape.iter_mut().find(|(have, _)| *have == s) {
            Some((_, all)) => all.extend(runs.iter().cloned()),
            None => by_shape.push((s, runs.to_vec())),
        }
    }
    let mut out: Vec<(Run, String)> = by_shape
        .into_iter()
        .flat_map(|(s, runs)| merge(runs.into_iter()).into_iter().map(move |r| (r, s.clone())))
        .collect();
    out.sort_by_key(|(r, _)| *r.start());
    out.into_iter().map(|(r, s)| (h.span_label(&r), s)).collect()
}

/// One change of a flag, at the tag that made it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Step {
    pub tag: String,
    pub change: String,
}

fn quoted(items: &[&String]) -> String {
    items.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
}

/// What changed from record `a` to record `b` of a flag (kind, default,
/// members); empty when only other things did (help, places).
fn changed(a: &Flag, b: &Flag) -> String {
    let mut parts = Vec::new();
    if a.kind != b.kind {
        parts.push(format!("kind {} → {}", a.kind.as_str(), b.kind.as_str()));
    }
    let added: Vec<&String> = b.members.iter().filter(|m| !a.members.contains(m)).collect();
    if !added.is_empty() {
        parts.push(format!("members added: {}", quoted(&added)));
    }
    let removed: Vec<&String> = a.members.iter().filter(|m| !b.members.contains(m)).collect();
    if !removed.is_empty() {
        parts.push(format!("members removed: {}", quoted(&removed)));
    }
    if a.default != b.default {
        parts.push(format!("default `{}` → `{}`", a.default, b.default));
    }
    parts.join("; ")
}

/// Every change of flag `name` across the history, with the tag that made
/// it: added (or renamed from another name), kind, default or members
/// changed, removed (or renamed to another name). The catalogues are
/// diffed only where the flag comes or goes.
pub fn changes(h: &History, name: &str) -> Vec<Step> {
    let spans = h.flag_spans(name);
    let holder = |i: usize| spans.iter().find(|(_, runs)| runs.iter().any(|r| r.contains(&i))).map(|(f, _)| *f);
    let rename = |i: usize, forward: bool| {
        let (a, b) = (h.catalog_at(i.checked_sub(1)?)?, h.catalog_at(i)?);
        let d = diff(a, b);
        d.flags_renamed.into_iter().find(|r| if forward { r.from == name } else { r.to == name })
    };
    let mut out = Vec::new();
    let mut before: Option<&Flag> = None;
    for i in 0..h.tags.len() {
        let now = holder(i);
        let change = match (before, now) {
            (None, Some(f)) if i == 0 => format!("present: {}", shape(f)),
            (None, Some(f)) => match rename(i, false) {
                Some(r) => format!("renamed from `{}`: {}", r.from, shape(f)),
                None => format!("added: {}", shape(f)),
            },
            (Some(_), None) => match rename(i, true) {
                Some(r) => format!("removed: renamed to `{}`", r.to),
                None => "removed".to_string(),
            },
            (Some(a), Some(b)) if !std::ptr::eq(a, b) => changed(a, b),
            _ => String::new(),
        };
        if !change.is_empty() {
            out.push(Step { tag: h.tag(i).unwrap_or("?").to_string(), change });
        }
        before = now;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::model::{Catalog, Provenance};

    fn flag(name: &str, kind: Kind, members: &[&str], help: &str) -> Flag {
        Flag {
            name: name.into(),
            aliases: Vec::new(),
            metavar: String::new(),
            kind,
            default: String::new(),
            auto_means: None,
            members: members.iter().map(|m| m.to_string()).collect(),
            members_from: None,
            help: help.into(),
            location: "common/arg.cpp:1".into(),
            negated: Vec::new(),
            env: Vec::new(),
            scopes: Vec::new(),
            excludes: Vec::new(),
            removed: None,
            arity: None,
            nargs: None,
            list: false,
            deprecated: false,
            successors: Vec::new(),
        }
    }

    fn catalog(tag: &str, flags: Vec<Flag>) -> Catalog {
        let p = Provenance {
            engine: "e".into(),
            repo: "r".into(),
            tag: tag.into(),
            commit: format!("{tag}c"),
            knobs_version: "0".into(),
        };
        let mut c = Catalog::new(p, flags, Vec::new());
        c.normalise();
        c
    }

    /// b1, b2: `--fa` a switch, `--log-format` there; b3: `--fa` takes
    /// on|off, `--log-format` renamed `--log-style` (same help); b4: `--fa`
    /// gains auto, `--extra` comes.
    fn four() -> History {
        let mut h = History::new("e", "r");
        let switch = flag("--fa", Kind::Switch, &[], "flash");
        let log = flag("--log-format", Kind::String, &[], "log lines as");
        h.add("k1", &catalog("b1", vec![switch.clone(), log.clone()]));
        h.add("k1", &catalog("b2", vec![switch, log]));
        let style = flag("--log-style", Kind::String, &[], "log lines as");
        h.add("k3", &catalog("b3", vec![flag("--fa", Kind::Enum, &["on", "off"], "flash"), style.clone()]));
        let fa = flag("--fa", Kind::Enum, &["on", "off", "auto"], "flash");
        h.add("k4", &catalog("b4", vec![fa, style, flag("--extra", Kind::Int, &[], "more")]));
        h
    }

    #[test]
    fn a_removal_names_the_tag_and_the_new_name() {
        let h = four();
        let r = removal(&h, "--log-format", false, Some(3)).expect("removed before b4");
        assert_eq!(
            r,
            Removal {
                last: "b2".into(),
                gone: "b3".into(),
                became: Some("--log-style".into()),
                back: None,
                alias_of: None
            }
        );
        assert_eq!(removal(&h, "--log-format", false, Some(1)), None, "b2 still has it");
        assert_eq!(removal(&h, "--log_format", true, Some(2)).map(|r| r.gone), Some("b3".into()));
    }

    #[test]
    fn later_flags_and_members_say_from_when() {
        let h = four();
        assert_eq!(flag_from(&h, "--extra", false, Some(1)), Some("b4"));
        assert_eq!(flag_from(&h, "--extra", false, Some(3)), None);
        assert!(elsewhere(&h, "--extra", false, Some(1)) && elsewhere(&h, "--extra", false, None));
        assert!(elsewhere(&h, "--log-format", false, Some(3)) && !elsewhere(&h, "--log-format", false, Some(1)));
        assert_eq!(member_from(&h, "--fa", "auto", Some(0)), Some("b4"));
        assert_eq!(member_from(&h, "--fa", "on", None), Some("b3"));
        assert_eq!(member_from(&h, "--fa", "never", Some(0)), None);
        assert_eq!(member_removal(&h, "--fa", "on", Some(3)), None, "b4 still has it");
    }

    #[test]
    fn spans_and_changes_read_as_people_write_them() {
        let h = four();
        let s = spans(&h, "--fa");
        assert_eq!(
            s,
            [
                ("b1–b2".to_string(), "switch".to_string()),
                ("b3".into(), "on|off".into()),
                ("b4–".into(), "on|off|auto".into())
            ]
        );
        assert_eq!(switch_spans(&h, "--fa").into_iter().map(|(_, l)| l).collect::<Vec<_>>(), ["b1–b2"]);
        let steps: Vec<(String, String)> = changes(&h, "--fa").into_iter().map(|s| (s.tag, s.change)).collect();
        assert_eq!(
            steps,
            [
                ("b1".to_string(), "present: switch".to_string()),
                ("b3".into(), "kind switch → enum; members added: `on`, `off`".into()),
                ("b4".into(), "members added: `auto`".into()),
            ]
        );
        let log: Vec<String> = changes(&h, "--log-format").into_iter().map(|s| s.change).collect();
        assert_eq!(log, ["present: string", "removed: renamed to `--log-style`"]);
        let style: Vec<String> =
            changes(&h, "--log-style").into_iter().map(|s| format!("{} {}", s.tag, s.change)).collect();
        assert_eq!(style, ["b3 renamed from `--log-format`: string"]);
        assert_eq!(position(&h, "b2"), Some((1, true)));
        assert_eq!(position(&h, "b2-5-gabc"), Some((1, false)));
        assert_eq!(position(&h, "b0"), None);
    }
}
