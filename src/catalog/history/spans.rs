//! The questions a history answers across tags: for each record, the runs
//! of consecutive tags that hold it (worked out once, on first use), the
//! spans of a flag, a metric or an env key, and how a run reads.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use super::{History, Run, State};
use crate::catalog::model::{EnvKey, Flag, Metric};

impl History {
    /// For each record, the runs of consecutive tags holding it.
    fn runs<'a>(
        &'a self,
        cell: &'a OnceLock<Vec<Vec<Run>>>,
        len: usize,
        ids: impl Fn(&State) -> Vec<u32>,
    ) -> &'a [Vec<Run>] {
        cell.get_or_init(|| {
            let per_state: Vec<Vec<u32>> = self.states.iter().map(&ids).collect();
            let mut runs: Vec<Vec<Run>> = vec![Vec::new(); len];
            for (i, t) in self.tags.iter().enumerate() {
                for r in per_state.get(t.state as usize).map(Vec::as_slice).unwrap_or_default() {
                    let Some(list) = runs.get_mut(*r as usize) else { continue };
                    match list.last_mut() {
                        Some(last) if *last.end() + 1 == i => *last = *last.start()..=i,
                        _ => list.push(i..=i),
                    }
                }
            }
            runs
        })
    }

    fn flag_runs(&self) -> &[Vec<Run>] {
        self.runs(&self.derived.flag_runs, self.flags.len(), |s| s.flags.iter().map(|[r, ..]| *r).collect())
    }

    fn env_runs(&self) -> &[Vec<Run>] {
        self.runs(&self.derived.env_runs, self.env_keys.len(), |s| s.env_keys.iter().map(|[r, _]| *r).collect())
    }

    /// Every flag record with `spelling` (name, alias or negated form) and
    /// the runs of tags holding it, oldest first.
    pub fn flag_spans(&self, spelling: &str) -> Vec<(&Flag, &[Run])> {
        let index = self.derived.spellings.get_or_init(|| {
            let mut m: FxHashMap<String, Vec<u32>> = FxHashMap::default();
            for (i, f) in self.flags.iter().enumerate() {
                let Ok(i) = u32::try_from(i) else { continue };
                for s in f.spellings() {
                    let ids = m.entry(s.to_string()).or_default();
                    if !ids.contains(&i) {
                        ids.push(i);
                    }
                }
            }
            m
        });
        let runs = self.flag_runs();
        let mut out: Vec<(&Flag, &[Run])> = index
            .get(spelling)
            .into_iter()
            .flatten()
            .filter_map(|i| Some((self.flags.get(*i as usize)?, runs.get(*i as usize)?.as_slice())))
            .filter(|(_, r)| !r.is_empty())
            .collect();
        out.sort_by_key(|(_, r)| r.first().map_or(usize::MAX, |x| *x.start()));
        out
    }

    /// The tag runs in which any record of a flag spelled so exists, merged.
    pub fn flag_presence(&self, spelling: &str) -> Vec<Run> {
        merge(self.flag_spans(spelling).into_iter().flat_map(|(_, r)| r.iter().cloned()))
    }

    fn metric_runs(&self) -> &[Vec<Run>] {
        self.runs(&self.derived.metric_runs, self.metrics.len(), |s| s.metrics.iter().map(|[r, _]| *r).collect())
    }

    /// Every record of metric `name` and the runs of tags holding it, oldest first.
    pub fn metric_spans(&self, name: &str) -> Vec<(&Metric, &[Run])> {
        let runs = self.metric_runs();
        let mut out: Vec<(&Metric, &[Run])> = self
            .metrics
            .iter()
            .enumerate()
            .filter(|(_, m)| m.name == name)
            .filter_map(|(i, m)| Some((m, runs.get(i)?.as_slice())))
            .filter(|(_, r)| !r.is_empty())
            .collect();
        out.sort_by_key(|(_, r)| r.first().map_or(usize::MAX, |x| *x.start()));
        out
    }

    /// Every record of engine-wide env key `name` and its runs, oldest first.
    pub fn env_key_spans(&self, name: &str) -> Vec<(&EnvKey, &[Run])> {
        let runs = self.env_runs();
        let mut out: Vec<(&EnvKey, &[Run])> = self
            .env_keys
            .iter()
            .enumerate()
            .filter(|(_, k)| k.name == name)
            .filter_map(|(i, k)| Some((k, runs.get(i)?.as_slice())))
            .filter(|(_, r)| !r.is_empty())
            .collect();
        out.sort_by_key(|(_, r)| r.first().map_or(usize::MAX, |x| *x.start()));
        out
    }

    /// The tag at an index.
    pub fn tag(&self, index: usize) -> Option<&str> {
        self.tags.get(index).map(|t| t.tag.as_str())
    }

    /// A run as people read it: `b4000–b4500`, `b4000–` when it reaches
    /// the newest tag, `b4000` for one tag.
    pub fn span_label(&self, run: &Run) -> String {
        let (from, to) = (self.tag(*run.start()).unwrap_or("?"), self.tag(*run.end()).unwrap_or("?"));
        if *run.end() + 1 == self.tags.len() {
            format!("{from}–")
        } else if run.start() == run.end() {
            from.to_string()
        } else {
            format!("{from}–{to}")
        }
    }
}

/// Runs merged where they touch or overlap, in order.
pub fn merge(runs: impl Iterator<Item = Run>) -> Vec<Run> {
    let mut all: Vec<Run> = runs.collect();
    all.sort_by_key(|r| *r.start());
    let mut out: Vec<Run> = Vec::new();
    for r in all {
        match out.last_mut() {
            Some(last) if *r.start() <= *last.end() + 1 => *last = *last.start()..=(*last.end()).max(*r.end()),
            _ => out.push(r),
        }
    }
    out
}
