//! How a flag changed across the catalogued versions, oldest first: what
//! `knobs explain` lists under History. A [`Version`] is also one line of a
//! metric's Versions.

use serde::Serialize;

use crate::catalog::diff::{diff, CatalogDiff, Change};
use crate::catalog::model::{Catalog, Flag};

/// One catalogued version, and what it changed.
#[derive(Debug, Serialize)]
pub struct Version {
    pub tag: String,
    pub present: bool,
    /// What changed from the previous catalogued version.
    pub change: String,
}

/// How a flag changed across versions, oldest first: each version is read
/// against the one before it through one [`diff`] of the pair, the same
/// comparison `knobs catalog diff` prints.
pub(super) fn flag_history(name: &str, all: &[Catalog]) -> Vec<Version> {
    let mut out = Vec::new();
    let mut prev: Option<&Catalog> = None;
    for c in all {
        let now = c.flag(name);
        let change = match prev {
            None => now.map_or_else(|| "absent".to_string(), describe),
            Some(p) => change(name, p.flag(name), now, &diff(p, c)),
        };
        out.push(Version { tag: c.source.tag.clone(), present: now.is_some(), change });
        prev = Some(c);
    }
    out
}

/// What `d`, the diff of a version against the one before it, says of the
/// flag `name`: `before` and `now` are the flag in each.
fn change(name: &str, before: Option<&Flag>, now: Option<&Flag>, d: &CatalogDiff) -> String {
    match (before, now) {
        (None, None) => "absent".to_string(),
        (None, Some(f)) => d
            .flags_renamed
            .iter()
            .find(|r| r.to == f.name)
            .map_or_else(|| "added".to_string(), |r| format!("renamed from `{}`", r.from)),
        (Some(_), None) => d
            .flags_renamed
            .iter()
            .find(|r| r.from == name)
            .map_or_else(|| "removed".to_string(), |r| format!("removed: renamed to `{}`", r.to)),
        (Some(_), Some(f)) => {
            d.flags_changed.iter().find(|c| c.flag == f.name).map_or_else(|| "unchanged".to_string(), changed)
        }
    }
}

fn changed(c: &Change) -> String {
    let mut parts = Vec::new();
    if !c.members_added.is_empty() {
        parts.push(format!("members added: {}", join(&c.members_added)));
    }
    if !c.members_removed.is_empty() {
        parts.push(format!("members removed: {}", join(&c.members_removed)));
    }
    if let Some((from, to)) = &c.default {
        parts.push(format!("default `{from}` → `{to}`"));
    }
    if let Some((from, to)) = &c.kind {
        parts.push(format!("kind {from} → {to}"));
    }
    parts.join("; ")
}

fn describe(f: &Flag) -> String {
    if f.members.is_empty() {
        "present".to_string()
    } else {
        format!("present; members {}", join(&f.members))
    }
}

fn join(items: &[String]) -> String {
    items.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
}
