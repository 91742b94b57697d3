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
use super::local::local_tags;
use super::refs::{Listed, Transfer};

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
/// `--repo` takes it), sorted by name, each with the commit it peels to,
/// and the names git refuses as reference names, passed over.
/// A remote's come from the ref list it sends on connecting: nothing is
/// fetched, nothing is written to the cache. Errors name the repository
/// with the userinfo of its URL removed.
pub fn list_tags(repo: &str, base: &Path) -> Result<Listed, SourceError> {
    let url = fetch_url(repo, base);
    let listed = match in_place(repo, base) {
        Some(git) => git.and_then(|git| local_tags(&git)),
        None => match no_such_path(repo, base, &url) {
            Some(e) => Err(e),
            // libgit2's local transport fails on a name git refuses.
            None => match super::local::source(&url) {
                Some(git) => local_tags(&git),
                None => list(&url, repo),
            },
        },
    };
    listed.map_err(SourceError::redacted)
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
