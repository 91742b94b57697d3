//! File discovery and classification: which files are runbooks, env files or
//! serve scripts. A folder walk respects `.gitignore`, `.ignore` and
//! `[lint] exclude`, skips hidden folders, VCS and build folders, and says
//! what it passed over and why: nothing is dropped without a word.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};

/// The kinds of file knobs lints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FileKind {
    Markdown,
    Env,
    Shell,
    /// A systemd unit (`*.service`) or drop-in (`*.service.d/*.conf`).
    Systemd,
    /// A Podman Quadlet container unit (`*.container`).
    Quadlet,
    /// A Dockerfile or Containerfile.
    Dockerfile,
    /// A compose file (`compose.yaml`, `docker-compose.yml`, overrides).
    Compose,
    /// Helm values (`values.yaml`, `values-*.yaml`).
    HelmValues,
    /// Other YAML: Kubernetes manifests, Prometheus rule files and
    /// llama-swap configs are read.
    Yaml,
    /// A Windows batch file (`*.bat`, `*.cmd`).
    Batch,
    /// A PowerShell script (`*.ps1`).
    PowerShell,
    /// A Makefile (`Makefile`, `GNUmakefile`, `*.mk`): its recipes are shell.
    Makefile,
    /// A Procfile (`Procfile`, `Procfile.dev`): `name: command` lines.
    Procfile,
    /// A GitHub Actions workflow (`.github/workflows/*.yml`): its `run:` steps.
    Workflow,
}

/// Why a file named on the command line, or met in a walk, was not linted.
pub const NOT_LINTABLE: &str = "not a runbook, env file, shell script or deployment file";

/// Why a file named on the command line was not linted: it is named, so
/// it is said without `-v`, with what knobs would have read.
pub const NAMED_NOT_LINTABLE: &str = "named, but not a kind of file knobs reads (by name: `*.md`, env files, `*.sh`, `*.bat`, `*.ps1`, Makefiles, Procfiles, units, Dockerfiles, YAML; by a shell shebang: any name); an env file of another name goes in `[lint] env_files`";

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
    /// folder walk both are notes.
    pub fn named_error(&self) -> bool {
        self.unreadable() || self.reason.starts_with("binary")
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

/// True for a file name that is an env file: `.env`, `.env.local`,
/// `.env.example`, `knobs.env`, `knobs.env.template`, a file named `env`, or
/// one of `extra` (`[lint] env_files`).
pub fn is_env_name(name: &str, extra: &[String]) -> bool {
    extra.iter().any(|e| e == name)
        || name == ".env"
        || name == "env"
        || name.starts_with(".env.")
        || name.ends_with(".env")
        || [".env.template", ".env.example", ".env.sample", ".env.dist"].iter().any(|s| name.ends_with(s))
}

/// Classifies a file by its name, then (for a name that says nothing) by a
/// shell shebang in `head`: `serve.conf` or `start` that starts
/// `#!/bin/bash` is a shell script.
pub fn classify(path: &Path, env_files: &[String], head: &[u8]) -> Option<FileKind> {
    let name = path.file_name()?.to_string_lossy();
    if is_env_name(&name, env_files) {
        return Some(FileKind::Env);
    }
    if let Some(kind) = deployment_kind(path, &name).or_else(|| script_kind(&name)) {
        return Some(kind);
    }
    let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
    if matches!(ext.as_deref(), Some("md" | "markdown")) {
        return Some(FileKind::Markdown);
    }
    shell_shebang(head).then_some(FileKind::Shell)
}

/// True when the first line of `head` is a shebang naming a shell.
fn shell_shebang(head: &[u8]) -> bool {
    let first = head.split(|b| *b == b'\n').next().unwrap_or(&[]);
    let first = String::from_utf8_lossy(first);
    first.starts_with("#!")
        && ["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"]
            .iter()
            .any(|s| first.split(|c: char| c == '/' || c.is_whitespace()).any(|w| w == *s))
}

/// The script a name says a file is: shell by extension, Windows batch,
/// PowerShell, a Makefile, a Procfile.
fn script_kind(name: &str) -> Option<FileKind> {
    let lower = name.to_ascii_lowercase();
    let ext = lower.rsplit_once('.').map(|(_, e)| e);
    match ext {
        Some("sh" | "bash" | "zsh" | "ksh") => return Some(FileKind::Shell),
        Some("bat" | "cmd") => return Some(FileKind::Batch),
        Some("ps1") => return Some(FileKind::PowerShell),
        Some("mk") => return Some(FileKind::Makefile),
        _ => {}
    }
    if matches!(lower.as_str(), "makefile" | "gnumakefile") {
        return Some(FileKind::Makefile);
    }
    (name == "Procfile" || name.strip_prefix("Procfile.").is_some_and(|r| !r.is_empty())).then_some(FileKind::Procfile)
}

/// The deployment file a name says a file is.
fn deployment_kind(path: &Path, name: &str) -> Option<FileKind> {
    let lower = name.to_ascii_lowercase();
    let yaml = lower.ends_with(".yaml") || lower.ends_with(".yml");
    let stem = lower.trim_end_matches(".yaml").trim_end_matches(".yml");
    let in_dropin =
        path.parent().and_then(|d| d.file_name()).is_some_and(|d| d.to_string_lossy().ends_with(".service.d"));
    if lower.ends_with(".service") || (in_dropin && lower.ends_with(".conf")) {
        return Some(FileKind::Systemd);
    }
    if lower.ends_with(".container") {
        return Some(FileKind::Quadlet);
    }
    let docker = |n: &str| n == "dockerfile" || n == "containerfile";
    if docker(&lower)
        || lower.ends_with(".dockerfile")
        || lower.ends_with(".containerfile")
        || lower.split_once('.').is_some_and(|(a, _)| docker(a))
    {
        return Some(FileKind::Dockerfile);
    }
    if yaml && in_workflows(path) {
        return Some(FileKind::Workflow);
    }
    if yaml {
        let compose = ["compose", "docker-compose"]
            .iter()
            .any(|c| stem == *c || stem.strip_prefix(c).is_some_and(|r| r.starts_with('.') || r.starts_with('-')));
        if compose {
            return Some(FileKind::Compose);
        }
        if stem == "values" || stem.starts_with("values-") || stem.starts_with("values.") {
            return Some(FileKind::HelmValues);
        }
        return Some(FileKind::Yaml);
    }
    if lower.ends_with(".rules") {
        return Some(FileKind::Yaml);
    }
    None
}

/// True for a file in `.github/workflows/`.
fn in_workflows(path: &Path) -> bool {
    let mut up = path.components().rev().skip(1);
    up.next().is_some_and(|c| c.as_os_str() == "workflows") && up.next().is_some_and(|c| c.as_os_str() == ".github")
}

/// True when a name needs its first line read to be classified: its name
/// says nothing (a script may have any name; its shebang says what it is).
pub fn needs_head(path: &Path, env_files: &[String]) -> bool {
    classify(path, env_files, b"").is_none()
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
            let h = if needs_head(&abs, env_files) { head(&abs) } else { Vec::new() };
            match classify(&abs, env_files, &h) {
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
    let h = if needs_head(entry.path(), env_files) { head(entry.path()) } else { Vec::new() };
    match classify(entry.path(), env_files, &h) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification() {
        let none: &[String] = &[];
        assert_eq!(classify(Path::new("a/run.md"), none, b""), Some(FileKind::Markdown));
        assert_eq!(classify(Path::new("svc/.env"), none, b""), Some(FileKind::Env));
        assert_eq!(classify(Path::new("svc/knobs.env"), none, b""), Some(FileKind::Env));
        assert_eq!(classify(Path::new("svc/serve"), none, b"#!/usr/bin/env bash\n"), Some(FileKind::Shell));
        assert_eq!(classify(Path::new("svc/serve"), none, b"#!/usr/bin/python3\n"), None);
        assert_eq!(classify(Path::new("svc/service.conf"), &["service.conf".to_string()], b""), Some(FileKind::Env));
        assert_eq!(classify(Path::new("main.rs"), none, b""), None);
        for env in [".env.example", ".env.local", ".env.production", "knobs.env.template", "svc.env.example"] {
            assert_eq!(classify(Path::new(env), none, b""), Some(FileKind::Env), "{env}");
        }
        assert_eq!(classify(Path::new(".envrc"), none, b""), None);
        // A shell shebang under any name; another interpreter's is not ours.
        assert_eq!(classify(Path::new("svc/serve.conf"), none, b"#!/bin/bash\n"), Some(FileKind::Shell));
        assert_eq!(classify(Path::new("start"), none, b"#!/usr/bin/env zsh\n"), Some(FileKind::Shell));
        assert_eq!(classify(Path::new("run.ps1.txt"), none, b"#!/usr/bin/env pwsh\n"), None);
        assert_eq!(classify(Path::new("svc/serve.conf"), none, b""), None);
        for (name, kind) in [
            ("a.zsh", FileKind::Shell),
            ("a.ksh", FileKind::Shell),
            ("serve.bat", FileKind::Batch),
            ("SERVE.CMD", FileKind::Batch),
            ("serve.ps1", FileKind::PowerShell),
            ("Makefile", FileKind::Makefile),
            ("GNUmakefile", FileKind::Makefile),
            ("rules.mk", FileKind::Makefile),
            ("Procfile", FileKind::Procfile),
            ("Procfile.dev", FileKind::Procfile),
            ("repo/.github/workflows/ci.yml", FileKind::Workflow),
            ("repo/.github/ci.yml", FileKind::Yaml),
            ("workflows/ci.yml", FileKind::Yaml),
        ] {
            assert_eq!(classify(Path::new(name), none, b""), Some(kind), "{name}");
        }
        assert_eq!(classify(Path::new("Procfile."), none, b""), None);
        assert!(needs_head(Path::new("serve.conf"), none) && !needs_head(Path::new("a.md"), none));
    }
}
