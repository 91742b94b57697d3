//! The user's own repository, for the gate: the content staged in the index
//! (what a commit would record), the files changed since a ref, and where
//! hooks live; for explain, where the work tree starts.

use std::path::{Path, PathBuf};

use git2::Repository;

/// A file as it stands in the index.
#[derive(Debug, Clone)]
pub struct Staged {
    /// Path relative to the repository root, with `/`.
    pub path: String,
    pub bytes: Vec<u8>,
}

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum WorktreeError {
    #[error("{} is not inside a git repository", path.display())]
    #[diagnostic(code(knobs::git::no_repo), help("run it inside the repository whose changes you want linted"))]
    NoRepo { path: PathBuf },
    #[error("the repository has no work tree (it is bare)")]
    #[diagnostic(code(knobs::git::bare))]
    Bare,
    #[error("`{rev}` does not name a commit: {message}")]
    #[diagnostic(code(knobs::git::rev), help("give a branch, tag or commit, e.g. origin/main"))]
    BadRev { rev: String, message: String },
    #[error("git: {0}")]
    Git(#[from] git2::Error),
}

/// The repository containing `cwd`, and its work-tree root.
pub struct Worktree {
    repo: Repository,
    pub root: PathBuf,
}

impl Worktree {
    pub fn discover(cwd: &Path) -> Result<Worktree, WorktreeError> {
        let repo = Repository::discover(cwd).map_err(|_| WorktreeError::NoRepo { path: cwd.to_path_buf() })?;
        let root = repo.workdir().ok_or(WorktreeError::Bare)?.to_path_buf();
        Ok(Worktree { repo, root })
    }

    /// The root of the git work tree holding `path`: `None` outside any
    /// repository and in a bare one. Git names the root with symlinks
    /// resolved; it is given as `path` spells it, so files under it still
    /// show relative to a working folder reached through a symlink.
    pub fn root_of(path: &Path) -> Option<PathBuf> {
        let repo = Repository::discover(path).ok()?;
        let root = repo.workdir()?;
        let resolved = root.canonicalize().ok();
        let spelled = path.ancestors().find(|a| resolved.is_some() && a.canonicalize().ok() == resolved);
        Some(spelled.unwrap_or(root).to_path_buf())
    }

    /// The staged content of the index entries `wanted` accepts.
    pub fn staged(&self, wanted: &dyn Fn(&str) -> bool) -> Result<Vec<Staged>, WorktreeError> {
        let index = self.repo.index()?;
        let mut out = Vec::new();
        for entry in index.iter() {
            if entry.mode & 0o170000 != 0o100000 {
                continue;
            }
            let path = String::from_utf8_lossy(&entry.path).into_owned();
            if !wanted(&path) {
                continue;
            }
            let blob = self.repo.find_blob(entry.id)?;
            out.push(Staged { path, bytes: blob.content().to_vec() });
        }
        Ok(out)
    }

    /// Paths (relative to the root) this commit changes: added or modified
    /// in the index against HEAD (every staged file before the first commit).
    pub fn staged_changes(&self) -> Result<Vec<String>, WorktreeError> {
        let head = self.repo.head().ok().and_then(|h| h.peel_to_tree().ok());
        let index = self.repo.index()?;
        let diff = self.repo.diff_tree_to_index(head.as_ref(), Some(&index), None)?;
        let mut out: Vec<String> = diff
            .deltas()
            .filter(|d| !matches!(d.status(), git2::Delta::Deleted))
            .filter(|d| {
                d.new_file().mode() == git2::FileMode::Blob || d.new_file().mode() == git2::FileMode::BlobExecutable
            })
            .filter_map(|d| d.new_file().path().map(|p| p.to_string_lossy().replace('\\', "/")))
            .collect();
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// Paths (relative to the root) that differ between `rev` and the work
    /// tree, including staged and untracked files; deleted files are left out.
    pub fn changed_since(&self, rev: &str) -> Result<Vec<String>, WorktreeError> {
        let obj = self
            .repo
            .revparse_single(rev)
            .map_err(|e| WorktreeError::BadRev { rev: rev.to_string(), message: e.message().to_string() })?;
        let tree = obj
            .peel_to_tree()
            .map_err(|e| WorktreeError::BadRev { rev: rev.to_string(), message: e.message().to_string() })?;
        let mut opts = git2::DiffOptions::new();
        opts.include_untracked(true).recurse_untracked_dirs(true);
        let diff = self.repo.diff_tree_to_workdir_with_index(Some(&tree), Some(&mut opts))?;
        let mut out: Vec<String> = diff
            .deltas()
            .filter(|d| d.status() != git2::Delta::Deleted)
            .filter_map(|d| d.new_file().path().map(|p| p.to_string_lossy().replace('\\', "/")))
            .collect();
        out.sort();
        out.dedup();
        Ok(out)
    }

    /// The folder git runs hooks from, as `git rev-parse --git-path hooks`
    /// gives it: `core.hooksPath` (relative to the work tree's root), else
    /// the `hooks` folder of the common git folder — in a linked work tree
    /// (`.git` a file) that is the main repository's, not
    /// `.git/worktrees/<name>/hooks`, where git never looks.
    pub fn hooks_dir(&self) -> HooksDir {
        let config = self.repo.config().ok();
        let level = config.as_ref().and_then(|c| c.get_entry("core.hooksPath").ok()).map(|e| e.level());
        let configured = config.as_ref().and_then(|c| c.get_path("core.hooksPath").ok());
        let beyond = match level {
            Some(git2::ConfigLevel::Global | git2::ConfigLevel::XDG) => Some("your global git config"),
            Some(git2::ConfigLevel::System | git2::ConfigLevel::ProgramData) => Some("the system's git config"),
            _ => None,
        };
        let path = match configured {
            Some(p) if p.is_absolute() => p,
            Some(p) => self.root.join(p),
            None => return HooksDir { path: self.repo.commondir().join("hooks"), shared: None, outside: false },
        };
        // The repository's own setting may still lead out of it (`../hooks`,
        // an absolute folder): a folder other repositories may use too.
        use crate::fsutil::normalized;
        let within = |base: &std::path::Path| normalized(&path).starts_with(normalized(base));
        let outside = beyond.is_none() && !within(&self.root) && !within(self.repo.commondir());
        let shared = beyond.or(outside.then_some("this repository's git config"));
        HooksDir { path, shared, outside }
    }
}

/// Where git runs a repository's hooks from.
#[derive(Debug, Clone)]
pub struct HooksDir {
    pub path: PathBuf,
    /// Set when `core.hooksPath` comes from a config beyond the repository
    /// (which one): the folder serves every repository that uses it.
    pub shared: Option<&'static str>,
    /// Set when the repository's own `core.hooksPath` leads out of it.
    pub outside: bool,
}
