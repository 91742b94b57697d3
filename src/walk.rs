//! File discovery and classification: which files are runbooks, env files or
//! serve scripts. Skips VCS folders, binary files and files over the size cap,
//! and says so.

use std::path::{Path, PathBuf};

/// The kinds of file knobs lints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FileKind {
    Markdown,
    Env,
    Shell,
}

/// Why a file named on the command line was not linted.
pub const NOT_LINTABLE: &str = "not a runbook, env file or shell script";

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
}

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{}: no such file or folder", path.display())]
#[diagnostic(code(knobs::walk::missing))]
pub struct MissingPath {
    pub path: PathBuf,
}

/// Classifies a file by its name, then (for files without an extension) by
/// a shebang in `head`.
pub fn classify(path: &Path, env_files: &[String], head: &[u8]) -> Option<FileKind> {
    let name = path.file_name()?.to_string_lossy();
    let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
    if env_files.iter().any(|e| *e == name) || name == ".env" || name == "env" || ext.as_deref() == Some("env") {
        return Some(FileKind::Env);
    }
    match ext.as_deref() {
        Some("md" | "markdown") => return Some(FileKind::Markdown),
        Some("sh" | "bash") => return Some(FileKind::Shell),
        Some(_) => return None,
        None => {}
    }
    let first = head.split(|b| *b == b'\n').next().unwrap_or(&[]);
    let first = String::from_utf8_lossy(first);
    (first.starts_with("#!")
        && ["sh", "bash", "zsh", "dash", "ksh"]
            .iter()
            .any(|s| first.split(|c: char| c == '/' || c.is_whitespace()).any(|w| w == *s)))
    .then_some(FileKind::Shell)
}

fn is_skipped_dir(name: &str) -> bool {
    name.starts_with('.') && name.len() > 1 || matches!(name, "node_modules" | "target")
}

fn head(path: &Path) -> Vec<u8> {
    use std::io::Read;
    let mut buf = vec![0u8; 256];
    let n = std::fs::File::open(path).and_then(|mut f| f.read(&mut buf)).unwrap_or(0);
    buf.truncate(n);
    buf
}

/// Walks `paths` (files or folders), relative to `cwd`.
pub fn discover(paths: &[PathBuf], cwd: &Path, env_files: &[String]) -> Result<Walked, MissingPath> {
    let mut out = Walked::default();
    for p in paths {
        let abs = cwd.join(p);
        if !abs.exists() {
            return Err(MissingPath { path: p.clone() });
        }
        if abs.is_file() {
            match classify(&abs, env_files, &head(&abs)) {
                Some(kind) => out.files.push((p.clone(), kind)),
                None => out
                    .skipped
                    .push(Skipped { path: p.clone(), reason: "not a runbook, env file or shell script".into() }),
            }
            continue;
        }
        let walker = walkdir::WalkDir::new(&abs).sort_by_file_name().into_iter().filter_entry(|e| {
            e.depth() == 0 || !(e.file_type().is_dir() && is_skipped_dir(&e.file_name().to_string_lossy()))
        });
        for entry in walker {
            let Ok(entry) = entry else { continue };
            if !entry.file_type().is_file() {
                continue;
            }
            if let Some(kind) = classify(entry.path(), env_files, &head(entry.path())) {
                let rel = entry
                    .path()
                    .strip_prefix(cwd)
                    .map(Path::to_path_buf)
                    .unwrap_or_else(|_| entry.path().to_path_buf());
                out.files.push((rel, kind));
            }
        }
    }
    out.files.sort();
    out.files.dedup();
    Ok(out)
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
    }
}
