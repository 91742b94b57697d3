//! Fetching a repository into a bare cache and reading files at a tag.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use git2::{FetchOptions, ObjectType, Repository};

/// Largest blob read from the tree; bigger files are skipped.
const MAX_BLOB: usize = 4 * 1024 * 1024;

/// A fetch that reports no progress for this many times `$KNOBS_GIT_TIMEOUT`
/// is abandoned (a server that keeps the connection busy without sending
/// anything useful, such as one header line a second).
const IDLE_FACTOR: u64 = 2;

/// No fetch runs longer than this many times `$KNOBS_GIT_TIMEOUT`, progress
/// or not (an hour at the default 30 s).
const OVERALL_FACTOR: u64 = 120;

/// A temporary folder in the cache whose owner cannot be told (left by an
/// older knobs) is removed once it is this old.
const STALE_AGE: Duration = Duration::from_secs(24 * 60 * 60);

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum SourceError {
    #[error("cannot read repository `{repo}`: {message}")]
    #[diagnostic(
        code(knobs::source::unreachable),
        help("check the URL or path; knobs fetches into a bare cache and never checks out")
    )]
    Unreachable { repo: String, message: String },
    #[error("cannot read repository `{repo}`: {} does not exist", path.display())]
    #[diagnostic(
        code(knobs::source::no_such_path),
        help("a local repository is read in place; a remote needs a URL (https://, ssh://, git://, file://) or host:org/repo")
    )]
    NoSuchPath { repo: String, path: PathBuf },
    #[error("cannot read repository `{repo}`: {message}")]
    #[diagnostic(
        code(knobs::source::deadline),
        help("KNOBS_GIT_TIMEOUT (seconds, default 30) sets the limits: a fetch is abandoned after {IDLE_FACTOR}× it without progress, and after {OVERALL_FACTOR}× it in all")
    )]
    Abandoned { repo: String, message: String },
    #[diagnostic(code(knobs::source::tag))]
    #[error("tag `{tag}` not found in `{repo}`{}", nearest_text(.nearest))]
    TagNotFound { tag: String, repo: String, nearest: Vec<String> },
    #[diagnostic(
        code(knobs::source::missing_file),
        help("set `config` under [extract] in knobs.toml if the help table lives elsewhere")
    )]
    #[error("`{path}` does not exist at {tag} in `{repo}`")]
    MissingFile { path: String, tag: String, repo: String },
    #[diagnostic(
        code(knobs::source::missing_object),
        help("the repository lacks this object (a partial, shallow or damaged clone?): fetch it, or sync from a complete remote")
    )]
    #[error("`{path}` at {tag} in `{repo}` cannot be read: its content ({id}) is not in the repository")]
    MissingObject { path: String, tag: String, repo: String, id: String },
    #[error("cache at {}: {message}", path.display())]
    Cache { path: PathBuf, message: String },
    #[error("git: {0}")]
    Git(#[from] git2::Error),
}

fn nearest_text(nearest: &[String]) -> String {
    if nearest.is_empty() {
        "; the repository has no tags".to_string()
    } else {
        format!("; nearest tags: {}", nearest.join(", "))
    }
}

/// Where fetched repositories are cached: `$KNOBS_CACHE_DIR`, or the user
/// cache directory.
pub fn cache_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("KNOBS_CACHE_DIR") {
        return PathBuf::from(dir);
    }
    dirs::cache_dir().unwrap_or_else(std::env::temp_dir).join("knobs")
}

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

/// A URL git2 can fetch: local paths become absolute, relative to `base`;
/// scp-like `git@host:org/repo` becomes `ssh://git@host/org/repo`.
fn fetch_url(repo: &str, base: &Path) -> String {
    let path = base.join(repo);
    if repo.contains("://") {
        return repo.to_string();
    }
    if let Some((host, rest)) = repo.split_once(':').filter(|_| !path.exists()) {
        if !host.contains('/') && !rest.starts_with("//") {
            return format!("ssh://{host}/{}", rest.trim_start_matches('/'));
        }
        return repo.to_string();
    }
    std::fs::canonicalize(&path)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| path.display().to_string())
}

/// Seconds a fetch may wait to connect, and for each answer
/// (`$KNOBS_GIT_TIMEOUT`, default 30).
pub fn timeout_secs() -> u32 {
    std::env::var("KNOBS_GIT_TIMEOUT").ok().and_then(|v| v.parse().ok()).filter(|s| *s > 0).unwrap_or(30)
}

/// Bounds libgit2's network waits (set once, before any fetch).
fn bound_network_waits() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let ms = i32::try_from(timeout_secs().saturating_mul(1000)).unwrap_or(i32::MAX);
        // SAFETY: these set libgit2's global options; they run once, before
        // any network operation of this process starts.
        unsafe {
            let _ = git2::opts::set_server_connect_timeout_in_milliseconds(ms);
            let _ = git2::opts::set_server_timeout_in_milliseconds(ms);
        }
    });
}

/// Credentials as git finds them: the ssh agent for ssh remotes, git's
/// credential helpers for https ones. Each is tried once.
fn credentials(repo: &Repository) -> git2::RemoteCallbacks<'static> {
    let config = repo.config().ok().and_then(|mut c| c.snapshot().ok()).or_else(|| git2::Config::open_default().ok());
    let mut tried = 0u8;
    let mut cb = git2::RemoteCallbacks::new();
    cb.credentials(move |url, username, allowed| {
        tried += 1;
        if tried > 3 {
            return Err(git2::Error::from_str(
                "no credentials were accepted (tried the ssh agent and git's credential helpers)",
            ));
        }
        if allowed.contains(git2::CredentialType::SSH_KEY) {
            return git2::Cred::ssh_key_from_agent(username.unwrap_or("git"));
        }
        if allowed.contains(git2::CredentialType::USER_PASS_PLAINTEXT) {
            if let Some(cfg) = &config {
                if let Ok(c) = git2::Cred::credential_helper(cfg, url, username) {
                    return Ok(c);
                }
            }
        }
        if allowed.contains(git2::CredentialType::USERNAME) {
            return git2::Cred::username(username.unwrap_or("git"));
        }
        git2::Cred::default()
    });
    cb
}

/// What the fetch thread reports and the caller watches: when progress was
/// last seen, and whether the caller has given up.
struct Watch {
    started: Instant,
    /// Milliseconds from `started` to the last progress report.
    last: AtomicU64,
    cancelled: AtomicBool,
}

impl Watch {
    fn new() -> Watch {
        Watch { started: Instant::now(), last: AtomicU64::new(0), cancelled: AtomicBool::new(false) }
    }

    fn progressed(&self) {
        let ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last.store(ms, Ordering::Relaxed);
    }

    fn idle(&self) -> Duration {
        self.started.elapsed().saturating_sub(Duration::from_millis(self.last.load(Ordering::Relaxed)))
    }

    fn go_on(&self) -> bool {
        !self.cancelled.load(Ordering::Relaxed)
    }
}

/// Fetches `url`'s tags and branches into the bare repository at `path`,
/// within the limits `$KNOBS_GIT_TIMEOUT` (T) sets: libgit2 bounds each
/// network wait by T; on top of that the fetch is abandoned when libgit2
/// reports no progress (bytes or objects received, deltas resolved, a
/// progress message from the server) for 2×T, counted from the start, or
/// when it has run for 120×T in all. Some stalls happen where libgit2 runs
/// no callback (a server dribbling HTTP headers), so the fetch runs on a
/// thread of its own: the caller stops waiting at the limit, and the thread,
/// told to stop, is left behind (the process ends soon after).
fn fetch(path: &Path, url: &str, origin: &str) -> Result<(), SourceError> {
    bound_network_waits();
    let watch = Arc::new(Watch::new());
    let (tx, rx) = mpsc::channel();
    let job = {
        let (path, url, origin, watch) = (path.to_path_buf(), url.to_string(), origin.to_string(), Arc::clone(&watch));
        move || {
            let _ = tx.send(fetch_now(&path, &url, &origin, &watch));
        }
    };
    std::thread::Builder::new().name("knobs-fetch".into()).spawn(job).map_err(|e| SourceError::Unreachable {
        repo: origin.to_string(),
        message: format!("cannot start the fetch: {e}"),
    })?;
    wait_for(&rx, &watch, &Limits::from_timeout(timeout_secs()), origin)
}

/// The limits on one fetch, from `$KNOBS_GIT_TIMEOUT` (`t`, seconds).
struct Limits {
    t: u64,
    idle: Duration,
    overall: Duration,
}

impl Limits {
    fn from_timeout(t: u32) -> Limits {
        let t = u64::from(t);
        Limits {
            t,
            idle: Duration::from_secs(t.saturating_mul(IDLE_FACTOR)),
            overall: Duration::from_secs(t.saturating_mul(OVERALL_FACTOR)),
        }
    }
}

/// Waits for the fetch thread's result, or gives up at a limit.
fn wait_for(
    rx: &mpsc::Receiver<Result<(), SourceError>>,
    watch: &Watch,
    limits: &Limits,
    origin: &str,
) -> Result<(), SourceError> {
    let t = limits.t;
    let abandoned = loop {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(result) => return result,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(SourceError::Unreachable {
                    repo: origin.to_string(),
                    message: "the fetch stopped without a result".into(),
                })
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        if watch.idle() >= limits.idle {
            break format!(
                "the fetch was abandoned after {} s without progress (the limit is {IDLE_FACTOR} × KNOBS_GIT_TIMEOUT = {IDLE_FACTOR} × {t} s)",
                t.saturating_mul(IDLE_FACTOR)
            );
        }
        if watch.started.elapsed() >= limits.overall {
            break format!(
                "the fetch was abandoned, still unfinished after {} s (the limit is {OVERALL_FACTOR} × KNOBS_GIT_TIMEOUT = {OVERALL_FACTOR} × {t} s)",
                t.saturating_mul(OVERALL_FACTOR)
            );
        }
    };
    // Told to stop, the thread does so at its next callback, which comes
    // soon if data is flowing: it is given a moment, so that it no longer
    // writes into the folder once this returns. One stuck where no callback
    // runs is left behind; the process ends soon after.
    watch.cancelled.store(true, Ordering::Relaxed);
    let _ = rx.recv_timeout(Duration::from_millis(250));
    Err(SourceError::Abandoned { repo: origin.to_string(), message: abandoned })
}

/// The fetch itself, on the fetch thread.
fn fetch_now(path: &Path, url: &str, origin: &str, watch: &Arc<Watch>) -> Result<(), SourceError> {
    let repo = Repository::open_bare(path)?;
    let unreachable =
        |e: git2::Error| SourceError::Unreachable { repo: origin.to_string(), message: e.message().to_string() };
    let mut remote = repo.remote_anonymous(url).map_err(unreachable)?;
    let mut callbacks = credentials(&repo);
    let mut seen = (0, 0, 0);
    let w = Arc::clone(watch);
    callbacks.transfer_progress(move |p| {
        let now = (p.received_bytes(), p.indexed_objects(), p.indexed_deltas());
        if now != seen {
            seen = now;
            w.progressed();
        }
        w.go_on()
    });
    let w = Arc::clone(watch);
    callbacks.sideband_progress(move |_| {
        w.progressed();
        w.go_on()
    });
    let mut opts = FetchOptions::new();
    opts.download_tags(git2::AutotagOption::All);
    opts.remote_callbacks(callbacks);
    remote.fetch(&["+refs/tags/*:refs/tags/*", "+refs/heads/*:refs/remotes/origin/*"], Some(&mut opts), None).map_err(
        |e| {
            let mut message = e.message().to_string();
            // A wait that ran out reads as a cryptic socket error: say which.
            let limit = u64::from(timeout_secs());
            if watch.started.elapsed().as_millis() + 200 >= u128::from(limit) * 1000 {
                message.push_str(&format!(" (no answer within {limit} s; KNOBS_GIT_TIMEOUT sets the limit)"));
            }
            SourceError::Unreachable { repo: origin.to_string(), message }
        },
    )
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

fn find_tag<'r>(repo: &'r Repository, tag: &str) -> Option<git2::Commit<'r>> {
    let r = repo.find_reference(&format!("refs/tags/{tag}")).ok()?;
    r.peel_to_commit().ok()
}

fn nearest_tags(repo: &Repository, tag: &str) -> Vec<String> {
    let names = repo.tag_names(None).ok();
    let tags = names.iter().flat_map(|n| n.iter().filter_map(|t| t.ok().flatten())).map(str::to_string);
    crate::suggest::most_similar(tag, tags, 5)
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
        let url = fetch_url(repo, base);
        // A path that does not exist is said so before anything is made in
        // the cache for it.
        let missing = match url.strip_prefix("file://") {
            Some(path) if path.starts_with('/') => Some(PathBuf::from(path)),
            Some(_) => None,
            None if !url.contains("://") => Some(local),
            None => None,
        };
        if let Some(path) = missing.filter(|p| !p.exists()) {
            return Err(SourceError::NoSuchPath { repo: repo.to_string(), path });
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
        let (git, from_cache) = match Repository::open_bare(&dir) {
            Ok(git) if healthy_at(&git, tag) => (git, true),
            Ok(git) if git.find_reference(&format!("refs/tags/{tag}")).is_err() => {
                drop(git);
                fetch(&dir, &url, repo)?;
                (Repository::open_bare(&dir)?, false)
            }
            opened => {
                // Missing, unreadable or corrupt (the tag's objects cannot be
                // read): moved aside and fetched afresh.
                if opened.is_ok() || dir.exists() {
                    let aside = parent.join(format!(".corrupt-{name}-{}", std::process::id()));
                    std::fs::rename(&dir, &aside).map_err(cache_err)?;
                    let _ = std::fs::remove_dir_all(&aside);
                }
                // Fetched into a fresh folder, then moved into place, so an
                // interrupted fetch never leaves a half cache behind. Its name
                // says whose it is, so a later sync can tell when it is stale.
                let tmp = tempfile::Builder::new()
                    .prefix(&format!(".fetch-{name}-"))
                    .tempdir_in(&parent)
                    .map_err(cache_err)?;
                drop(Repository::init_bare(tmp.path())?);
                fetch(tmp.path(), &url, repo)?;
                let staged = tmp.keep();
                std::fs::rename(&staged, &dir).map_err(cache_err)?;
                (Repository::open_bare(&dir)?, false)
            }
        };
        drop(lock);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scp_like_addresses_become_ssh_urls() {
        let here = Path::new("/nonexistent-base");
        assert_eq!(fetch_url("git@git.example:eng/radiance.git", here), "ssh://git@git.example/eng/radiance.git");
        assert_eq!(fetch_url("https://git.example/eng/radiance.git", here), "https://git.example/eng/radiance.git");
        assert_eq!(fetch_url("ssh://git@git.example:2222/eng/r.git", here), "ssh://git@git.example:2222/eng/r.git");
    }

    /// The overall cap holds even while progress goes on (the cap is shrunk
    /// for the test; the message gives the real rule).
    #[test]
    fn a_fetch_that_keeps_progressing_still_ends_at_the_overall_cap() {
        let watch = Arc::new(Watch::new());
        let (tx, rx) = mpsc::channel();
        let w = Arc::clone(&watch);
        let ticker = std::thread::spawn(move || {
            while w.go_on() {
                w.progressed();
                std::thread::sleep(Duration::from_millis(20));
            }
            drop(tx);
        });
        let limits = Limits { t: 2, idle: Duration::from_secs(60), overall: Duration::from_millis(500) };
        let started = Instant::now();
        let err = wait_for(&rx, &watch, &limits, "https://git.example/r.git").expect_err("abandoned");
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(
            err.to_string(),
            "cannot read repository `https://git.example/r.git`: the fetch was abandoned, still unfinished after 240 s (the limit is 120 × KNOBS_GIT_TIMEOUT = 120 × 2 s)"
        );
        // The fetch thread was told to stop.
        assert!(!watch.go_on());
        ticker.join().expect("ticker");
    }

    #[test]
    fn a_fetch_thread_that_ends_without_a_result_is_an_error() {
        let (tx, rx) = mpsc::channel::<Result<(), SourceError>>();
        drop(tx);
        let err = wait_for(&rx, &Watch::new(), &Limits::from_timeout(30), "r.git").expect_err("no result");
        assert_eq!(err.to_string(), "cannot read repository `r.git`: the fetch stopped without a result");
    }

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
