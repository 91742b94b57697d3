//! `knobs lint`: discover files, lint each against the pinned catalogue,
//! render the findings, and map them to an exit status.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use miette::Result;

use super::{Io, Outcome};
use crate::catalog::model::Catalog;
use crate::cli::{FailOn, LintArgs};
use crate::config::Config;
use crate::lint::rules::Severity;
use crate::lint::{lint_files, Disk, Index, Settings, DEFAULT_MAX_FILE_SIZE};
use crate::report::{self, Format};
use crate::source::Worktree;
use crate::walk::{classify, FileKind};

/// `[lint.severity]`, checked against the rules, pointing into knobs.toml.
fn severities(cfg: &Config) -> Result<HashMap<&'static str, Option<Severity>>> {
    let mut out = HashMap::new();
    for (rule, level) in &cfg.severity {
        let Some(r) = crate::lint::rules::find(&rule.value) else {
            let near = crate::catalog::query::suggest(
                &rule.value,
                crate::lint::rules::RULES.iter().flat_map(|r| [r.code, r.name]),
            );
            let help = match near {
                Some(n) => format!("did you mean `{n}`? `knobs rules` lists the rule codes and names"),
                None => "`knobs rules` lists the rule codes and names".into(),
            };
            return Err(cfg
                .error_at(
                    rule.span.clone(),
                    format!("[lint.severity] names no rule `{}`", rule.value),
                    "unknown rule",
                    Some(help),
                )
                .into());
        };
        let sev = match level.value.as_str() {
            "error" => Some(Severity::Error),
            "warning" => Some(Severity::Warning),
            "off" => None,
            _ => {
                return Err(cfg
                    .error_at(
                        level.span.clone(),
                        "invalid severity".into(),
                        "not a severity",
                        Some("use `error`, `warning` or `off`".into()),
                    )
                    .into())
            }
        };
        out.insert(r.code, sev);
    }
    Ok(out)
}

pub fn run(args: &LintArgs, cfg: &Config, io: &mut Io<'_>) -> Result<Outcome> {
    let engine = super::engine(cfg, args.catalog_dir.as_ref(), io)?;
    let name = cfg.engine_name(None);
    let catalog = engine.store.select(name, args.version.as_deref().or(cfg.tag.as_deref()))?;
    let all: &[Catalog] = &engine.store.catalogs;
    let mut extra = cfg.engine_commands.clone();
    extra.extend(cfg.serve_scripts.iter().cloned());
    let mut settings = Settings::new(&engine.profile, catalog, all, extra);
    settings.env_files = cfg.env_files.clone();
    settings.severity = severities(cfg)?;
    settings.max_file_size = cfg.max_file_size.unwrap_or(DEFAULT_MAX_FILE_SIZE);
    let report = if args.staged {
        let (files, index) = staged(args, &settings, io)?;
        lint_files(&files, &index, &settings)
    } else {
        let mut walked = crate::walk::discover(&args.paths, &io.cwd, &settings.env_files)?;
        if let Some(rev) = &args.changed_since {
            let changed = changed_since(rev, io)?;
            walked.files.retain(|(p, _)| changed.iter().any(|c| c == p));
        }
        let disk = Disk { cwd: io.cwd.clone(), max_file_size: settings.max_file_size };
        let mut report = lint_files(&walked.files, &disk, &settings);
        report.skipped.extend(walked.skipped);
        report
    };
    let build = format!("{} {}", catalog.source.engine, catalog.source.tag);
    let color = args.format == Format::Human && io.color;
    let ctx = report::Context { build: &build, color, summary: io.verbosity >= 0 };
    let text = report::render(&report, args.format, &ctx);
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    if io.verbosity >= 0 {
        for s in &report.skipped {
            // A file named on the command line that is not ours: only with -v.
            if s.reason != crate::walk::NOT_LINTABLE || io.verbosity > 0 {
                writeln!(io.err, "note: skipped {}: {}", s.path.display(), s.reason).map_err(super::OutputError)?;
            }
        }
        for n in &report.notes {
            writeln!(io.err, "note: {n}").map_err(super::OutputError)?;
        }
    }
    if io.verbosity > 0 {
        for f in &report.files {
            if f.tag != catalog.source.tag || io.verbosity > 1 {
                writeln!(io.err, "note: {}: judged against {} {}", f.path, catalog.source.engine, f.tag)
                    .map_err(super::OutputError)?;
            }
        }
    }
    let fail_on = match args.fail_on {
        Some(FailOn::Error) => Severity::Error,
        Some(FailOn::Warning) => Severity::Warning,
        None if cfg.fail_on.as_deref() == Some("error") => Severity::Error,
        None => Severity::Warning,
    };
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

/// The staged files under the given paths, classified, with their blobs and
/// the blobs of env files' siblings (their trio).
fn staged(args: &LintArgs, settings: &Settings<'_>, io: &Io<'_>) -> Result<(Vec<(PathBuf, FileKind)>, Index)> {
    let tree = Worktree::discover(&io.cwd)?;
    let under = |path: &Path| args.paths.iter().any(|p| p == Path::new(".") || path.starts_with(p));
    let mut targets = std::collections::HashSet::new();
    let mut trio_dirs = std::collections::HashSet::new();
    for rel in tree.staged_paths()? {
        let path = shown(&tree.root, &rel, &io.cwd);
        // Judge by name first, so no blob is read for a `.rs` or a `.png`;
        // a file without an extension may still be a script (shebang).
        let by_name = classify(&path, &settings.env_files, b"#!/bin/sh\n");
        if !under(&path) || by_name.is_none() {
            continue;
        }
        if by_name == Some(FileKind::Env) {
            if let Some(dir) = Path::new(&rel).parent() {
                trio_dirs.insert(dir.to_path_buf());
            }
        }
        targets.insert(rel);
    }
    let wanted = |rel: &str| targets.contains(rel) || Path::new(rel).parent().is_some_and(|d| trio_dirs.contains(d));
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
    Ok((files, Index { files: blobs, max_file_size: settings.max_file_size }))
}

/// Files changed since `rev`, as paths relative to the working directory.
fn changed_since(rev: &str, io: &Io<'_>) -> Result<Vec<PathBuf>> {
    let tree = Worktree::discover(&io.cwd)?;
    Ok(tree.changed_since(rev)?.iter().map(|p| shown(&tree.root, p, &io.cwd)).collect())
}
