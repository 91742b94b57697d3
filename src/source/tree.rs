//! A tag's tree: opened in place (a local repository) or from the cache,
//! then read blob by blob, never checked out.

use std::path::Path;
use std::sync::Arc;

use git2::{ObjectType, Repository};

use super::cache::{find_tag, open_cached};
use super::ceiling::{MAX_INFLATED, MAX_OBJECT};
use super::chain::PackIndex;
use super::error::SourceError;
use super::refs::Transfer;

/// Largest file read from the tree: a file the profile names that is bigger
/// is an error, a C++ file met in a walk is passed over with a note.
pub const MAX_FILE: usize = 4 * 1024 * 1024;

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
    /// What was fetched to reach it (`None` unless `how` is `Fetched`).
    pub fetched: Option<Transfer>,
    /// A repository read in place: its pack indexes, to judge an object
    /// by its delta chain before it is read (loaded once per repository).
    chain: Option<Arc<PackIndex>>,
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
    /// that tag alone at depth 1 into the cache under `cache` unless it is
    /// already there — or, with `refresh`, always: a tag already cached is
    /// never checked again otherwise, so one moved upstream is seen only
    /// after a refresh. A tag the remote lacks is said so, with its nearest
    /// tags from the remote's ref list, before anything is fetched.
    /// The repository is reported (as `origin`, and in every error) with the
    /// userinfo of its URL removed: a token in `--repo` is never shown.
    pub fn open(repo: &str, base: &Path, tag: &str, cache: &Path, refresh: bool) -> Result<PinnedTree, SourceError> {
        let mut tree = PinnedTree::open_named(repo, base, tag, cache, refresh).map_err(SourceError::redacted)?;
        tree.origin = super::redact::redact(&tree.origin);
        Ok(tree)
    }

    fn open_named(repo: &str, base: &Path, tag: &str, cache: &Path, refresh: bool) -> Result<PinnedTree, SourceError> {
        // A local repository is read in place: nothing is copied, so only the
        // blobs knobs reads need to be present (a partial or size-limited
        // clone lacks some large files, and a full copy would fail on them).
        let local = base.join(repo);
        if !repo.contains("://") && local.exists() {
            let git = Repository::open_ext(&local, git2::RepositoryOpenFlags::NO_SEARCH, std::iter::empty::<&str>())
                .map_err(|e| SourceError::Unreachable { repo: repo.to_string(), message: e.message().to_string() })?;
            let chain = in_place(&git);
            return Ok(PinnedTree { chain, ..PinnedTree::at_tag(git, repo, tag, Origin::Local)? });
        }
        let (git, fetched) = open_cached(repo, base, &[tag.to_string()], cache, refresh)?;
        let how = if fetched.is_some() { Origin::Fetched } else { Origin::Cached };
        Ok(PinnedTree { fetched, ..PinnedTree::at_tag(git, repo, tag, how)? })
    }

    fn at_tag(git: Repository, repo: &str, tag: &str, how: Origin) -> Result<PinnedTree, SourceError> {
        let (tree, commit) = match find_tag(&git, tag) {
            Some(c) => (c.tree_id(), c.id().to_string()),
            // A tag that names a tree or a blob is there, but has no commit.
            None if git.find_reference(&format!("refs/tags/{tag}")).is_ok() => {
                let kind = git
                    .find_reference(&format!("refs/tags/{tag}"))
                    .and_then(|r| r.peel(ObjectType::Any))
                    .ok()
                    .and_then(|o| o.kind())
                    .map_or("an object", |k| match k {
                        ObjectType::Tree => "a tree",
                        ObjectType::Blob => "a blob",
                        ObjectType::Tag => "a tag",
                        _ => "an object",
                    });
                return Err(SourceError::TagNotACommit { tag: tag.to_string(), repo: repo.to_string(), kind });
            }
            None => {
                return Err(SourceError::TagNotFound {
                    tag: tag.to_string(),
                    repo: repo.to_string(),
                    nearest: nearest_tags(&git, tag),
                })
            }
        };
        Ok(PinnedTree {
            repo: git,
            tree,
            commit,
            tag: tag.to_string(),
            origin: repo.to_string(),
            how,
            fetched: None,
            chain: None,
        })
    }

    /// The text of `path` at the tag, or `None` if it does not exist there;
    /// a file over `MAX_FILE` is an error (its size is read, not its bytes).
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
        let missing = || SourceError::MissingObject {
            path: path.to_string(),
            tag: self.tag.clone(),
            repo: self.origin.clone(),
            id: entry.id().to_string(),
        };
        // The size first, from the object's header: a file the profile names
        // is never inflated past the cap.
        let (size, _) = self.header(entry.id())?.ok_or_else(missing)?;
        if size > MAX_FILE {
            return Err(SourceError::TooLarge {
                path: path.to_string(),
                tag: self.tag.clone(),
                repo: self.origin.clone(),
                size,
                cap: MAX_FILE,
            });
        }
        self.judge_chain(path, entry.id())?;
        let blob = self.repo.find_blob(entry.id()).map_err(|e| {
            if e.code() == git2::ErrorCode::NotFound {
                missing()
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

    /// The repository (for the walk in `sources.rs`).
    pub(super) fn git(&self) -> &Repository {
        &self.repo
    }

    /// The tag's root tree.
    pub(super) fn root(&self) -> Result<git2::Tree<'_>, SourceError> {
        Ok(self.repo.find_tree(self.tree)?)
    }

    /// An object's size and kind, read from its header: nothing is inflated,
    /// so a 200 MB blob costs nothing to turn away. `None` when the
    /// repository lacks the object.
    pub(super) fn header(&self, id: git2::Oid) -> Result<Option<(usize, ObjectType)>, SourceError> {
        match self.repo.odb()?.read_header(id) {
            Ok(h) => Ok(Some(h)),
            Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
            Err(e) => Err(e.into()),
        }
    }
}

/// The pack indexes of a repository read in place, loaded once.
pub(super) fn in_place(git: &Repository) -> Option<Arc<PackIndex>> {
    Some(Arc::new(PackIndex::open(git.path(), super::local::MAX_INDEX)))
}

impl PinnedTree {
    /// Refuses `id` at `path` when rebuilding it from its delta chain would
    /// inflate more than one object may (a small blob stored as a delta of a
    /// huge base declares its own size only): a link over the ceiling of
    /// one object (what is held at once), or links over the ceiling of a
    /// fetch in all (what is rebuilt; a real chain of 50 versions of a
    /// 4 MiB file stays far under it). Only a repository read in place is
    /// judged: the cache holds what a fetch let past its ceilings.
    pub(super) fn judge_chain(&self, path: &str, id: git2::Oid) -> Result<(), SourceError> {
        let Some(cost) = self.chain.as_ref().and_then(|c| c.chain(id)) else { return Ok(()) };
        let over = if cost.largest > MAX_OBJECT {
            Some((cost.largest, MAX_OBJECT))
        } else if cost.total > MAX_INFLATED {
            Some((cost.total, MAX_INFLATED))
        } else {
            None
        };
        match over {
            Some((cost, cap)) => Err(SourceError::Inflates {
                path: path.to_string(),
                tag: self.tag.clone(),
                repo: self.origin.clone(),
                cost,
                cap,
            }),
            None => Ok(()),
        }
    }
}

fn nearest_tags(repo: &Repository, tag: &str) -> Vec<String> {
    let names = repo.tag_names(None).ok();
    let tags = names.iter().flat_map(|n| n.iter().filter_map(|t| t.ok().flatten())).map(str::to_string);
    crate::suggest::most_similar(tag, tags, 5)
}

impl PinnedTree {
    /// The tree `tree` of `commit`, tagged `tag`, read through `git` (a
    /// repository opened for many tags: `tags.rs`).
    pub(super) fn at_tree(
        git: Repository,
        tag: &str,
        commit: git2::Oid,
        tree: git2::Oid,
        origin: &str,
        how: Origin,
        chain: Option<Arc<PackIndex>>,
    ) -> PinnedTree {
        PinnedTree {
            repo: git,
            tree,
            commit: commit.to_string(),
            tag: tag.to_string(),
            origin: origin.to_string(),
            how,
            fetched: None,
            chain,
        }
    }

    /// The repository back, for the next tag a reader reads.
    pub(super) fn into_git(self) -> Repository {
        self.repo
    }
}
