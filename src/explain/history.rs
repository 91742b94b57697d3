//! How a flag and a metric changed across the catalogued versions, oldest
//! first: what `knobs explain` lists under History and Versions.

use serde::Serialize;

use crate::catalog::model::{Catalog, Flag};

#[derive(Debug, Serialize)]
pub struct Version {
    pub tag: String,
    pub present: bool,
    /// What changed from the previous catalogued version.
    pub change: String,
}

/// How a flag changed across versions, oldest first.
pub(super) fn flag_history(name: &str, all: &[Catalog]) -> Vec<Version> {
    let mut out = Vec::new();
    let mut prev: Option<(&Catalog, &Flag)> = None;
    let mut prev_catalog: Option<&Catalog> = None;
    for c in all {
        let now = c.flag(name);
        let change = match (prev, now) {
            (None, None) => "absent".to_string(),
            (None, Some(f)) => {
                let renamed = prev_catalog.and_then(|p| {
                    crate::catalog::diff::diff(p, c).flags_renamed.into_iter().find(|r| r.to == f.name).map(|r| r.from)
                });
                match (renamed, prev_catalog) {
                    (Some(old), _) => format!("renamed from `{old}`"),
                    (None, Some(_)) => "added".to_string(),
                    (None, None) => describe(f),
                }
            }
            (Some(_), None) => {
                let renamed = prev_catalog.and_then(|p| {
                    crate::catalog::diff::diff(p, c).flags_renamed.into_iter().find(|r| r.from == name).map(|r| r.to)
                });
                renamed.map_or_else(|| "removed".to_string(), |to| format!("removed: renamed to `{to}`"))
            }
            (Some((_, a)), Some(b)) => {
                let mut parts = Vec::new();
                let added: Vec<&String> = b.members.iter().filter(|m| !a.members.contains(m)).collect();
                let removed: Vec<&String> = a.members.iter().filter(|m| !b.members.contains(m)).collect();
                if !added.is_empty() {
                    parts.push(format!("members added: {}", join(&added)));
                }
                if !removed.is_empty() {
                    parts.push(format!("members removed: {}", join(&removed)));
                }
                if a.default != b.default {
                    parts.push(format!("default `{}` → `{}`", a.default, b.default));
                }
                if a.kind != b.kind {
                    parts.push(format!("kind {} → {}", a.kind.as_str(), b.kind.as_str()));
                }
                if parts.is_empty() {
                    "unchanged".to_string()
                } else {
                    parts.join("; ")
                }
            }
        };
        out.push(Version { tag: c.source.tag.clone(), present: now.is_some(), change });
        prev = now.map(|f| (c, f));
        prev_catalog = Some(c);
    }
    out
}

fn describe(f: &Flag) -> String {
    if f.members.is_empty() {
        "present".to_string()
    } else {
        format!("present; members {}", join(&f.members.iter().collect::<Vec<_>>()))
    }
}

fn join(items: &[&String]) -> String {
    items.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
}
