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
    /// The catalogued version the scrape fits best: of those that register
    /// every name it exports (a build cannot export a name it does not
    /// register), the one with the fewest names missing; none when every
    /// version lacks one of its names.
    pub looks_like: Option<String>,
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

/// How far a scrape is from a version: `None` when the version lacks a
/// name the scrape exports (ruled out), else the names it registers that the
/// scrape lacks — unlabelled families first, labelled ones (no series until
/// their first observation: weak evidence) only to break a tie.
fn distance(names: &BTreeSet<String>, c: &Catalog) -> Option<(usize, usize)> {
    let (known, unknown) = split(names, c);
    if !unknown.is_empty() {
        return None;
    }
    let absent = c.metrics.iter().filter(|m| !known.contains(&m.name));
    let (labelled, plain): (Vec<_>, Vec<_>) = absent.partition(|m| !m.labels.is_empty());
    Some((plain.len(), labelled.len()))
}

/// Compares a scrape with the pinned catalogue, and finds the catalogued
/// version it fits best (the pinned one on a tie).
pub fn compare(e: &Exposition, pinned: &Catalog, all: &[Catalog], profile: &Profile) -> Shape {
    let (names, foreign) = exported(e, profile);
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
    // Missing labelled families only break a tie between other versions:
    // they never outweigh the pinned build.
    let mut best = distance(&names, pinned).map(|d| (d, pinned.source.tag.clone()));
    for c in all.iter().filter(|c| c.source.tag != pinned.source.tag) {
        let Some(d) = distance(&names, c) else { continue };
        let better = match &best {
            None => true,
            Some((b, tag)) if *tag == pinned.source.tag => d.0 < b.0,
            Some((b, _)) => d < *b,
        };
        if better {
            best = Some((d, c.source.tag.clone()));
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
        looks_like: best.map(|(_, tag)| tag),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog(tag: &str, metrics: &[(&str, &[&str])]) -> Catalog {
        let mut text = format!(
            "schema = 2\n[source]\nengine = \"e\"\nrepo = \"r\"\ntag = \"{tag}\"\ncommit = \"c\"\nknobs_version = \"0\"\n"
        );
        for (name, labels) in metrics {
            let labels: Vec<String> = labels.iter().map(|l| format!("\"{l}\"")).collect();
            text.push_str(&format!(
                "[[metric]]\nname = \"{name}\"\ntype = \"counter\"\nlabels = [{}]\nlocation = \"m.cpp:1\"\n",
                labels.join(", ")
            ));
        }
        toml::from_str(&text).expect("catalogue")
    }

    fn shape(scrape: &str, pinned: usize, all: &[Catalog]) -> Shape {
        let profile = crate::catalog::profile::builtin("radiance").expect("profile");
        let e = crate::verify::exposition::parse(scrape).expect("exposition");
        compare(&e, &all[pinned], all, &profile)
    }

    #[test]
    fn a_version_lacking_an_exported_name_is_ruled_out() {
        // old: a, b; new: a, b, c, d, e. A scrape of a, b and c lacks two of
        // new's names and has one old lacks: only new can have exported c.
        let all = [
            catalog("v1", &[("radiance:a", &[]), ("radiance:b", &[])]),
            catalog(
                "v2",
                &[
                    ("radiance:a", &[]),
                    ("radiance:b", &[]),
                    ("radiance:c", &[]),
                    ("radiance:d", &[]),
                    ("radiance:e", &[]),
                ],
            ),
        ];
        let scrape = "radiance:a 1\nradiance:b 1\nradiance:c 1\n";
        assert_eq!(shape(scrape, 0, &all).looks_like.as_deref(), Some("v2"));
        assert_eq!(shape(scrape, 1, &all).looks_like.as_deref(), Some("v2"));
        // A name no version registers rules every one out.
        assert_eq!(shape("radiance:z 1\n", 1, &all).looks_like, None);
    }

    #[test]
    fn fewest_missing_names_win_and_labelled_families_are_weak_evidence() {
        // v1: a; v2: a, b; v3: a, b and the labelled l. A scrape of a and b:
        // v1 is ruled out (no b); v2 and v3 miss nothing but l, which has no
        // series until its first observation.
        let all = [
            catalog("v1", &[("radiance:a", &[])]),
            catalog("v2", &[("radiance:a", &[]), ("radiance:b", &[])]),
            catalog("v3", &[("radiance:a", &[]), ("radiance:b", &[]), ("radiance:l", &["reason"])]),
        ];
        let scrape = "radiance:a 1\nradiance:b 1\n";
        // Pinned v3: the missing labelled family does not make it v2.
        let s = shape(scrape, 2, &all);
        assert_eq!(s.looks_like.as_deref(), Some("v3"));
        assert!(s.matches && s.missing.is_empty());
        assert_eq!(s.unobserved, ["radiance:l"]);
        // Pinned v1: of the others, the one that misses nothing at all.
        assert_eq!(shape(scrape, 0, &all).looks_like.as_deref(), Some("v2"));
        // An unlabelled name missing counts: a scrape of a alone looks like v1.
        assert_eq!(shape("radiance:a 1\n", 2, &all).looks_like.as_deref(), Some("v1"));
    }
}
