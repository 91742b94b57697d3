//! The build a monitoring file's repository runs: a dashboard or a rule
//! file names no image, but the deployment files around it do. From the
//! file's folder upward (to the folder of knobs.toml, or the top of the
//! git work tree; with neither within four folders, no higher than the
//! working directory, and for a file outside it no higher than its own
//! folder), the first folder whose tree holds an engine image pinned with
//! a tag — a compose service, a Kubernetes container, a Helm
//! chart's values (`image:`, or `{repository, tag}`), a Dockerfile's
//! `FROM` — or a Helm chart whose values name the engine's image with no
//! tag (the chart's `appVersion` is then the tag) says which build. When
//! the builds found at that level disagree, none is taken: a fleet is
//! named in knobs.toml (`[metrics] builds`). Each deployment file is read
//! once per run, whichever monitoring files ask.

use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::dispatch::scan;
use super::input::Input;
use super::scanners::code;
use super::scanners::yaml::{self, Node};
use super::Settings;
use crate::catalog::tag::same_tag;
use crate::kinds::{by_name, may_be_code, FileKind};

/// Folders climbed above the monitoring file's own, at most.
const MAX_UP: usize = 4;
/// Files listed under one folder, at most.
const MAX_LISTED: usize = 4000;

/// A build pinned in reach, and the file that pins it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    pub tag: String,
    pub by: PathBuf,
}

/// What a monitoring file's reach says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Found {
    /// No deployment file in reach pins the engine.
    #[default]
    Nothing,
    /// One build (the first file that pins it).
    One(Pin),
    /// Several builds at the same distance: none is taken.
    Several(Vec<Pin>),
}

/// Series names, shared.
type Names = Arc<Vec<String>>;

/// The next [`Reach`]'s number: each one made in the process has its own.
static NEXT_REACH: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// This thread's last answer of [`Reach::registered`]: which reach, the
    /// folder asked about, and the names. A walk hands a thread the files
    /// of a folder one after another; they need no lookup by path.
    static LAST_REGISTERED: RefCell<Option<(u64, PathBuf, Names)>> = const { RefCell::new(None) };
}

/// Reaches, by folder, and the pins each deployment file holds.
pub struct Reach {
    /// This reach's number (see [`NEXT_REACH`]).
    id: u64,
    by_dir: Mutex<FxHashMap<PathBuf, Arc<OnceLock<Found>>>>,
    by_file: Mutex<FxHashMap<PathBuf, Vec<String>>>,
    /// Series the code of a project registers, by the project's top folder.
    registered: Mutex<FxHashMap<PathBuf, Arc<OnceLock<Names>>>>,
    /// The project's top folder, by the folder a climb starts from (files
    /// of one folder climb once).
    tops: Mutex<FxHashMap<PathBuf, PathBuf>>,
}

impl Default for Reach {
    fn default() -> Self {
        Reach {
            id: NEXT_REACH.fetch_add(1, Ordering::Relaxed),
            by_dir: Mutex::default(),
            by_file: Mutex::default(),
            registered: Mutex::default(),
            tops: Mutex::default(),
        }
    }
}

impl Reach {
    /// What the reach of the file `path` (as shown) says.
    pub fn of(&self, path: &Path, settings: &Settings<'_>, input: &dyn Input) -> Found {
        let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
        let cell = match self.by_dir.lock() {
            Ok(mut cells) => cells.entry(dir.clone()).or_default().clone(),
            Err(_) => Arc::default(),
        };
        cell.get_or_init(|| self.find(&dir, settings, input)).clone()
    }

    /// The series the code around `path` registers under the engine's
    /// prefixes (an exporter, a router with gauges of its own): the whole
    /// project's, from its top folder (knobs.toml's, the git work tree's, or
    /// the highest a climb reaches without leaving the working directory;
    /// a file outside it: its own folder).
    pub fn registered(&self, path: &Path, settings: &Settings<'_>, input: &dyn Input) -> Arc<Vec<String>> {
        let dir = path.parent().unwrap_or(Path::new(""));
        // A folder's answer never changes within a reach (its top is kept
        // by folder, its names by top): the last one is reused when asked
        // about the same folder, compared by bytes (another spelling only
        // misses).
        let same = |(id, asked, _): &&(u64, PathBuf, Names)| *id == self.id && asked.as_os_str() == dir.as_os_str();
        if let Some(names) = LAST_REGISTERED.with_borrow(|last| last.as_ref().filter(same).map(|l| l.2.clone())) {
            return names;
        }
        let names = self.registered_at(dir, settings, input);
        LAST_REGISTERED.set(Some((self.id, dir.to_path_buf(), names.clone())));
        names
    }

    fn registered_at(&self, dir: &Path, settings: &Settings<'_>, input: &dyn Input) -> Arc<Vec<String>> {
        let level = self.project_top(dir, settings);
        let cell = match self.registered.lock() {
            Ok(mut cells) => cells.entry(level.clone()).or_default().clone(),
            Err(_) => Arc::default(),
        };
        cell.get_or_init(|| {
            let mut names = Vec::new();
            for p in input.below(&level, MAX_LISTED) {
                if !may_be_code(&p) {
                    continue;
                }
                let Some(FileKind::Code(lang)) = by_name(&p, &settings.env_files) else { continue };
                // The engine's own registration files (the folders its
                // profile reads metrics from: a vendored copy, a fork) are
                // the engine's, judged by the catalogue, not the project's.
                let slashed = format!("/{}", p.to_string_lossy().replace('\\', "/"));
                if settings.profile.extract.metrics.iter().any(|f| slashed.contains(&format!("/{f}"))) {
                    continue;
                }
                if !input.confined(&p) {
                    continue;
                }
                let Ok(text) = input.read(&p) else { continue };
                names.extend(code::registered(&text.text, lang, &settings.metrics));
            }
            names.sort();
            names.dedup();
            Arc::new(names)
        })
        .clone()
    }

    /// The top of the project `dir` is in: the first folder of the climb
    /// that is [`top`], else the highest the climb may reach (see
    /// [`climb_limit`]).
    fn project_top(&self, dir: &Path, settings: &Settings<'_>) -> PathBuf {
        if let Some(known) = self.tops.lock().ok().and_then(|m| m.get(dir).cloned()) {
            return known;
        }
        let level = dir.ancestors().take(climb_limit(dir, settings) + 1).last().unwrap_or(dir).to_path_buf();
        if let Ok(mut m) = self.tops.lock() {
            m.insert(dir.to_path_buf(), level.clone());
        }
        level
    }

    fn find(&self, dir: &Path, settings: &Settings<'_>, input: &dyn Input) -> Found {
        for level in dir.ancestors().take(climb_limit(dir, settings) + 1) {
            let mut pins: Vec<Pin> = Vec::new();
            // The first file in path order that pins a build names it.
            let mut listed = input.below(level, MAX_LISTED);
            listed.sort();
            for p in listed {
                for tag in self.pins_of(&p, settings, input) {
                    if !pins.iter().any(|q| q.tag == tag) {
                        pins.push(Pin { tag, by: p.clone() });
                    }
                }
            }
            match pins.len() {
                0 => {}
                1 => return Found::One(pins.remove(0)),
                _ if pins.iter().all(|p| same_tag(&p.tag, &pins[0].tag)) => return Found::One(pins.remove(0)),
                _ => return Found::Several(pins),
            }
        }
        Found::Nothing
    }

    /// The builds one file pins (read once per run).
    fn pins_of(&self, path: &Path, settings: &Settings<'_>, input: &dyn Input) -> Vec<String> {
        if let Some(known) = self.by_file.lock().ok().and_then(|m| m.get(path).cloned()) {
            return known;
        }
        let pins = read_pins(path, settings, input);
        if let Ok(mut m) = self.by_file.lock() {
            m.insert(path.to_path_buf(), pins.clone());
        }
        pins
    }
}

/// The folder a climb stops at: knobs.toml's, or the top of a git work tree.
fn top(level: &Path, settings: &Settings<'_>) -> bool {
    let here = crate::fsutil::normalized(&settings.cwd.join(level));
    settings.config_dir.as_ref().is_some_and(|c| *c == here) || here.join(".git").exists()
}

/// How many folders a climb from `dir` goes up: to the first [`top`]
/// within [`MAX_UP`] folders, else as far as [`ups_without_top`] lets it.
fn climb_limit(dir: &Path, settings: &Settings<'_>) -> usize {
    match dir.ancestors().take(MAX_UP + 1).position(|level| top(level, settings)) {
        Some(at) => at,
        None => ups_without_top(dir, settings).min(MAX_UP),
    }
}

/// How far a climb from `dir` may go when no [`top`] is in reach: up to
/// the working directory, for a file inside it; not at all, for one
/// outside it (a climb from `/tmp/x/a.md` would otherwise list and read
/// the machine's folders above it: `/tmp`, `/`). Inside and outside are
/// told by the folders' real paths (a path written through a link to the
/// working directory is inside it).
fn ups_without_top(dir: &Path, settings: &Settings<'_>) -> usize {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| crate::fsutil::normalized(p));
    let (cwd, here) = (real(&settings.cwd), real(&settings.cwd.join(dir)));
    here.strip_prefix(&cwd).map_or(0, |below| below.components().count())
}

/// The builds a deployment file pins: its engine images' tags, or a chart's
/// `appVersion` when its values name the engine's image with no tag.
fn read_pins(path: &Path, settings: &Settings<'_>, input: &dyn Input) -> Vec<String> {
    let name = path.file_name().map(|n| n.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
    if name == "chart.yaml" || name == "chart.yml" {
        return app_version(path, settings, input).into_iter().collect();
    }
    let kind = by_name(path, &settings.env_files);
    let deploys = matches!(
        kind,
        Some(
            FileKind::Compose
                | FileKind::HelmValues
                | FileKind::Yaml
                | FileKind::Dockerfile
                | FileKind::Quadlet
                | FileKind::Systemd
                | FileKind::Env
        )
    );
    let Some(kind) = kind.filter(|_| deploys) else { return Vec::new() };
    if !input.confined(path) {
        return Vec::new();
    }
    let Ok(text) = input.read(path) else { return Vec::new() };
    // Only a file that names one of the engine's images can pin it.
    if !settings.commands.images().iter().any(|i| text.text.contains(i.as_str())) {
        return Vec::new();
    }
    let s = scan(&text.text, kind, settings, settings.catalog);
    let mut tags: Vec<String> = s.pins.into_iter().map(|(t, _)| t).collect();
    tags.extend(s.sections.into_iter().filter_map(|s| s.pin));
    // In YAML, an engine image under any key (`images: {default: …}`, a
    // variant per accelerator) says a build the project runs too.
    if matches!(kind, FileKind::Compose | FileKind::HelmValues | FileKind::Yaml) {
        for doc in yaml::load_each(&text.text).0 {
            scalar_images(&doc, settings, &mut tags);
        }
    }
    let mut seen = Vec::new();
    tags.retain(|t| {
        if seen.contains(t) {
            false
        } else {
            seen.push(t.clone());
            true
        }
    });
    tags
}

/// The builds the engine images written as scalars anywhere in `n` pin.
fn scalar_images(n: &Node, settings: &Settings<'_>, out: &mut Vec<String>) {
    match n {
        Node::Scalar { text, .. } => {
            let last = text.trim().rsplit('/').next().unwrap_or("");
            let Some((repo, tag)) = last.split_once(':') else { return };
            if settings.commands.images().iter().any(|i| i == repo) {
                out.extend(settings.commands.image_tag(tag).filter(|t| !t.is_empty()));
            }
        }
        Node::Map { entries, .. } => entries.iter().for_each(|(_, _, v)| scalar_images(v, settings, out)),
        Node::Seq { items, .. } => items.iter().for_each(|v| scalar_images(v, settings, out)),
        Node::Other { .. } => {}
    }
}

/// A chart's `appVersion`, when its values name the engine's image with no
/// tag of their own (the chart's templates then default to it).
fn app_version(chart: &Path, settings: &Settings<'_>, input: &dyn Input) -> Option<String> {
    let dir = chart.parent().unwrap_or(Path::new(""));
    let values = ["values.yaml", "values.yml"].iter().find_map(|v| input.read(&dir.join(v)).ok())?;
    let untagged = yaml::load_each(&values.text).0.iter().any(|d| untagged_engine_image(d, settings));
    if !untagged {
        return None;
    }
    let text = input.read(chart).ok()?.text;
    let docs = yaml::load_each(&text).0;
    let version = docs.first()?.get("appVersion")?.str()?.trim().to_string();
    settings.commands.image_tag(&version).filter(|v| !v.is_empty())
}

/// True when a values tree names the engine's image as `{repository: …}`
/// with an empty or missing `tag`.
fn untagged_engine_image(n: &Node, settings: &Settings<'_>) -> bool {
    let engine = |repo: &str| {
        let last = repo.rsplit('/').next().unwrap_or(repo);
        !last.contains(':') && settings.commands.images().iter().any(|i| i == last)
    };
    match n {
        Node::Map { entries, .. } => {
            let here = n.get("repository").and_then(Node::str).is_some_and(engine)
                && n.get("tag").and_then(Node::str).is_none_or(|t| t.trim().is_empty());
            here || entries.iter().any(|(_, _, v)| untagged_engine_image(v, settings))
        }
        Node::Seq { items, .. } => items.iter().any(|v| untagged_engine_image(v, settings)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::model::{Catalog, Provenance};
    use crate::lint::input::StagedFiles;

    /// What a reach keeps for a folder is its own: another reach (another
    /// run on the same thread, as the pools of `knobs server` and the hook
    /// make them) asking about a folder of the same name reads its own files.
    #[test]
    fn a_reach_does_not_answer_with_another_reach_s_registered_series() {
        let profile = crate::catalog::profile::builtin("vllm").expect("vllm is built in");
        let (engine, repo, commit, knobs_version) = (String::new(), String::new(), String::new(), String::new());
        let tag = "v0.20.1".to_string();
        let catalog = Catalog::new(Provenance { engine, repo, tag, commit, knobs_version }, vec![], vec![]);
        let dir = tempfile::tempdir().expect("a temporary folder");
        // The folder asked about exists, so that its real path is read
        // beside the working directory's (a temporary folder may be behind
        // a link, as `/var` is on macOS).
        std::fs::create_dir(dir.path().join("dashboards")).expect("a folder");
        let mut settings = Settings::new(&profile, &catalog, &[], Vec::new());
        settings.cwd = dir.path().to_path_buf();
        let router = b"from prometheus_client import Gauge\n\nqps = Gauge(\"vllm:router_qps\", \"Requests.\")\n";
        let code = StagedFiles { files: vec![("src/metrics.py".into(), router.to_vec())], max_file_size: 1 << 20 };
        let none = StagedFiles { files: Vec::new(), max_file_size: 1 << 20 };
        let board = Path::new("dashboards/a.json");
        let (first, second) = (Reach::default(), Reach::default());
        for _ in 0..2 {
            assert_eq!(*first.registered(board, &settings, &code), ["vllm:router_qps"]);
            assert!(second.registered(board, &settings, &none).is_empty(), "the second reach reads no code");
        }
    }
}
