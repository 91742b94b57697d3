//! File discovery: which files of a folder are runbooks, env files, scripts
//! or deployment files (each classified by `src/kinds.rs`). A folder walk respects `.gitignore`, `.ignore` and
//! `[lint] exclude`, skips hidden folders, VCS and build folders, and says
//! what it passed over and why: nothing is dropped without a word.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::kinds::{by_name, by_shebang, in_workflows, FileKind};

/// Why a file named on the command line, or met in a walk, was not linted.
pub const NOT_LINTABLE: &str = "not a runbook, env file, shell script or deployment file";

/// Why a file named on the command line was not linted: it is named, so
/// it is said without `-v`, with what knobs would have read.
pub const NAMED_NOT_LINTABLE: &str = "named, but not a kind of file knobs reads (by name: `*.md`, env files, `*.sh`, `*.bat`, `*.ps1`, Makefiles, Procfiles, units, Dockerfiles, YAML, JSON dashboards, source code read for its queries: `*.py`, `*.go`, `*.rs`, `*.java`, `*.js`, `*.ts`, `*.tf`, `*.html`; by a shell shebang: any name); an env file of another name goes in `[lint] env_files`";

/// Why a pipe, socket or device is not linted.
pub const NOT_REGULAR: &str = "not a regular file";

impl Skipped {
    /// True when the file could not be read at all (as opposed to passed
    /// over by choice: not ours, binary, too large): named on the command
    /// line, that is an error.
    pub fn unreadable(&self) -> bool {
        self.reason.starts_with("cannot ") || self.reason == NOT_REGULAR || self.reason == "a symlink to nothing"
    }

    /// True when a file named on the command line passed over for this
    /// reason is an error: it could not be read, or it reads as binary (one
    /// NUL byte must not hide a named runbook's findings, exit 0). In a
    /// folder walk both are said on standard error and the run goes on.
    pub fn named_error(&self) -> bool {
        self.unreadable() || self.reason.starts_with("binary")
    }

    /// True when the file is of a kind knobs reads but its content was
    /// passed over: binary (a NUL byte) or over the size cap. Its findings,
    /// if any, are not seen, so a folder walk says so in a warning (and
    /// `--fail-on-skipped` makes it exit 1), not a note.
    pub fn hides_findings(&self) -> bool {
        self.reason.starts_with("binary") || self.reason.starts_with("larger than ")
    }
}

/// A file passed over, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub path: PathBuf,
    pub reason: String,
}

#[derive(Debug, Default)]
pub struct Walked {
    pub files: Vec<(PathBuf, FileKind)>,
    pub skipped: Vec<Skipped>,
    /// Files excluded by `[lint] exclude` or ignore files (counted, not named).
    pub excluded: usize,
}

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{}: no such file or folder", crate::pictures::visible(&path.display().to_string()))]
#[diagnostic(code(knobs::walk::missing))]
pub struct MissingPath {
    pub path: PathBuf,
}

/// A folder a walk does not enter: hidden ones (but `.github`, for its
/// workflows), VCS and build folders.
fn is_skipped_dir(name: &str) -> bool {
    name.starts_with('.') && name.len() > 1 && name != ".github" || matches!(name, "node_modules" | "target")
}

fn head(path: &Path) -> Vec<u8> {
    use std::io::Read;
    let mut buf = vec![0u8; 256];
    let n = std::fs::File::open(path).and_then(|mut f| f.read(&mut buf)).unwrap_or(0);
    buf.truncate(n);
    buf
}

/// Compiles `[lint] exclude` globs (matched against paths relative to the
/// walked folder and to the working directory).
pub fn globs(patterns: &[String]) -> Result<GlobSet, globset::Error> {
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        b.add(Glob::new(p)?);
        // `vendor` excludes the folder and everything below it.
        if !p.contains('*') {
            b.add(Glob::new(&format!("{}/**", p.trim_end_matches('/')))?);
        }
    }
    b.build()
}

/// Walks `paths` (files or folders), relative to `cwd`. A file named on the
/// command line is always linted when it is lintable; a walk skips what the
/// ignore files and `exclude` say. Files come back sorted.
pub fn discover(paths: &[PathBuf], cwd: &Path, env_files: &[String], exclude: &GlobSet) -> Result<Walked, MissingPath> {
    let files = std::sync::Mutex::new(Vec::new());
    let mut out = walk_each(paths, cwd, env_files, exclude, &|rel, kind| {
        if let Ok(mut f) = files.lock() {
            f.push((rel.to_path_buf(), kind));
        }
    })?;
    out.files = files.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    out.files.sort();
    out.files.dedup();
    Ok(out)
}

/// Walks `paths` as [`discover`] does, on every core, handing each lintable
/// file to `on_file` as it is found (from any thread, in no order). Returns
/// what was skipped and excluded. Every path is checked before any is walked.
pub fn walk_each(
    paths: &[PathBuf],
    cwd: &Path,
    env_files: &[String],
    exclude: &GlobSet,
    on_file: &(dyn Fn(&Path, FileKind) + Sync),
) -> Result<Walked, MissingPath> {
    let mut out = Walked::default();
    let mut roots = Vec::new();
    for p in paths {
        let abs = cwd.join(p);
        // Nothing in a git folder is linted, whatever path or symlink names it.
        if let Err(e) = crate::confine::outside_git(&abs) {
            out.skipped.push(Skipped { path: p.clone(), reason: format!("cannot read: {e}") });
            continue;
        }
        match std::fs::metadata(&abs) {
            // A pipe or a device is not read (a pipe would wait for a writer).
            Ok(meta) if !meta.is_file() && !meta.is_dir() => {
                out.skipped.push(Skipped { path: p.clone(), reason: NOT_REGULAR.into() })
            }
            Ok(meta) => roots.push((p, abs, meta.is_file())),
            // A dangling symlink is there, but cannot be read: say so.
            Err(e) if std::fs::symlink_metadata(&abs).is_ok() => {
                let reason = if e.kind() == std::io::ErrorKind::NotFound {
                    "a symlink to nothing".to_string()
                } else {
                    format!("cannot follow the symlink: {e}")
                };
                out.skipped.push(Skipped { path: p.clone(), reason })
            }
            Err(_) => return Err(MissingPath { path: p.clone() }),
        }
    }
    for (p, abs, is_file) in roots {
        if is_file {
            match by_name(&abs, env_files).or_else(|| by_shebang(&head(&abs))) {
                Some(kind) => on_file(p, kind),
                None => out.skipped.push(Skipped { path: p.clone(), reason: NAMED_NOT_LINTABLE.into() }),
            }
            continue;
        }
        let found = std::sync::Mutex::new(Walked::default());
        let walker = ignore::WalkBuilder::new(&abs)
            .hidden(false)
            .git_ignore(true)
            .git_exclude(true)
            .git_global(false)
            .ignore(true)
            .parents(true)
            .require_git(false)
            .follow_links(false)
            .threads(std::thread::available_parallelism().map_or(1, |n| n.get()))
            .filter_entry(|e| {
                e.depth() == 0
                    || !(e.file_type().is_some_and(|t| t.is_dir()) && is_skipped_dir(&e.file_name().to_string_lossy()))
            })
            .build_parallel();
        walker.run(|| {
            Box::new(|entry| {
                let seen = visit(entry, p, &abs, cwd, env_files, exclude);
                match seen {
                    Seen::File((rel, kind)) => on_file(&rel, kind),
                    Seen::Skipped(s) => {
                        if let Ok(mut all) = found.lock() {
                            all.skipped.push(s);
                        }
                    }
                    Seen::Excluded => {
                        if let Ok(mut all) = found.lock() {
                            all.excluded += 1;
                        }
                    }
                    Seen::Nothing => {}
                }
                ignore::WalkState::Continue
            })
        });
        let found = found.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut skipped = found.skipped;
        skipped.sort_by(|a, b| a.path.cmp(&b.path));
        out.skipped.extend(skipped);
        out.excluded += found.excluded;
    }
    Ok(out)
}

/// What one walked entry is.
enum Seen {
    File((PathBuf, FileKind)),
    Skipped(Skipped),
    Excluded,
    Nothing,
}

/// One entry of the walk of `root` (`abs` on disk, `p` as given).
fn visit(
    entry: Result<ignore::DirEntry, ignore::Error>,
    p: &Path,
    abs: &Path,
    cwd: &Path,
    env_files: &[String],
    exclude: &GlobSet,
) -> Seen {
    let entry = match entry {
        Ok(e) => e,
        Err(e) => {
            // A folder or file that cannot be read: say so, go on.
            let path = error_path(&e).map(|p| shown(&p, cwd)).unwrap_or_else(|| p.to_path_buf());
            return Seen::Skipped(Skipped { path, reason: format!("cannot read: {}", error_text(&e)) });
        }
    };
    let Some(ft) = entry.file_type() else { return Seen::Nothing };
    let rel = shown(entry.path(), cwd);
    // A symlink is not followed (as ripgrep does not): a loop, one to
    // nothing or one out of the tree is passed over, and said so with -v.
    if ft.is_symlink() {
        return Seen::Skipped(Skipped { path: rel, reason: "a symbolic link (not followed)".into() });
    }
    if !ft.is_file() {
        return Seen::Nothing;
    }
    let from_root = entry.path().strip_prefix(abs).unwrap_or(entry.path());
    // Under `.github`, only the workflows are ours; the rest is not seen.
    if in_github(from_root) && !in_workflows(from_root) {
        return Seen::Nothing;
    }
    if exclude.is_match(&rel) || exclude.is_match(from_root) {
        return Seen::Excluded;
    }
    // The name first; only a name that says nothing has its first line read.
    match by_name(entry.path(), env_files).or_else(|| by_shebang(&head(entry.path()))) {
        Some(kind) => Seen::File((rel, kind)),
        None => Seen::Skipped(Skipped { path: rel, reason: NOT_LINTABLE.into() }),
    }
}

/// True for a path under a `.github` folder.
fn in_github(path: &Path) -> bool {
    path.components().any(|c| c.as_os_str() == ".github")
}

fn shown(path: &Path, cwd: &Path) -> PathBuf {
    path.strip_prefix(cwd).map(Path::to_path_buf).unwrap_or_else(|_| path.to_path_buf())
}

fn error_path(e: &ignore::Error) -> Option<PathBuf> {
    match e {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => error_path(err),
        _ => None,
    }
}

fn error_text(e: &ignore::Error) -> String {
    match e {
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => error_text(err),
        ignore::Error::Io(io) => io.to_string(),
        other => other.to_string(),
    }
}
