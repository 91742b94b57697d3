//! Where linted texts come from — the disk, the git index (`--staged`), or
//! standard input with the disk around it — behind one trait, [`Input`],
//! and which files a run over the index or `--changed-since` lints.
//! Bytes are decoded once here: a byte-order mark is kept (the scanners
//! step over it), CRLF is kept (spans count characters), invalid UTF-8 is
//! decoded lossily with a note, and a file with NUL bytes is passed over as
//! binary.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::Settings;
use crate::kinds::{classify, FileKind};
use crate::source::{Worktree, WorktreeError};

/// Why the input of a run cannot be had: standard input unreadable or
/// unnamed, or the repository not there.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum InputError {
    #[error("linting standard input needs --stdin-filename to say what kind of file it is")]
    #[diagnostic(help("e.g. `knobs lint - --stdin-filename runbooks/arm.md`"))]
    StdinUnnamed,
    #[error("standard input is larger than {max} bytes, the most knobs lints in one file")]
    #[diagnostic(help("[lint] max_file_size in knobs.toml raises the limit"))]
    StdinTooLarge { max: u64 },
    #[error("cannot read standard input: {0}")]
    StdinUnread(std::io::Error),
    #[error("standard input: {0}")]
    StdinNotText(String),
    #[error("{}: {}", name.display(), crate::walk::NOT_LINTABLE)]
    #[diagnostic(help("name a .md, .env or .sh file"))]
    StdinNotLintable { name: PathBuf },
    #[error(transparent)]
    #[diagnostic(transparent)]
    Git(#[from] WorktreeError),
}

/// A file's text, and anything the user should know about how it was read.
#[derive(Debug, Clone)]
pub struct Text {
    pub text: String,
    pub note: Option<String>,
}

/// Where texts are read from.
pub trait Input: Sync {
    /// The text of a file, or why it is skipped.
    fn read(&self, path: &Path) -> Result<Text, String>;
    /// The files in the same folder that `wanted` accepts by name (for a
    /// folder's env context); only those are listed.
    fn siblings(&self, path: &Path, wanted: &dyn Fn(&Path) -> bool) -> Vec<PathBuf>;
    /// Whether a file the tree names (a unit's `EnvironmentFile=`) may be
    /// read: not through a symlink out of the project.
    fn confined(&self, _path: &Path) -> bool {
        true
    }
    /// The files under `dir` (any depth up to [`BELOW_DEPTH`], hidden and
    /// vendored folders left out), at most `limit` of them (which ones is
    /// fixed: each folder's entries are taken in name order), in no set
    /// order: where a monitoring file looks for the build its repository runs.
    fn below(&self, _dir: &Path, _limit: usize) -> Vec<PathBuf> {
        Vec::new()
    }
}

/// How deep [`Input::below`] goes under the folder it lists.
pub const BELOW_DEPTH: usize = 5;

/// Folders [`Input::below`] does not enter: hidden ones, and those that
/// hold other people's code or build output.
fn entered(name: &str) -> bool {
    !name.starts_with('.') && !matches!(name, "node_modules" | "vendor" | "target" | "__pycache__" | "site-packages")
}

/// Files on disk, relative to a working directory.
pub struct Disk {
    pub cwd: PathBuf,
    pub max_file_size: u64,
}

impl Input for Disk {
    fn read(&self, path: &Path) -> Result<Text, String> {
        let path = self.cwd.join(path);
        // Opened without waiting on a FIFO; anything not a file is refused below.
        let file = crate::bounded::open_any(&path).map_err(|e| format!("cannot read: {e}"))?;
        let meta = file.metadata().map_err(|e| format!("cannot read: {e}"))?;
        if !meta.is_file() {
            return Err(crate::walk::NOT_REGULAR.into());
        }
        if meta.len() > self.max_file_size {
            return Err(format!("larger than {} bytes", self.max_file_size));
        }
        // Read the length the file had when opened: bytes appended while it
        // is read are not linted, and a file that shrinks gives what is left.
        use std::io::Read;
        // Read into spare capacity: a buffer zeroed first would be written twice.
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        (&file).take(meta.len()).read_to_end(&mut bytes).map_err(|e| format!("cannot read: {e}"))?;
        decode(bytes, self.max_file_size)
    }

    fn confined(&self, path: &Path) -> bool {
        let path = self.cwd.join(path);
        let project = crate::confine::project_root(path.parent().unwrap_or(&self.cwd));
        crate::confine::inside(&project, &path).is_ok()
    }

    fn below(&self, dir: &Path, limit: usize) -> Vec<PathBuf> {
        let mut out = Vec::new();
        let mut todo = vec![(dir.to_path_buf(), 0)];
        'all: while let Some((d, depth)) = todo.pop() {
            let Ok(entries) = std::fs::read_dir(self.cwd.join(&d)) else { continue };
            // Each name is taken once (a sort by key would copy it at every comparison).
            let mut entries: Vec<_> = entries.filter_map(Result::ok).map(|e| (e.file_name(), e)).collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            for (name, e) in entries {
                // Symlinks are not followed: what they name may be outside the project.
                let Ok(t) = e.file_type() else { continue };
                if t.is_file() {
                    out.push(d.join(&name));
                } else if t.is_dir() && depth < BELOW_DEPTH && entered(&name.to_string_lossy()) {
                    todo.push((d.join(&name), depth + 1));
                }
                if out.len() >= limit {
                    break 'all;
                }
            }
        }
        out
    }

    fn siblings(&self, path: &Path, wanted: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
        let Some(dir) = path.parent() else { return Vec::new() };
        let Ok(entries) = std::fs::read_dir(self.cwd.join(dir)) else { return Vec::new() };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| dir.join(e.file_name()))
            .filter(|p| wanted(p))
            .collect();
        // One folder's files: by their names' bytes, which is the order of
        // the paths (the same folder before each name), without a
        // comparison of components for every pair.
        paths.sort_unstable_by(|a, b| a.as_os_str().as_encoded_bytes().cmp(b.as_os_str().as_encoded_bytes()));
        paths
    }
}

/// Files as staged in the index, by path as shown.
pub struct StagedFiles {
    pub files: Vec<(PathBuf, Vec<u8>)>,
    pub max_file_size: u64,
}

impl Input for StagedFiles {
    fn read(&self, path: &Path) -> Result<Text, String> {
        let bytes = self.files.iter().find(|(p, _)| p == path).map(|(_, b)| b.clone()).ok_or("not staged")?;
        decode(bytes, self.max_file_size)
    }

    fn below(&self, dir: &Path, limit: usize) -> Vec<PathBuf> {
        let within = |p: &Path| {
            p.strip_prefix(dir).is_ok_and(|rest| {
                let folders: Vec<_> = rest.parent().map(|r| r.components().collect()).unwrap_or_default();
                folders.len() <= BELOW_DEPTH && folders.iter().all(|c| entered(&c.as_os_str().to_string_lossy()))
            })
        };
        let mut out: Vec<PathBuf> = self.files.iter().map(|(p, _)| p.clone()).filter(|p| within(p)).collect();
        out.sort();
        out.truncate(limit);
        out
    }

    fn siblings(&self, path: &Path, wanted: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
        let dir = path.parent();
        self.files.iter().filter(|(p, _)| p.parent() == dir && wanted(p)).map(|(p, _)| p.clone()).collect()
    }
}

/// One file's text from standard input, and the rest (its folder's
/// context) from the disk.
pub struct WithStdin {
    /// The name it is linted under (`--stdin-filename`).
    pub name: PathBuf,
    text: Text,
    disk: Disk,
}

impl Input for WithStdin {
    fn confined(&self, path: &Path) -> bool {
        self.disk.confined(path)
    }

    fn read(&self, path: &Path) -> Result<Text, String> {
        if path == self.name {
            return Ok(self.text.clone());
        }
        self.disk.read(path)
    }

    fn below(&self, dir: &Path, limit: usize) -> Vec<PathBuf> {
        self.disk.below(dir, limit)
    }

    fn siblings(&self, path: &Path, wanted: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
        let mut out = self.disk.siblings(path, wanted);
        out.retain(|p| *p != self.name);
        out
    }
}

/// Standard input, read as the file `name` (of the kind that name says),
/// beside the files of `cwd`.
pub fn stdin(name: Option<PathBuf>, settings: &Settings<'_>, cwd: &Path) -> Result<(WithStdin, FileKind), InputError> {
    let name = name.ok_or(InputError::StdinUnnamed)?;
    let max = settings.max_file_size;
    // Read no more than a file may hold: `</dev/zero` is refused, not
    // read into all the memory.
    let bytes = crate::bounded::read_from(std::io::stdin().lock(), max).map_err(|e| {
        if e.kind() == std::io::ErrorKind::FileTooLarge {
            InputError::StdinTooLarge { max }
        } else {
            InputError::StdinUnread(e)
        }
    })?;
    let text = decode(bytes, max).map_err(InputError::StdinNotText)?;
    let kind = classify(&name, &settings.env_files, text.text.as_bytes())
        .ok_or_else(|| InputError::StdinNotLintable { name: name.clone() })?;
    Ok((WithStdin { name, text, disk: Disk { cwd: cwd.to_path_buf(), max_file_size: max } }, kind))
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
pub fn staged(
    paths: &[PathBuf],
    settings: &Settings<'_>,
    cwd: &Path,
) -> Result<(Vec<(PathBuf, FileKind)>, StagedFiles), InputError> {
    let tree = Worktree::discover(cwd)?;
    let under = |path: &Path| paths.iter().any(|p| p == Path::new(".") || path.starts_with(p));
    let changed = tree.staged_changes()?;
    let mut targets = HashSet::new();
    let mut dirs = HashSet::new();
    for rel in changed {
        let path = shown(&tree.root, &rel, cwd);
        // Judge by name first, so no blob is read for a `.rs` or a `.png`;
        // a file without an extension may still be a script (shebang).
        let by_name = classify(&path, &settings.env_files, b"#!/bin/sh\n");
        // `[lint] exclude` holds for the hook as for a walk.
        if !under(&path) || by_name.is_none() || settings.excluded(&path) {
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
            && classify(Path::new(rel), &settings.env_files, b"#!/bin/sh\n").is_some_and(FileKind::staged_context)
    };
    let wanted = |rel: &str| targets.contains(rel) || context(rel);
    let mut files = Vec::new();
    let mut blobs = Vec::new();
    for s in tree.staged(&wanted)? {
        let path = shown(&tree.root, &s.path, cwd);
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
pub fn changed_since(rev: &str, cwd: &Path) -> Result<Vec<PathBuf>, InputError> {
    let tree = Worktree::discover(cwd)?;
    Ok(tree.changed_since(rev)?.iter().map(|p| shown(&tree.root, p, cwd)).collect())
}

/// Text of a file's bytes, or why it is skipped.
pub fn decode(bytes: Vec<u8>, max: u64) -> Result<Text, String> {
    if bytes.len() as u64 > max {
        return Err(format!("larger than {max} bytes"));
    }
    if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
        return Err("binary (it holds NUL bytes)".into());
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Text { text, note: None }),
        Err(e) => {
            let bytes = e.into_bytes();
            let at = std::str::from_utf8(&bytes).err().map_or(0, |e| e.valid_up_to());
            Ok(Text {
                text: String::from_utf8_lossy(&bytes).into_owned(),
                note: Some(format!(
                    "not valid UTF-8 (first bad byte at offset {at}); read with replacement characters"
                )),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding() {
        assert!(decode(b"a\0b".to_vec(), 100).is_err());
        assert!(decode(vec![b'a'; 10], 5).is_err());
        let t = decode(b"ok \xff\xfe end".to_vec(), 100).expect("lossy");
        assert!(t.text.contains("ok") && t.text.contains("end"));
        assert!(t.note.is_some_and(|n| n.contains("offset 3")));
        let bom = decode("\u{feff}X=1\r\n".as_bytes().to_vec(), 100).expect("bom");
        assert!(bom.note.is_none() && bom.text.starts_with('\u{feff}'));
    }
}
