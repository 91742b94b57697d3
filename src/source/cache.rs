//! The bare cache that remote repositories are fetched into: one folder per
//! repository holding the tags synced so far, each fetched at depth 1 when
//! first asked for; one sync at a time per folder (a lock), a corrupt folder
//! moved aside and fetched afresh, and the leftovers of killed syncs
//! removed when no sync can be using them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use git2::Repository;

use super::error::SourceError;
use super::fetch::{fetch, fetch_url, Fetched};
use super::refs::{nearest, Transfer};

/// A temporary folder in the cache whose owner cannot be told (left by an
/// older knobs) is removed once it is this old.
const STALE_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// Where fetched repositories are cached: `$KNOBS_CACHE_DIR`, or the user
/// cache directory.
pub fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("KNOBS_CACHE_DIR") {
        return PathBuf::from(dir);
    }
    dirs::cache_dir().unwrap_or_else(std::env::temp_dir).join("knobs")
}

/// A stable, short name for a repository's cache folder.
fn cache_name(url: &str) -> String {
    // FNV-1a: stable across runs and platforms, no extra dependency.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in url.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    let stem: String = url
        .trim_end_matches('/')
        .trim_end_matches(".git")
        .rsplit(['/', ':', '\\'])
        .next()
        .unwrap_or("repo")
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    format!("{}-{hash:016x}.git", if stem.is_empty() { "repo" } else { &stem })
}

/// How a tag asked for stands in the cache.
#[derive(PartialEq)]
enum Held {
    /// Its commit and root tree can be read.
    Healthy,
    /// Not fetched yet.
    Absent,
    /// Its ref is there but its objects cannot be read.
    Broken,
}

fn held(repo: &Repository, tag: &str) -> Held {
    if healthy_at(repo, tag) {
        Held::Healthy
    } else if repo.find_reference(&format!("refs/tags/{tag}")).is_err() {
        Held::Absent
    } else {
        Held::Broken
    }
}

/// The cached repository for `repo` (a URL, or a path relative to `base`)
/// with each of `tags` in it: those not there yet are fetched, each at
/// depth 1, in one fetch (with `refresh`, all of them, in any case: a tag
/// moved upstream is updated). What was fetched comes back, `None` when
/// nothing was. A tag the remote lacks is an error naming the remote's
/// nearest tags, read from its ref list; nothing is fetched then.
pub(super) fn open_cached(
    repo: &str,
    base: &Path,
    tags: &[String],
    cache: &Path,
    refresh: bool,
) -> Result<(Repository, Option<Transfer>), SourceError> {
    let url = fetch_url(repo, base);
    // A path that does not exist is said so before anything is made in
    // the cache for it.
    if let Some(e) = no_such_path(repo, base, &url) {
        return Err(e);
    }
    let name = cache_name(&url);
    let dir = cache.join("repos").join(&name);
    let cache_err = |e: std::io::Error| SourceError::Cache { path: dir.clone(), message: e.to_string() };
    let parent = dir.parent().unwrap_or(cache).to_path_buf();
    std::fs::create_dir_all(&parent).map_err(cache_err)?;
    // One sync at a time per cached repository: a second waits here.
    let locks = cache.join("locks");
    std::fs::create_dir_all(&locks).map_err(cache_err)?;
    let lock = std::fs::File::create(locks.join(format!("{name}.lock"))).map_err(cache_err)?;
    lock.lock().map_err(cache_err)?;
    remove_leftovers(&parent, &locks, &name);
    let fetched = |dir: &Path, wanted: &[String]| match fetch(dir, &url, repo, wanted)? {
        Fetched::Done(transfer) => Ok(transfer),
        Fetched::Lacks { tag, listed } => {
            Err(SourceError::TagNotFound { nearest: nearest(&tag, &listed), tag, repo: repo.to_string() })
        }
    };
    let opened = Repository::open_bare(&dir);
    let standing: Vec<Held> =
        opened.as_ref().map(|git| tags.iter().map(|t| held(git, t)).collect()).unwrap_or_default();
    let (git, transfer) = match opened {
        Ok(git) if !refresh && standing.iter().all(|h| *h == Held::Healthy) => (git, None),
        Ok(git) if !standing.contains(&Held::Broken) => {
            drop(git);
            let wanted: Vec<String> = tags
                .iter()
                .zip(&standing)
                .filter(|(_, h)| refresh || **h == Held::Absent)
                .map(|(t, _)| t.clone())
                .collect();
            let transfer = fetched(&dir, &wanted)?;
            (Repository::open_bare(&dir)?, Some(transfer))
        }
        opened => {
            // Missing, unreadable or corrupt (a tag's objects cannot be
            // read): moved aside and fetched afresh.
            if opened.is_ok() || dir.exists() {
                let aside = parent.join(format!(".corrupt-{name}-{}", std::process::id()));
                std::fs::rename(&dir, &aside).map_err(cache_err)?;
                let _ = std::fs::remove_dir_all(&aside);
            }
            // Fetched into a fresh folder, then moved into place, so an
            // interrupted fetch never leaves a half cache behind. Its name
            // says whose it is, so a later sync can tell when it is stale.
            let tmp =
                tempfile::Builder::new().prefix(&format!(".fetch-{name}-")).tempdir_in(&parent).map_err(cache_err)?;
            drop(Repository::init_bare(tmp.path())?);
            let transfer = fetched(tmp.path(), tags)?;
            let staged = tmp.keep();
            std::fs::rename(&staged, &dir).map_err(cache_err)?;
            (Repository::open_bare(&dir)?, Some(transfer))
        }
    };
    drop(lock);
    Ok((git, transfer))
}

/// The error for `repo` (`url` once resolved) when it names a local path
/// (plain or `file://`) that does not exist.
pub(super) fn no_such_path(repo: &str, base: &Path, url: &str) -> Option<SourceError> {
    let missing = match url.strip_prefix("file://") {
        Some(path) if path.starts_with('/') => Some(PathBuf::from(path)),
        Some(_) => None,
        None if !url.contains("://") => Some(base.join(repo)),
        None => None,
    };
    missing.filter(|p| !p.exists()).map(|path| SourceError::NoSuchPath { repo: repo.to_string(), path })
}

/// Removes the temporary folders (`.fetch-<name>-*`, `.corrupt-<name>-*`)
/// that killed syncs left in the cache's `repos` folder, only when no sync
/// can be using them: `own`'s while its lock is held (the caller holds it),
/// another repository's when its lock can be taken now, and one whose owner
/// cannot be told (an older knobs named them `.fetch-XXXXXX`) once it is a
/// day old. Failures are ignored: a folder left now is tried next time.
fn remove_leftovers(repos: &Path, locks: &Path, own: &str) {
    let Ok(entries) = std::fs::read_dir(repos) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(".fetch-").or_else(|| n.strip_prefix(".corrupt-")))
        else {
            continue;
        };
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        // A cache name is `<stem>-<hash>.git`, its stem free of dots.
        let owner = rest.find(".git-").map(|i| &rest[..i + 4]);
        // The other repository's lock, held while its folder is removed.
        let mut held = None;
        let stale = match owner {
            Some(owner) if owner == own => true,
            Some(owner) => {
                held = std::fs::OpenOptions::new()
                    .write(true)
                    .open(locks.join(format!("{owner}.lock")))
                    .ok()
                    .filter(|lock| lock.try_lock().is_ok());
                held.is_some()
            }
            None => {
                entry.metadata().and_then(|m| m.modified()).is_ok_and(|t| t.elapsed().is_ok_and(|age| age >= STALE_AGE))
            }
        };
        if stale {
            let _ = std::fs::remove_dir_all(entry.path());
        }
        drop(held);
    }
}

/// True when the cache has the tag and its commit and root tree can be read.
fn healthy_at(repo: &Repository, tag: &str) -> bool {
    find_tag(repo, tag).is_some_and(|c| c.tree().is_ok())
}

/// The commit `tag` points at, when the repository has both.
pub(super) fn find_tag<'r>(repo: &'r Repository, tag: &str) -> Option<git2::Commit<'r>> {
    let r = repo.find_reference(&format!("refs/tags/{tag}")).ok()?;
    r.peel_to_commit().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftovers_go_only_when_no_sync_can_be_using_them() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (repos, locks) = (tmp.path().join("repos"), tmp.path().join("locks"));
        let (own, busy, idle) = (cache_name("/a/own"), cache_name("/a/busy"), cache_name("/a/idle"));
        for name in [
            format!(".fetch-{own}-aaaaaa"),
            format!(".corrupt-{own}-12"),
            format!(".fetch-{busy}-bbbbbb"),
            format!(".fetch-{idle}-cccccc"),
            ".fetch-oldold".to_string(),
            ".fetch-newnew".to_string(),
            own.clone(),
        ] {
            std::fs::create_dir_all(repos.join(name).join("objects")).expect("mkdir");
        }
        std::fs::create_dir_all(&locks).expect("mkdir");
        let busy_lock = std::fs::File::create(locks.join(format!("{busy}.lock"))).expect("lock");
        busy_lock.lock().expect("lock");
        std::fs::File::create(locks.join(format!("{idle}.lock"))).expect("lock");
        let two_days = std::time::SystemTime::now() - Duration::from_secs(2 * 24 * 60 * 60);
        std::fs::File::open(repos.join(".fetch-oldold")).and_then(|f| f.set_modified(two_days)).expect("age");
        remove_leftovers(&repos, &locks, &own);
        let mut left: Vec<String> = std::fs::read_dir(&repos)
            .expect("repos")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, [format!(".fetch-{busy}-bbbbbb"), ".fetch-newnew".to_string(), own]);
    }

    #[test]
    fn cache_names_are_stable_and_distinct() {
        assert_eq!(
            cache_name("https://example.org/eng/radiance.git"),
            cache_name("https://example.org/eng/radiance.git")
        );
        assert_ne!(cache_name("/a/radiance"), cache_name("/b/radiance"));
        assert!(cache_name("/a/radiance").starts_with("radiance-"));
    }
}
