//! A baseline: the findings a repository already had when it adopted
//! knobs, recorded in a file (`knobs lint --write-baseline FILE`) and not
//! reported again (`--baseline FILE`, or `[lint] baseline` in knobs.toml)
//! until the line each is on changes. A finding is known by its file
//! (relative to the baseline's folder, so any working directory reads it
//! alike), its rule and its line's text — not the line's number, so lines
//! added above it do not bring it back. No comment is written into the
//! linted files: it works alike for every file type, whatever its comment
//! syntax (or none).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::finding::{FileReport, Report};
use crate::fsutil::normalized;

/// Why a baseline cannot be read or written; the text names the file.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum BaselineError {
    #[error("cannot read the baseline {}: {cause}", path.display())]
    Unreadable {
        path: PathBuf,
        cause: std::io::Error,
        #[help]
        help: String,
    },
    #[error("{} is not a baseline knobs wrote: {message}", path.display())]
    Malformed {
        path: PathBuf,
        message: String,
        #[help]
        help: String,
    },
    #[error("cannot write the baseline: {0}")]
    Write(crate::fsutil::WriteError),
}

/// The file as written: what it is, and one entry per finding.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct BaselineFile {
    about: String,
    findings: Vec<Entry>,
}

/// One recorded finding. `message` is for whoever reads the file; the
/// other three say which finding it is.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    path: String,
    code: String,
    line: String,
    message: String,
}

const ABOUT: &str = "Findings knobs does not report until their line changes: written by `knobs lint --write-baseline`";

/// A baseline read from its file.
#[derive(Debug)]
pub struct Baseline {
    /// The folder its paths are relative to (absolute).
    dir: PathBuf,
    /// (path, code, line text) → how many such findings it records.
    known: HashMap<(String, String, String), usize>,
}

/// The largest baseline file knobs reads (a million findings fit).
pub const MAX_BASELINE: u64 = 256 * 1024 * 1024;

impl Baseline {
    /// Reads the baseline at `path` (absolute, or relative to the working
    /// directory it is joined to by the caller). One knobs.toml names comes
    /// with the tree, so it is read only inside `project` (the root of the
    /// knobs.toml's project): never through a symlink out, never a FIFO or
    /// device, only as text, and at most [`MAX_BASELINE`] bytes; one named
    /// on the command line (`project` none) is the user's.
    pub fn load(path: &Path, project: Option<&Path>) -> Result<Baseline, BaselineError> {
        let help = format!("write it with `knobs lint --write-baseline {}`", path.display());
        let read = match project {
            Some(root) => crate::confine::read_to_string(root, path, MAX_BASELINE),
            None => crate::confine::read_named(path, MAX_BASELINE),
        };
        let text =
            read.map_err(|cause| BaselineError::Unreadable { path: path.to_path_buf(), cause, help: help.clone() })?;
        let file: BaselineFile = serde_json::from_str(&text).map_err(|e| BaselineError::Malformed {
            path: path.to_path_buf(),
            message: e.to_string(),
            help,
        })?;
        let mut known = HashMap::new();
        for e in file.findings {
            *known.entry((e.path, e.code, e.line)).or_insert(0) += 1;
        }
        Ok(Baseline { dir: folder_of(path), known })
    }

    /// Drops the findings of `report` (paths shown from `cwd`) that the
    /// baseline records; a file left with nothing to say against `tag`
    /// is counted as clean. Returns how many were dropped.
    pub fn filter(&self, report: &mut Report, cwd: &Path, tag: &str) -> usize {
        let mut left = self.known.clone();
        let mut dropped = 0;
        for file in &mut report.files {
            let path = relative(&file.path, cwd, &self.dir);
            let lines = &file.lines;
            file.findings.retain(|f| {
                let key = (path.clone(), f.code.to_string(), lines.line(f.span.line).trim().to_string());
                match left.get_mut(&key) {
                    Some(n) if *n > 0 => {
                        *n -= 1;
                        dropped += 1;
                        false
                    }
                    _ => true,
                }
            });
        }
        let before = report.files.len();
        report.files.retain(|f: &FileReport| !f.is_clean(tag));
        report.clean += before - report.files.len();
        dropped
    }
}

/// Writes every finding of `report` (paths shown from `cwd`) to the
/// baseline at `path`, atomically; returns how many.
pub fn write(report: &Report, path: &Path, cwd: &Path) -> Result<usize, BaselineError> {
    let dir = folder_of(path);
    let mut findings: Vec<Entry> = Vec::new();
    for file in &report.files {
        let shown = relative(&file.path, cwd, &dir);
        for f in &file.findings {
            findings.push(Entry {
                path: shown.clone(),
                code: f.code.to_string(),
                line: file.lines.line(f.span.line).trim().to_string(),
                message: f.message.clone(),
            });
        }
    }
    findings.sort();
    let n = findings.len();
    let file = BaselineFile { about: ABOUT.to_string(), findings };
    let mut text = serde_json::to_string_pretty(&file).unwrap_or_default();
    text.push('\n');
    crate::confine::outside_git(path)
        .map_err(|cause| BaselineError::Write(crate::fsutil::WriteError::Write { path: path.to_path_buf(), cause }))?;
    crate::fsutil::write_atomic(path, &text, crate::fsutil::Mode::LessUmask(0o666)).map_err(BaselineError::Write)?;
    Ok(n)
}

/// The folder a baseline file's paths are relative to.
fn folder_of(path: &Path) -> PathBuf {
    normalized(path).parent().map(Path::to_path_buf).unwrap_or_default()
}

/// A path shown from `cwd`, relative to `dir` with `/` between its parts
/// (as shown when it is not below `dir`).
fn relative(shown: &str, cwd: &Path, dir: &Path) -> String {
    let abs = normalized(&cwd.join(shown));
    match abs.strip_prefix(dir) {
        Ok(rel) => rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"),
        Err(_) => shown.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_to_the_baseline_folder() {
        assert_eq!(relative("docs/a.md", Path::new("/r"), Path::new("/r")), "docs/a.md");
        assert_eq!(relative("a.md", Path::new("/r/docs"), Path::new("/r")), "docs/a.md");
        assert_eq!(relative("../x/a.md", Path::new("/r/docs"), Path::new("/r")), "x/a.md");
        assert_eq!(relative("a.md", Path::new("/elsewhere"), Path::new("/r")), "a.md");
    }
}
