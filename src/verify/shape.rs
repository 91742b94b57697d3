//! The shape of a scrape: which of the engine's metric names it exports,
//! set against each catalogued version's metric set. "Every counter resets
//! at a restart and the metric set changes with the build": a census run on
//! another build's metric set reads wrong, so the scrape is first checked to
//! be the pinned build's shape.

use std::collections::BTreeSet;

use serde::Serialize;

use super::exposition::Exposition;
use crate::catalog::model::Catalog;
use crate::catalog::profile::Profile;
use crate::catalog::query::find_metric;

/// How a scrape's metric names compare with the catalogues.
#[derive(Debug, Clone, Serialize)]
pub struct Shape {
    /// The pinned tag.
    pub pinned: String,
    /// Catalogued names of the pinned build that the scrape has.
    pub exported: usize,
    /// Catalogued names of the pinned build.
    pub catalogued: usize,
    /// Names the pinned build registers that the scrape lacks.
    pub missing: Vec<String>,
    /// Of `missing`, those with labels: a labelled family has no series
    /// until its first observation, so its absence proves nothing.
    pub unobserved: Vec<String>,
    /// The engine's names the scrape has and the pinned catalogue lacks.
    pub extra: Vec<String>,
    /// Names outside the engine's prefixes (a client library's own).
    pub foreign: usize,
    /// The catalogued version whose metric set the scrape fits best.
    pub looks_like: String,
    /// True when the scrape fits the pinned build: nothing it must export
    /// is missing, and nothing it exports is unknown to it.
    pub matches: bool,
}

/// The engine's metric names a scrape exports (histogram and summary
/// series mapped back to their family), and how many others it has.
fn exported(e: &Exposition, profile: &Profile) -> (BTreeSet<String>, usize) {
    let mut mine = BTreeSet::new();
    let mut foreign = BTreeSet::new();
    for name in e.names() {
        let family = e.family(name);
        if profile.is_metric_name(family) {
            mine.insert(family.to_string());
        } else {
            foreign.insert(family.to_string());
        }
    }
    (mine, foreign.len())
}

/// The names of `exported` that `catalog` has (by family) and those it lacks.
fn split<'a>(exported: &'a BTreeSet<String>, catalog: &Catalog) -> (BTreeSet<String>, Vec<&'a str>) {
    let mut known = BTreeSet::new();
    let mut unknown = Vec::new();
    for name in exported {
        // An undeclared histogram's series still map to the catalogue's family.
        match find_metric(catalog, name) {
            Some(m) => {
                known.insert(m.name.clone());
            }
            None => unknown.push(name.as_str()),
        }
    }
    (known, unknown)
}

/// Compares a scrape with the pinned catalogue, and finds the catalogued
/// version it fits best (the pinned one on a tie).
pub fn compare(e: &Exposition, pinned: &Catalog, all: &[Catalog], profile: &Profile) -> Shape {
    let (names, foreign) = exported(e, profile);
    let distance = |c: &Catalog| {
        let (known, unknown) = split(&names, c);
        (c.metrics.len() - known.len()) + unknown.len()
    };
    let (known, unknown) = split(&names, pinned);
    let mut missing = Vec::new();
    let mut unobserved = Vec::new();
    for m in pinned.metrics.iter().filter(|m| !known.contains(&m.name)) {
        if m.labels.is_empty() {
            missing.push(m.name.clone());
        } else {
            unobserved.push(m.name.clone());
        }
    }
    let mut best = (distance(pinned), pinned.source.tag.clone());
    for c in all.iter().filter(|c| c.source.tag != pinned.source.tag) {
        let d = distance(c);
        if d < best.0 {
            best = (d, c.source.tag.clone());
        }
    }
    let extra: Vec<String> = unknown.into_iter().map(str::to_string).collect();
    Shape {
        pinned: pinned.source.tag.clone(),
        exported: known.len(),
        catalogued: pinned.metrics.len(),
        matches: missing.is_empty() && extra.is_empty(),
        missing,
        unobserved,
        extra,
        foreign,
        looks_like: best.1,
    }
}
