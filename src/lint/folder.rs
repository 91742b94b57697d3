//! A folder's context — its env trio — computed once per folder: the env
//! variables its serve scripts pass to flags (`--max-num-seqs
//! "${MAX_SEQS:-2}"` maps `MAX_SEQS`), the engine version its env files
//! pin (`…/radiance:1.0.13`), and whether its env files are the engine's
//! (a pin, a serve script that runs the engine, a unit that names the
//! file). The pin applies to every file in the folder: runbook, serve
//! script and env files are judged against the same build. The texts read
//! here are kept, so no file is read twice.

use std::collections::HashMap;

use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::dispatch::scan;
use super::input::{Input, Text};
use super::scanners::Scan;
use super::span::Span;
use super::{scanners, Settings};
use crate::catalog::model::Catalog;
use crate::kinds::{classify, Context, FileKind};

/// What a folder's env files and serve scripts say.
#[derive(Debug, Default)]
pub struct Folder {
    /// Env variable → the flag a serve script passes it to.
    pub env_flags: HashMap<String, String>,
    /// Env variable → the binary a serve script splits it into (`radiance $ARGS`).
    pub env_argv: HashMap<String, Option<Arc<super::refs::Binary>>>,
    /// Versions the folder's env files pin (first wins), with the file that pins.
    pub pins: Vec<(String, PathBuf)>,
    /// Said once for the folder: a pin to a version with no catalogue.
    pub note: Option<String>,
    /// The pin is older than every catalogued build: the folder's files
    /// are not judged.
    pub unjudged: bool,
    /// A serve script of the folder runs the engine.
    pub serves: bool,
    /// File names the folder's engine units read (`EnvironmentFile=`), and
    /// its compose services that run the engine (`env_file:`).
    pub unit_env: Vec<String>,
    /// A compose file is in the folder: its `.env` feeds the compose
    /// file's `${}` substitution, not a container.
    pub compose: bool,
    /// Texts read (and scripts scanned) for the context, by path, for the
    /// lint to reuse.
    texts: Mutex<FxHashMap<PathBuf, Read>>,
    /// References of the folder's files the rules found nothing in.
    pub verdicts: super::verdicts::Verdicts,
}

/// A file the folder's context read: its text, and its scan (as the kind
/// it was scanned as) when it was scanned against the folder's catalogue.
pub type Read = (Result<Text, String>, Option<(FileKind, Scan)>);

impl Folder {
    /// A text this folder's context already read (taken: each is linted once).
    pub fn take(&self, path: &Path) -> Option<Read> {
        let mut texts = self.texts.lock().ok()?;
        // Most folders keep none (no env file there): no path is hashed.
        if texts.is_empty() {
            return None;
        }
        let read = texts.remove(path);
        if texts.is_empty() {
            // Every text taken: the map's room goes too.
            *texts = FxHashMap::default();
        }
        read
    }

    /// True when something in the folder says an env file there is the
    /// engine's: an engine image pinned, a serve script that runs the
    /// engine, a unit of the engine that reads the file.
    pub fn reads(&self, path: &Path) -> bool {
        let name = path.file_name().map(|n| n.to_string_lossy());
        let named = name
            .as_ref()
            .is_some_and(|n| self.unit_env.iter().any(|u| Path::new(u).file_name() == Some(n.as_ref().as_ref())));
        if self.compose_substitution(path) {
            return named;
        }
        !self.pins.is_empty() || self.serves || named
    }

    /// True for the `.env` beside a compose file: it feeds the compose
    /// file's `${}` substitution, not a container, so its keys are not the
    /// engine's unless a service that runs the engine names it (`env_file:`).
    pub fn compose_substitution(&self, path: &Path) -> bool {
        self.compose && path.file_name().is_some_and(|n| n == ".env")
    }

    /// The catalogue the folder's files are judged against: its pin's, or
    /// the run's.
    pub fn catalog<'a>(&self, settings: &Settings<'a>) -> &'a Catalog {
        let pinned = self.pins.first().and_then(|(pin, _)| settings.pinned(pin)).map(|(c, _)| c);
        pinned.unwrap_or(settings.catalog)
    }
}

/// Folder contexts, built on first use by whichever thread gets there
/// (files may arrive from a walk still under way).
#[derive(Default)]
pub struct Folders {
    cells: Mutex<FxHashMap<PathBuf, Arc<Cell>>>,
}

/// One folder's context: built once; `building` is set by the thread that
/// builds it, so others can tell it is under way.
#[derive(Default)]
struct Cell {
    folder: OnceLock<Arc<Folder>>,
    building: std::sync::atomic::AtomicBool,
}

impl Folders {
    /// The notes of every folder built, in folder order.
    pub fn notes(&self) -> Vec<String> {
        let Ok(cells) = self.cells.lock() else { return Vec::new() };
        let mut dirs: Vec<&PathBuf> = cells.keys().collect();
        dirs.sort();
        dirs.into_iter().filter_map(|d| cells[d].folder.get().and_then(|f| f.note.clone())).collect()
    }

    fn cell(&self, path: &Path) -> Option<Arc<Cell>> {
        let dir = path.parent().unwrap_or(Path::new(""));
        let mut cells = self.cells.lock().ok()?;
        Some(match cells.get(dir) {
            Some(cell) => cell.clone(),
            None => cells.entry(dir.to_path_buf()).or_default().clone(),
        })
    }

    /// True when the context of the folder holding `path` is built.
    pub fn built(&self, path: &Path) -> bool {
        let dir = path.parent().unwrap_or(Path::new(""));
        self.cells.lock().is_ok_and(|cells| cells.get(dir).is_some_and(|c| c.folder.get().is_some()))
    }

    /// The context of the folder holding `path`, waiting for it if another
    /// thread is building it.
    pub fn of(&self, path: &Path, settings: &Settings<'_>, input: &dyn Input) -> Arc<Folder> {
        match self.cell(path) {
            Some(cell) => {
                cell.building.store(true, std::sync::atomic::Ordering::Relaxed);
                cell.folder.get_or_init(|| Arc::new(build(path, settings, input))).clone()
            }
            None => Arc::new(build(path, settings, input)),
        }
    }

    /// The context of the folder holding `path` when it is built or this
    /// thread builds it now; `None` while another thread is building it (the
    /// caller has other work to do meanwhile).
    pub fn ready(&self, path: &Path, settings: &Settings<'_>, input: &dyn Input) -> Option<Arc<Folder>> {
        let Some(cell) = self.cell(path) else { return Some(Arc::new(build(path, settings, input))) };
        if let Some(f) = cell.folder.get() {
            return Some(f.clone());
        }
        if cell.building.swap(true, std::sync::atomic::Ordering::AcqRel) {
            return cell.folder.get().cloned();
        }
        Some(cell.folder.get_or_init(|| Arc::new(build(path, settings, input))).clone())
    }
}

/// True when a scan holds the engine's argv.
fn runs_engine(s: &Scan) -> bool {
    use super::refs::{FlagSite, Ref};
    !s.env_flags.is_empty()
        || s.refs.iter().any(|r| matches!(r, Ref::Flag { site: FlagSite::Argv, .. } | Ref::Stray { .. }))
}

fn build(path: &Path, settings: &Settings<'_>, input: &dyn Input) -> Folder {
    let mut folder = Folder::default();
    // Only env files, scripts and units matter; judge by name (an
    // extension-less file may still be a script) so nothing else in the
    // folder is read.
    let by_name = |p: &Path| {
        let head: &[u8] = if p.extension().is_none() { b"#!/bin/sh\n" } else { b"" };
        classify(p, &settings.env_files, head).is_some_and(|k| k.context() != Context::None)
    };
    let siblings = input.siblings(path, &by_name);
    // A folder with no env file (the linted one included) has no trio; a
    // unit may name one of another name (`EnvironmentFile=engine.conf`).
    let is_env = |p: &Path| classify(p, &settings.env_files, b"").is_some_and(FileKind::holds_env);
    if !is_env(path) && !siblings.iter().any(|p| is_env(p)) {
        return folder;
    }
    // Env files first: their pin picks the catalogue the scripts are read with.
    let read: Vec<(PathBuf, Result<Text, String>, Option<FileKind>)> = siblings
        .into_iter()
        .map(|p| {
            let read = input.read(&p);
            let kind = read.as_ref().ok().and_then(|t| classify(&p, &settings.env_files, t.text.as_bytes()));
            (p, read, kind)
        })
        .collect();
    for (p, read, kind) in &read {
        if let (Ok(t), Some(Context::Pins)) = (read, kind.map(FileKind::context)) {
            let mut pins = Vec::new();
            scanners::env::image_pins(&t.text, &settings.commands, &|_, _| Span::default(), &mut pins);
            folder.pins.extend(pins.into_iter().map(|(tag, _)| (tag, p.clone())));
        }
    }
    let catalog = folder.catalog(settings);
    let mut texts = FxHashMap::default();
    for (p, read, kind) in read {
        let mut scanned = None;
        if let (Ok(t), Some(kind)) = (&read, kind.filter(|k| k.context() == Context::Scanned)) {
            // A compose service built FROM the engine's image runs it: its
            // `env_file:` is the engine's (the Dockerfile is read beside it).
            let s = super::around::scan(&p, &t.text, kind, settings, catalog, input)
                .unwrap_or_else(|| scan(&t.text, kind, settings, catalog));
            for (var, flag) in &s.env_flags {
                folder.env_flags.entry(var.clone()).or_insert_with(|| flag.clone());
            }
            // A script whose argv is the engine's serves it; a unit names
            // its env files only when it runs the engine.
            folder.serves |= kind.serve_script() && runs_engine(&s);
            folder.compose |= kind == FileKind::Compose;
            let names = s.env_files.iter().filter_map(|f| Path::new(f).file_name());
            folder.unit_env.extend(names.map(|n| n.to_string_lossy().into_owned()));
            for (var, binary) in &s.env_argv {
                folder.env_argv.entry(var.clone()).or_insert_with(|| binary.clone());
            }
            scanned = Some((kind, s));
        }
        texts.insert(p, (read, scanned));
    }
    folder.texts = Mutex::new(texts);
    if let Some((pin, by)) = folder.pins.first() {
        let dir = path.parent().map(|d| d.display().to_string()).unwrap_or_default();
        let dir = if dir.is_empty() { ".".to_string() } else { dir };
        let pinned = settings.pinned(pin);
        if let Some((c, true)) = pinned {
            folder.note = Some(format!(
                "{} pins {} {pin}, which has no catalogue of its own: the files in {dir} are judged against {}, the nearest earlier tag{}",
                by.display(),
                settings.catalog.source.engine,
                c.source.tag,
                settings.sync_hint(pin)
            ));
        } else if pinned.is_none() {
            folder.unjudged = true;
            let unjudged = settings.unjudged(pin, &format!("the files in {dir} are"));
            folder.note = Some(format!("{} pins {} {pin}, {unjudged}", by.display(), settings.catalog.source.engine));
        }
    }
    folder
}
