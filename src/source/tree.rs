//! A tag's tree: opened in place (a local repository) or from the cache,
//! then read blob by blob, never checked out.

use std::path::Path;

use git2::{ObjectType, Repository};

use super::cache::{find_tag, open_cached};
use super::error::SourceError;

/// Largest blob read from the tree; bigger files are skipped.
const MAX_BLOB: usize = 4 * 1024 * 1024;

/// C++ files read at a tag, as (path, text), and the paths whose blobs are missing.
pub type CppSources = (Vec<(String, String)>, Vec<String>);

/// A tag's tree, read from the cache.
pub struct PinnedTree {
    repo: Repository,
    tree: git2::Oid,
    /// Full commit id the tag points at.
    pub commit: String,
    pub tag: String,
    /// The repository as the user named it.
    pub origin: String,
    /// How the tree was reached: fetched, already cached, or read in place.
    pub how: Origin,
}

/// How a pinned tree was reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Fetched into the cache now.
    Fetched,
    /// The tag was already in the cache; nothing was fetched.
    Cached,
    /// A local repository, read where it is.
    Local,
}

impl PinnedTree {
    /// Opens `tag` of `repo` (a URL, or a path relative to `base`), fetching
    /// into the cache under `cache` unless the tag is already there.
    pub fn open(repo: &str, base: &Path, tag: &str, cache: &Path) -> Result<PinnedTree, SourceError> {
        // A local repository is read in place: nothing is copied, so only the
        // blobs knobs reads need to be present (a partial or size-limited
        // clone lacks some large files, and a full copy would fail on them).
        let local = base.join(repo);
        if !repo.contains("://") && local.exists() {
            let git = Repository::open_ext(&local, git2::RepositoryOpenFlags::NO_SEARCH, std::iter::empty::<&str>())
                .map_err(|e| SourceError::Unreachable { repo: repo.to_string(), message: e.message().to_string() })?;
            return PinnedTree::at_tag(git, repo, tag, Origin::Local);
        }
        let (git, from_cache) = open_cached(repo, base, tag, cache)?;
        PinnedTree::at_tag(git, repo, tag, if from_cache { Origin::Cached } else { Origin::Fetched })
    }

    fn at_tag(git: Repository, repo: &str, tag: &str, how: Origin) -> Result<PinnedTree, SourceError> {
        let (tree, commit) = match find_tag(&git, tag) {
            Some(c) => (c.tree_id(), c.id().to_string()),
            None => {
                return Err(SourceError::TagNotFound {
                    tag: tag.to_string(),
                    repo: repo.to_string(),
                    nearest: nearest_tags(&git, tag),
                })
            }
        };
        Ok(PinnedTree { repo: git, tree, commit, tag: tag.to_string(), origin: repo.to_string(), how })
    }

    /// The text of `path` at the tag, or `None` if it does not exist there.
    pub fn read(&self, path: &str) -> Result<Option<String>, SourceError> {
        let tree = self.repo.find_tree(self.tree)?;
        let entry = match tree.get_path(Path::new(path)) {
            Ok(e) => e,
            Err(e) if e.code() == git2::ErrorCode::NotFound => return Ok(None),
            Err(e) => return Err(e.into()),
        };
        if entry.kind() != Some(ObjectType::Blob) {
            return Ok(None);
        }
        let blob = self.repo.find_blob(entry.id()).map_err(|e| {
            if e.code() == git2::ErrorCode::NotFound {
                SourceError::MissingObject {
                    path: path.to_string(),
                    tag: self.tag.clone(),
                    repo: self.origin.clone(),
                    id: entry.id().to_string(),
                }
            } else {
                e.into()
            }
        })?;
        Ok(Some(String::from_utf8_lossy(blob.content()).into_owned()))
    }

    /// Like `read`, but a missing file is an error.
    pub fn require(&self, path: &str) -> Result<String, SourceError> {
        self.read(path)?.ok_or_else(|| SourceError::MissingFile {
            path: path.to_string(),
            tag: self.tag.clone(),
            repo: self.origin.clone(),
        })
    }

    /// Every C/C++ source file at the tag under the size cap, as (path,
    /// text), and the paths whose blobs the repository lacks (a partial
    /// clone): those are skipped, not fatal. With `under` given, only files
    /// at or below those paths are read (`tools/server/`, `src/metrics.cpp`).
    pub fn cpp_sources(&self, under: &[String]) -> Result<CppSources, SourceError> {
        let root = self.repo.find_tree(self.tree)?;
        let mut out = Vec::new();
        let mut missing = Vec::new();
        let mut starts: Vec<(String, git2::Tree<'_>)> = Vec::new();
        if under.is_empty() {
            starts.push((String::new(), root));
        } else {
            for u in under {
                let path = u.trim_matches('/');
                let entry = match root.get_path(Path::new(path)) {
                    Ok(e) => e,
                    Err(e) if e.code() == git2::ErrorCode::NotFound => continue,
                    Err(e) => return Err(e.into()),
                };
                match entry.kind() {
                    Some(ObjectType::Tree) => starts.push((format!("{path}/"), self.repo.find_tree(entry.id())?)),
                    Some(ObjectType::Blob) => self.read_cpp(path, entry.id(), &mut out, &mut missing)?,
                    _ => {}
                }
            }
        }
        for (prefix, tree) in starts {
            let mut err = None;
            tree.walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
                let Ok(name) = entry.name() else { return git2::TreeWalkResult::Ok };
                if entry.kind() == Some(ObjectType::Blob) {
                    if let Err(e) = self.read_cpp(&format!("{prefix}{dir}{name}"), entry.id(), &mut out, &mut missing) {
                        err = Some(e);
                        return git2::TreeWalkResult::Abort;
                    }
                }
                git2::TreeWalkResult::Ok
            })?;
            if let Some(e) = err {
                return Err(e);
            }
        }
        out.sort();
        out.dedup_by(|a, b| a.0 == b.0);
        Ok((out, missing))
    }

    fn read_cpp(
        &self,
        path: &str,
        id: git2::Oid,
        out: &mut Vec<(String, String)>,
        missing: &mut Vec<String>,
    ) -> Result<(), SourceError> {
        let is_cpp =
            [".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".hxx", ".inc"].iter().any(|e| path.ends_with(e));
        if !is_cpp {
            return Ok(());
        }
        match self.repo.find_blob(id) {
            Ok(b) if b.size() <= MAX_BLOB && !b.is_binary() => {
                out.push((path.to_string(), String::from_utf8_lossy(b.content()).into_owned()))
            }
            Ok(_) => {}
            Err(e) if e.code() == git2::ErrorCode::NotFound => missing.push(path.to_string()),
            Err(e) => return Err(e.into()),
        }
        Ok(())
    }
}

fn nearest_tags(repo: &Repository, tag: &str) -> Vec<String> {
    let names = repo.tag_names(None).ok();
    let tags = names.iter().flat_map(|n| n.iter().filter_map(|t| t.ok().flatten())).map(str::to_string);
    crate::suggest::most_similar(tag, tags, 5)
}
