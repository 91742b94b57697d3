//! Talking to a remote, bounded in time (`$KNOBS_GIT_TIMEOUT`) and with
//! the credentials git would use: its ref list read on connecting, and a
//! fetch of the named tags only, each at depth 1, on that same connection.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use git2::{Direction, FetchOptions, Remote, Repository};

use super::error::{SourceError, IDLE_FACTOR, OVERALL_FACTOR};
use super::refs::{refspec, tags_of, Listed, RemoteTag, Transfer};

/// A URL git2 can fetch: local paths become absolute, relative to `base`;
/// scp-like `git@host:org/repo` becomes `ssh://git@host/org/repo`.
pub(super) fn fetch_url(repo: &str, base: &Path) -> String {
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
fn timeout_secs() -> u32 {
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
            // A pack's header that declares more objects is refused before
            // libgit2 sizes its tables by it.
            let max = libc_size(super::ceiling::MAX_OBJECTS);
            let _ = libgit2_sys::git_libgit2_opts(libgit2_sys::GIT_OPT_SET_PACK_MAX_OBJECTS as std::ffi::c_int, max);
        }
    });
}

/// A count as libgit2's `size_t`.
fn libc_size(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// Credentials as git finds them: the ssh agent for ssh remotes, git's
/// credential helpers for https ones. Each is tried once.
fn credentials(repo: Option<&Repository>) -> git2::RemoteCallbacks<'static> {
    let config = repo
        .and_then(|r| r.config().ok())
        .and_then(|mut c| c.snapshot().ok())
        .or_else(|| git2::Config::open_default().ok());
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

/// What a fetch of named tags came to.
pub(super) enum Fetched {
    /// The tags were fetched; this is what came.
    Done(Transfer),
    /// The remote lacks `tag` (the first such of those asked for): nothing
    /// was fetched. `listed` is every tag the remote has.
    Lacks { tag: String, listed: Vec<RemoteTag> },
}

/// Fetches the tags `tags` of `url` into the bare repository at `path`,
/// each at depth 1 (its commit and tree, no history) and nothing else: no
/// branch, no other tag. The remote's ref list, read on connecting, is
/// checked first: a tag it lacks is said so before anything is fetched.
/// A `file://` remote is copied at depth 1 by `local.rs` (libgit2's local
/// transport refuses depth; one that cannot be opened directly is fetched
/// through it, with the tag's history).
///
/// Bounded by the limits `$KNOBS_GIT_TIMEOUT` (T) sets: libgit2 bounds each
/// network wait by T; on top of that the fetch is abandoned when libgit2
/// reports no progress (bytes or objects received, deltas resolved, a
/// progress message from the server) for 2×T, counted from the start, or
/// when it has run for 120×T in all. Some stalls happen where libgit2 runs
/// no callback (a server dribbling HTTP headers), so the fetch runs on a
/// thread of its own: the caller stops waiting at the limit, and the thread,
/// told to stop, is left behind (the process ends soon after).
pub(super) fn fetch(path: &Path, url: &str, origin: &str, tags: &[String]) -> Result<Fetched, SourceError> {
    if tags.is_empty() {
        return Ok(Fetched::Done(Transfer::default()));
    }
    let (path, url, owner, tags) = (path.to_path_buf(), url.to_string(), origin.to_string(), tags.to_vec());
    bounded(origin, move |watch| fetch_now(&path, &url, &owner, &tags, watch))
}

/// The tags `url` lists, read from its ref list: nothing is fetched.
/// Bounded like [`fetch`].
pub(super) fn list(url: &str, origin: &str) -> Result<Listed, SourceError> {
    let (url, owner) = (url.to_string(), origin.to_string());
    bounded(origin, move |watch| {
        let mut remote = Remote::create_detached(url.as_str()).map_err(|e| unreachable(&owner, &e))?;
        let conn = remote
            .connect_auth(Direction::Fetch, Some(credentials(None)), None)
            .map_err(|e| network_error(&e, watch, &owner))?;
        let heads = conn.list().map_err(|e| unreachable(&owner, &e))?;
        Ok(tags_of(&heads.iter().map(|h| (h.name().to_string(), h.oid().to_string())).collect::<Vec<_>>()))
    })
}

/// Runs `job` on a thread of its own, within the limits (see [`fetch`]).
fn bounded<T: Send + 'static>(
    origin: &str,
    job: impl FnOnce(&Arc<Watch>) -> Result<T, SourceError> + Send + 'static,
) -> Result<T, SourceError> {
    bound_network_waits();
    let watch = Arc::new(Watch::new());
    let (tx, rx) = mpsc::channel();
    let job = {
        let watch = Arc::clone(&watch);
        move || {
            let _ = tx.send(job(&watch));
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
fn wait_for<T>(
    rx: &mpsc::Receiver<Result<T, SourceError>>,
    watch: &Watch,
    limits: &Limits,
    origin: &str,
) -> Result<T, SourceError> {
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

fn unreachable(origin: &str, e: &git2::Error) -> SourceError {
    SourceError::Unreachable { repo: origin.to_string(), message: e.message().to_string() }
}

/// A failed connection or fetch; a wait that ran out reads as a cryptic
/// socket error, so the message says which limit it met.
fn network_error(e: &git2::Error, watch: &Watch, origin: &str) -> SourceError {
    let mut message = e.message().to_string();
    let limit = u64::from(timeout_secs());
    if watch.started.elapsed().as_millis() + 200 >= u128::from(limit) * 1000 {
        message.push_str(&format!(" (no answer within {limit} s; KNOBS_GIT_TIMEOUT sets the limit)"));
    }
    SourceError::Unreachable { repo: origin.to_string(), message }
}

/// libgit2's local transport refuses a shallow fetch (a `file://` URL
/// whose repository opens is copied by `local.rs` instead).
fn local_transport(url: &str) -> bool {
    url.starts_with("file://") || !url.contains("://")
}

/// The first of `tags` that `listed` lacks, as the answer of a fetch.
fn lacking(tags: &[String], listed: Vec<RemoteTag>) -> Option<Fetched> {
    let names: std::collections::HashSet<&str> = listed.iter().map(|t| t.name.as_str()).collect();
    let tag = tags.iter().find(|t| !names.contains(t.as_str()))?.clone();
    Some(Fetched::Lacks { tag, listed })
}

/// The fetch itself, on the fetch thread: one connection, its ref list
/// read, then the tags fetched over it.
fn fetch_now(
    path: &Path,
    url: &str,
    origin: &str,
    tags: &[String],
    watch: &Arc<Watch>,
) -> Result<Fetched, SourceError> {
    let repo = Repository::open_bare(path)?;
    // A `file://` remote is copied at depth 1 by hand (libgit2's local
    // transport refuses depth, and fails on a tag name git refuses); one
    // that does not open is left to it.
    if let Some(src) = super::local::source(url) {
        let listed = super::local::local_tags(&src)?.tags;
        if let Some(lacks) = lacking(tags, listed) {
            return Ok(lacks);
        }
        let go_on = || {
            watch.progressed();
            watch.go_on()
        };
        return super::local::copy_tags(&src, &repo, tags, &go_on).map(Fetched::Done).map_err(|e| match e {
            super::local::CopyError::Git(e) => unreachable(origin, &e),
            super::local::CopyError::Ceiling(reached) => {
                SourceError::Ceiling { repo: origin.to_string(), message: reached.to_string() }
            }
        });
    }
    let mut remote = repo.remote_anonymous(url).map_err(|e| unreachable(origin, &e))?;
    let mut conn = remote
        .connect_auth(Direction::Fetch, Some(credentials(Some(&repo))), None)
        .map_err(|e| network_error(&e, watch, origin))?;
    let heads: Vec<(String, String)> = conn
        .list()
        .map_err(|e| unreachable(origin, &e))?
        .iter()
        .map(|h| (h.name().to_string(), h.oid().to_string()))
        .collect();
    if let Some(lacks) = lacking(tags, tags_of(&heads).tags) {
        return Ok(lacks);
    }
    let mut callbacks = credentials(Some(&repo));
    let mut seen = (0, 0, 0);
    let w = Arc::clone(watch);
    let reached = Arc::new(std::sync::Mutex::new(None));
    let stop = Arc::clone(&reached);
    let mut guard = super::guard::PackGuard::new(path);
    callbacks.transfer_progress(move |p| {
        let judged = super::ceiling::transfer(p.received_bytes() as u64, p.total_objects() as u64)
            .and_then(|()| guard.judge(p.received_objects(), p.total_objects()));
        if let Err(r) = judged {
            if let Ok(mut stop) = stop.lock() {
                *stop = Some(r);
            }
            return false;
        }
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
    // Only the tags asked for: none that happen to point into what comes.
    opts.download_tags(git2::AutotagOption::None);
    if !local_transport(url) {
        opts.depth(1);
    }
    // FETCH_HEAD would keep the URL (and any userinfo in it) in the cache.
    opts.update_fetchhead(false);
    opts.remote_callbacks(callbacks);
    let specs: Vec<String> = tags.iter().map(|t| refspec(t)).collect();
    let remote = conn.remote();
    let fetched = remote.fetch(&specs, Some(&mut opts), None);
    if let Some(r) = reached.lock().ok().and_then(|r| *r) {
        return Err(SourceError::Ceiling { repo: origin.to_string(), message: r.to_string() });
    }
    fetched.map_err(|e| match e.class() {
        // libgit2's own ceiling on a pack header's count (set above).
        git2::ErrorClass::Indexer if e.message().contains("too many objects") => SourceError::Ceiling {
            repo: origin.to_string(),
            message: format!("the pack declares more than the {} objects knobs takes", super::ceiling::MAX_OBJECTS),
        },
        _ => network_error(&e, watch, origin),
    })?;
    let stats = remote.stats();
    Ok(Fetched::Done(Transfer { objects: stats.received_objects(), bytes: stats.received_bytes() }))
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
        let (tx, rx) = mpsc::channel::<Result<(), SourceError>>();
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
}
