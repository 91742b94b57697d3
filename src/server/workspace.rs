//! What a document is judged under, as `knobs lint` of the file on disk
//! would judge it: the nearest knobs.toml above it (its pin, rules,
//! per-file ignores, baseline), the engine it names (or `--engine`), and
//! the file kind the table of `src/kinds.rs` gives its name and text. The
//! open text stands in for the file; its folder's other files come from
//! the disk. Loaded engines are kept per knobs.toml until one is saved.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::catalog::pinned::{Known, Pinned};
use crate::config::Config;
use crate::kinds::FileKind;
use crate::lint::finding::Finding;
use crate::lint::input::{Input, Text};
use crate::lint::{lint_files, Disk, Overrides, Settings};

/// One knobs.toml (or none) with the engine it names, loaded.
pub struct Project {
    pub cfg: Config,
    pub known: Known,
}

/// The projects met so far, by the knobs.toml that rules them.
#[derive(Default)]
pub struct Projects {
    /// `--engine`: wins over every knobs.toml's pin.
    pub engine: Option<String>,
    loaded: HashMap<Option<PathBuf>, Arc<Project>>,
}

/// A document's file as a run judges it: where paths are shown from, its
/// path from there, and its build.
pub struct Judged<'k> {
    pub cwd: PathBuf,
    pub rel: PathBuf,
    pub pinned: Pinned<'k>,
    pub settings: Settings<'k>,
    pub kind: Option<FileKind>,
}

impl Projects {
    pub fn new(engine: Option<String>) -> Projects {
        Projects { engine, loaded: HashMap::new() }
    }

    /// Forgets every loaded project (a knobs.toml or a catalogue changed).
    pub fn forget(&mut self) {
        self.loaded.clear();
    }

    /// The project the file at `path` belongs to, loaded once.
    pub fn of(&mut self, path: &Path) -> Result<Arc<Project>, String> {
        let dir = path.parent().unwrap_or(Path::new("/"));
        let found = crate::config::find(dir, &mut Vec::new());
        if !self.loaded.contains_key(&found) {
            let mut cfg = match &found {
                Some(p) => crate::config::load(p).map_err(|e| e.to_string())?,
                None => Config::default(),
            };
            if let Some(engine) = &self.engine {
                if cfg.engine.as_deref() != Some(engine.as_str()) {
                    cfg.engine = Some(engine.clone());
                    cfg.tag = None;
                }
            }
            let name = cfg.engine_name(None).to_string();
            let dirs: Vec<PathBuf> = cfg.catalog_dir().into_iter().collect();
            let known = Known::open(&name, &dirs, cfg.profile(&name)).map_err(|e| e.to_string())?;
            self.loaded.insert(found.clone(), Arc::new(Project { cfg, known }));
        }
        self.loaded.get(&found).cloned().ok_or_else(|| "not loaded".to_string())
    }
}

impl Project {
    /// How `path` (with `text` as its content) is judged.
    pub fn judge(&self, path: &Path, text: &str) -> Result<Judged<'_>, String> {
        let cwd = self.cfg.dir().or_else(|| path.parent().map(Path::to_path_buf)).unwrap_or_default();
        let rel = path.strip_prefix(&cwd).map(Path::to_path_buf).unwrap_or_else(|_| path.to_path_buf());
        let pinned = self.known.judged(self.cfg.tag.as_deref()).map_err(|e| e.to_string())?;
        let overrides = Overrides { cwd: cwd.clone(), ..Overrides::default() };
        let settings = Settings::resolve(&self.cfg, &overrides, &pinned).map_err(|e| e.to_string())?;
        let kind = crate::kinds::classify(&rel, &settings.env_files, text.as_bytes());
        Ok(Judged { cwd, rel, pinned, settings, kind })
    }
}

/// The open text of one file, and the disk around it.
struct Open<'t> {
    rel: &'t Path,
    text: &'t str,
    disk: Disk,
}

impl Input for Open<'_> {
    fn read(&self, path: &Path) -> Result<Text, String> {
        if path == self.rel {
            return Ok(Text { text: self.text.to_string(), note: None });
        }
        self.disk.read(path)
    }

    fn siblings(&self, path: &Path, wanted: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
        let mut out = self.disk.siblings(path, wanted);
        if !out.iter().any(|p| p == self.rel) && wanted(self.rel) && path.parent() == self.rel.parent() {
            out.push(self.rel.to_path_buf());
            out.sort();
        }
        out
    }

    fn confined(&self, path: &Path) -> bool {
        self.disk.confined(path)
    }
}

/// The findings of `knobs lint` for the file at `path` holding `text`:
/// none for a file knobs does not read; an error for a bug met on it.
pub fn lint(project: &Project, path: &Path, text: &str) -> Result<Vec<Finding>, String> {
    let judged = project.judge(path, text)?;
    let Some(kind) = judged.kind else { return Ok(Vec::new()) };
    if text.len() as u64 > judged.settings.max_file_size {
        return Ok(Vec::new());
    }
    let open = Open {
        rel: &judged.rel,
        text,
        disk: Disk { cwd: judged.cwd.clone(), max_file_size: judged.settings.max_file_size },
    };
    let mut report = lint_files(&[(judged.rel.clone(), kind)], &open, &judged.settings);
    if let Some((_, why)) = report.failed.first() {
        return Err(format!("knobs failed on this file ({why}): a bug, please report it"));
    }
    if let Some(b) = &project.cfg.baseline {
        let dir = project.cfg.dir().unwrap_or_default();
        let baseline =
            crate::lint::baseline::Baseline::load(&dir.join(&b.value), Some(&crate::confine::project_root(&dir)))
                .map_err(|e| e.to_string())?;
        baseline.filter(&mut report, &judged.cwd, &judged.pinned.catalog.source.tag);
    }
    let shown = judged.rel.to_string_lossy();
    Ok(report.files.into_iter().filter(|f| f.path == shown).flat_map(|f| f.findings).collect())
}
