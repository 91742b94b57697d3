//! Records as a history keeps them: a flag, metric or env key with its
//! locations' lines taken out (a state keeps those), each record once.

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::split_location;
use crate::catalog::model::{EnvKey, Flag, Metric};

/// Each record's content → its id, so that the same record is kept once.
pub(super) fn index<T: Serialize>(records: &[T]) -> FxHashMap<String, u32> {
    records
        .iter()
        .enumerate()
        .filter_map(|(i, r)| Some((serde_json::to_string(r).ok()?, u32::try_from(i).ok()?)))
        .collect()
}

/// The id of `record` in `records`, added when it is new.
pub(super) fn intern<T: Serialize>(records: &mut Vec<T>, seen: &mut FxHashMap<String, u32>, record: T) -> u32 {
    let key = serde_json::to_string(&record).unwrap_or_default();
    if let Some(id) = seen.get(&key) {
        return *id;
    }
    let id = u32::try_from(records.len()).unwrap_or(u32::MAX);
    records.push(record);
    seen.insert(key, id);
    id
}

/// A flag as a record (its locations without lines) and the lines a state
/// keeps for it: its declaration's and its members'.
pub(super) fn flag_record(f: &Flag) -> (Flag, u32, u32) {
    let mut record = f.clone();
    let (path, line) = split_location(&f.location);
    record.location = path.to_string();
    let mut members_line = 0;
    if let Some(m) = &mut record.members_from {
        let (p, l) = split_location(&m.location);
        members_line = l;
        m.location = p.to_string();
    }
    (record, line, members_line)
}

/// A metric as a record and the line a state keeps for it.
pub(super) fn metric_record(m: &Metric) -> (Metric, u32) {
    let mut record = m.clone();
    let (path, line) = split_location(&m.location);
    record.location = path.to_string();
    (record, line)
}

/// An engine-wide env key as a record and the line a state keeps for it.
pub(super) fn env_record(k: &EnvKey) -> (EnvKey, u32) {
    let mut record = k.clone();
    let (path, line) = split_location(&k.location);
    record.location = path.to_string();
    (record, line)
}
