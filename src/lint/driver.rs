//! The parallel driver: files are handed in from a list or from a walk
//! still under way, on whichever thread finds them; each folder's context
//! is built once, each file is read and linted once, and a bug met on one
//! file (a panic, caught) is reported for that file while the run goes on.
//! The report comes back in a fixed order whatever the threads did.

use std::path::{Path, PathBuf};

use globset::GlobSet;

use super::file::{lint_file, Nearby};
use super::finding::{FileReport, Report};
use super::folder::{Folder, Folders};
use super::input::{Disk, Input};
use super::Settings;
use crate::kinds::FileKind;
use crate::walk::{MissingPath, Skipped};

/// One file's result, with its place in the report: (order, path, result).
type Linted = (usize, PathBuf, Result<FileReport, Skipped>);

/// Lints files as they come — from a list, or from a walk still under way
/// — on whichever thread hands them in. Each folder's context is built
/// once; each file is read once and linted once.
pub struct Linter<'s, 'a> {
    input: &'s dyn Input,
    settings: &'s Settings<'a>,
    folders: Folders,
    /// The builds monitoring files' repositories run, by folder.
    reach: super::reach::Reach,
    /// (order, path, result); sorted by order, then path, at the end.
    results: std::sync::Mutex<Vec<Linted>>,
    /// Files linted with nothing to say.
    clean: std::sync::atomic::AtomicUsize,
    /// Files knobs failed on (a bug), with what it said.
    failed: std::sync::Mutex<Vec<(PathBuf, String)>>,
    /// Files put off until their folder's context is ready.
    later: std::sync::Mutex<Vec<(usize, PathBuf, FileKind)>>,
    /// Paths linted so far, when the same file may be handed in twice.
    seen: Option<std::sync::Mutex<rustc_hash::FxHashSet<PathBuf>>>,
    /// Env files units name (`EnvironmentFile=`), with the unit's order.
    named_env: std::sync::Mutex<Vec<(usize, PathBuf)>>,
    /// Files of options an argv names (`--config FILE`): order, path, tag.
    named_options: std::sync::Mutex<Vec<(usize, PathBuf, String)>>,
    /// Files counted clean, so that one linted again is not counted twice.
    counted: std::sync::Mutex<rustc_hash::FxHashSet<PathBuf>>,
}

impl<'s, 'a> Linter<'s, 'a> {
    pub fn new(input: &'s dyn Input, settings: &'s Settings<'a>) -> Self {
        Linter {
            input,
            settings,
            folders: Folders::default(),
            reach: super::reach::Reach::default(),
            results: std::sync::Mutex::new(Vec::new()),
            later: std::sync::Mutex::new(Vec::new()),
            clean: std::sync::atomic::AtomicUsize::new(0),
            failed: std::sync::Mutex::new(Vec::new()),
            seen: None,
            named_env: std::sync::Mutex::new(Vec::new()),
            named_options: std::sync::Mutex::new(Vec::new()),
            counted: std::sync::Mutex::new(rustc_hash::FxHashSet::default()),
        }
    }

    /// Lints a file handed in twice only once (several walked paths may
    /// overlap: `knobs lint docs docs/arm.md`).
    pub fn once_each(mut self) -> Self {
        self.seen = Some(std::sync::Mutex::new(rustc_hash::FxHashSet::default()));
        self
    }

    /// Lints one file (`rel` as shown). `order` places it in the report
    /// (equal orders: by path).
    pub fn lint(&self, order: usize, rel: &Path, kind: FileKind) {
        if let Some(Ok(mut seen)) = self.seen.as_ref().map(|s| s.lock()) {
            if !seen.insert(rel.to_path_buf()) {
                return;
            }
        }
        // A file whose folder another thread is still reading waits for the end.
        let Some(folder) = self.folders.ready(rel, self.settings, self.input) else {
            if let Ok(mut later) = self.later.lock() {
                later.push((order, rel.to_path_buf(), kind));
            }
            return;
        };
        self.lint_in(order, rel, kind, &folder);
        self.catch_up();
    }

    /// Lints files put off earlier whose folders are ready now.
    fn catch_up(&self) {
        loop {
            let next = {
                let Ok(mut later) = self.later.lock() else { return };
                match later.iter().position(|(_, rel, _)| self.folders.built(rel)) {
                    Some(i) => later.swap_remove(i),
                    None => return,
                }
            };
            let (order, rel, kind) = next;
            let folder = self.folders.of(&rel, self.settings, self.input);
            self.lint_in(order, &rel, kind, &folder);
        }
    }

    fn lint_in(&self, order: usize, rel: &Path, kind: FileKind, folder: &Folder) {
        self.lint_as(order, rel, kind, folder, None);
    }

    /// Lints one file; `options`: as a file of options judged against that
    /// build (one an argv names with `--config`).
    fn lint_as(&self, order: usize, rel: &Path, kind: FileKind, folder: &Folder, options: Option<&str>) {
        // A bug met on one file (reading or linting it) is reported for that
        // file; the run goes on.
        let linted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if let Some(tag) = options {
                return match self.input.read(rel) {
                    Ok(text) => {
                        let scanned = super::dispatch::options_scan(&text.text, tag);
                        let reach = || self.reach.of(rel, self.settings, self.input);
                        let registered = || self.reach.registered(rel, self.settings, self.input);
                        let nearby = Nearby { reach: &reach, registered: &registered };
                        Ok(lint_file(rel, text, kind, self.settings, folder, Some(scanned), &nearby))
                    }
                    Err(reason) => Err(Skipped { path: rel.to_path_buf(), reason }),
                };
            }
            let (read, scanned) = folder.take(rel).unwrap_or_else(|| (self.input.read(rel), None));
            // A scan made as another kind (by name, not by content) is not reused.
            let scanned = scanned.filter(|(k, _)| *k == kind).map(|(_, s)| s);
            match read {
                Ok(text) => {
                    // What its neighbours say (a chart's values, a build's image) comes first.
                    let around = super::around::scan(
                        rel,
                        &text.text,
                        kind,
                        self.settings,
                        folder.catalog(self.settings),
                        self.input,
                    );
                    let reach = || self.reach.of(rel, self.settings, self.input);
                    let registered = || self.reach.registered(rel, self.settings, self.input);
                    let nearby = Nearby { reach: &reach, registered: &registered };
                    Ok(lint_file(rel, text, kind, self.settings, folder, around.or(scanned), &nearby))
                }
                Err(reason) => Err(Skipped { path: rel.to_path_buf(), reason }),
            }
        }));
        let result = linted.unwrap_or_else(|payload| {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            if let Ok(mut failed) = self.failed.lock() {
                failed.push((rel.to_path_buf(), what.clone()));
            }
            Err(Skipped {
                path: rel.to_path_buf(),
                reason: format!("knobs failed on it ({what}): a bug, please report it"),
            })
        });
        // Env files a unit names are linted at the end, once.
        if let Ok(f) = &result {
            if !f.env_files.is_empty() {
                if let Ok(mut named) = self.named_env.lock() {
                    named.extend(f.env_files.iter().map(|p| (order, p.clone())));
                }
            }
        }
        // Files of options an argv names are linted at the end, once.
        if let Ok(f) = &result {
            if !f.options_files.is_empty() {
                if let Ok(mut named) = self.named_options.lock() {
                    named.extend(f.options_files.iter().map(|(p, t)| (order, p.clone(), t.clone())));
                }
            }
        }
        // A file with nothing to say is counted, not kept.
        if let Ok(f) = &result {
            if !self.settings.keep_clean && f.is_clean(&self.settings.catalog.source.tag) {
                self.clean.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if let Ok(mut counted) = self.counted.lock() {
                    counted.insert(rel.to_path_buf());
                }
                return;
            }
        }
        if let Ok(mut results) = self.results.lock() {
            results.push((order, rel.to_path_buf(), result));
        }
    }

    /// A YAML file of options an argv names (`--config serve.yaml`), in the
    /// project and readable, is linted as one, against the build that argv
    /// is judged against (the first naming argv's), in place of what the
    /// walk made of it as YAML.
    fn lint_named_options(&self) {
        let mut named =
            std::mem::take(&mut *self.named_options.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        named.sort();
        named.dedup_by(|a, b| a.1 == b.1);
        for (order, rel, tag) in named {
            if !self.input.confined(&rel) || self.input.read(&rel).is_err() {
                continue;
            }
            if let Ok(mut results) = self.results.lock() {
                results.retain(|(_, p, _)| *p != rel);
            }
            if self.counted.lock().is_ok_and(|mut c| c.remove(&rel)) {
                self.clean.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
            }
            let folder = self.folders.of(&rel, self.settings, self.input);
            self.lint_as(order, &rel, FileKind::Yaml, &folder, Some(&tag));
        }
    }

    /// The report: files in order, then the folders' notes.
    pub fn finish(self) -> Report {
        use rayon::prelude::*;
        let later = std::mem::take(&mut *self.later.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        let lint_later = |(order, rel, kind): &(usize, PathBuf, FileKind)| {
            let folder = self.folders.of(rel, self.settings, self.input);
            self.lint_in(*order, rel, *kind, &folder);
        };
        // A few left over are done here; many (a list with no walk) in parallel.
        if later.len() > 64 {
            later.par_iter().for_each(lint_later);
        } else {
            later.iter().for_each(lint_later);
        }
        // A file a unit names as its EnvironmentFile= is an env file. One
        // whose name already says so was linted as one by the walk; others
        // (`engine.conf`) are linted here, if they are there.
        let mut named = std::mem::take(&mut *self.named_env.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        named.sort();
        named.dedup_by(|a, b| a.1 == b.1);
        let mut named_env = Vec::new();
        for (order, rel) in named {
            if crate::kinds::classify(&rel, &self.settings.env_files, b"").is_some()
                || !self.input.confined(&rel)
                || self.input.read(&rel).is_err()
            {
                continue;
            }
            let folder = self.folders.of(&rel, self.settings, self.input);
            self.lint_in(order, &rel, FileKind::Env, &folder);
            named_env.push(rel);
        }
        self.lint_named_options();
        let mut results = self.results.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        // Path order (component by component) as bytes: `/` sorts first.
        results.sort_by_cached_key(|(order, path, _)| {
            let key: Vec<u8> =
                path.as_os_str().as_encoded_bytes().iter().map(|b| if *b == b'/' { 0 } else { *b }).collect();
            (*order, key)
        });
        let mut report = Report { notes: self.folders.notes(), ..Report::default() };
        report.clean = self.clean.into_inner();
        report.failed = self.failed.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        report.named_env = named_env;
        for (_, _, r) in results {
            match r {
                Ok(f) => report.files.push(f),
                Err(s) => report.skipped.push(s),
            }
        }
        // The folders' texts, scans and kept verdicts.
        crate::ending::release((self.folders, self.reach));
        report
    }
}

/// Lints a list of files in parallel (work stealing across every core);
/// results come back in input order.
pub fn lint_files(files: &[(PathBuf, FileKind)], input: &dyn Input, settings: &Settings<'_>) -> Report {
    use rayon::prelude::*;
    let linter = Linter::new(input, settings);
    files.par_iter().enumerate().for_each(|(i, (rel, kind))| linter.lint(i, rel, *kind));
    linter.finish()
}

/// Lints what a walk of `paths` finds (only the files in `changed`, when
/// given), as it finds them, on the walk's threads. `config` is the
/// knobs.toml in use: one the walk meets further down is named in a note.
pub fn lint_walk(
    paths: &[PathBuf],
    disk: &Disk,
    settings: &Settings<'_>,
    changed: Option<&[PathBuf]>,
    config: Option<&Path>,
) -> Result<Report, MissingPath> {
    let linter = Linter::new(disk, settings);
    let linter = if paths.len() > 1 { linter.once_each() } else { linter };
    let exclude: &GlobSet = &settings.exclude;
    // The walk matches `exclude` from where it runs; knobs.toml's folder, here.
    let excluded = std::sync::atomic::AtomicUsize::new(0);
    let walked = crate::walk::walk_each(paths, &disk.cwd, &settings.env_files, exclude, &|rel, kind| {
        if settings.excluded(rel) && !paths.iter().any(|p| p == rel) {
            excluded.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        } else if changed.is_none_or(|c| c.iter().any(|c| c == rel)) {
            linter.lint(0, rel, kind);
        }
    })?;
    let mut report = linter.finish();
    report.excluded += excluded.into_inner();
    // A file a unit names as its env file was linted, not skipped.
    report.skipped.extend(walked.skipped.into_iter().filter(|s| !report.named_env.contains(&s.path)));
    report.excluded += walked.excluded;
    // Each named path is linted under the nearest knobs.toml above it;
    // one met further down is not read, and its settings would seem
    // to apply: say so.
    let in_use = config.and_then(|p| p.canonicalize().ok());
    for s in &report.skipped {
        if s.path.file_name().is_some_and(|n| n == crate::config::FILE_NAME) {
            let found = disk.cwd.join(&s.path).canonicalize().ok();
            if found.is_some() && found != in_use {
                let dir = s.path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
                report.notes.push(format!(
                    "{} is not read: a run uses the knobs.toml above each path it is given (lint {} to use this one)",
                    s.path.display(),
                    dir.display()
                ));
            }
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::input::Text;

    /// Panics on one file, as a bug in a scanner would.
    struct Panicky;

    impl Input for Panicky {
        fn read(&self, path: &Path) -> Result<Text, String> {
            if path.ends_with("boom.md") {
                panic!("planted");
            }
            Ok(Text { text: "`--checkpoint-policy floor`\n".into(), note: None })
        }
        fn siblings(&self, _: &Path, _: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
            Vec::new()
        }
    }

    #[test]
    fn a_file_knobs_fails_on_is_reported_and_the_run_goes_on() {
        let store = crate::catalog::store::Store::embedded("radiance").expect("embedded");
        let catalog = store.get("radiance", "v1.8.1").expect("v1.8.1");
        let profile = crate::catalog::profile::builtin("radiance").expect("profile");
        let settings = Settings::new(&profile, catalog, &store.catalogs, Vec::new());
        let files = [
            (PathBuf::from("a.md"), FileKind::Markdown),
            (PathBuf::from("boom.md"), FileKind::Markdown),
            (PathBuf::from("c.md"), FileKind::Markdown),
        ];
        let report = lint_files(&files, &Panicky, &settings);
        assert_eq!(report.failed, [(PathBuf::from("boom.md"), "planted".to_string())]);
        // The two others were linted: each has its finding.
        let linted: Vec<_> = report.files.iter().map(|f| (f.path.as_str(), f.findings.len())).collect();
        assert_eq!(linted, [("a.md", 1), ("c.md", 1)]);
        assert_eq!(report.skipped.len(), 1);
        assert_eq!(report.skipped[0].reason, "knobs failed on it (planted): a bug, please report it");
    }
}
