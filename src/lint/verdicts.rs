//! References the rules found nothing in, kept per folder: a vault names
//! the same flags, values and metrics in file after file, and a reference
//! that says what one judged clean said (differing only in where it
//! stands) is clean too. That holds because a rule reads nothing but the
//! reference and its context (the build's catalogue and profile, the
//! folder's env mappings, settings of the run), and never prints or keeps
//! state: the same inputs give the same (empty) verdict.
//!
//! An entry is reused only under the same catalogue (by address: one of
//! the run's own, which outlive every folder), the same rules, and in the
//! folder that made it (whose env mappings the context holds). A reference
//! judged by a context built for it alone (a binary that compares `_` as
//! written) is never kept.

use std::hash::{Hash, Hasher};
use std::sync::RwLock;

use rustc_hash::{FxHashMap, FxHasher};

use super::refs::{Ref, Value};
use super::rules::ByKind;
use crate::catalog::model::Catalog;

/// Entries kept per folder, at most; past it nothing more is kept (the
/// memory stays bounded; the verdicts are only not reused).
const MAX_KEPT: usize = 8192;

/// One reference judged clean, and what it was judged under.
struct Clean {
    catalog: usize,
    rules: ByKind,
    r: Ref,
}

/// A folder's references judged clean, by a hash of what they say.
#[derive(Default)]
pub struct Verdicts {
    kept: RwLock<(usize, FxHashMap<u64, Vec<Clean>>)>,
}

/// What a reference is judged under: the catalogue (one of the run's) and
/// the rules that run on the file.
#[derive(Clone, Copy)]
pub struct Under<'c> {
    pub catalog: &'c Catalog,
    pub rules: ByKind,
}

impl std::fmt::Debug for Verdicts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kept = self.kept.read().map_or(0, |k| k.0);
        f.debug_struct("Verdicts").field("kept", &kept).finish()
    }
}

impl Verdicts {
    /// For each reference, true when one that says the same was judged
    /// clean under `under` in this folder.
    pub fn known_clean(&self, under: Under<'_>, refs: &[&Ref]) -> Vec<bool> {
        // Worked out before the lock is taken: the other thread may be in
        // the same folder.
        let seed = seed(under);
        let keys: Vec<Option<u64>> = refs.iter().map(|r| key(&seed, r)).collect();
        let Ok(kept) = self.kept.read() else { return vec![false; refs.len()] };
        refs.iter()
            .zip(keys)
            .map(|(r, h)| {
                let Some(h) = h else { return false };
                kept.1.get(&h).is_some_and(|seen| {
                    seen.iter()
                        .any(|c| c.catalog == address(under.catalog) && c.rules == under.rules && c.r.same_but_place(r))
                })
            })
            .collect()
    }

    /// Keeps references the rules found nothing in under `under`.
    pub fn keep(&self, under: Under<'_>, clean: &[&Ref]) {
        let seed = seed(under);
        let entries: Vec<(u64, Clean)> = (clean.iter())
            .filter_map(|r| {
                Some((key(&seed, r)?, Clean { catalog: address(under.catalog), rules: under.rules, r: (*r).clone() }))
            })
            .collect();
        if entries.is_empty() {
            return;
        }
        let Ok(mut kept) = self.kept.write() else { return };
        for (h, entry) in entries {
            if kept.0 >= MAX_KEPT {
                return;
            }
            kept.1.entry(h).or_default().push(entry);
            kept.0 += 1;
        }
    }
}

fn address(c: &Catalog) -> usize {
    std::ptr::from_ref(c) as usize
}

/// The hash of what references are judged under, which each key goes on from.
fn seed(under: Under<'_>) -> FxHasher {
    let mut h = FxHasher::default();
    address(under.catalog).hash(&mut h);
    under.rules.hash(&mut h);
    h
}

/// A hash of what a reference says (not where it stands), from `seed`;
/// `None` for a reference whose verdict is not reused.
fn key(seed: &FxHasher, r: &Ref) -> Option<u64> {
    let mut h = seed.clone();
    match r {
        Ref::Flag { name, span: _, value, site, binary, joined, gap } => {
            0u8.hash(&mut h);
            name.hash(&mut h);
            if let Some(Value { text, span: _, var }) = value {
                text.hash(&mut h);
                var.hash(&mut h);
            }
            site.hash(&mut h);
            binary.as_deref().map(|b| &b.command).hash(&mut h);
            joined.hash(&mut h);
            gap.hash(&mut h);
        }
        Ref::Metric { name, span: _, pattern, usage: None } => {
            1u8.hash(&mut h);
            name.hash(&mut h);
            pattern.hash(&mut h);
        }
        _ => return None,
    }
    Some(h.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::model::Provenance;
    use crate::lint::refs::FlagSite;
    use crate::lint::span::Span;

    fn flag(value: &str, line: usize) -> Ref {
        let at = Span { line, col: 1, end_line: line, end_col: 7 };
        Ref::Flag {
            name: "--port".to_string(),
            span: at,
            value: Some(Value { text: Some(value.to_string()), span: at, var: None }),
            site: FlagSite::Argv,
            binary: None,
            joined: false,
            gap: None,
        }
    }

    #[test]
    fn a_verdict_is_reused_only_for_the_same_words_under_the_same_build_and_rules() {
        let catalog = |tag: &str| {
            let (engine, repo, commit, knobs_version) = (String::new(), String::new(), String::new(), String::new());
            Catalog::new(Provenance { engine, repo, tag: tag.to_string(), commit, knobs_version }, vec![], vec![])
        };
        let (a, b) = (catalog("v1"), catalog("v1"));
        let all = ByKind::new(|_| true);
        let under = Under { catalog: &a, rules: all };
        let v = Verdicts::default();
        let (here, there, other) = (flag("8000", 1), flag("8000", 30), flag("8080", 1));
        assert_eq!(v.known_clean(under, &[&here]), vec![false], "nothing is known at first");
        v.keep(under, &[&here]);
        assert_eq!(v.known_clean(under, &[&there, &other]), vec![true, false], "another place, not another value");
        assert_eq!(v.known_clean(Under { catalog: &b, rules: all }, &[&there]), vec![false], "another build");
        let fewer = ByKind::new(|r| r.code != "KNB001");
        assert_eq!(v.known_clean(Under { catalog: &a, rules: fewer }, &[&there]), vec![false], "other rules");
        // A query's metric (with how it is used) is never kept.
        let query =
            Ref::Metric { name: "vllm:x".into(), span: Span::default(), pattern: false, usage: Some(Box::default()) };
        v.keep(under, &[&query]);
        assert_eq!(v.known_clean(under, &[&query]), vec![false]);
    }
}
