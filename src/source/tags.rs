//! Every tag of a repository at once, for a sync that builds an engine's
//! history: the repository opened once (a local one in place, a remote
//! through the cache), its tags with the commits they peel to, the ids of
//! the paths a profile names at a commit (cheap tree lookups, nothing
//! inflated), and a pinned tree of any of its tags for a worker that opened
//! the repository itself (git2's `Repository` is not `Sync`).
//!
//! Listing the tags is one function, `TaggedRepo::tags`: a remote's listing
//! (its ref list, without a fetch) goes there.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use git2::{ObjectType, Oid, Repository};

use super::cache::open_cached;
use super::chain::PackIndex;
use super::error::SourceError;
use super::tree::{Origin, PinnedTree};

/// A tag and the commit it points at (its full id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagRef {
    pub name: String,
    pub commit: String,
}

/// A repository opened for reading many tags: where its git folder is (each
/// worker opens its own reader there), and how it was reached.
#[derive(Debug, Clone)]
pub struct TaggedRepo {
    git_dir: PathBuf,
    /// The repository as the user named it, credentials removed.
    pub origin: String,
    pub how: Origin,
    /// Read in place: its pack indexes, loaded once for every tag.
    chain: Option<Arc<PackIndex>>,
}

/// One worker's handle on a `TaggedRepo` (git2's `Repository` is not
/// `Sync`: each thread opens its own).
pub struct TagReader {
    git: Option<Repository>,
    origin: String,
    how: Origin,
    chain: Option<Arc<PackIndex>>,
}

impl TaggedRepo {
    /// Opens `repo` (a URL, or a path relative to `base`): a local
    /// repository in place; a remote through the cache under `cache`, into
    /// which the tags `wanted` are fetched (each at depth 1, those not
    /// there yet, or all of them with `refresh`).
    pub fn open(
        repo: &str,
        base: &Path,
        cache: &Path,
        refresh: bool,
        wanted: &[String],
    ) -> Result<TaggedRepo, SourceError> {
        let origin = super::redact::redact(repo);
        let local = base.join(repo);
        let (git, how, chain) = if !repo.contains("://") && local.exists() {
            let git = Repository::open_ext(&local, git2::RepositoryOpenFlags::NO_SEARCH, std::iter::empty::<&str>())
                .map_err(|e| SourceError::Unreachable { repo: origin.clone(), message: e.message().to_string() })?;
            let chain = super::tree::in_place(&git);
            (git, Origin::Local, chain)
        } else {
            let (git, fetched) = open_cached(repo, base, wanted, cache, refresh).map_err(SourceError::redacted)?;
            (git, if fetched.is_some() { Origin::Fetched } else { Origin::Cached }, None)
        };
        Ok(TaggedRepo { git_dir: git.path().to_path_buf(), origin, how, chain })
    }

    /// A reader of its own, for one worker.
    pub fn reader(&self) -> Result<TagReader, SourceError> {
        let git = Repository::open(&self.git_dir)
            .map_err(|e| SourceError::Unreachable { repo: self.origin.clone(), message: e.message().to_string() })?;
        Ok(TagReader { git: Some(git), origin: self.origin.clone(), how: self.how, chain: self.chain.clone() })
    }
}

impl TagReader {
    fn git(&self) -> Result<&Repository, SourceError> {
        self.git.as_ref().ok_or_else(|| SourceError::Unreachable {
            repo: self.origin.clone(),
            message: "a pinned tree of this reader was not given back".into(),
        })
    }

    /// What each path is at the tag: its object's id (a blob's, or a
    /// folder's tree id; `""` or `/` is the root), or `None` when nothing
    /// is there. Tree lookups only: nothing is inflated.
    pub fn path_ids(&self, tag: &TagRef, paths: &[String]) -> Result<Vec<Option<String>>, SourceError> {
        let git = self.git()?;
        let tree = git.find_commit(Oid::from_str(&tag.commit)?)?.tree()?;
        let mut out = Vec::with_capacity(paths.len());
        for p in paths {
            let trimmed = p.trim_end_matches('/');
            if trimmed.is_empty() {
                out.push(Some(tree.id().to_string()));
                continue;
            }
            match tree.get_path(Path::new(trimmed)) {
                Ok(e) if matches!(e.kind(), Some(ObjectType::Blob | ObjectType::Tree)) => {
                    out.push(Some(e.id().to_string()))
                }
                Ok(_) => out.push(None),
                Err(e) if e.code() == git2::ErrorCode::NotFound => out.push(None),
                Err(e) => return Err(e.into()),
            }
        }
        Ok(out)
    }

    /// The pinned tree of `tag`; give it back (`restore`) to read the next.
    pub fn pinned(&mut self, tag: &TagRef) -> Result<PinnedTree, SourceError> {
        let git = self.git.take().ok_or_else(|| SourceError::Unreachable {
            repo: self.origin.clone(),
            message: "a pinned tree of this reader was not given back".into(),
        })?;
        let commit = Oid::from_str(&tag.commit)?;
        let found = git.find_commit(commit).and_then(|c| c.tree()).map(|t| t.id());
        let tree = match found {
            Ok(t) => t,
            Err(e) => {
                self.git = Some(git);
                return Err(e.into());
            }
        };
        Ok(PinnedTree::at_tree(git, &tag.name, commit, tree, &self.origin, self.how, self.chain.clone()))
    }

    /// Takes back the repository of a tree `pinned` gave out.
    pub fn restore(&mut self, tree: PinnedTree) {
        self.git = Some(tree.into_git());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn commit(git: &Repository, files: &[(&str, &str)], tag: &str) -> Oid {
        let mut root = git.treebuilder(None).expect("tb");
        let mut core = git.treebuilder(None).expect("tb");
        for (name, text) in files {
            let blob = git.blob(text.as_bytes()).expect("blob");
            core.insert(name, blob, 0o100644).expect("insert");
        }
        root.insert("core", core.write().expect("core"), 0o040000).expect("insert");
        let tree = git.find_tree(root.write().expect("root")).expect("tree");
        let sig = git2::Signature::new("t", "t@t.invalid", &git2::Time::new(1, 0)).expect("sig");
        let id = git.commit(None, &sig, &sig, tag, &tree, &[]).expect("commit");
        let obj = git.find_object(id, None).expect("obj");
        git.tag(tag, &obj, &sig, tag, false).expect("annotated");
        id
    }

    #[test]
    fn paths_name_their_objects_and_one_tree_is_out_at_a_time() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let git = Repository::init_bare(tmp.path().join("r.git")).expect("init");
        let one = commit(&git, &[("config.cpp", "a")], "t1").to_string();
        let two = commit(&git, &[("config.cpp", "a"), ("config.h", "b")], "t2").to_string();
        let repo = TaggedRepo::open("r.git", tmp.path(), &tmp.path().join("cache"), false, &[]).expect("open");
        assert_eq!(repo.how, Origin::Local);
        let mut reader = repo.reader().expect("reader");
        // The tags as a sync's listing (`listing::list_tags`) gives them.
        let tags = [TagRef { name: "t1".into(), commit: one }, TagRef { name: "t2".into(), commit: two.clone() }];
        let paths = ["core/config.cpp".to_string(), "core/config.h".to_string(), "core/".to_string()];
        let a = reader.path_ids(&tags[0], &paths).expect("ids");
        let b = reader.path_ids(&tags[1], &paths).expect("ids");
        assert_eq!(a[0], b[0], "the same blob at both tags");
        assert!(a[1].is_none() && b[1].is_some(), "config.h only at t2");
        assert!(a[2].is_some() && a[2] != b[2], "the folder's tree differs");
        let tree = reader.pinned(&tags[1]).expect("pinned");
        assert_eq!(tree.read("core/config.h").expect("read").as_deref(), Some("b"));
        assert_eq!(tree.commit, two);
        assert!(reader.pinned(&tags[0]).is_err(), "one tree out at a time");
        reader.restore(tree);
        assert!(reader.pinned(&tags[0]).is_ok());
        // Read in place, the pack indexes are loaded once for the repository:
        // every reader (and every tag's tree) shares them.
        let (first, second) = (repo.reader().expect("reader"), repo.reader().expect("reader"));
        let shared = |r: &TagReader| r.chain.as_ref().zip(repo.chain.as_ref()).is_some_and(|(a, b)| Arc::ptr_eq(a, b));
        assert!(shared(&first) && shared(&second));
    }
}
