//! Fetching a remote's tags and branches into a bare repository, bounded in
//! time (`$KNOBS_GIT_TIMEOUT`) and with the credentials git would use.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use git2::{FetchOptions, Repository};

use super::error::{SourceError, IDLE_FACTOR, OVERALL_FACTOR};

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
pub(super) fn fetch(path: &Path, url: &str, origin: &str) -> Result<(), SourceError> {
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
    // FETCH_HEAD would keep the URL (and any userinfo in it) in the cache.
    opts.update_fetchhead(false);
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
}
