//! `knobs sync` when the repository, the network, the cache or the output
//! folder fails or is hostile: exit 2 with a clear message, never a
//! half-written file, never a write outside `--out` and the cache, and a
//! deadline on every remote. Files knobs writes get the usual modes.

use std::path::Path;

use crate::support::{self, files_under, flat, knobs, tree};

/// https and ssh remotes are reached (not refused as unsupported), and a
/// remote that never answers fails within the timeout with a clear message.
#[test]
fn https_and_ssh_remotes_time_out_cleanly() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let holder = std::thread::spawn(move || {
        let mut held = Vec::new();
        listener.set_nonblocking(true).expect("nonblocking");
        let end = std::time::Instant::now() + std::time::Duration::from_secs(8);
        while std::time::Instant::now() < end {
            if let Ok((c, _)) = listener.accept() {
                held.push(c);
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    });
    let tmp = tempfile::tempdir().expect("tempdir");
    for url in [format!("https://127.0.0.1:{port}/r.git"), format!("ssh://git@127.0.0.1:{port}/r.git")] {
        let started = std::time::Instant::now();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_knobs"))
            .args(["sync", "--repo", &url, "--tag", "v1", "--out", "out"])
            .current_dir(tmp.path())
            .env("KNOBS_CACHE_DIR", tmp.path().join("cache"))
            .env("KNOBS_GIT_TIMEOUT", "1")
            .env("NO_COLOR", "1")
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{url}: {stderr}");
        assert!(started.elapsed() < std::time::Duration::from_secs(6), "{url} took {:?}", started.elapsed());
        assert!(stderr.contains(&format!("cannot read repository `{url}`")), "{url}: {stderr}");
        assert!(!stderr.contains("unsupported URL protocol") && !stderr.contains("no TLS stream"), "{stderr}");
    }
    let _ = holder.join();
}

#[test]
fn a_folder_that_is_not_a_repository_is_a_clear_error() {
    let t = tree(&[("plain/readme.md", b"not git\n")]);
    let r = knobs(t.path(), &["sync", "--repo", "plain", "--tag", "v1", "--out", "out"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("cannot read repository `plain`"), "{}", r.stderr);
    assert!(!t.path().join("out").exists());
}

#[test]
fn names_that_would_escape_the_output_folder_are_refused() {
    let t = tempfile::tempdir().expect("tempdir");
    support::radiance_repo(t.path());
    let repo = "fixtures/radiance.git";
    for (flag, value) in
        [("--tag", "../x"), ("--tag", "/tmp/x"), ("--tag", "a/b"), ("--engine", "../x"), ("--engine", "/abs")]
    {
        let mut args = vec!["sync", "--repo", repo, "--out", "out", "--tag", "v1.8.1"];
        if flag == "--tag" {
            let last = args.len() - 1;
            args[last] = value;
        } else {
            args.splice(0..0, ["--engine", value]);
        }
        let r = knobs(t.path(), &args);
        assert_eq!(r.code, 2, "{flag} {value}: {}", r.stderr);
        assert!(!t.path().join("out").exists(), "{flag} {value} wrote something");
        assert!(!t.path().join("x").exists() && !t.path().join("x.toml").exists());
    }
}

#[test]
fn missing_objects_the_sync_needs_are_a_clear_error_and_nothing_is_written() {
    let t = tempfile::tempdir().expect("tempdir");
    let repo = support::radiance_repo(t.path());
    // The config file's blob at the tag is removed from the object store.
    let git = git2::Repository::open_bare(&repo).expect("open");
    let tree = git.revparse_single("v1.8.1^{tree}").expect("tree").peel_to_tree().expect("tree");
    let entry = tree.get_path(Path::new("core/config.cpp")).expect("config.cpp");
    let hex = entry.id().to_string();
    std::fs::remove_file(repo.join("objects").join(&hex[..2]).join(&hex[2..])).expect("remove blob");
    let r = knobs(t.path(), &["sync", "--repo", "fixtures/radiance.git", "--tag", "v1.8.1", "--out", "out"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("core/config.cpp"), "{}", r.stderr);
    assert!(!t.path().join("out").exists(), "a partial catalogue was written");
}

#[test]
fn a_corrupt_cache_is_rebuilt_and_concurrent_syncs_share_it() {
    let t = tempfile::tempdir().expect("tempdir");
    let repo = support::radiance_repo(t.path());
    let url = format!("file://{}", repo.display());
    let sync = |out: &str| knobs(t.path(), &["sync", "--repo", &url, "--tag", "v1.8.1", "--out", out]);
    let first = sync("a");
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(sync("a").stdout.ends_with("(cached)\n"));
    // Break the cache: its objects are gone.
    let cached = t.path().join(".knobs-cache/repos");
    let dir = std::fs::read_dir(&cached).expect("cache").next().expect("one repo").expect("entry").path();
    std::fs::remove_dir_all(dir.join("objects")).expect("break");
    std::fs::create_dir(dir.join("objects")).expect("empty objects");
    let r = sync("b");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("(cached)"), "a broken cache is fetched afresh: {}", r.stdout);
    assert_eq!(
        std::fs::read(t.path().join("a/radiance/v1.8.1.toml")).expect("a"),
        std::fs::read(t.path().join("b/radiance/v1.8.1.toml")).expect("b")
    );
    // Four syncs at once into an empty cache: each gets the same catalogue.
    std::fs::remove_dir_all(t.path().join(".knobs-cache")).expect("reset");
    let children: Vec<_> = ["c1", "c2", "c3", "c4"]
        .iter()
        .map(|out| {
            std::process::Command::new(env!("CARGO_BIN_EXE_knobs"))
                .args(["sync", "--repo", &url, "--tag", "v1.8.1", "--out", out])
                .current_dir(t.path())
                .env("KNOBS_CACHE_DIR", t.path().join(".knobs-cache"))
                .output()
        })
        .collect();
    for (i, c) in children.into_iter().enumerate() {
        let c = c.expect("run");
        assert!(c.status.success(), "sync {i}: {}", String::from_utf8_lossy(&c.stderr));
    }
    for out in ["c1", "c2", "c3", "c4"] {
        assert_eq!(
            std::fs::read(t.path().join(out).join("radiance/v1.8.1.toml")).expect(out),
            std::fs::read(t.path().join("a/radiance/v1.8.1.toml")).expect("a")
        );
    }
    let repos: Vec<_> = std::fs::read_dir(&cached).expect("cache").collect();
    assert_eq!(repos.len(), 1, "one cached repository, no leftovers");
}

#[test]
fn sync_runs_no_filters_hooks_or_checkout() {
    let t = tempfile::tempdir().expect("tempdir");
    let src = t.path().join("work");
    std::fs::create_dir_all(src.join("core")).expect("mkdir");
    let marker = t.path().join("ran");
    std::fs::copy(support::fixtures().join("radiance/v1.8.1/core/config.cpp"), src.join("core/config.cpp"))
        .expect("copy");
    std::fs::write(src.join(".gitattributes"), "*.cpp filter=evil\n").expect("attributes");
    let repo = git2::Repository::init(&src).expect("init");
    let mut cfg = repo.config().expect("config");
    let touch = format!("touch {}", marker.display());
    cfg.set_str("filter.evil.smudge", &touch).expect("smudge");
    cfg.set_str("filter.evil.clean", &touch).expect("clean");
    std::fs::write(src.join(".git/hooks/post-checkout"), format!("#!/bin/sh\n{touch}\n")).expect("hook");
    let mut index = repo.index().expect("index");
    index.add_all(["*"], git2::IndexAddOption::DEFAULT, None).expect("add");
    let tree = repo.find_tree(index.write_tree().expect("tree")).expect("tree");
    let sig = git2::Signature::now("t", "t@t.invalid").expect("sig");
    let commit = repo.commit(Some("HEAD"), &sig, &sig, "x", &tree, &[]).expect("commit");
    repo.tag_lightweight("v1", &repo.find_object(commit, None).expect("obj"), false).expect("tag");
    for remote in [src.display().to_string(), format!("file://{}", src.display())] {
        let r = knobs(t.path(), &["sync", "--repo", &remote, "--tag", "v1", "--out", "out"]);
        assert_eq!(r.code, 0, "{remote}: {}", r.stderr);
        assert!(!marker.exists(), "{remote}: a filter or hook ran");
    }
    // Only the catalogue was written (and the cache, elsewhere).
    assert_eq!(files_under(&t.path().join("out")), ["radiance/v1.toml"]);
}

#[test]
fn a_repo_path_that_does_not_exist_is_said_so_and_leaves_nothing() {
    let t = tempfile::tempdir().expect("tempdir");
    let relative = t.path().join("no/such/repo").display().to_string();
    for (repo, path) in [
        ("/nonexistent/x", "/nonexistent/x"),
        ("file:///nonexistent/x", "/nonexistent/x"),
        ("no/such/repo", relative.as_str()),
    ] {
        let r = knobs(t.path(), &["sync", "--repo", repo, "--tag", "v1", "--out", "out"]);
        assert_eq!(r.code, 2, "{repo}: {}", r.stderr);
        let said = flat(&r.stderr);
        assert!(said.contains(&format!("cannot read repository `{repo}`: {path} does not exist")), "{said}");
        assert!(
            said.contains("a local repository is read in place; a remote needs a URL (https://, ssh://, git://, file://) or host:org/repo"),
            "{said}"
        );
        assert!(!said.contains("unsupported URL protocol"), "{said}");
        // Nothing is made for it: no cache folder, no lock file.
        assert!(!t.path().join(".knobs-cache").exists(), "{repo} left a cache behind");
        assert!(!t.path().join("out").exists());
    }
}

/// A web server on loopback that answers every request with `200 OK` and
/// then one header line a second, never ending the headers, until `stop`.
fn dribbling_server() -> (u16, std::sync::Arc<std::sync::atomic::AtomicBool>) {
    use std::io::Write;
    use std::sync::atomic::Ordering;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stopped = std::sync::Arc::clone(&stop);
    listener.set_nonblocking(true).expect("nonblocking");
    std::thread::spawn(move || {
        while !stopped.load(Ordering::Relaxed) {
            let Ok((mut conn, _)) = listener.accept() else {
                std::thread::sleep(std::time::Duration::from_millis(20));
                continue;
            };
            let stopped = std::sync::Arc::clone(&stopped);
            std::thread::spawn(move || {
                let _ = conn.set_nonblocking(false);
                let mut line: &[u8] = b"HTTP/1.1 200 OK\r\n";
                while !stopped.load(Ordering::Relaxed) && conn.write_all(line).is_ok() {
                    line = b"X-a: b\r\n";
                    std::thread::sleep(std::time::Duration::from_secs(1));
                }
            });
        }
    });
    (port, stop)
}

/// Starts `knobs sync --repo URL` with a private cache in `dir`.
fn start_sync(dir: &Path, url: &str, timeout: &str) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_knobs"))
        .args(["sync", "--repo", url, "--tag", "v1", "--out", "out"])
        .current_dir(dir)
        .env("KNOBS_CACHE_DIR", dir.join("cache"))
        .env("KNOBS_GIT_TIMEOUT", timeout)
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run knobs")
}

/// Waits for `child` to end; kills it and fails after `limit`.
fn finish(mut child: std::process::Child, limit: std::time::Duration) -> (support::Output, std::time::Duration) {
    let started = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("knobs was still running after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let output = child.wait_with_output().expect("output").into();
    (output, started.elapsed())
}

/// The names in `<dir>/cache/repos`, sorted.
fn cached(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("cache/repos"))
        .map(|d| d.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

/// A server that sends a status line and then one header line a second
/// keeps every socket wait short of the timeout; the fetch is abandoned when
/// it has made no progress for twice the timeout.
#[test]
fn a_server_that_dribbles_headers_is_abandoned_at_the_deadline() {
    let (port, stop) = dribbling_server();
    let t = tempfile::tempdir().expect("tempdir");
    let url = format!("http://127.0.0.1:{port}/r.git");
    let (r, took) = finish(start_sync(t.path(), &url, "2"), std::time::Duration::from_secs(30));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    eprintln!("dribbling server: knobs ended after {took:?}");
    assert_eq!(r.code, 2, "{}", r.stderr);
    let said = flat(&r.stderr);
    assert!(
        said.contains(&format!("cannot read repository `{url}`: the fetch was abandoned after 4 s without progress (the limit is 2 × KNOBS_GIT_TIMEOUT = 2 × 2 s)")),
        "{said}"
    );
    assert!(
        said.contains("KNOBS_GIT_TIMEOUT (seconds, default 30) sets the limits: a fetch is abandoned after 2× it without progress, and after 120× it in all"),
        "{said}"
    );
    // Nothing written, nothing half-fetched moved into the cache, no
    // temporary folder left.
    assert!(!t.path().join("out").exists());
    assert!(cached(t.path()).is_empty(), "{:?}", cached(t.path()));
}

/// A sync killed mid-fetch leaves its temporary folder; the next sync of
/// the same cache removes it, whichever repository that sync is for.
#[test]
fn a_killed_syncs_temporary_folder_is_removed_by_the_next_sync() {
    let (port, stop) = dribbling_server();
    let t = tempfile::tempdir().expect("tempdir");
    let url = format!("http://127.0.0.1:{port}/r.git");
    let kill_mid_fetch = || {
        let mut child = start_sync(t.path(), &url, "30");
        let started = std::time::Instant::now();
        while !cached(t.path()).iter().any(|n| n.starts_with(".fetch-")) {
            assert!(started.elapsed() < std::time::Duration::from_secs(10), "no fetch folder appeared");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        child.kill().expect("kill");
        let _ = child.wait();
        let left = cached(t.path());
        assert!(left.len() == 1 && left[0].starts_with(".fetch-"), "{left:?}");
    };
    // The same repository's next sync, holding its lock, removes it (and
    // fails in turn, leaving nothing of its own).
    kill_mid_fetch();
    let (r, _) = finish(start_sync(t.path(), &url, "1"), std::time::Duration::from_secs(20));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(cached(t.path()).is_empty(), "{:?}", cached(t.path()));
    // Another repository's sync removes it too: nothing holds its lock.
    kill_mid_fetch();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let repo = support::radiance_repo(t.path());
    let other = format!("file://{}", repo.display());
    let (r, _) = finish(
        std::process::Command::new(env!("CARGO_BIN_EXE_knobs"))
            .args(["sync", "--repo", &other, "--tag", "v1.8.1", "--out", "out"])
            .current_dir(t.path())
            .env("KNOBS_CACHE_DIR", t.path().join("cache"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run knobs"),
        std::time::Duration::from_secs(20),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let left = cached(t.path());
    assert!(left.len() == 1 && left[0].starts_with("radiance-"), "{left:?}");
}

/// The umask the test (and the knobs it starts) runs under.
#[cfg(unix)]
fn umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("Umask:").map(|v| v.trim().to_string())))
        .and_then(|v| u32::from_str_radix(&v, 8).ok())
        .unwrap_or(0o022)
}

#[cfg(unix)]
#[test]
fn written_files_get_the_usual_modes() {
    use std::os::unix::fs::PermissionsExt;
    let t = tempfile::tempdir().expect("tempdir");
    support::radiance_repo(t.path());
    let r = knobs(t.path(), &["sync", "--repo", "fixtures/radiance.git", "--tag", "v1.8.1", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mode = |p: &Path| std::fs::metadata(p).expect("written").permissions().mode() & 0o777;
    // A catalogue is meant to be committed and read by the team: 0644 under
    // the usual umask, not a temporary file's 0600.
    assert_eq!(mode(&t.path().join("out/radiance/v1.8.1.toml")), 0o666 & !umask());
    // A hook is executable the moment it is in place.
    let g = tempfile::tempdir().expect("tempdir");
    assert!(std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(g.path())
        .status()
        .expect("git")
        .success());
    let r = knobs(g.path(), &["hook", "install"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(mode(&g.path().join(".git/hooks/pre-commit")), 0o777 & 0o755 & !umask());
}
