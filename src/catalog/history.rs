//! An engine's history: every catalogued tag at once, stored compactly.
//!
//! Tags share most of their source, so a history keeps each distinct flag
//! and metric record once (its declaring line aside), each distinct source
//! state once (which records it holds, at which lines), and each tag as a
//! pointer to a state. A state is keyed by the blobs it was read from, so a
//! sync extracts a blob set once however many tags hold it. A catalogue of
//! one tag is materialised on demand and kept; the questions that span tags
//! (since when, until when) are answered from the records' tag runs.
//!
//! The file is `<dir>/<engine>/history.json` beside synced catalogues, or
//! `catalog/<engine>/history.json` embedded in knobs (facts only: no help
//! texts).

use std::ops::RangeInclusive;
use std::path::Path;
use std::sync::OnceLock;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::model::{Catalog, EnvKey, Flag, Metric};
use super::tag::{compare_tags, compare_versions, same_tag};
use crate::diag::FileError;

mod build;
mod collapse;
mod facts;
mod materialise;
mod packed;
mod pattern;
mod record;
mod spans;

use record::{env_record, flag_record, index, intern, metric_record};
pub use spans::merge;

pub use build::Builder;
pub use collapse::{collapses, Collapse};
pub use pattern::{PatternError, TagPattern};

/// What a history of facts only says in place of the message a removed
/// flag is refused with (the message is the engine's sentence).
pub const REMOVED_UNSAID: &str = "its message is not in a history of facts only (`knobs sync --tag TAG` reads it)";

/// What a history of facts only says in place of a metric's deprecation
/// text (the engine's sentence); the successor it names is kept.
pub const DEPRECATED_UNSAID: &str = "deprecated (its text is not in a history of facts only)";

/// The history file's name inside an engine's catalogue folder.
pub const FILE_NAME: &str = "history.json";

/// The most records a history's tags may hold in all (each tag counting
/// the records of its state): llama.cpp's 2,365 tags hold about 600,000.
pub const MAX_TAG_RECORDS: usize = 8_000_000;

/// Bumped whenever the history format changes meaning; newer ones are refused.
pub const HISTORY_SCHEMA: u32 = 2;

/// Every catalogued tag of one engine from one repository.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct History {
    pub schema: u32,
    pub engine: String,
    pub repo: String,
    pub knobs_version: String,
    /// What the states were extracted with (a digest of the profile and the
    /// user's queries): a history extracted otherwise is rebuilt, not extended.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub extracted_with: String,
    /// True when help texts were left out (the embedded history holds facts only).
    #[serde(default)]
    pub facts_only: bool,
    /// Oldest first.
    pub tags: Vec<TagEntry>,
    pub states: Vec<State>,
    /// Distinct flag records; `location` holds the path only (the line is the state's).
    pub flags: Vec<Flag>,
    pub metrics: Vec<Metric>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env_keys: Vec<EnvKey>,
    #[serde(skip)]
    derived: HistoryMemo,
}

/// One tag: its commit and the state of the source it holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TagEntry {
    pub tag: String,
    pub commit: String,
    pub state: u32,
}

/// One distinct source state: the records it holds, each with the lines it
/// was declared at (`[record, line, members line]`; 0 when none).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    /// What the state was read from (the blobs' ids), so that a tag with the
    /// same blobs is not extracted again.
    pub key: String,
    #[serde(with = "packed")]
    pub flags: Vec<[u32; 3]>,
    #[serde(with = "packed")]
    pub metrics: Vec<[u32; 2]>,
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "packed")]
    pub env_keys: Vec<[u32; 2]>,
}

/// A run of consecutive tags (indices into `tags`, inclusive) that hold one record.
pub type Run = RangeInclusive<usize>;

/// What a history derives on first use: catalogues per state, tag runs per
/// record, spellings to records. Never part of the file.
#[derive(Debug, Default)]
struct HistoryMemo {
    catalogs: OnceLock<Vec<OnceLock<Catalog>>>,
    flag_runs: OnceLock<Vec<Vec<Run>>>,
    env_runs: OnceLock<Vec<Vec<Run>>>,
    metric_runs: OnceLock<Vec<Vec<Run>>>,
    spellings: OnceLock<FxHashMap<String, Vec<u32>>>,
}

impl Clone for HistoryMemo {
    fn clone(&self) -> Self {
        HistoryMemo::default()
    }
}

/// Why a history file cannot be used.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum HistoryError {
    #[error(transparent)]
    #[diagnostic(transparent)]
    File(Box<FileError>),
}

/// The byte offset of a 1-based line and column (serde_json's), clamped.
fn offset(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    (start + column.saturating_sub(1)).min(text.len())
}

/// `path:line` split into the path and the line (0 when there is none).
fn split_location(location: &str) -> (&str, u32) {
    match location.rsplit_once(':') {
        Some((path, line)) if !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()) => {
            (path, line.parse().unwrap_or(0))
        }
        _ => (location, 0),
    }
}

impl History {
    /// An empty history of `engine` from `repo`.
    pub fn new(engine: &str, repo: &str) -> History {
        History {
            schema: HISTORY_SCHEMA,
            engine: engine.to_string(),
            repo: repo.to_string(),
            knobs_version: env!("CARGO_PKG_VERSION").to_string(),
            extracted_with: String::new(),
            facts_only: false,
            tags: Vec::new(),
            states: Vec::new(),
            flags: Vec::new(),
            metrics: Vec::new(),
            env_keys: Vec::new(),
            derived: HistoryMemo::default(),
        }
    }

    /// Parses a history file; `path` names it in errors.
    pub fn parse(path: &Path, text: &str) -> Result<History, HistoryError> {
        #[derive(Deserialize)]
        struct Head {
            schema: u32,
        }
        let invalid = |e: serde_json::Error| {
            let at = offset(text, e.line(), e.column());
            HistoryError::File(Box::new(FileError::new(
                path,
                text,
                Some(at..at),
                format!("{} is not a valid history", path.display()),
                &e.to_string(),
            )))
        };
        // One pass when the file is sound; its head is read on its own only
        // to say why one is not (a schema of another knobs first).
        let parsed: Result<History, _> = serde_json::from_str(text);
        let head: Head = match &parsed {
            Ok(h) => Head { schema: h.schema },
            Err(_) => serde_json::from_str(text).map_err(invalid)?,
        };
        if head.schema != HISTORY_SCHEMA {
            let at = text.find("\"schema\"").unwrap_or(0);
            let help = if head.schema > HISTORY_SCHEMA {
                "upgrade knobs, or sync the history again with this one"
            } else {
                "sync the history again with this knobs (`knobs sync --all-tags`)"
            };
            return Err(HistoryError::File(Box::new(
                FileError::new(
                    path,
                    text,
                    Some(at..at + 8),
                    format!("history {} has schema {}", path.display(), head.schema),
                    &format!("this knobs reads history schema {HISTORY_SCHEMA}"),
                )
                .with_help(help),
            )));
        }
        let h: History = parsed.map_err(invalid)?;
        h.check().map_err(|message| {
            HistoryError::File(Box::new(FileError::new(
                path,
                text,
                None,
                format!("{} is not a valid history: {message}", path.display()),
                &message,
            )))
        })?;
        Ok(h)
    }

    /// The repository a history names, read without building the rest.
    pub fn repo_of(text: &str) -> Option<String> {
        #[derive(Deserialize)]
        struct Head {
            repo: String,
        }
        serde_json::from_str::<Head>(text).ok().map(|h| h.repo)
    }

    /// Every index in range, so that nothing later indexes out of bounds;
    /// no state naming a record twice (a state of one large record named a
    /// million times built a million copies of it); no state larger than a
    /// catalogue may be; and no more records across the tags than
    /// [`MAX_TAG_RECORDS`] (what the runs of tags are worked out from).
    fn check(&self) -> Result<(), String> {
        let states = self.states.len();
        for t in &self.tags {
            if t.state as usize >= states {
                return Err(format!("tag {} points at state {}, of {states}", t.tag, t.state));
            }
        }
        let mut seen = [vec![0usize; self.flags.len()], vec![0usize; self.metrics.len()], vec![0; self.env_keys.len()]];
        for (i, s) in self.states.iter().enumerate() {
            let lists = [
                ("flag", s.flags.iter().map(|[r, ..]| *r).collect::<Vec<u32>>()),
                ("metric", s.metrics.iter().map(|[r, _]| *r).collect()),
                ("env key", s.env_keys.iter().map(|[r, _]| *r).collect()),
            ];
            for ((what, ids), seen) in lists.iter().zip(&mut seen) {
                let of = seen.len();
                for r in ids {
                    match seen.get_mut(*r as usize) {
                        None => return Err(format!("state {i} names {what} record {r}, of {of}: it is not there")),
                        Some(at) if *at == i + 1 => {
                            return Err(format!("state {i} names {what} record {r} twice"));
                        }
                        Some(at) => *at = i + 1,
                    }
                }
                if ids.len() > super::model::MAX_ENTRIES {
                    return Err(format!(
                        "state {i} names {} {what} records, more than the {} a catalogue may hold",
                        ids.len(),
                        super::model::MAX_ENTRIES
                    ));
                }
            }
        }
        let size = |s: &State| s.flags.len() + s.metrics.len() + s.env_keys.len();
        let across: usize =
            self.tags.iter().map(|t| self.states.get(t.state as usize).map_or(0, size)).fold(0, usize::saturating_add);
        if across > MAX_TAG_RECORDS {
            return Err(format!(
                "its {} tags hold {across} records in all, more than the {MAX_TAG_RECORDS} knobs reads",
                self.tags.len()
            ));
        }
        Ok(())
    }

    /// The history as JSON, one object (compact: it is read by knobs, and
    /// `catalog show TAG` prints any tag of it for people).
    pub fn to_json(&self) -> Result<String, serde_json::Error> {
        serde_json::to_string(self)
    }

    /// The state a blob key was extracted to before, if any.
    pub fn state_for_key(&self, key: &str) -> Option<u32> {
        self.states.iter().position(|s| s.key == key).and_then(|i| u32::try_from(i).ok())
    }

    /// Adds `catalog` (one tag's extraction, read from the blobs `key`):
    /// its records interned, its state shared with any tag of the same
    /// key, the tag list kept in order. A tag already present is replaced.
    pub fn add(&mut self, key: &str, catalog: &Catalog) {
        let state = match self.state_for_key(key) {
            Some(s) => s,
            None => self.intern(key, catalog),
        };
        self.point(&catalog.source.tag, &catalog.source.commit, state);
    }

    /// Adds a tag whose blobs are those of a state already held.
    #[cfg(test)]
    pub fn add_same(&mut self, tag: &str, commit: &str, state: u32) {
        self.point(tag, commit, state);
    }

    fn point(&mut self, tag: &str, commit: &str, state: u32) {
        // Only the tags of its version can name it: a scan of every tag for
        // each tag pointed made a sync of 20,000 tags quadratic.
        let run = self.version_run(tag);
        let start = run.start;
        let mut group: Vec<TagEntry> = self.tags.drain(run).filter(|t| !same_tag(&t.tag, tag)).collect();
        let at = group.partition_point(|t| compare_tags(&t.tag, tag).is_lt());
        group.insert(at, TagEntry { tag: tag.to_string(), commit: commit.to_string(), state });
        self.tags.splice(start..start, group);
        self.derived = HistoryMemo::default();
    }

    fn intern(&mut self, key: &str, c: &Catalog) -> u32 {
        let mut state = State { key: key.to_string(), ..State::default() };
        let mut ids = index(&self.flags);
        for f in &c.flags {
            let (record, line, members_line) = flag_record(f);
            state.flags.push([intern(&mut self.flags, &mut ids, record), line, members_line]);
        }
        let mut ids = index(&self.metrics);
        for m in &c.metrics {
            let (record, line) = metric_record(m);
            state.metrics.push([intern(&mut self.metrics, &mut ids, record), line]);
        }
        let mut ids = index(&self.env_keys);
        for k in &c.env_keys {
            let (record, line) = env_record(k);
            state.env_keys.push([intern(&mut self.env_keys, &mut ids, record), line]);
        }
        self.states.push(state);
        u32::try_from(self.states.len() - 1).unwrap_or(u32::MAX)
    }

    /// The position of a tag (`1.8.1` names `v1.8.1`).
    pub fn index(&self, tag: &str) -> Option<usize> {
        let run = self.version_run(tag);
        let start = run.start;
        self.tags[run].iter().position(|t| same_tag(&t.tag, tag)).map(|i| start + i)
    }

    /// Every tag's position as [`index`](Self::index) gives it, worked out
    /// once, for a caller that looks up thousands of tags: `get` with the
    /// name less its leading `v`s ([`same_tag`]'s rule).
    pub fn positions(&self) -> FxHashMap<&str, usize> {
        let mut at = FxHashMap::default();
        for (i, t) in self.tags.iter().enumerate() {
            at.entry(t.tag.trim_start_matches('v')).or_insert(i);
        }
        at
    }

    /// Where the tags of `tag`'s version stand (the tags are in tag order):
    /// found by binary search, so a lookup costs log n, not n.
    fn version_run(&self, tag: &str) -> std::ops::Range<usize> {
        let start = self.tags.partition_point(|t| compare_versions(&t.tag, tag).is_lt());
        let len = self.tags[start..].partition_point(|t| compare_versions(&t.tag, tag).is_eq());
        start..start + len
    }

    /// The newest tag at or before `tag` in tag order: the build an untagged
    /// or uncatalogued version is judged by.
    pub fn nearest_before(&self, tag: &str) -> Option<usize> {
        let after = self.tags.partition_point(|t| compare_tags(&t.tag, tag).is_le());
        after.checked_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::model::{Kind, Provenance};

    /// Pointing and finding 4,000 tags compares each with a few (a binary
    /// search), not with every tag held: a sync of 20,000 tags was
    /// quadratic (17 s for a history of 20,000 tags that held them all).
    /// The answers are those of a scan.
    #[test]
    fn tags_are_placed_and_found_without_a_scan() {
        let mut h = History::new("e", "r");
        let n = 4_000u64;
        let names: Vec<String> = (0..n).map(|i| format!("v1.{}.{}", (i * 7919) % n, i % 3)).collect();
        crate::catalog::tag::tests::LOOKS.with(|c| c.set(0));
        for (i, name) in names.iter().enumerate() {
            h.add_same(name, "c", u32::try_from(i).unwrap_or(0));
        }
        // `1.5.0` names `v1.5.0`: it replaces it.
        h.add_same("1.5.0", "d", 0);
        let positions = h.positions();
        let found: Vec<(Option<usize>, Option<usize>)> =
            names.iter().map(|name| (h.index(name), positions.get(name.trim_start_matches('v')).copied())).collect();
        let looks = crate::catalog::tag::tests::LOOKS.with(std::cell::Cell::get);
        assert!(looks < 100 * n, "{looks} comparisons for {n} tags");
        for (name, (index, position)) in names.iter().zip(found) {
            let scan = h.tags.iter().position(|t| same_tag(&t.tag, name));
            assert_eq!((index, position), (scan, scan), "{name}");
        }
        assert!(h.tags.windows(2).all(|w| compare_tags(&w[0].tag, &w[1].tag).is_lt()));
        assert_eq!(
            h.tags.iter().filter(|t| same_tag(&t.tag, "1.5.0")).map(|t| t.commit.as_str()).collect::<Vec<_>>(),
            ["d"]
        );
    }

    pub(super) fn flag(name: &str, kind: Kind, members: &[&str], line: u32) -> Flag {
        Flag {
            name: name.into(),
            aliases: Vec::new(),
            metavar: String::new(),
            kind,
            default: String::new(),
            auto_means: None,
            members: members.iter().map(|m| m.to_string()).collect(),
            members_from: None,
            help: format!("help of {name}"),
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

    pub(super) fn catalog(tag: &str, flags: Vec<Flag>) -> Catalog {
        let mut c = Catalog::new(
            Provenance {
                engine: "e".into(),
                repo: "r".into(),
                tag: tag.into(),
                commit: format!("{tag}-commit"),
                knobs_version: "0".into(),
            },
            flags,
            Vec::new(),
        );
        c.normalise();
        c
    }

    /// Three builds: `--mode` gains a member in b3, `--old` goes in b3 and
    /// `--new` comes; b2 has b1's blobs (the same key).
    pub(super) fn three() -> History {
        let mut h = History::new("e", "r");
        let b1 = catalog("b1", vec![flag("--mode", Kind::Enum, &["a", "b"], 10), flag("--old", Kind::Switch, &[], 20)]);
        h.add("k1", &b1);
        let b3 =
            catalog("b3", vec![flag("--mode", Kind::Enum, &["a", "b", "c"], 12), flag("--new", Kind::Int, &[], 30)]);
        h.add("k3", &b3);
        let s = h.state_for_key("k1").expect("k1 is held");
        h.add_same("b2", "b2-commit", s);
        h
    }

    #[test]
    fn tags_share_states_and_records_keep_their_lines_apart() {
        let h = three();
        assert_eq!(h.tags.iter().map(|t| t.tag.as_str()).collect::<Vec<_>>(), ["b1", "b2", "b3"]);
        assert_eq!(h.states.len(), 2, "b2 points at b1's state");
        assert_eq!(h.flags.len(), 4, "--mode twice (members differ), --old, --new");
        let b3 = h.catalog("b3").expect("b3");
        assert_eq!(b3.flag("--mode").map(|f| f.location.as_str()), Some("core/config.cpp:12"));
        assert_eq!(b3.flag("--mode").map(|f| f.members.len()), Some(3));
        assert!(b3.flag("--old").is_none());
        let b2 = h.catalog("b2").expect("b2");
        assert_eq!(b2.source.commit, "b2-commit");
        assert_eq!(b2.flag("--old").map(|f| f.location.as_str()), Some("core/config.cpp:20"));
    }

    #[test]
    fn spans_say_since_and_until_when() {
        let h = three();
        let spans = h.flag_spans("--mode");
        assert_eq!(spans.len(), 2);
        assert_eq!(spans[0].1, [0..=1]);
        assert_eq!(spans[1].0.members, ["a", "b", "c"]);
        assert_eq!(h.span_label(&spans[1].1[0]), "b3–");
        assert_eq!(h.span_label(&h.flag_presence("--old")[0]), "b1–b2");
        assert_eq!(h.flag_presence("--mode"), [0..=2]);
        assert!(h.flag_presence("--nothing").is_empty());
    }

    #[test]
    fn the_nearest_earlier_tag_judges_an_uncatalogued_one() {
        let h = three();
        assert_eq!(h.nearest_before("b2").and_then(|i| h.tag(i)), Some("b2"));
        assert_eq!(h.nearest_before("b2.5").and_then(|i| h.tag(i)), Some("b2"));
        assert_eq!(h.nearest_before("b9").and_then(|i| h.tag(i)), Some("b3"));
        assert_eq!(h.nearest_before("b0"), None);
    }

    #[test]
    fn a_file_round_trips_and_a_broken_one_is_refused() {
        let h = three();
        let text = h.to_json().expect("json");
        let back = History::parse(Path::new("h.json"), &text).expect("parses");
        assert_eq!(back.catalog("b3"), h.catalog("b3"));
        let broken = text.replacen("\"state\":1", "\"state\":7", 1);
        assert!(History::parse(Path::new("h.json"), &broken).is_err(), "a state out of range is refused");
        let newer = text.replacen("\"schema\":2", "\"schema\":9", 1);
        let err = History::parse(Path::new("h.json"), &newer).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("has schema 9"), "{err}");
        let garbled = text.replacen("\"flags\":\"", "\"flags\":\"x", 1);
        assert!(History::parse(Path::new("h.json"), &garbled).is_err(), "a state's numbers that are not numbers");
        // A history of the first format (states as arrays) is synced again.
        let older = text.replacen("\"schema\":2", "\"schema\":1", 1);
        let help = History::parse(Path::new("h.json"), &older)
            .err()
            .and_then(|e| miette::Diagnostic::help(&e).map(|h| h.to_string()))
            .unwrap_or_default();
        assert_eq!(help, "sync the history again with this knobs (`knobs sync --all-tags`)");
    }
}
