//! An engine's history from many tags (`knobs sync --all-tags`): each tag
//! keyed by the ids of what its profile era names, as its language's reader
//! says (files: blob ids; folders: tree ids; missing: `-`), so that each
//! distinct blob set is extracted once however many tags hold it — flags
//! and metrics apart when the reader reads them apart (C++: a server
//! folder changes far more often than the option table).
//! The extractions run on every core, one repository reader per worker,
//! and are interned as they arrive: memory holds the history and a few
//! extractions in flight, never every tag's catalogue.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::lang::{At, Inputs, Readings};
use super::one_tag::catalogue;
use super::{reader_for, BuildError};
use crate::catalog::history::{Builder, History};
use crate::catalog::model::{Catalog, Flag, Metric};
use crate::catalog::profile::Profile;
use crate::source::{PinnedTree, SourceError, TagReader, TagRef, TaggedRepo};

/// How many distinct warnings a report keeps (each with its first tag).
const WARNINGS_KEPT: usize = 100;

/// What to build: the tags to read and the history to extend, if any.
pub struct Request<'a> {
    pub repo: &'a TaggedRepo,
    pub profile: &'a Profile,
    pub queries: &'a [String],
    pub tags: Vec<TagRef>,
    pub previous: Option<History>,
    /// The history will be written with facts only: one that already is
    /// can be extended.
    pub facts_only: bool,
}

/// The history built and what it took.
pub struct Report {
    pub history: History,
    /// Why the previous history was rebuilt rather than extended.
    pub rebuilt: Option<String>,
    /// Tags added now whose blobs (flags or metrics) were read for them.
    pub extracted: usize,
    /// Tags added now whose blobs had all been read for another tag.
    pub shared: usize,
    /// Distinct flag files and metric folders read now.
    pub flag_sets: usize,
    pub metric_sets: usize,
    /// Tags that could not be read, in tag order, with why.
    pub skipped: Vec<(String, String)>,
    /// Distinct extraction warnings, each with the first tag it came from.
    pub warnings: Vec<(String, String)>,
}

impl Report {
    /// True when no tag was added.
    pub fn nothing_new(&self) -> bool {
        self.extracted + self.shared == 0
    }
}

/// Why no history could be built.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum HistoryBuildError {
    #[error(transparent)]
    #[diagnostic(transparent)]
    Source(#[from] SourceError),
    #[error("no tag of `{repo}` could be read: {}", first_reasons(.skipped))]
    #[diagnostic(
        code(knobs::sync::no_tag_read),
        help("check the profile's [extract] files (`knobs sync --tag TAG` shows one tag's error in full)")
    )]
    NoTagRead { repo: String, skipped: Vec<(String, String)> },
}

/// The first few skipped tags and why, for a one-line summary.
pub fn first_reasons(skipped: &[(String, String)]) -> String {
    const NAMED: usize = 3;
    // Tag names and reasons come from the repository: shown as pictures.
    let shown = |s: &str| crate::pictures::visible(s).into_owned();
    let mut out: Vec<String> =
        skipped.iter().take(NAMED).map(|(tag, why)| format!("{}: {}", shown(tag), shown(why))).collect();
    if skipped.len() > NAMED {
        out.push(format!("and {} more", skipped.len() - NAMED));
    }
    out.join("; ")
}

/// What the states are extracted with: the profile (its eras, files,
/// prefixes) and the user's queries, digested (FNV-1a).
pub fn fingerprint(profile: &Profile, queries: &[String]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let text = serde_json::to_string(profile).unwrap_or_default();
    for b in text.bytes().chain([0]).chain(queries.iter().flat_map(|q| q.bytes().chain([0]))) {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// Why `previous` cannot be extended by a sync of `profile` from `origin`
/// (the repository as shown) with `queries`, if it cannot: then it is
/// rebuilt, and every tag must be read again.
pub fn incompatible_with(
    previous: &History,
    profile: &Profile,
    queries: &[String],
    origin: &str,
    facts_only: bool,
) -> Option<String> {
    incompatible(previous, profile, origin, &fingerprint(profile, queries), facts_only)
}

fn incompatible(previous: &History, profile: &Profile, origin: &str, with: &str, facts_only: bool) -> Option<String> {
    if previous.engine != profile.name {
        Some(format!("it holds engine {}", previous.engine))
    } else if previous.repo != origin {
        Some(format!("it was synced from {}", crate::pictures::visible(&previous.repo)))
    } else if previous.knobs_version != env!("CARGO_PKG_VERSION") {
        Some(format!("it was written by knobs {}", previous.knobs_version))
    } else if previous.extracted_with != with {
        Some("it was extracted with another profile or other [[extract.query]] queries".into())
    } else if previous.facts_only && !facts_only {
        Some("it holds facts only (no help texts)".into())
    } else {
        None
    }
}

/// The short ids of `ids`, `-` for a path that is not there, behind a
/// digest of the paths (an era that reads other files keys apart).
fn key(paths: &[String], ids: &[Option<String>]) -> String {
    let mut hash: u32 = 0x811c_9dc5;
    for b in paths.iter().flat_map(|p| p.bytes().chain([0])) {
        hash ^= u32::from(b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    let ids: Vec<&str> = ids.iter().map(|i| i.as_deref().map_or("-", |i| &i[..i.len().min(12)])).collect();
    format!("{hash:08x}:{}", ids.join("."))
}

/// One tag's two keys, or why it cannot be read at all.
struct Keyed {
    tag: TagRef,
    flags: String,
    metrics: String,
    missing: Option<String>,
}

fn keyed(reader: &TagReader, profile: &Profile, tag: TagRef) -> Result<Keyed, SourceError> {
    let spec = profile.extract_for(&tag.name);
    match reader_for(spec.language).readings(spec) {
        Readings::Whole(inputs) => {
            // One reading gives flags, env keys and metrics: one key for all.
            let (k, missing) = key_of(reader, &tag, &inputs)?;
            Ok(Keyed { flags: k.clone(), metrics: k, missing, tag })
        }
        Readings::Apart { flags, metrics } => {
            let (flags, missing) = key_of(reader, &tag, &flags)?;
            let (metrics, _) = key_of(reader, &tag, &metrics)?;
            Ok(Keyed { flags, metrics, missing, tag })
        }
    }
}

/// The key of what one reading of `tag` depends on, and the first required
/// path missing there, if one is.
fn key_of(reader: &TagReader, tag: &TagRef, inputs: &Inputs) -> Result<(String, Option<String>), SourceError> {
    let paths = inputs.paths();
    let ids = reader.path_ids(tag, &paths)?;
    let missing = inputs.required.iter().zip(&ids).find(|(_, id)| id.is_none()).map(|(p, _)| format!("no {p}"));
    Ok((format!("{}{}", inputs.label, key(&paths, &ids)), missing))
}

enum Job {
    Flags(String, TagRef),
    Metrics(String, TagRef),
    /// A tag whose reader gives flags, env keys and metrics in one reading.
    Whole(String, TagRef),
}

impl Job {
    fn tag(&self) -> &TagRef {
        match self {
            Job::Flags(_, tag) | Job::Metrics(_, tag) | Job::Whole(_, tag) => tag,
        }
    }
}

enum Done {
    Flags(String, TagRef, Result<(Vec<Flag>, Vec<String>), String>),
    Metrics(String, TagRef, Result<(Vec<Metric>, Vec<String>), String>),
    Whole(String, TagRef, Result<(Box<Catalog>, Vec<String>), String>),
}

fn run(reader: &mut Result<TagReader, String>, job: &Job, profile: &Profile, queries: &[String]) -> Done {
    // The tag's tree, read by `read`, then given back to the reader.
    fn at_tag<T>(
        reader: &mut Result<TagReader, String>,
        tag: &TagRef,
        read: impl FnOnce(&PinnedTree) -> Result<T, BuildError>,
    ) -> Result<T, String> {
        let reader = reader.as_mut().map_err(|e| e.clone())?;
        let tree = reader.pinned(tag).map_err(|e| e.to_string())?;
        let read = read(&tree);
        reader.restore(tree);
        read.map_err(|e| e.to_string())
    }
    let prefixes = &profile.metrics.prefixes;
    let spec = profile.extract_for(&job.tag().name);
    let lang = reader_for(spec.language);
    match job {
        Job::Flags(key, tag) => {
            let read = at_tag(reader, tag, |tree| lang.read_flags(&At { tree, spec, prefixes, queries }));
            Done::Flags(key.clone(), tag.clone(), read)
        }
        Job::Metrics(key, tag) => {
            let read = at_tag(reader, tag, |tree| lang.read_metrics(&At { tree, spec, prefixes, queries }));
            Done::Metrics(key.clone(), tag.clone(), read)
        }
        Job::Whole(key, tag) => {
            let read = at_tag(reader, tag, |tree| catalogue(tree, profile, queries));
            Done::Whole(key.clone(), tag.clone(), read.map(|b| (Box::new(b.catalog), b.warnings)))
        }
    }
}

/// Builds (or extends) the history of `req.tags`.
pub fn build(mut req: Request<'_>) -> Result<Report, HistoryBuildError> {
    let with = fingerprint(req.profile, req.queries);
    let mut rebuilt = None;
    let base = match req.previous.take() {
        Some(previous) => match incompatible(&previous, req.profile, &req.repo.origin, &with, req.facts_only) {
            None => previous,
            Some(why) => {
                rebuilt = Some(why);
                History::new(&req.profile.name, &req.repo.origin)
            }
        },
        None => History::new(&req.profile.name, &req.repo.origin),
    };
    let reader = req.repo.reader()?;
    // Tags held with the same commit are not read again.
    let mut todo = Vec::new();
    let positions = base.positions();
    for tag in req.tags.iter().cloned() {
        let held = positions.get(tag.name.trim_start_matches('v')).and_then(|i| base.tags.get(*i));
        if held.is_some_and(|t| t.commit == tag.commit) {
            continue;
        }
        // A tag that cannot be keyed (one naming a tree, a commit the
        // cache lacks) is skipped with why; the others are read.
        match keyed(&reader, req.profile, tag.clone()) {
            Ok(k) => todo.push(k),
            Err(e) => todo.push(Keyed {
                tag,
                flags: String::new(),
                metrics: String::new(),
                missing: Some(crate::pictures::visible(&e.to_string()).into_owned()),
            }),
        }
    }
    drop(reader);
    if todo.iter().all(|k| k.missing.is_some()) && !base.tags.is_empty() {
        // Nothing to read: the history stays as it is, byte for byte.
        let skipped = todo.into_iter().filter_map(|k| Some((k.tag.name, k.missing?))).collect();
        return Ok(Report {
            history: base,
            rebuilt,
            extracted: 0,
            shared: 0,
            flag_sets: 0,
            metric_sets: 0,
            skipped,
            warnings: Vec::new(),
        });
    }
    let mut builder = Builder::new(base);
    builder.set_extracted_with(&with);
    // One job per distinct key not held, read at the first tag that has it.
    let mut jobs = Vec::new();
    let mut queued: FxHashSet<String> = FxHashSet::default();
    for k in todo.iter().filter(|k| k.missing.is_none()) {
        if k.flags == k.metrics {
            if !builder.has_flags(&k.flags) && queued.insert(format!("f{}", k.flags)) {
                jobs.push(Job::Whole(k.flags.clone(), k.tag.clone()));
            }
            continue;
        }
        if !builder.has_flags(&k.flags) && queued.insert(format!("f{}", k.flags)) {
            jobs.push(Job::Flags(k.flags.clone(), k.tag.clone()));
        }
        if !builder.has_metrics(&k.metrics) && queued.insert(format!("m{}", k.metrics)) {
            jobs.push(Job::Metrics(k.metrics.clone(), k.tag.clone()));
        }
    }
    let (mut flag_sets, mut metric_sets) = (0, 0);
    let mut failed: FxHashMap<String, String> = FxHashMap::default();
    let mut read_for: FxHashSet<String> = FxHashSet::default();
    let mut warnings: Vec<(String, String)> = Vec::new();
    let mut seen_warnings: FxHashSet<String> = FxHashSet::default();
    let mut warn = |tag: &TagRef, ws: Vec<String>| {
        for w in ws {
            if warnings.len() < WARNINGS_KEPT && seen_warnings.insert(w.clone()) {
                warnings.push((tag.name.clone(), w));
            }
        }
    };
    let workers = rayon::current_num_threads().clamp(1, jobs.len().max(1));
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::sync_channel::<Done>(workers);
    std::thread::scope(|s| {
        let (jobs, next, profile, queries, repo) = (&jobs, &next, req.profile, req.queries, req.repo);
        // The workers are tasks of rayon's pool, so the extractions' own
        // parallel parts run on the same threads (no more threads, and no
        // more allocator arenas, than cores); this thread only waits.
        s.spawn(move || {
            rayon::scope(|pool| {
                for _ in 0..workers {
                    let tx = tx.clone();
                    pool.spawn(move |_| {
                        let mut reader = repo.reader().map_err(|e| e.to_string());
                        while let Some(job) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                            if tx.send(run(&mut reader, job, profile, queries)).is_err() {
                                break;
                            }
                        }
                    });
                }
                drop(tx);
            });
        });
        // Interned as they arrive: nothing waits in memory for the rest.
        for done in rx {
            match done {
                Done::Flags(key, tag, Ok((flags, ws))) => {
                    builder.intern_flags(&key, flags);
                    flag_sets += 1;
                    read_for.insert(tag.name.clone());
                    warn(&tag, ws);
                }
                Done::Metrics(key, tag, Ok((metrics, ws))) => {
                    builder.intern_metrics(&key, metrics);
                    metric_sets += 1;
                    read_for.insert(tag.name.clone());
                    warn(&tag, ws);
                }
                Done::Whole(key, tag, Ok((c, ws))) => {
                    let c = *c;
                    builder.intern_flags(&key, c.flags);
                    builder.intern_env_keys(&key, c.env_keys);
                    builder.intern_metrics(&key, c.metrics);
                    (flag_sets, metric_sets) = (flag_sets + 1, metric_sets + 1);
                    read_for.insert(tag.name.clone());
                    warn(&tag, ws);
                }
                Done::Whole(key, _, Err(why)) => drop(failed.insert(format!("f{key}"), why)),
                Done::Flags(key, _, Err(why)) => drop(failed.insert(format!("f{key}"), why)),
                Done::Metrics(key, _, Err(why)) => drop(failed.insert(format!("m{key}"), why)),
            }
        }
    });
    let (mut extracted, mut shared, mut skipped) = (0, 0, Vec::new());
    for k in todo {
        let why = k
            .missing
            .or_else(|| failed.get(&format!("f{}", k.flags)).cloned())
            .or_else(|| failed.get(&format!("m{}", k.metrics)).cloned());
        if let Some(why) = why {
            skipped.push((k.tag.name, why));
            continue;
        }
        match builder.add_tag(&k.tag.name, &k.tag.commit, &k.flags, &k.metrics) {
            Some(_) if read_for.contains(&k.tag.name) => extracted += 1,
            Some(_) => shared += 1,
            None => skipped.push((k.tag.name, "its blobs were not read".into())),
        }
    }
    skipped.sort_by(|a, b| crate::catalog::tag::compare_tags(&a.0, &b.0));
    // Said in tag order, whichever extraction finished first.
    warnings.sort_by(|a, b| crate::catalog::tag::compare_tags(&a.0, &b.0));
    let history = builder.finish();
    if history.tags.is_empty() {
        return Err(HistoryBuildError::NoTagRead { repo: req.repo.origin.clone(), skipped });
    }
    Ok(Report { history, rebuilt, extracted, shared, flag_sets, metric_sets, skipped, warnings })
}
