//! Many tags at once, for a sync of a whole history: the tags a repository
//! has (a remote's read from its ref list, nothing fetched; a local one's
//! from its refs), and the fetch of a chosen set of them into the cache,
//! each at depth 1, in one fetch. After it, [`PinnedTree::open`] of each
//! of those tags reads it from the cache without fetching again.
//!
//! [`PinnedTree::open`]: super::PinnedTree::open

use std::path::Path;

use git2::Repository;

use super::cache::{no_such_path, open_cached};
use super::error::SourceError;
use super::fetch::{fetch_url, list};
use super::refs::{RemoteTag, Transfer};

/// A repository the user named that is read in place (an existing local
/// path, not a URL), opened; `None` for one reached through the cache.
fn in_place(repo: &str, base: &Path) -> Option<Result<Repository, SourceError>> {
    let local = base.join(repo);
    (!repo.contains("://") && local.exists()).then(|| {
        Repository::open_ext(&local, git2::RepositoryOpenFlags::NO_SEARCH, std::iter::empty::<&str>())
            .map_err(|e| SourceError::Unreachable { repo: repo.to_string(), message: e.message().to_string() })
    })
}

/// Every tag of `repo` (a URL, or a path relative to `base`, as
/// `--repo` takes it), sorted by name, each with the commit it peels to.
/// A remote's come from the ref list it sends on connecting: nothing is
/// fetched, nothing is written to the cache. Errors name the repository
/// with the userinfo of its URL removed.
pub fn list_tags(repo: &str, base: &Path) -> Result<Vec<RemoteTag>, SourceError> {
    let url = fetch_url(repo, base);
    let listed = match in_place(repo, base) {
        Some(git) => git.and_then(|git| local_tags(&git)),
        None => match no_such_path(repo, base, &url) {
            Some(e) => Err(e),
            None => list(&url, repo),
        },
    };
    listed.map_err(SourceError::redacted)
}

/// The tags of a local repository, peeled as a server would list them.
fn local_tags(git: &Repository) -> Result<Vec<RemoteTag>, SourceError> {
    let mut tags = Vec::new();
    for r in git.references_glob("refs/tags/*")? {
        let r = r?;
        let Some(name) = r.name().ok().and_then(|n| n.strip_prefix("refs/tags/")) else { continue };
        let id = r.peel(git2::ObjectType::Commit).map(|c| c.id()).ok().or_else(|| r.target());
        if let Some(id) = id {
            tags.push(RemoteTag { name: name.to_string(), commit: id.to_string() });
        }
    }
    tags.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(tags)
}

/// Makes sure each of `tags` of `repo` is in the cache under `cache` (as
/// `--repo` takes it; `cache` is [`cache_root`](super::cache_root) unless
/// a test says otherwise): those not there yet are fetched, each at depth
/// 1, in one fetch of many refspecs — with `refresh`, all of them. What was
/// fetched comes back; `None` when nothing was, and for a local
/// repository (read in place: nothing to fetch). A tag the remote lacks is
/// an error naming its nearest tags, and nothing is fetched.
pub fn fetch_tags(
    repo: &str,
    base: &Path,
    cache: &Path,
    tags: &[String],
    refresh: bool,
) -> Result<Option<Transfer>, SourceError> {
    if let Some(git) = in_place(repo, base) {
        git.map_err(SourceError::redacted)?;
        return Ok(None);
    }
    let (_, transfer) = open_cached(repo, base, tags, cache, refresh).map_err(SourceError::redacted)?;
    Ok(transfer)
}
