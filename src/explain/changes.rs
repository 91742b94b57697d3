//! `knobs explain FLAG --history`: every change of a flag with the tag that
//! made it — added, kind, default or members changed, renamed, removed —
//! from the engine's history, else across the catalogued versions.

use std::fmt::Write as _;

use super::{FlagExplain, Topic};
use crate::catalog::pinned::Pinned;
use crate::catalog::since::Step;

/// The changes of the flag a topic explains, and what they span: `None`
/// when the topic is not a flag.
pub fn changes(t: &Topic) -> Option<(&FlagExplain, Vec<Step>)> {
    let Topic::Flag(e) = t else { return None };
    if !e.changes.is_empty() {
        return Some((e, e.changes.clone()));
    }
    // No history: the catalogued versions, each read against the one before.
    let steps = e
        .history
        .iter()
        .filter(|v| v.change != "unchanged" && v.change != "absent")
        .map(|v| Step { tag: v.tag.clone(), change: v.change.clone() })
        .collect();
    Some((e, steps))
}

/// What the changes are read over: the engine's history (`radiance's
/// history (9 tags, v1.9.0–v2.0.0)`), else its catalogued versions.
pub fn over(pinned: &Pinned<'_>) -> String {
    match pinned.history() {
        Some(h) => format!(
            "{}'s history ({} tags, {}–{})",
            h.engine,
            h.tags.len(),
            h.tag(0).unwrap_or("?"),
            h.tag(h.tags.len().saturating_sub(1)).unwrap_or("?")
        ),
        None => {
            let tags: Vec<&str> = pinned.all.iter().map(|c| c.source.tag.as_str()).collect();
            let engine = pinned.all.first().map_or("", |c| c.source.engine.as_str());
            format!("the catalogued versions of {engine} ({})", tags.join(", "))
        }
    }
}

/// The changes as people read them, one line each.
pub fn human(e: &FlagExplain, steps: &[Step], over: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}: every change across {over}", e.flag.name);
    let width = steps.iter().map(|s| s.tag.chars().count()).max().unwrap_or(0);
    for s in steps {
        let _ = writeln!(out, "  {:<width$}  {}", s.tag, s.change);
    }
    out
}

/// The changes as a Markdown list, for a runbook vault.
pub fn markdown(e: &FlagExplain, steps: &[Step], over: &str) -> String {
    let mut out = format!("# `{}`: every change across {over}\n\n", e.flag.name);
    for s in steps {
        let _ = writeln!(out, "- {}: {}", s.tag, s.change);
    }
    out
}

/// The changes as JSON: the flag, what they span, and each change.
pub fn json(e: &FlagExplain, steps: &[Step], over: &str) -> String {
    let v = serde_json::json!({"flag": e.flag.name, "over": over, "changes": steps});
    serde_json::to_string_pretty(&v).map(|s| s + "\n").unwrap_or_default()
}
