//! Building a history tag by tag, as a sync extracts: records interned as
//! they come (so nothing grows with the number of tags but the history
//! itself), and flags and metrics memoised apart, each by the key of the
//! blobs it was read from — a tag whose flag files are known but whose
//! metric folder changed has only its metrics read.
//!
//! A state's key is `FLAGS|METRICS`, the two keys a sync computed; a
//! history read back is indexed by splitting it.

use rustc_hash::FxHashMap;

use super::record::{env_record, flag_record, index, intern, metric_record};
use super::{History, State};
use crate::catalog::model::{Catalog, EnvKey, Flag, Metric, Provenance};

/// Joins a state's flag key and metric key.
const SEPARATOR: char = '|';

/// A history being extended.
pub struct Builder {
    history: History,
    flag_ids: FxHashMap<String, u32>,
    metric_ids: FxHashMap<String, u32>,
    flag_sets: FxHashMap<String, Vec<[u32; 3]>>,
    metric_sets: FxHashMap<String, Vec<[u32; 2]>>,
    env_ids: FxHashMap<String, u32>,
    /// Engine-wide env keys, read with the flags (a Python engine's env
    /// table): under the flag key.
    env_sets: FxHashMap<String, Vec<[u32; 2]>>,
    states: FxHashMap<String, u32>,
}

/// Sorted as a catalogue sorts them, so that the same source always makes
/// the same records.
fn normalised(flags: Vec<Flag>, metrics: Vec<Metric>) -> Catalog {
    let none = Provenance {
        engine: String::new(),
        repo: String::new(),
        tag: String::new(),
        commit: String::new(),
        knobs_version: String::new(),
    };
    let mut c = Catalog::new(none, flags, metrics);
    c.normalise();
    c
}

impl Builder {
    /// Extends `history`: its records, flag sets, metric sets and states
    /// are indexed so that what it holds is never extracted again.
    pub fn new(history: History) -> Builder {
        let mut b = Builder {
            flag_ids: index(&history.flags),
            metric_ids: index(&history.metrics),
            flag_sets: FxHashMap::default(),
            metric_sets: FxHashMap::default(),
            env_ids: index(&history.env_keys),
            env_sets: FxHashMap::default(),
            states: FxHashMap::default(),
            history,
        };
        for (i, s) in b.history.states.iter().enumerate() {
            let Ok(i) = u32::try_from(i) else { continue };
            b.states.entry(s.key.clone()).or_insert(i);
            if let Some((flags, metrics)) = s.key.split_once(SEPARATOR) {
                b.flag_sets.entry(flags.to_string()).or_insert_with(|| s.flags.clone());
                b.metric_sets.entry(metrics.to_string()).or_insert_with(|| s.metrics.clone());
                if !s.env_keys.is_empty() {
                    b.env_sets.entry(flags.to_string()).or_insert_with(|| s.env_keys.clone());
                }
            }
        }
        b
    }

    /// True when flags read from the blobs `key` are held.
    pub fn has_flags(&self, key: &str) -> bool {
        self.flag_sets.contains_key(key)
    }

    /// True when metrics read from the blobs `key` are held.
    pub fn has_metrics(&self, key: &str) -> bool {
        self.metric_sets.contains_key(key)
    }

    /// Interns the flags read from the blobs `key` (each record once, its
    /// line kept apart) and remembers them under it.
    pub fn intern_flags(&mut self, key: &str, flags: Vec<Flag>) {
        let c = normalised(flags, Vec::new());
        let mut set = Vec::with_capacity(c.flags.len());
        for f in &c.flags {
            let (record, line, members_line) = flag_record(f);
            set.push([intern(&mut self.history.flags, &mut self.flag_ids, record), line, members_line]);
        }
        self.flag_sets.insert(key.to_string(), set);
    }

    /// Interns the metrics read from the blobs `key` and remembers them under it.
    pub fn intern_metrics(&mut self, key: &str, metrics: Vec<Metric>) {
        let c = normalised(Vec::new(), metrics);
        let mut set = Vec::with_capacity(c.metrics.len());
        for m in &c.metrics {
            let (record, line) = metric_record(m);
            set.push([intern(&mut self.history.metrics, &mut self.metric_ids, record), line]);
        }
        self.metric_sets.insert(key.to_string(), set);
    }

    /// Interns the engine-wide env keys read with the flags of `key`.
    pub fn intern_env_keys(&mut self, key: &str, keys: Vec<EnvKey>) {
        let mut keys = keys;
        keys.sort_by(|a, b| a.name.cmp(&b.name));
        let mut set = Vec::with_capacity(keys.len());
        for k in &keys {
            let (record, line) = env_record(k);
            set.push([intern(&mut self.history.env_keys, &mut self.env_ids, record), line]);
        }
        self.env_sets.insert(key.to_string(), set);
    }

    /// Points `tag` at the state of the flag set `flags` and the metric set
    /// `metrics` (both interned before), made when no tag had it. `None`
    /// when a set is not held; else true when the state is new.
    pub fn add_tag(&mut self, tag: &str, commit: &str, flags: &str, metrics: &str) -> Option<bool> {
        let key = format!("{flags}{SEPARATOR}{metrics}");
        let (state, new) = match self.states.get(&key) {
            Some(s) => (*s, false),
            None => {
                let state = State {
                    key: key.clone(),
                    flags: self.flag_sets.get(flags)?.clone(),
                    metrics: self.metric_sets.get(metrics)?.clone(),
                    env_keys: self.env_sets.get(flags).cloned().unwrap_or_default(),
                };
                self.history.states.push(state);
                let id = u32::try_from(self.history.states.len() - 1).unwrap_or(u32::MAX);
                self.states.insert(key, id);
                (id, true)
            }
        };
        self.history.point(tag, commit, state);
        Some(new)
    }

    /// Records what the states are extracted with.
    pub fn set_extracted_with(&mut self, with: &str) {
        self.history.extracted_with = with.to_string();
        self.history.knobs_version = env!("CARGO_PKG_VERSION").to_string();
    }

    /// The history built, numbered canonically: states and records in the
    /// order the tags (oldest first) first use them, and what no tag uses
    /// dropped. So the file depends on its tags, not on the order the
    /// extractions finished in, and a history extended is the same as one
    /// built at once.
    pub fn finish(self) -> History {
        let mut h = self.history;
        let mut state_ids: FxHashMap<u32, u32> = FxHashMap::default();
        let mut flag_ids: FxHashMap<u32, u32> = FxHashMap::default();
        let mut metric_ids: FxHashMap<u32, u32> = FxHashMap::default();
        let mut env_ids: FxHashMap<u32, u32> = FxHashMap::default();
        let renumber = |ids: &mut FxHashMap<u32, u32>, old: u32| {
            let next = u32::try_from(ids.len()).unwrap_or(u32::MAX);
            *ids.entry(old).or_insert(next)
        };
        let mut states = Vec::new();
        for t in &mut h.tags {
            let fresh = !state_ids.contains_key(&t.state);
            let new = renumber(&mut state_ids, t.state);
            if fresh {
                let mut s = h.states.get(t.state as usize).cloned().unwrap_or_default();
                for r in &mut s.flags {
                    r[0] = renumber(&mut flag_ids, r[0]);
                }
                for r in &mut s.metrics {
                    r[0] = renumber(&mut metric_ids, r[0]);
                }
                for r in &mut s.env_keys {
                    r[0] = renumber(&mut env_ids, r[0]);
                }
                states.push(s);
            }
            t.state = new;
        }
        h.states = states;
        h.flags = reorder(std::mem::take(&mut h.flags), &flag_ids);
        h.metrics = reorder(std::mem::take(&mut h.metrics), &metric_ids);
        h.env_keys = reorder(std::mem::take(&mut h.env_keys), &env_ids);
        h.derived = super::HistoryMemo::default();
        h
    }
}

/// The records kept by `ids` (old → new), in their new order.
fn reorder<T>(records: Vec<T>, ids: &FxHashMap<u32, u32>) -> Vec<T> {
    let mut placed: Vec<(u32, T)> = records
        .into_iter()
        .enumerate()
        .filter_map(|(old, r)| Some((*ids.get(&u32::try_from(old).ok()?)?, r)))
        .collect();
    placed.sort_by_key(|(new, _)| *new);
    placed.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::model::{Kind, MetricType};

    fn flag(name: &str, line: u32, help: &str) -> Flag {
        Flag {
            name: name.into(),
            aliases: Vec::new(),
            metavar: String::new(),
            kind: Kind::Switch,
            default: String::new(),
            auto_means: None,
            members: Vec::new(),
            members_from: None,
            help: help.into(),
            location: format!("core/config.cpp:{line}"),
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

    fn metric(name: &str) -> Metric {
        Metric {
            name: name.into(),
            kind: MetricType::Counter,
            help: String::new(),
            labels: Vec::new(),
            location: "core/metrics.cpp:3".into(),
            ..Metric::default()
        }
    }

    #[test]
    fn flags_and_metrics_are_memoised_apart_and_states_shared() {
        let mut b = Builder::new(History::new("e", "r"));
        b.intern_flags("F1", vec![flag("--b", 9, "b"), flag("--a", 4, "a")]);
        b.intern_metrics("M1", vec![metric("e:x_total")]);
        assert_eq!(b.add_tag("t1", "c1", "F1", "M1"), Some(true));
        assert_eq!(b.add_tag("t2", "c2", "F1", "M1"), Some(false), "the same blobs: the same state");
        // New metrics, known flags: only the metrics were read.
        b.intern_metrics("M2", vec![metric("e:x_total"), metric("e:y_total")]);
        assert_eq!(b.add_tag("t3", "c3", "F1", "M2"), Some(true));
        assert_eq!(b.add_tag("t4", "c4", "F9", "M2"), None, "flags never interned");
        // A line moved: the record is shared, the line is the state's.
        b.intern_flags("F2", vec![flag("--a", 5, "a")]);
        assert_eq!(b.add_tag("t5", "c5", "F2", "M2"), Some(true));
        let h = b.finish();
        assert_eq!((h.tags.len(), h.states.len(), h.flags.len(), h.metrics.len()), (4, 3, 2, 2));
        assert_eq!(h.states[0].key, "F1|M1");
        assert_eq!(h.catalog("t5").and_then(|c| c.flag("--a")).map(|f| f.location.as_str()), Some("core/config.cpp:5"));
        assert_eq!(
            h.catalog("t1").map(|c| c.flags.iter().map(|f| f.name.as_str()).collect::<Vec<_>>()),
            Some(vec!["--a", "--b"])
        );
        // Read back, what it holds is known by its keys.
        let again = Builder::new(h);
        assert!(again.has_flags("F1") && again.has_flags("F2") && again.has_metrics("M2") && !again.has_metrics("M3"));
    }
}
