//! `knobs lint`: discover files, lint each against the pinned catalogue of
//! the project it belongs to, render the findings (or apply their fixes),
//! and map them to an exit status.
//!
//! Each path is judged under the `knobs.toml` found from it upward (as ruff
//! and git find theirs); `--config` names one for all.

use std::path::{Path, PathBuf};

use miette::{miette, Result};

use super::{Outcome, Run};
use crate::catalog::model::Catalog;
use crate::cli::{FailOn, LintArgs};
use crate::config::Config;
use crate::lint::input::{decode, Text};
use crate::lint::rules::Severity;
use crate::lint::{lint_files, Disk, Input, Linter, Overrides, Report, Settings, StagedFiles};
use crate::report::{self, Format};
use crate::source::Worktree;
use crate::walk::{classify, FileKind};

/// One project's share of a run: its configuration and the paths under it.
struct Group {
    cfg: Config,
    paths: Vec<PathBuf>,
}

/// Groups the paths by the knobs.toml each is judged under.
fn groups(args: &LintArgs, cfg: &Config, io: &Run<'_>) -> Result<Vec<Group>> {
    if io.config_file.is_some() || args.staged || args.paths.iter().any(|p| p == Path::new("-")) {
        return Ok(vec![Group { cfg: cfg.clone(), paths: args.paths.clone() }]);
    }
    let mut out: Vec<Group> = Vec::new();
    for p in &args.paths {
        let abs = io.cwd.join(p);
        let start = if abs.is_dir() { abs.clone() } else { abs.parent().map(Path::to_path_buf).unwrap_or_default() };
        let found = crate::config::find(&start);
        let this = match &found {
            Some(path) if Some(path) != cfg.path.as_ref() => {
                let mut c = crate::config::load(path).map_err(|e| miette::Report::new(*e))?;
                super::apply_engine(&mut c, io.engine.as_deref());
                c
            }
            Some(_) => cfg.clone(),
            // No knobs.toml above the path: the one from the working directory, if any.
            None => cfg.clone(),
        };
        match out.iter_mut().find(|g| g.cfg.path == this.path) {
            Some(g) => g.paths.push(p.clone()),
            None => out.push(Group { cfg: this, paths: vec![p.clone()] }),
        }
    }
    Ok(out)
}

/// A source that serves one file's text from standard input and the rest
/// (its folder's context) from the disk.
struct WithStdin {
    name: PathBuf,
    text: Text,
    disk: Disk,
}

impl Input for WithStdin {
    fn read(&self, path: &Path) -> std::result::Result<Text, String> {
        if path == self.name {
            return Ok(self.text.clone());
        }
        self.disk.read(path)
    }

    fn siblings(&self, path: &Path, wanted: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
        let mut out = self.disk.siblings(path, wanted);
        out.retain(|p| *p != self.name);
        out
    }
}

pub fn run(args: &LintArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    let overrides = Overrides {
        keep_text: args.fix || args.diff,
        keep_clean: io.verbosity > 1,
        ..Overrides::new(&args.select, &args.ignore)?
    };
    let mut merged = Report::default();
    let mut builds: Vec<String> = Vec::new();
    let mut fail_on = Severity::Warning;
    let mut fixed = 0usize;
    // The files named on the command line: one that cannot be read at all
    // is an error, not a note (CI must not pass on a file it never read).
    let mut named: Vec<PathBuf> = Vec::new();
    for group in groups(args, cfg, io)? {
        if !args.staged {
            named.extend(group.paths.iter().cloned());
        }
        let cfg = &group.cfg;
        let engine = super::engine(cfg, args.catalog_dir.as_ref(), io)?;
        let name = cfg.engine_name(None);
        let catalog = engine.catalog(name, args.version.as_deref(), cfg)?;
        let all: &[Catalog] = &engine.store.catalogs;
        let settings = Settings::resolve(cfg, &overrides, &engine.profile, catalog, all)?;
        let report = if args.staged {
            let (files, index) = staged(&group.paths, &settings, io)?;
            lint_files(&files, &index, &settings)
        } else if group.paths.iter().any(|p| p == Path::new("-")) {
            let name = args.stdin_filename.clone().ok_or_else(|| {
                miette!(
                    help = "e.g. `knobs lint - --stdin-filename runbooks/arm.md`",
                    "linting standard input needs --stdin-filename to say what kind of file it is"
                )
            })?;
            // Read no more than a file may hold: `</dev/zero` is refused, not
            // read into all the memory.
            let bytes = crate::bounded::read_from(std::io::stdin().lock(), settings.max_file_size).map_err(|e| {
                if e.kind() == std::io::ErrorKind::FileTooLarge {
                    miette!(
                        help = "[lint] max_file_size in knobs.toml raises the limit",
                        "standard input is larger than {} bytes, the most knobs lints in one file",
                        settings.max_file_size
                    )
                } else {
                    miette!("cannot read standard input: {e}")
                }
            })?;
            let text = decode(bytes, settings.max_file_size).map_err(|e| miette!("standard input: {e}"))?;
            let kind = classify(&name, &settings.env_files, text.text.as_bytes()).ok_or_else(|| {
                miette!(help = "name a .md, .env or .sh file", "{}: {}", name.display(), crate::walk::NOT_LINTABLE)
            })?;
            let source = WithStdin {
                name: name.clone(),
                text,
                disk: Disk { cwd: io.cwd.clone(), max_file_size: settings.max_file_size },
            };
            lint_files(&[(name, kind)], &source, &settings)
        } else {
            let changed = match &args.changed_since {
                Some(rev) => Some(changed_since(rev, io)?),
                None => None,
            };
            let disk = Disk { cwd: io.cwd.clone(), max_file_size: settings.max_file_size };
            // Files are linted as the walk finds them, on the walk's threads.
            let linter = Linter::new(&disk, &settings);
            let linter = if group.paths.len() > 1 { linter.once_each() } else { linter };
            let walked =
                crate::walk::walk_each(&group.paths, &io.cwd, &settings.env_files, &settings.exclude, &|rel, kind| {
                    if changed.as_ref().is_none_or(|c| c.iter().any(|c| c == rel)) {
                        linter.lint(0, rel, kind);
                    }
                })?;
            let mut report = linter.finish();
            // A file a unit names as its env file was linted, not skipped.
            report.skipped.extend(walked.skipped.into_iter().filter(|s| !report.named_env.contains(&s.path)));
            report.excluded += walked.excluded;
            // Each named path is linted under the nearest knobs.toml above it;
            // one met further down is not read, and its settings would seem
            // to apply: say so.
            let in_use = cfg.path.as_ref().and_then(|p| p.canonicalize().ok());
            for s in &report.skipped {
                if s.path.file_name().is_some_and(|n| n == crate::config::FILE_NAME) {
                    let found = io.cwd.join(&s.path).canonicalize().ok();
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
            if args.fix || args.diff {
                fixed +=
                    crate::lint::fix::apply(&report, &disk, &io.cwd, args.diff, io.out).map_err(super::OutputError)?;
            }
            report
        };
        let build = format!("{} {}", catalog.source.engine, catalog.source.tag);
        if !builds.contains(&build) {
            builds.push(build);
        }
        if matches!(args.fail_on, Some(FailOn::Error))
            || (args.fail_on.is_none() && cfg.fail_on.as_deref() == Some("error"))
        {
            fail_on = Severity::Error;
        }
        merged.absorb(report);
    }
    let report = merged;
    if args.fix || args.diff {
        if !args.diff && io.verbosity >= 0 {
            writeln!(io.err, "fixed {fixed} {}", if fixed == 1 { "finding" } else { "findings" })
                .map_err(super::OutputError)?;
        }
        return Ok(Outcome::Clean);
    }
    let build = builds.join("; ");
    if args.statistics {
        let text = report::statistics(&report);
        io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    } else {
        let color = args.format == Format::Human && io.color;
        let ctx = report::Context { build: &build, color, summary: io.verbosity >= 0 };
        let text = report::render(&report, args.format, &ctx);
        io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    }
    let unreadable: Vec<&crate::walk::Skipped> =
        report.skipped.iter().filter(|s| s.unreadable() && named.contains(&s.path)).collect();
    if io.verbosity >= 0 {
        for s in report.skipped.iter().filter(|s| !unreadable.contains(s)) {
            // Files passed over because they are not ours: only with -v.
            if s.reason != crate::walk::NOT_LINTABLE || io.verbosity > 0 {
                let path = s.path.display().to_string();
                writeln!(io.err, "note: skipped {}: {}", crate::report::visible(&path), s.reason)
                    .map_err(super::OutputError)?;
            }
        }
        for n in report.all_notes() {
            writeln!(io.err, "warning: {}", crate::report::visible(n)).map_err(super::OutputError)?;
        }
    }
    if io.verbosity > 0 {
        let (engine, default_tag) = builds.first().and_then(|b| b.rsplit_once(' ')).unwrap_or(("", ""));
        for f in &report.files {
            if f.tag != default_tag || io.verbosity > 1 {
                writeln!(io.err, "note: {}: judged against {engine} {}", f.path, f.tag).map_err(super::OutputError)?;
            }
        }
    }
    if let Some(first) = unreadable.first() {
        let others = match unreadable.len() - 1 {
            0 => String::new(),
            n => format!(" (and {} more named file{})", n, if n == 1 { "" } else { "s" }),
        };
        return Err(miette::miette!(
            help = "the other files were linted; a folder named instead passes over what it cannot read, with a note",
            "cannot lint {}, named on the command line: {}{others}",
            first.path.display(),
            first.reason
        ));
    }
    if !report.failed.is_empty() {
        return Err(miette::miette!(
            help = "the other files were linted; please report this with the file that triggers it",
            "{}",
            failed_message(&report.failed)
        ));
    }
    if args.exit_zero {
        return Ok(Outcome::Clean);
    }
    Ok(if report.findings().any(|f| f.severity >= fail_on) { Outcome::Findings } else { Outcome::Clean })
}

/// Shows a repository path relative to the working directory when it is
/// below it, else relative to the repository root.
fn shown(root: &Path, rel: &str, cwd: &Path) -> PathBuf {
    let abs = root.join(rel);
    let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    let abs_canon =
        abs.parent().and_then(|p| p.canonicalize().ok()).map(|p| p.join(abs.file_name().unwrap_or_default()));
    abs_canon
        .as_deref()
        .unwrap_or(&abs)
        .strip_prefix(&cwd)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| PathBuf::from(rel))
}

/// The files this commit changes (added or modified in the index against
/// HEAD) under the given paths, classified, with their blobs and the blobs
/// of their folders' env files and scripts (their context).
fn staged(paths: &[PathBuf], settings: &Settings<'_>, io: &Run<'_>) -> Result<(Vec<(PathBuf, FileKind)>, StagedFiles)> {
    let tree = Worktree::discover(&io.cwd)?;
    let under = |path: &Path| paths.iter().any(|p| p == Path::new(".") || path.starts_with(p));
    let changed = tree.staged_changes()?;
    let mut targets = std::collections::HashSet::new();
    let mut dirs = std::collections::HashSet::new();
    for rel in changed {
        let path = shown(&tree.root, &rel, &io.cwd);
        // Judge by name first, so no blob is read for a `.rs` or a `.png`;
        // a file without an extension may still be a script (shebang).
        let by_name = classify(&path, &settings.env_files, b"#!/bin/sh\n");
        if !under(&path) || by_name.is_none() {
            continue;
        }
        if let Some(dir) = Path::new(&rel).parent() {
            dirs.insert(dir.to_path_buf());
        }
        targets.insert(rel);
    }
    // The context of a changed file's folder comes from the index too.
    let context = |rel: &str| {
        Path::new(rel).parent().is_some_and(|d| dirs.contains(d))
            && classify(Path::new(rel), &settings.env_files, b"#!/bin/sh\n").is_some_and(|k| k != FileKind::Markdown)
    };
    let wanted = |rel: &str| targets.contains(rel) || context(rel);
    let mut files = Vec::new();
    let mut blobs = Vec::new();
    for s in tree.staged(&wanted)? {
        let path = shown(&tree.root, &s.path, &io.cwd);
        if targets.contains(&s.path) {
            if let Some(kind) = classify(&path, &settings.env_files, &s.bytes) {
                files.push((path.clone(), kind));
            }
        }
        blobs.push((path, s.bytes));
    }
    files.sort();
    Ok((files, StagedFiles { files: blobs, max_file_size: settings.max_file_size }))
}

/// Files changed since `rev`, as paths relative to the working directory.
fn changed_since(rev: &str, io: &Run<'_>) -> Result<Vec<PathBuf>> {
    let tree = Worktree::discover(&io.cwd)?;
    Ok(tree.changed_since(rev)?.iter().map(|p| shown(&tree.root, p, &io.cwd)).collect())
}

/// The error when knobs itself failed on some files (a bug met and caught).
fn failed_message(failed: &[(std::path::PathBuf, String)]) -> String {
    let files: Vec<String> = failed.iter().map(|(p, _)| p.display().to_string()).collect();
    let n = if files.len() == 1 { "1 file".to_string() } else { format!("{} files", files.len()) };
    format!("knobs failed on {n} ({}): a bug", files.join(", "))
}

#[cfg(test)]
mod tests {
    #[test]
    fn failed_files_are_named() {
        let one = [("a.md".into(), "x".to_string())];
        assert_eq!(super::failed_message(&one), "knobs failed on 1 file (a.md): a bug");
        let two = [("a.md".into(), "x".to_string()), ("b/c.sh".into(), "y".to_string())];
        assert_eq!(super::failed_message(&two), "knobs failed on 2 files (a.md, b/c.sh): a bug");
    }
}
