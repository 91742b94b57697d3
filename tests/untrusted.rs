//! Untrusted input, tried as an attacker would: a fetched repository that
//! costs memory or time out of proportion, credentials in a URL, a hook
//! path that shell would read as code. Each test writes its attack files in
//! a temporary folder; `docs/security.md` lists what each one shows.

use std::path::Path;

use git2::{Repository, Signature};

use crate::support::{self, files_under, flat, knobs};

/// A bare repository at `dest` whose tag `v1` holds `entries` (path →
/// index into `blobs`); many paths may share one blob.
fn hostile_repo(dest: &Path, blobs: &[&[u8]], entries: &[(String, usize)]) {
    let git = Repository::init_bare(dest).expect("init");
    let ids: Vec<git2::Oid> = blobs.iter().map(|b| git.blob(b).expect("blob")).collect();
    let mut index = git2::Index::new().expect("index");
    for (path, b) in entries {
        let entry = git2::IndexEntry {
            ctime: git2::IndexTime::new(0, 0),
            mtime: git2::IndexTime::new(0, 0),
            dev: 0,
            ino: 0,
            mode: 0o100644,
            uid: 0,
            gid: 0,
            file_size: 0,
            id: ids[*b],
            flags: 0,
            flags_extended: 0,
            path: path.as_bytes().to_vec(),
        };
        index.add(&entry).expect("add");
    }
    let tree = git.find_tree(index.write_tree_to(&git).expect("tree")).expect("tree");
    let sig = Signature::new("t", "t@t.invalid", &git2::Time::new(1_760_000_000, 0)).expect("sig");
    let id = git.commit(Some("refs/heads/main"), &sig, &sig, "x", &tree, &[]).expect("commit");
    git.tag_lightweight("v1", &git.find_object(id, None).expect("obj"), false).expect("tag");
}

fn config_cpp() -> Vec<u8> {
    std::fs::read(support::fixtures().join("radiance/v1.8.1/core/config.cpp")).expect("fixture")
}

/// A 3.9 MB C++ file that registers one metric, padded with comments.
fn big_metrics_cpp() -> Vec<u8> {
    let mut text = String::from("void reg(Registry& r) {\n  r.counter(\"radiance:shared_total\", \"Shared.\");\n}\n");
    while text.len() < 3_900_000 {
        text.push_str("// padding padding padding padding padding padding padding padding\n");
    }
    text.into_bytes()
}

/// A thousand paths pointing at one 3.9 MB blob: synced as one file (the
/// old walk read it a thousand times: 7.6 GB, 60 s — `benches/sync_memory.py`
/// measures it), its metric found once, under the first path.
#[test]
fn a_thousand_paths_to_one_blob_sync() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut entries = vec![("core/config.cpp".to_string(), 0)];
    entries.extend((0..1000).map(|i| (format!("gen/copy{i:04}.cpp"), 1)));
    hostile_repo(&tmp.path().join("h.git"), &[&config_cpp(), &big_metrics_cpp()], &entries);
    let r = knobs(tmp.path(), &["sync", "--repo", "h.git", "--tag", "v1", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stderr, "");
    let catalog = std::fs::read_to_string(tmp.path().join("out/radiance/v1.toml")).expect("catalogue");
    assert_eq!(catalog.matches("name = \"radiance:shared_total\"").count(), 1, "{catalog}");
    assert!(catalog.contains("gen/copy0000.cpp:2"), "{catalog}");
}

/// A C++ file over the per-file ceiling met in the walk is passed over with
/// a note naming it; the sync goes on.
#[test]
fn a_huge_cpp_file_in_the_walk_is_a_note() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut huge = big_metrics_cpp();
    huge.resize(5 * 1024 * 1024, b'\n');
    let entries = vec![("core/config.cpp".to_string(), 0), ("gen/huge.cpp".to_string(), 1)];
    hostile_repo(&tmp.path().join("h.git"), &[&config_cpp(), &huge], &entries);
    let r = knobs(tmp.path(), &["sync", "--repo", "h.git", "--tag", "v1", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stderr, "warning: 1 C++ file at v1 over 4 MiB each was passed over for metrics: gen/huge.cpp\n");
    let catalog = std::fs::read_to_string(tmp.path().join("out/radiance/v1.toml")).expect("catalogue");
    assert!(!catalog.contains("radiance:shared_total"), "{catalog}");
}

/// A file the profile names that is over the ceiling is an error, found
/// from the object's size before its bytes are read; nothing is written.
#[test]
fn a_huge_config_cpp_is_refused_unread() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut huge = config_cpp();
    huge.resize(5 * 1024 * 1024, b' ');
    hostile_repo(&tmp.path().join("h.git"), &[&huge], &[("core/config.cpp".to_string(), 0)]);
    let r = knobs(tmp.path(), &["sync", "--repo", "h.git", "--tag", "v1", "--out", "out"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        flat(&r.stderr).contains(
            "`core/config.cpp` at v1 in `h.git` is 5242880 bytes, over the 4194304 bytes knobs reads of one file"
        ),
        "{}",
        r.stderr
    );
    assert!(files_under(&tmp.path().join("out")).is_empty());
}

/// Runs a program with the test's git identity and no global git config
/// (`home` stands in for `$HOME`), knobs's folder first on `PATH`.
fn run(program: &str, dir: &Path, args: &[&str], home: &Path) -> support::Output {
    let bin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_knobs"));
    let path = format!("{}:{}", bin.parent().expect("bin dir").display(), std::env::var("PATH").unwrap_or_default());
    std::process::Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("PATH", path)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("NO_COLOR", "1")
        .env("KNOBS_CACHE_DIR", home.join(".knobs-cache"))
        // The hook's own lint is not under test here: `true` stands in.
        .env("KNOBS", "true")
        .output()
        .expect("run")
        .into()
}

/// A git repository with one commit at `dir`.
fn git_repo(dir: &Path, home: &Path) {
    std::fs::create_dir_all(dir).expect("mkdir");
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["config", "user.email", "ops@example.invalid"],
        &["config", "user.name", "Ops"],
        &["config", "commit.gpgsign", "false"],
        &["commit", "-q", "--allow-empty", "-m", "first"],
    ] {
        let r = run("git", dir, args, home);
        assert_eq!(r.code, 0, "{}", r.stderr);
    }
}

fn executable(path: &Path, bytes: &[u8]) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, bytes).expect("write");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// A repository whose path holds `$(…)`, `$HOME`, spaces and both quotes:
/// the chained hook runs, nothing in the path runs as shell, and after the
/// repository is moved `git commit` still works (the old hook held the
/// absolute path in double quotes).
#[test]
fn the_chained_hook_survives_a_hostile_path_and_a_move() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let repo = tmp.path().join("it's a \"$(touch PWNED)\" $HOME `touch PWNED2` dir");
    git_repo(&repo, &home);
    let hook = repo.join(".git/hooks/pre-commit");
    executable(&hook, b"#!/bin/sh\necho ran >> \"$(git rev-parse --git-dir)/ran-mine\"\n");
    let r = run(env!("CARGO_BIN_EXE_knobs"), &repo, &["hook", "install"], &home);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let installed = std::fs::read_to_string(&hook).expect("hook");
    assert!(!installed.contains("PWNED"), "{installed}");
    let r = run("sh", &repo, &[".git/hooks/pre-commit"], &home);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(repo.join(".git/ran-mine")).expect("ran"), "ran\n");
    let moved = tmp.path().join("moved 'again'");
    std::fs::rename(&repo, &moved).expect("move");
    let r = run("git", &moved, &["commit", "-q", "--allow-empty", "-m", "second"], &home);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(moved.join(".git/ran-mine")).expect("ran"), "ran\nran\n");
    // Nothing in the path ran: no file named PWNED anywhere.
    let pwned: Vec<String> = files_under(tmp.path())
        .into_iter()
        .filter(|f| f.ends_with("/PWNED") || f.ends_with("/PWNED2") || f.starts_with("PWNED"))
        .collect();
    assert!(pwned.is_empty(), "{pwned:?}");
}

/// A hook that is not UTF-8 is a hook: kept as the backup, byte for byte,
/// and chained; uninstall puts it back.
#[test]
fn a_hook_that_is_not_utf8_is_kept() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let repo = tmp.path().join("r");
    git_repo(&repo, &home);
    let hook = repo.join(".git/hooks/pre-commit");
    let mine: &[u8] = b"#!/bin/sh\n# caf\xe9 \xff\xfe\nexit 0\n";
    executable(&hook, mine);
    let r = run(env!("CARGO_BIN_EXE_knobs"), &repo, &["hook", "install"], &home);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("the hook that was there runs first"), "{}", r.stdout);
    assert_eq!(std::fs::read(repo.join(".git/hooks/pre-commit.knobs-backup")).expect("backup"), mine);
    let r = run(env!("CARGO_BIN_EXE_knobs"), &repo, &["hook", "uninstall"], &home);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(std::fs::read(&hook).expect("restored"), mine);
}

/// A hook that is a dangling symlink is still the user's: kept as the
/// backup (the link itself, its target unchanged), not chained (it cannot
/// run), and never replaced without a copy; a dangling backup is a backup.
#[test]
fn a_dangling_symlink_hook_is_kept_not_replaced() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let repo = tmp.path().join("r");
    git_repo(&repo, &home);
    let hooks = repo.join(".git/hooks");
    std::fs::create_dir_all(&hooks).expect("hooks");
    let hook = hooks.join("pre-commit");
    std::os::unix::fs::symlink("../../tools/gone-hook", &hook).expect("link");
    let r = run(env!("CARGO_BIN_EXE_knobs"), &repo, &["hook", "install"], &home);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let backup = hooks.join("pre-commit.knobs-backup");
    assert_eq!(
        std::fs::read_link(&backup).expect("the link is kept as the backup"),
        Path::new("../../tools/gone-hook")
    );
    assert!(r.stdout.contains("the hook that was there is kept as"), "{}", r.stdout);
    assert!(!r.stdout.contains("runs first"), "a dangling link cannot run: {}", r.stdout);
    // Installing again over a dangling backup keeps it.
    std::fs::remove_file(&hook).expect("rm");
    std::os::unix::fs::symlink("elsewhere", &hook).expect("link");
    let r = run(env!("CARGO_BIN_EXE_knobs"), &repo, &["hook", "install"], &home);
    assert_eq!(r.code, 2, "a second hook beside a backup is refused: {}", r.stdout);
    assert!(r.stderr.contains("knobs will not overwrite a backup"), "{}", r.stderr);
    assert_eq!(std::fs::read_link(&backup).expect("backup"), Path::new("../../tools/gone-hook"));
    assert_eq!(std::fs::read_link(&hook).expect("hook"), Path::new("elsewhere"));
    // Uninstalling puts the dangling link back where it was.
    std::fs::remove_file(&hook).expect("rm");
    let r = run(env!("CARGO_BIN_EXE_knobs"), &repo, &["hook", "install", "--force"], &home);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = run(env!("CARGO_BIN_EXE_knobs"), &repo, &["hook", "uninstall"], &home);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(std::fs::read_link(&hook).expect("restored"), Path::new("../../tools/gone-hook"));
    assert!(!present(&backup), "the backup is back in place");
}

fn present(path: &Path) -> bool {
    path.symlink_metadata().is_ok()
}

/// In a linked work tree (`.git` a file) the hook goes where git looks:
/// the folder `git rev-parse --git-path hooks` names, the main repository's.
#[test]
fn a_linked_worktree_gets_the_hook_git_runs() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let main = tmp.path().join("main");
    git_repo(&main, &home);
    let r = run("git", &main, &["worktree", "add", "-q", "../linked"], &home);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let linked = tmp.path().join("linked");
    assert!(linked.join(".git").is_file());
    let r = run(env!("CARGO_BIN_EXE_knobs"), &linked, &["hook", "install"], &home);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let hooks = run("git", &linked, &["rev-parse", "--path-format=absolute", "--git-path", "hooks"], &home);
    let hooks = Path::new(hooks.stdout.trim()).canonicalize().expect("hooks folder");
    assert_eq!(hooks, main.join(".git/hooks").canonicalize().expect("main hooks"));
    assert!(std::fs::read_to_string(hooks.join("pre-commit")).expect("hook").contains("lint --staged"));
    assert!(!main.join(".git/worktrees/linked/hooks/pre-commit").exists());
}

/// A `core.hooksPath` from the global git config is honoured, and the
/// message says the folder serves every repository that uses it.
#[test]
fn a_global_hooks_path_is_named_as_shared() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let repo = tmp.path().join("r");
    git_repo(&repo, &home);
    let shared = tmp.path().join("shared-hooks");
    std::fs::create_dir_all(&home).expect("home");
    std::fs::write(home.join(".gitconfig"), format!("[core]\n\thooksPath = {}\n", shared.display())).expect("config");
    let r = run(env!("CARGO_BIN_EXE_knobs"), &repo, &["hook", "install"], &home);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(shared.join("pre-commit").is_file());
    assert!(
        r.stdout.contains(&format!(
            "; core.hooksPath in your global git config points at {}, so every repository that uses it runs this hook",
            shared.display()
        )),
        "{}",
        r.stdout
    );
}

/// A repository's own `core.hooksPath` that leads out of the repository
/// (`../hooks`, an absolute folder) is named as shared too: the hook lands
/// where other repositories may run it. One inside the repository is not.
#[test]
fn a_local_hooks_path_outside_the_repository_is_named() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let repo = tmp.path().join("r");
    git_repo(&repo, &home);
    let set = |value: &str| {
        let ok = std::process::Command::new("git")
            .args(["config", "core.hooksPath", value])
            .current_dir(&repo)
            .env("HOME", &home)
            .status()
            .expect("git config")
            .success();
        assert!(ok, "git config core.hooksPath {value}");
    };
    set("../team-hooks");
    let r = run(env!("CARGO_BIN_EXE_knobs"), &repo, &["hook", "install"], &home);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(tmp.path().join("team-hooks/pre-commit").is_file());
    assert!(
        r.stdout.contains("; core.hooksPath in this repository's git config points at")
            && r.stdout.contains("team-hooks, outside the repository, so every repository that uses it runs this hook"),
        "{}",
        r.stdout
    );
    // An absolute folder out of the repository, and one that climbs back in.
    let abs = tmp.path().join("abs-hooks");
    set(&abs.display().to_string());
    let r = run(env!("CARGO_BIN_EXE_knobs"), &repo, &["hook", "install"], &home);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(abs.join("pre-commit").is_file() && r.stdout.contains(", outside the repository, so"), "{}", r.stdout);
    set("../r/.hooks-in");
    let r = run(env!("CARGO_BIN_EXE_knobs"), &repo, &["hook", "install"], &home);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("core.hooksPath"), "`../r/…` leads back inside: {}", r.stdout);
    set(".githooks");
    let r = run(env!("CARGO_BIN_EXE_knobs"), &repo, &["hook", "install"], &home);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(repo.join(".githooks/pre-commit").is_file());
    assert!(!r.stdout.contains("core.hooksPath"), "a folder inside the repository is its own: {}", r.stdout);
}

/// `git daemon` serving the bare repositories under `served`, on a free
/// loopback port; killed when dropped.
struct Daemon {
    child: std::process::Child,
    port: u16,
}

impl Daemon {
    fn start(served: &Path) -> Daemon {
        let port = std::net::TcpListener::bind("127.0.0.1:0").expect("free port").local_addr().expect("addr").port();
        let child = std::process::Command::new("git")
            .args(["daemon", "--reuseaddr", "--export-all", "--listen=127.0.0.1", &format!("--port={port}")])
            .arg(format!("--base-path={}", served.display()))
            .arg(served)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("`git daemon` starts (CI installs git)");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(std::time::Instant::now() < deadline, "git daemon did not listen on {port}");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        Daemon { child, port }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Every file under `dir` whose bytes hold `needle`.
fn files_holding(dir: &Path, needle: &str) -> Vec<String> {
    files_under(dir)
        .into_iter()
        .filter(|f| std::fs::read(dir.join(f)).is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes())))
        .collect()
}

/// A token in `--repo` reaches neither the output, nor an error, nor the
/// committed catalogue's provenance, nor the cache; a sync from a plain
/// local path names it as given.
#[test]
fn credentials_in_the_url_are_shown_nowhere() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let served = tmp.path().join("served");
    hostile_repo(&served.join("h.git"), &[&config_cpp()], &[("core/config.cpp".to_string(), 0)]);
    let daemon = Daemon::start(&served);
    let secret = "tok3n-s3cret";
    let url = format!("git://alice:{secret}@127.0.0.1:{}/h.git", daemon.port);
    let shown = format!("git://127.0.0.1:{}/h.git", daemon.port);
    let r = knobs(tmp.path(), &["sync", "--repo", &url, "--tag", "v1", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let catalog = std::fs::read_to_string(tmp.path().join("out/radiance/v1.toml")).expect("catalogue");
    assert!(catalog.contains(&format!("repo = \"{shown}\"")), "{catalog}");
    // An error that names the repository: a tag it lacks.
    let missing = knobs(tmp.path(), &["sync", "--repo", &url, "--tag", "v9", "--out", "out"]);
    assert_eq!(missing.code, 2);
    assert!(flat(&missing.stderr).contains(&format!("tag `v9` not found in `{shown}`")), "{}", missing.stderr);
    // One that fails to connect at all, over https.
    let https = format!("https://alice:{secret}@127.0.0.1:1/h.git");
    let refused = knobs(tmp.path(), &["sync", "--repo", &https, "--tag", "v1", "--out", "out"]);
    assert_eq!(refused.code, 2);
    assert!(flat(&refused.stderr).contains("cannot read repository `https://127.0.0.1:1/h.git`"), "{}", refused.stderr);
    for out in [&r, &missing, &refused] {
        assert!(!out.stdout.contains(secret) && !out.stderr.contains(secret), "{}{}", out.stdout, out.stderr);
    }
    assert_eq!(files_holding(tmp.path(), secret), Vec::<String>::new());
    // A local path is named as it was given.
    let local = knobs(&served, &["sync", "--repo", "h.git", "--tag", "v1", "--out", "out"]);
    assert_eq!(local.code, 0, "{}", local.stderr);
    let catalog = std::fs::read_to_string(served.join("out/radiance/v1.toml")).expect("catalogue");
    assert!(catalog.contains("repo = \"h.git\""), "{catalog}");
}

/// A cached tag is not checked again (a tag moved upstream goes unseen),
/// and `--refresh` fetches it afresh.
#[test]
fn refresh_sees_a_tag_moved_upstream() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let served = tmp.path().join("served");
    let bare = served.join("h.git");
    hostile_repo(&bare, &[&config_cpp()], &[("core/config.cpp".to_string(), 0)]);
    let daemon = Daemon::start(&served);
    let url = format!("git://127.0.0.1:{}/h.git", daemon.port);
    let sync = |extra: &[&str]| {
        let mut args = vec!["sync", "--repo", &url, "--tag", "v1", "--out", "out"];
        args.extend_from_slice(extra);
        knobs(tmp.path(), &args)
    };
    let first = sync(&[]);
    assert_eq!(first.code, 0, "{}", first.stderr);
    // Move v1 upstream to a new commit on the same tree.
    let git = Repository::open_bare(&bare).expect("served repo");
    let old = git.find_reference("refs/tags/v1").and_then(|r| r.peel_to_commit()).expect("v1");
    let sig = Signature::new("t", "t@t.invalid", &git2::Time::new(1_760_000_100, 0)).expect("sig");
    let moved = git.commit(None, &sig, &sig, "moved", &old.tree().expect("tree"), &[&old]).expect("commit");
    git.reference("refs/tags/v1", moved, true, "move v1").expect("move tag");
    let short = &moved.to_string()[..12];
    let cached = sync(&[]);
    assert_eq!(cached.code, 0, "{}", cached.stderr);
    assert!(cached.stdout.contains(" (cached)") && !cached.stdout.contains(short), "{}", cached.stdout);
    let refreshed = sync(&["--refresh"]);
    assert_eq!(refreshed.code, 0, "{}", refreshed.stderr);
    assert!(refreshed.stdout.contains(&format!("@ {short}\n")), "{}", refreshed.stdout);
}

/// A tag that points at a tree is said to be one, not "not found" with
/// itself as the nearest tag.
#[test]
fn a_tag_of_a_tree_says_so() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let bare = tmp.path().join("h.git");
    hostile_repo(&bare, &[&config_cpp()], &[("core/config.cpp".to_string(), 0)]);
    let git = Repository::open_bare(&bare).expect("repo");
    let tree = git.find_reference("refs/tags/v1").and_then(|r| r.peel_to_tree()).expect("tree");
    git.reference("refs/tags/v2", tree.id(), false, "a tag of a tree").expect("tag");
    let r = knobs(tmp.path(), &["sync", "--repo", "h.git", "--tag", "v2", "--out", "out"]);
    assert_eq!(r.code, 2);
    assert!(flat(&r.stderr).contains("tag `v2` in `h.git` points at a tree, not at a commit"), "{}", r.stderr);
    assert!(flat(&r.stderr).contains("tag the release commit instead"), "{}", r.stderr);
    assert!(files_under(&tmp.path().join("out")).is_empty());
}

/// A 20,000-branch `else if` chain (1 MB; the tree nests 40,000 levels
/// deep) syncs: no walk recurses, no stack overflows, every branch's flag is
/// found. `benches/linear.py` shows its cost is linear.
#[test]
fn a_deep_else_if_chain_syncs() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut text = String::from("void parse(std::string a) {\n  if (a == \"--opt-0\") { x = 0; }\n");
    for i in 1..20_000 {
        text.push_str(&format!("  else if (a == \"--opt-{i}\") {{ x = std::stoi(v); }}\n"));
    }
    text.push_str("}\n");
    hostile_repo(&tmp.path().join("h.git"), &[text.as_bytes()], &[("core/config.cpp".to_string(), 0)]);
    let r = knobs(tmp.path(), &["sync", "--repo", "h.git", "--tag", "v1", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("out/radiance/v1.toml: 20000 flags (0 enums), 0 metrics"), "{}", r.stdout);
}

/// Syncs one hostile `core/config.cpp` from a scratch repository.
fn sync_one(text: &str) -> support::Output {
    let tmp = tempfile::tempdir().expect("tempdir");
    hostile_repo(&tmp.path().join("h.git"), &[text.as_bytes()], &[("core/config.cpp".to_string(), 0)]);
    knobs(tmp.path(), &["sync", "--repo", "h.git", "--tag", "v1", "--out", "out"])
}

/// 20,000 `if`s nested in one another, each reading its own flag and (in
/// the second file) refusing a value that is not `on` or `off` with a
/// message that names no flag: every flag and every member set is found.
/// Each body used to be walked whole, through all the `if`s inside it
/// (quadratic: 2,000 levels took 9 s, 20,000 did not finish in minutes).
#[test]
fn deeply_nested_ifs_sync() {
    let n = 20_000;
    let mut reads = String::from("void n(std::string a) {\n");
    let mut refusals = String::from("void m(std::string a, std::string v) {\n");
    for i in 0..n {
        reads.push_str(&format!("if (a == \"--opt-{i}\") {{ x = std::stoi(v);\n"));
        refusals.push_str(&format!(
            "if (a == \"--opt-{i}\") {{ if (v != \"on\" && v != \"off\") throw std::invalid_argument(\"expected one of: on, off\");\n"
        ));
    }
    for text in [&mut reads, &mut refusals] {
        text.push_str(&"}".repeat(n));
        text.push_str("\n}\n");
    }
    let r = sync_one(&reads);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("out/radiance/v1.toml: 20000 flags (0 enums), 0 metrics"), "{}", r.stdout);
    let r = sync_one(&refusals);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("out/radiance/v1.toml: 20000 flags (20000 enums), 0 metrics"), "{}", r.stdout);
}

/// A 20,000-link ternary chain (`a == "--opt-0" ? 0 : a == "--opt-1" ? …`)
/// and 20,000 ternaries nested in parentheses sync, each literal's climb
/// to its statement remembered (it was climbed once per literal).
#[test]
fn long_ternary_chains_sync() {
    let n = 20_000;
    let chain: String = (0..n).map(|i| format!("a == \"--opt-{i}\" ? {i} : ")).collect();
    let open: String = (0..n).map(|i| format!("(a == \"--opt-{i}\" ? ")).collect();
    let close: String = (0..n).map(|i| format!(" : {i})")).collect();
    for body in [format!("{chain}0"), format!("{open}1{close}")] {
        let text = format!("void t(std::string a) {{\n  x = {body};\n}}\n{TAIL}");
        let r = sync_one(&text);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(r.stdout.starts_with("out/radiance/v1.toml: 1 flags (0 enums), 0 metrics"), "{}", r.stdout);
    }
}

/// A parse loop after a hostile shape: the flag it reads is still found.
const TAIL: &str = "int parse(int argc, char** argv) {\n  for (int i = 1; i < argc; i++) {\n    std::string a = argv[i];\n    if (a == \"--port\") { port = std::stoi(argv[++i]); }\n  }\n  return 0;\n}\n";

// ---- Reading outside the repository, and printing it ----

const SECRET: &str = "hunter2-ci-token";

/// Runs the built binary in `cwd` with a secret in its environment, under
/// `timeout` so that a wait on a FIFO fails the test instead of hanging it.
fn knobs_env(cwd: &Path, args: &[&str]) -> support::Output {
    std::process::Command::new("timeout")
        .arg("60")
        .arg(env!("CARGO_BIN_EXE_knobs"))
        .args(args)
        .current_dir(cwd)
        .env("KNOBS_CACHE_DIR", cwd.join(".knobs-cache"))
        .env("NO_COLOR", "1")
        .env("CI_SECRET_TOKEN", SECRET)
        .output()
        .expect("run knobs")
        .into()
}

fn symlink(target: &Path, link: &Path) {
    std::fs::create_dir_all(link.parent().expect("parent")).expect("mkdir");
    std::os::unix::fs::symlink(target, link).expect("symlink");
}

fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    assert!(std::process::Command::new("mkfifo").arg(path).status().expect("mkfifo").success());
}

fn assert_secret_unshown(r: &support::Output) {
    assert!(!r.stdout.contains(SECRET) && !r.stderr.contains(SECRET), "{}\n{}", r.stdout, r.stderr);
}

/// `knobs.toml -> /proc/self/environ`: refused as leaving the project, and
/// none of the environment is printed (it used to be, in the parse error).
#[test]
fn a_knobs_toml_linked_to_the_environment_shows_none_of_it() {
    let t = support::tree(&[("run.md", b"Nothing here.\n")]);
    symlink(Path::new("/proc/self/environ"), &t.path().join("knobs.toml"));
    let r = knobs_env(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains("it leads outside the project"), "{}", r.stderr);
    assert_secret_unshown(&r);
}

/// A knobs.toml of NUL-separated bytes inside the project is "not text":
/// its bytes are never shown.
#[test]
fn a_knobs_toml_that_is_not_text_is_not_shown() {
    let body = format!("[pin]\0CI_SECRET_TOKEN={SECRET}\0");
    let t = support::tree(&[("run.md", b"Nothing here.\n"), ("knobs.toml", body.as_bytes())]);
    let r = knobs_env(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains("it is not text (it holds control characters)"), "{}", r.stderr);
    assert_secret_unshown(&r);
}

/// A catalogue or an overlay linked out of the catalogue folder is refused,
/// and so is a catalogue folder (`catalog/<engine>`) that is itself a link.
#[test]
fn a_catalogue_or_overlay_linked_out_is_refused() {
    for (link, target) in [
        ("catalog/radiance/v9.9.9.toml", "/proc/self/environ"),
        ("catalog/radiance/semantics.toml", "/proc/self/environ"),
    ] {
        let t = support::tree(&[("run.md", b"Nothing here.\n"), ("knobs.toml", b"")]);
        symlink(Path::new(target), &t.path().join(link));
        let r = knobs_env(t.path(), &["lint"]);
        assert_eq!(r.code, 2, "{link}: {}", r.stderr);
        assert!(flat(&r.stderr).contains("it leads outside the project"), "{link}: {}", r.stderr);
        assert_secret_unshown(&r);
    }
    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::write(outside.path().join("v9.9.9.toml"), format!("token = \"{SECRET}\"\n")).expect("write");
    let t = support::tree(&[("run.md", b"Nothing here.\n"), ("knobs.toml", b"")]);
    symlink(outside.path(), &t.path().join("catalog/radiance"));
    let r = knobs_env(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_secret_unshown(&r);
}

/// `[catalog] dir = "/usr/local"`-like: a catalogue folder outside the
/// project is an error pointing at it, and nothing in it is read.
#[test]
fn a_catalog_dir_outside_the_project_is_refused() {
    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(outside.path().join("cargo")).expect("mkdir");
    std::fs::write(outside.path().join("cargo/credentials.toml"), format!("token = \"{SECRET}\"\n")).expect("write");
    let config = format!("[pin]\nengine = \"cargo\"\n[catalog]\ndir = \"{}\"\n", outside.path().display());
    let t = support::tree(&[("run.md", b"Nothing here.\n"), ("knobs.toml", config.as_bytes())]);
    let r = knobs_env(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains("is not inside the project"), "{}", r.stderr);
    assert_secret_unshown(&r);
    // The same through `..`.
    let t =
        support::tree(&[("p/run.md", b"Nothing here.\n"), ("p/knobs.toml", b"[catalog]\ndir = \"../elsewhere\"\n")]);
    let r = knobs_env(&t.path().join("p"), &["lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains("is not inside the project"), "{}", r.stderr);
}

/// knobs.toml's `[lint] baseline` comes with the tree: linked to `/dev/zero`
/// it is refused at once (it was read until memory ran out), and a FIFO in
/// the project is refused, not waited on.
#[test]
fn a_baseline_linked_out_or_a_fifo_is_refused() {
    let t = support::tree(&[("knobs.toml", b"[lint]\nbaseline = \"base.json\"\n"), ("r.md", b"# r\n")]);
    std::os::unix::fs::symlink("/dev/zero", t.path().join("base.json")).expect("symlink");
    let r = knobs(t.path(), &["lint", "r.md"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("it leads outside the project"), "{}", r.stderr);
    std::fs::remove_file(t.path().join("base.json")).expect("rm");
    mkfifo(&t.path().join("base.json"));
    let r = knobs(t.path(), &["lint", "r.md"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("it is a FIFO, not a regular file"), "{}", r.stderr);
}

/// A unit's `EnvironmentFile=` target linked out of the project is not read
/// (its lines were shown in findings); a FIFO there no longer hangs lint.
#[test]
fn an_environment_file_linked_out_or_a_fifo_is_not_read() {
    let unit: &[u8] = b"[Service]\nEnvironmentFile=/etc/radiance/engine.conf\nExecStart=/usr/bin/radiance\n";
    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::write(outside.path().join("secret.conf"), format!("PREFILL_CHUNK={SECRET}\n")).expect("write");
    let t = support::tree(&[("units/radiance.service", unit)]);
    symlink(&outside.path().join("secret.conf"), &t.path().join("units/engine.conf"));
    let r = knobs_env(t.path(), &["lint"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_secret_unshown(&r);
    let t = support::tree(&[("units/radiance.service", unit)]);
    mkfifo(&t.path().join("units/engine.conf"));
    let r = knobs_env(t.path(), &["lint"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
}

// ---- Stalling CI: a FIFO where a file is expected ----

/// `verify --cmdline`, `verify --metrics` and `--config` on a FIFO are
/// refused at once (they waited forever for a writer).
#[test]
fn a_fifo_named_on_the_command_line_is_refused_not_waited_on() {
    let t = support::tree(&[("run.md", b"Nothing here.\n"), ("argv", b"radiance\0--port\08000\0"), ("m.txt", b"")]);
    mkfifo(&t.path().join("fifo"));
    for args in [
        &["verify", "--cmdline", "fifo", "--metrics", "m.txt"][..],
        &["verify", "--cmdline", "argv", "--metrics", "fifo"][..],
        &["--config", "fifo", "lint", "run.md"][..],
    ] {
        let r = knobs_env(t.path(), args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(flat(&r.stderr).contains("it is a FIFO, not a regular file"), "{args:?}: {}", r.stderr);
    }
}

// ---- Writing outside ----

/// A `catalog/<engine>` that links out of the project: sync refuses and
/// writes nothing there.
#[test]
fn sync_refuses_a_catalogue_folder_linked_out() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let bare = tmp.path().join("h.git");
    hostile_repo(&bare, &[&config_cpp()], &[("core/config.cpp".to_string(), 0)]);
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&outside).expect("mkdir");
    let proj = tmp.path().join("proj");
    std::fs::create_dir_all(&proj).expect("mkdir");
    std::fs::write(proj.join("knobs.toml"), "").expect("write");
    symlink(&outside, &proj.join("catalog/radiance"));
    let r = knobs(&proj, &["sync", "--repo", bare.to_str().expect("utf-8"), "--tag", "v1"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains("it leads outside the project"), "{}", r.stderr);
    assert!(flat(&r.stderr).contains("nothing was written"), "{}", r.stderr);
    assert!(files_under(&outside).is_empty(), "{:?}", files_under(&outside));
}

const FIXABLE: &str = "Watch `radiance:time_to_first_token_seconds_bucket`.\n";
const FIXED: &str = "Watch `vllm:time_to_first_token_seconds_bucket`.\n";

/// `--fix` writes in place: owner, mode and inode are kept (it used to
/// leave root:root 0640 on a new inode).
#[test]
fn fix_keeps_owner_mode_and_inode() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let t = support::tree(&[("run.md", FIXABLE.as_bytes())]);
    let file = t.path().join("run.md");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o664)).expect("chmod");
    let chown = std::process::Command::new("chown").arg("65534").arg(&file).status().expect("chown");
    let before = std::fs::metadata(&file).expect("stat");
    let r = knobs(t.path(), &["lint", "--fix"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&file).expect("read"), FIXED);
    let after = std::fs::metadata(&file).expect("stat");
    assert_eq!(after.mode() & 0o7777, 0o664);
    assert_eq!(after.ino(), before.ino());
    if chown.success() {
        assert_eq!(after.uid(), 65534);
    }
}

/// What `--fix` leaves alone, each with its note: a read-only file (by its
/// mode bits: root may write anyway), a file that is not UTF-8 (its invalid
/// bytes would become U+FFFD), a hard link, a symlink out of the project.
#[test]
fn fix_refuses_read_only_non_utf8_linked_files() {
    use std::os::unix::fs::PermissionsExt;
    let t = support::tree(&[("run.md", FIXABLE.as_bytes())]);
    let file = t.path().join("run.md");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    let r = knobs(t.path(), &["lint", "--fix"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("note: run.md is read-only; not fixed"), "{}", r.stdout);
    assert_eq!(std::fs::read_to_string(&file).expect("read"), FIXABLE);

    let bytes = [FIXABLE.as_bytes(), b"caf\xe9\n"].concat();
    let t = support::tree(&[("run.md", &bytes)]);
    let r = knobs(t.path(), &["lint", "--fix"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stdout.contains("note: run.md is not UTF-8: fixing it would replace its invalid bytes; not fixed"),
        "{}",
        r.stdout
    );
    assert_eq!(std::fs::read(t.path().join("run.md")).expect("read"), bytes);

    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::write(outside.path().join("other.md"), FIXABLE).expect("write");
    let t = support::tree(&[]);
    std::fs::hard_link(outside.path().join("other.md"), t.path().join("run.md")).expect("link");
    let r = knobs(t.path(), &["lint", "--fix"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stdout.contains("note: run.md has 2 hard links, which may be outside the project; not fixed"),
        "{}",
        r.stdout
    );
    assert_eq!(std::fs::read_to_string(outside.path().join("other.md")).expect("read"), FIXABLE);

    let t = support::tree(&[]);
    symlink(&outside.path().join("other.md"), &t.path().join("docs/run.md"));
    let r = knobs(t.path(), &["lint", "--fix", "docs/run.md"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("note: docs/run.md is a symlink: it leads outside the project"), "{}", r.stdout);
    assert_eq!(std::fs::read_to_string(outside.path().join("other.md")).expect("read"), FIXABLE);
}

// ---- Smaller: a knobs.toml another user owns ----

/// A knobs.toml above the working folder owned by another user (not root)
/// is ignored with a warning naming it, as git's safe.directory does; named
/// with `--config` it is used.
#[test]
fn a_knobs_toml_another_user_owns_is_ignored() {
    let t = support::tree(&[("knobs.toml", b"[pin]\ntag = \"v0.0.1-nowhere\"\n"), ("work/run.md", b"Nothing here.\n")]);
    let config = t.path().join("knobs.toml");
    if !std::process::Command::new("chown").arg("65534").arg(&config).status().expect("chown").success() {
        return; // not root: cannot give the file away
    }
    let r = knobs(&t.path().join("work"), &["lint", "run.md"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let warning = format!(
        "warning: {} is owned by user 65534, not by you or root: it is ignored (name it with --config to use it)",
        config.display()
    );
    assert_eq!(r.stderr.matches(&warning).count(), 1, "{}", r.stderr);
    // In-process too: the warning goes through the run's stderr, once.
    let r = support::run_in(&t.path().join("work"), &["lint", "run.md"]);
    assert_eq!(r.stderr.matches(&warning).count(), 1, "{}", r.stderr);
    let r = knobs(&t.path().join("work"), &["--config", "../knobs.toml", "lint", "run.md"]);
    assert_eq!(r.code, 2, "the pin is read: {}", r.stderr);
    assert!(r.stderr.contains("v0.0.1-nowhere"), "{}", r.stderr);
}

// ---- Forging CI output (issue 22) -------------------------------------
//
// A CI runner reads a line of a job's output that starts with `::` as a
// workflow command (`::error file=…::`, `::stop-commands::token` which
// silences every later annotation). A linted file's name or text reaches
// the output only escaped: as pictures (`␊`, `␛`) in every format, as
// GitHub's `%0A`/`%25` inside knobs's own annotations.

/// The attacks: a CI command after a line break, a terminal colour, a `%`.
const FORGED: &str = "\n::error file=x::pwned";
const COLOUR: &str = "\u{1b}[31m";

/// Every line of `out` that starts with `::` is one of knobs's own
/// annotations (with `github`), and no ESC byte is there.
fn no_forged_line(out: &str, github: bool) {
    assert!(!out.contains('\u{1b}'), "an ESC byte reached the output:\n{out}");
    for line in out.lines() {
        let own = github && (line.starts_with("::error file=") || line.starts_with("::warning file="));
        assert!(own || !line.trim_start().starts_with("::"), "a forged CI command: {line:?}\n{out}");
    }
}

#[test]
fn a_file_name_cannot_forge_a_ci_command() {
    let named = format!("run{FORGED} 50%{COLOUR}.sh");
    let broken = "bad\n::stop-commands::tok.yaml";
    let tmp = support::tree(&[(named.as_str(), b"radiance serve --max-batchh 4\n"), (broken, b"services: [\n")]);
    for format in ["human", "short", "json", "sarif", "github"] {
        let r = knobs(tmp.path(), &["lint", "-vv", "--format", format, "."]);
        assert_eq!(r.code, 1, "{format}: {}", r.stderr);
        no_forged_line(&r.stdout, format == "github");
        no_forged_line(&r.stderr, false);
        // The broken file's note and the judged-against note name it in pictures.
        assert!(r.stderr.contains("warning: bad␊::stop-commands::tok.yaml: line 2"), "{format}: {}", r.stderr);
        assert!(
            r.stderr.contains("note: run␊::error file=x::pwned 50%␛[31m.sh: judged against radiance v1.8.1"),
            "{}",
            r.stderr
        );
    }
    let human = knobs(tmp.path(), &["lint", "."]).stdout;
    assert!(human.contains("╭─[run␊::error file=x::pwned 50%␛[31m.sh:1:16]"), "{human}");
    let short = knobs(tmp.path(), &["lint", "--format", "short", "."]).stdout;
    assert!(short.starts_with("run␊::error file=x::pwned 50%␛[31m.sh:1:16: KNB001 "), "{short}");
    // GitHub's own escaping for a property: %, line break and `:` encoded.
    let github = knobs(tmp.path(), &["lint", "--format", "github", "."]).stdout;
    assert!(
        github.starts_with("::error file=run%0A%3A%3Aerror file=x%3A%3Apwned 50%25␛[31m.sh,line=1,col=16,"),
        "{github}"
    );
    // Named on the command line, an error (here: the file is missing) names it in pictures too.
    let r = knobs(tmp.path(), &["lint", &format!("gone{FORGED}{COLOUR}.sh")]);
    assert_eq!(r.code, 2);
    no_forged_line(&r.stderr, false);
    assert!(r.stderr.contains("gone␊::error file=x::pwned␛[31m.sh"), "{}", r.stderr);
}

#[test]
fn file_contents_cannot_forge_a_ci_command() {
    // JSON escapes in a compose file's strings carry a line break and ESC
    // into one argv word.
    let compose = "services:\n  e:\n    image: radiance/radiance:v1.8.1\n    command: [\"radiance\", \"serve\", \"--x\\u001b[31m 50%\\n::stop-commands::tok\"]\n";
    let tmp = support::tree(&[("compose.yaml", compose.as_bytes())]);
    for format in ["human", "short", "json", "sarif", "github"] {
        let r = knobs(tmp.path(), &["lint", "-vv", "--format", format, "."]);
        assert_eq!(r.code, 1, "{format}: {}", r.stderr);
        no_forged_line(&r.stdout, format == "github");
        no_forged_line(&r.stderr, false);
    }
    let short = knobs(tmp.path(), &["lint", "--format", "short", "."]).stdout;
    assert!(short.contains("receives `--x␛[31m 50%␊::stop-commands::tok` as one word"), "{short}");
    // A line of a message that would start with `::` keeps its first colon as `∶`, even inside an annotation.
    let github = knobs(tmp.path(), &["lint", "--format", "github", "."]).stdout;
    assert!(github.contains("receives `--x␛[31m 50%25%0A∶:stop-commands::tok` as one word"), "{github}");
}

#[test]
fn a_config_error_shows_no_terminal_escape() {
    // A knobs.toml holding ESC is not text: refused, and none of it is shown.
    let tmp = support::tree(&[("knobs.toml", b"[lint\n\x1b[31m::stop-commands::tok\n"), ("r.sh", b"radiance serve\n")]);
    let r = knobs(tmp.path(), &["lint", "r.sh"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    no_forged_line(&r.stderr, false);
    assert!(r.stderr.contains("knobs.toml: it is not text (it holds control characters)"), "{}", r.stderr);
    assert!(!r.stderr.contains("stop-commands"), "{}", r.stderr);
    // A path the error names is shown in pictures.
    let named = "k\u{1b}[31m\n::stop-commands::tok.toml";
    let r = knobs(tmp.path(), &["--config", named, "lint", "r.sh"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    no_forged_line(&r.stderr, false);
    assert!(r.stderr.contains("k␛[31m␊::stop-commands::tok.toml"), "{}", r.stderr);
}

/// A fetched repository whose help text carries ESC and CI commands:
/// `catalog show --format markdown` and `explain` (human and markdown)
/// show it as pictures, on one line.
#[test]
fn fetched_help_text_cannot_forge_a_ci_command() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cpp = String::from_utf8(config_cpp()).expect("utf-8");
    let doc = "\"address the OpenAI-compatible HTTP server binds (assumed)\"";
    assert!(cpp.contains(doc));
    let cpp = cpp.replace(doc, "\"address \u{1b}[31m bound\\n::error file=x::pwned\\n::stop-commands::tok 50% done\"");
    hostile_repo(&tmp.path().join("h.git"), &[cpp.as_bytes()], &[("core/config.cpp".to_string(), 0)]);
    std::fs::write(tmp.path().join("knobs.toml"), "").expect("knobs.toml");
    let r = knobs(tmp.path(), &["sync", "--repo", "h.git", "--tag", "v1", "--out", "catalog"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for args in [
        &["catalog", "show", "v1", "--format", "markdown"][..],
        &["explain", "--host", "--version", "v1"],
        &["explain", "--host", "--version", "v1", "--format", "markdown"],
    ] {
        let r = knobs(tmp.path(), args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        no_forged_line(&r.stdout, false);
        assert!(r.stdout.contains("address ␛[31m bound"), "{args:?}: {}", r.stdout);
    }
}

/// `knobs sync` of a tag knobs embeds prints what the source says that the
/// embedded catalogue did not, naming the repository: a repository (and the
/// defaults and members it sets) cannot forge a CI command there either.
#[test]
fn the_difference_sync_prints_cannot_forge_a_ci_command() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cpp = String::from_utf8(config_cpp()).expect("utf-8");
    // The reconstruction's v1.8.1 less a flag, so that there is a difference.
    let cpp = cpp.replace("--num-speculative-tokens", "--num-speculative-tokenz");
    let repo = "h\u{1b}[31m\n::error file=x::pwned.git";
    hostile_repo(&tmp.path().join(repo), &[cpp.as_bytes()], &[("core/config.cpp".to_string(), 0)]);
    let git = Repository::open_bare(tmp.path().join(repo)).expect("open");
    let head = git.revparse_single("v1").expect("v1");
    git.tag_lightweight("v1.8.1", &head, false).expect("tag");
    let r = knobs(tmp.path(), &["sync", "--repo", repo, "--tag", "v1.8.1", "--out", "catalog"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("says that the catalogue embedded in knobs did not"), "{}", r.stdout);
    assert!(r.stdout.contains("--num-speculative-tokenz"), "{}", r.stdout);
    no_forged_line(&r.stdout, false);
    no_forged_line(&r.stderr, false);
    assert!(r.stdout.contains("h␛[31m␊::error file=x::pwned.git"), "{}", r.stdout);
}

// ---- Stalling CI: PromQL (issue 22) -----------------------------------

/// `radiance:\w{500}` compiles to over ten megabytes: it used to cost a
/// third of a second per query (the parser compiled it, and refused it,
/// every time). It is now refused before the parser, within knobs's bound,
/// with a note naming it; the other queries are still read.
#[test]
fn a_regex_over_the_bound_is_a_note() {
    let runbook = "# q\n\n```promql\nrate({__name__=~\"radiance:\\\\w{500}\"}[5m])\n```\n\n```promql\nrate(radiance:engine_stepz_total[5m])\n```\n";
    let tmp = support::tree(&[("q.md", runbook.as_bytes())]);
    let r = knobs(tmp.path(), &["lint", "--format", "short", "q.md"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "warning: q.md: line 4: this PromQL query does not parse (the regex `radiance:\\w{500}` compiles to more than 262144 bytes, the most knobs reads)\n"
    );
    assert!(r.stdout.starts_with("q.md:8:6: KNB004 `radiance:engine_stepz_total` is not exported"), "{}", r.stdout);
}

// ---- Hiding findings (issue 22) ---------------------------------------

/// One NUL byte makes a file binary: in a folder walk a warning, but named on
/// the command line an error (exit 2), after the other named files are linted.
#[test]
fn a_named_binary_runbook_is_an_error() {
    let tmp = support::tree(&[
        ("nul.sh", b"radiance serve --max-batchh 4\n\0\n"),
        ("good.sh", b"radiance serve --max-batchh 4\n"),
    ]);
    let r = knobs(tmp.path(), &["lint", "--format", "short", "nul.sh", "good.sh"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        flat(&r.stderr).contains("cannot lint nul.sh, named on the command line: binary (it holds NUL bytes)"),
        "{}",
        r.stderr
    );
    assert_eq!(r.stdout, "good.sh:1:16: KNB001 `--max-batchh` is not a flag of radiance v1.8.1\n");
    let walk = knobs(tmp.path(), &["lint", "--format", "short", "."]);
    assert_eq!(walk.code, 1, "{}", walk.stderr);
    assert_eq!(walk.stderr, "warning: passed over nul.sh: binary (it holds NUL bytes)\n");
}

/// A stream of 100 Kubernetes documents, the 50th broken: the other 99 are
/// judged (past 64 documents, none used to be).
#[test]
fn every_yaml_document_that_parses_is_judged() {
    let doc = |i: usize| {
        format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p{i}\nspec:\n  containers:\n    - name: e\n      image: ghcr.io/acme/radiance:1.8.1\n      args: [\"--max-batchh\", \"4\"]\n")
    };
    let mut text = String::new();
    for i in 0..100 {
        text.push_str("---\n");
        text.push_str(&if i == 49 { "kind: Pod\nspec: [\n".to_string() } else { doc(i) });
    }
    let tmp = support::tree(&[("pods.yaml", text.as_bytes())]);
    let r = knobs(tmp.path(), &["lint", "--format", "short", "."]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 99, "{}", r.stdout);
    // Each document is a `---` line and 9 more, its args line the last (the
    // broken one is 3 lines: 7 fewer after it). The broken one fails at its
    // end, line 494.
    assert_eq!(lines[0], "pods.yaml:10:15: KNB001 `--max-batchh` is not a flag of radiance v1.8.1");
    assert_eq!(lines[98], "pods.yaml:993:15: KNB001 `--max-batchh` is not a flag of radiance v1.8.1");
    assert!(r.stderr.starts_with("warning: pods.yaml: line 494: not read, the YAML does not parse"), "{}", r.stderr);
}

// ---- SARIF (issue 22) --------------------------------------------------

/// A SARIF `uri` is a URI reference (RFC 3986): a space, `%`, `#`, `?` and
/// non-ASCII are percent-encoded, `/` stays.
#[test]
fn sarif_uris_are_percent_encoded() {
    let tmp = support::tree(&[("ops/run book #1?50%é.sh", b"radiance serve --max-batchh 4\n")]);
    let r = knobs(tmp.path(), &["lint", "--format", "sarif", "."]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    let uri = &doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
    assert_eq!(uri, "ops/run%20book%20%231%3F50%25%C3%A9.sh");
}

// ---- A parse error shows a short excerpt ----

/// A knobs.toml whose error sits on a line of 100,000 bytes: the error shows
/// a short excerpt around the place, with the true line and column, never
/// the whole line.
#[test]
fn a_parse_error_on_a_long_line_shows_a_short_excerpt() {
    let long = "a".repeat(100_000);
    let text = format!("[pin]\ntag = \"{long}\" junk {long}\n");
    let tmp = support::tree(&[("knobs.toml", text.as_bytes()), ("r.md", b"# r\n")]);
    let r = knobs(tmp.path(), &["lint", "r.md"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.len() < 2_000, "{} bytes of error:\n{}", r.stderr.len(), &r.stderr[..2_000.min(r.stderr.len())]);
    // `junk` stands after `tag = "` (7 characters), the string and a space.
    assert!(r.stderr.contains("line 2, column 100010"), "{}", r.stderr);
    assert!(r.stderr.contains("…"), "{}", r.stderr);
}

/// verify prints the engine's argv and its endpoint's names: a word holding
/// ESC or a line break (a process can be started with any bytes) is shown in
/// pictures, and neither the report nor the quiet verdict carries an escape
/// or a line a CI runner would obey.
#[test]
fn verify_shows_a_hostile_argv_in_pictures() {
    let root = support::root().join("fixtures/verify");
    let mut argv = std::fs::read(root.join("argv/armed")).expect("armed");
    argv.extend_from_slice(b"--x\x1b[31m\n::error file=x::pwned\0");
    let tmp = support::tree(&[("cmdline", argv.as_slice())]);
    let metrics = root.join("metrics/armed-v1.8.1.prom").display().to_string();
    for quiet in [false, true] {
        let mut args = vec!["verify", "--cmdline", "cmdline", "--metrics", &metrics];
        if quiet {
            args.insert(0, "-q");
        }
        let r = knobs(tmp.path(), &args);
        assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
        no_forged_line(&r.stdout, false);
        if !quiet {
            assert!(r.stdout.contains("--x␛[31m␊::error file"), "{}", r.stdout);
        }
    }
}

// ---- The sync path: the old history, the remote's tags, its pack ----

/// The history fixture's first tag, as a repository at `<dir>/history.git`.
fn history_repo(dir: &Path) {
    let fixture = support::fixtures().join("history/v1.0.0");
    support::build_repo(&dir.join("history.git"), &[("v1.0.0", fixture)]);
}

/// The history a sync extends comes with the tree: a FIFO there is refused
/// at once (sync waited for a writer), a link to `/dev/zero` is refused
/// unread (it was read until memory ran out), and so is a folder; each
/// names the file, and nothing is written.
#[test]
fn an_old_history_that_is_a_fifo_or_a_device_is_refused() {
    for (case, reason) in
        [("fifo", "it is a FIFO, not a regular file"), ("zero", "it is a device"), ("folder", "it is a folder")]
    {
        let t = tempfile::tempdir().expect("tempdir");
        history_repo(t.path());
        let file = t.path().join("out/radiance/history.json");
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        match case {
            "fifo" => mkfifo(&file),
            "zero" => symlink(Path::new("/dev/zero"), &file),
            _ => std::fs::create_dir(&file).expect("mkdir"),
        }
        let r = support::knobs_bounded(t.path(), &["sync", "--repo", "history.git", "--all-tags", "--out", "out"], 20);
        assert_eq!(r.code, 2, "{case}: {}", r.stderr);
        let err = flat(&r.stderr);
        assert!(err.contains("cannot read") && err.contains("history.json") && err.contains(reason), "{case}: {err}");
        assert_eq!(files_under(&t.path().join("out")), Vec::<String>::new(), "{case}");
    }
}

/// A remote may list any bytes as a tag's name: one git refuses (`..`, a
/// control character) failed the whole `--all-tags` sync over file:// (the
/// fetch's refspec was refused) and went into the history read in place.
/// Now it is passed over with a warning naming it in pictures; every other
/// tag is synced.
#[test]
fn a_tag_name_git_refuses_is_passed_over_with_a_warning() {
    let t = tempfile::tempdir().expect("tempdir");
    history_repo(t.path());
    let git = t.path().join("history.git");
    let commit = Repository::open(&git).expect("open").revparse_single("v1.0.0^{commit}").expect("tag").id();
    // Written straight into packed-refs: git itself would not make them.
    let refs = format!("{commit} refs/tags/v1..0\n{commit} refs/tags/v1.0.0\n{commit} refs/tags/v2\x1b[31m\n");
    std::fs::write(git.join("packed-refs"), format!("# pack-refs with: peeled fully-peeled sorted \n{refs}"))
        .expect("packed-refs");
    let _ = std::fs::remove_file(git.join("refs/tags/v1.0.0"));
    let url = format!("file://{}", git.display());
    for repo in [url.as_str(), "history.git"] {
        let _ = std::fs::remove_dir_all(t.path().join("out"));
        let r = support::knobs_bounded(t.path(), &["sync", "--repo", repo, "--all-tags", "--out", "out"], 60);
        assert_eq!(r.code, 0, "{repo}: {}", r.stderr);
        assert!(
            flat(&r.stderr)
                .contains("lists 2 tags whose names git refuses as a reference name; passed over: `v1..0`, `v2␛[31m`"),
            "{repo}: {}",
            r.stderr
        );
        assert!(!r.stderr.contains('\x1b'), "{repo}: {}", r.stderr);
        let history = std::fs::read_to_string(t.path().join("out/radiance/history.json")).expect("history");
        assert!(
            history.contains("\"v1.0.0\"") && !history.contains("v1..0") && !history.contains("v2\\u001b"),
            "{history}"
        );
    }
}

/// The files under `dir` with their sizes: what a cache held, to compare.
fn sizes_under(dir: &Path) -> Vec<(String, u64)> {
    files_under(dir)
        .into_iter()
        .filter(|f| !f.starts_with("locks/"))
        .map(|f| {
            let size = std::fs::metadata(dir.join(&f)).map(|m| m.len()).unwrap_or(0);
            (f, size)
        })
        .collect()
}

/// A `file://` remote's tag was packed whole in memory before a byte was
/// written (and any object of it read whole first). Now each object is
/// counted by its header against the fetch's ceilings before any is
/// copied, and the pack is streamed: a tag holding a 65 MiB blob (over the
/// 64 MiB of one object) is refused naming the remote and the ceiling, and
/// the cache, which held v1 already, is left as it was.
#[test]
fn a_file_remote_over_a_ceiling_leaves_the_cache_as_it_was() {
    let t = tempfile::tempdir().expect("tempdir");
    history_repo(t.path());
    let git = Repository::open(t.path().join("history.git")).expect("open");
    let v1 = git.revparse_single("v1.0.0^{commit}").expect("v1").peel_to_commit().expect("commit");
    let big = git.blob(&vec![0u8; 65 * 1024 * 1024]).expect("blob");
    let mut tree = git.treebuilder(Some(&v1.tree().expect("tree"))).expect("tb");
    tree.insert("big.bin", big, 0o100644).expect("insert");
    let tree = git.find_tree(tree.write().expect("write")).expect("tree");
    let sig = Signature::new("t", "t@t.invalid", &git2::Time::new(1_760_000_000, 0)).expect("sig");
    let id = git.commit(None, &sig, &sig, "big", &tree, &[&v1]).expect("commit");
    git.tag_lightweight("v1.1.0", &git.find_object(id, None).expect("obj"), false).expect("tag");
    let url = format!("file://{}", t.path().join("history.git").display());
    let r = support::knobs_bounded(t.path(), &["sync", "--repo", &url, "--tag", "v1.0.0", "--out", "out"], 60);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let cache = t.path().join(".knobs-cache");
    let before = sizes_under(&cache);
    let r = support::knobs_bounded(t.path(), &["sync", "--repo", &url, "--tag", "v1.1.0", "--out", "out"], 60);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        flat(&r.stderr).contains(&format!(
            "cannot read repository `{url}`: the pack holds an object of 68157440 bytes inflated, over the 64 MiB knobs takes of one; nothing was added to the cache"
        )),
        "{}",
        r.stderr
    );
    assert_eq!(sizes_under(&cache), before);
    assert!(!t.path().join("out/radiance/v1.1.0.toml").exists());
}

/// Syncs tag `v1` of a server answering with `pack`, within 1 GiB and 20 s:
/// its exit, its error on one line, and whether the cache holds anything
/// but its lock.
fn sync_hostile_pack(pack: Vec<u8>) -> (i32, String, Vec<String>) {
    let server = support::hostile_pack::HostilePack::start(pack);
    let t = tempfile::tempdir().expect("tempdir");
    let r = support::knobs_bounded(t.path(), &["sync", "--repo", &server.url(), "--tag", "v1", "--out", "out"], 20);
    let cache: Vec<String> =
        files_under(&t.path().join(".knobs-cache")).into_iter().filter(|f| !f.starts_with("locks/")).collect();
    (r.code, flat(&r.stderr), cache)
}

/// A pack of deltas that each declare a 2 GiB result, built from a 1 MiB
/// base (a few KB sent): libgit2 would allocate and write 2 GiB for each
/// while indexing. The guard reads each delta's head as it arrives and
/// stops the fetch at the first, naming the remote and the ceiling; the
/// cache holds nothing.
#[test]
fn a_pack_of_huge_deltas_is_stopped_before_it_is_indexed() {
    use support::hostile_pack::{blob_entry, delta_entry, pack};
    let base = blob_entry(1 << 20);
    let mut entries = vec![base.clone()];
    let mut at = base.len() as u64;
    for _ in 0..10 {
        let delta = delta_entry(at, 1 << 20, 1 << 31);
        at += delta.len() as u64;
        entries.push(delta);
    }
    // Each delta's distance back grows by the deltas before it.
    let (code, err, cache) = sync_hostile_pack(pack(&entries));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the pack holds an object of 2147483648 bytes inflated, over the 64 MiB knobs takes of one; nothing was added to the cache"),
        "{err}"
    );
    assert!(err.contains("cannot read repository `http://127.0.0.1:"), "{err}");
    assert_eq!(cache, Vec::<String>::new());
}

/// A chain of 40 deltas, each a 60 MiB result of the one before (every one
/// under the ceiling of one object): indexing rebuilds each from the chain
/// below it, 48 GB of copying for a pack of a few hundred KB. The guard
/// counts each chain again and stops at 2 GiB.
#[test]
fn a_long_chain_of_large_deltas_is_stopped_by_what_it_would_inflate() {
    use support::hostile_pack::{blob_entry, delta_entry, pack};
    let size = 60u64 << 20;
    let mut entries = vec![blob_entry(1 << 20)];
    let mut previous = (entries[0].len() as u64, 1u64 << 20);
    for _ in 0..40 {
        let delta = delta_entry(previous.0, previous.1, size);
        previous = (delta.len() as u64, size);
        entries.push(delta);
    }
    let (code, err, cache) = sync_hostile_pack(pack(&entries));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("(its deltas rebuild their chains), over the 2048 MiB knobs takes"), "{err}");
    assert_eq!(cache, Vec::<String>::new());
}

/// A pack whose header declares four billion objects (libgit2 sized its
/// tables by it) is refused at its header, naming the ceiling.
#[test]
fn a_pack_declaring_billions_of_objects_is_refused_at_its_header() {
    let mut pack = support::hostile_pack::pack_header(u32::MAX);
    pack.extend(support::hostile_pack::blob_entry(10));
    let (code, err, cache) = sync_hostile_pack(pack);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the pack declares more than the 1000000 objects knobs takes"), "{err}");
    assert_eq!(cache, Vec::<String>::new());
}

/// A 1 KiB file stored as a delta of a 70 MiB base declares 1 KiB in its
/// header, and reading it inflates the base. A `file://` copy follows its
/// chain in the source's pack first: the tag is refused by the ceiling of
/// one object, naming the cost, and nothing is added to the cache.
#[test]
fn a_small_file_delta_of_a_huge_base_is_judged_by_its_chain() {
    use support::hostile_pack::{blob_entry, delta_entry, pack};
    let t = tempfile::tempdir().expect("tempdir");
    history_repo(t.path());
    let dir = t.path().join("history.git");
    let base = blob_entry(70 << 20);
    let bytes = pack(&[base.clone(), delta_entry(base.len() as u64, 70 << 20, 1024)]);
    let mut index = std::process::Command::new("git")
        .args(["index-pack", "--stdin"])
        .current_dir(&dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("git index-pack");
    std::io::Write::write_all(&mut index.stdin.take().expect("stdin"), &bytes).expect("pack");
    assert!(index.wait().expect("index-pack").success());
    let git = Repository::open(&dir).expect("open");
    let small = git2::Oid::hash_object(git2::ObjectType::Blob, &[0u8; 1024]).expect("id");
    let v1 = git.revparse_single("v1.0.0^{commit}").expect("v1").peel_to_commit().expect("commit");
    let mut tree = git.treebuilder(Some(&v1.tree().expect("tree"))).expect("tb");
    tree.insert("small.bin", small, 0o100644).expect("insert");
    let tree = git.find_tree(tree.write().expect("write")).expect("tree");
    let sig = Signature::new("t", "t@t.invalid", &git2::Time::new(1_760_000_000, 0)).expect("sig");
    let id = git.commit(None, &sig, &sig, "small", &tree, &[&v1]).expect("commit");
    git.tag_lightweight("v1.1.0", &git.find_object(id, None).expect("obj"), false).expect("tag");
    let url = format!("file://{}", dir.display());
    let r = support::knobs_bounded(t.path(), &["sync", "--repo", &url, "--tag", "v1.1.0", "--out", "out"], 60);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        flat(&r.stderr)
            .contains("the pack holds an object of 73401344 bytes inflated, over the 64 MiB knobs takes of one"),
        "{}",
        r.stderr
    );
    assert!(files_under(&t.path().join(".knobs-cache/repos")).is_empty());
}
/// The same attack on a repository read in place (`--repo ./path`, or a
/// `[pin] repo` folder a pull request commits): the file the profile names,
/// `core/config.cpp`, is 1 KiB stored as a delta of a 70 MiB base. Its
/// chain is followed in the pack index before it is read: refused, naming
/// the file and the size, exit 2, nothing written.
#[test]
fn a_repository_read_in_place_judges_a_blob_by_its_chain() {
    use support::hostile_pack::{blob_entry, delta_entry, pack};
    let t = tempfile::tempdir().expect("tempdir");
    history_repo(t.path());
    let dir = t.path().join("history.git");
    let base = blob_entry(70 << 20);
    let bytes = pack(&[base.clone(), delta_entry(base.len() as u64, 70 << 20, 1024)]);
    let mut index = std::process::Command::new("git")
        .args(["index-pack", "--stdin"])
        .current_dir(&dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("git index-pack");
    std::io::Write::write_all(&mut index.stdin.take().expect("stdin"), &bytes).expect("pack");
    assert!(index.wait().expect("index-pack").success());
    let git = Repository::open(&dir).expect("open");
    let small = git2::Oid::hash_object(git2::ObjectType::Blob, &[0u8; 1024]).expect("id");
    assert_eq!(git.odb().expect("odb").read_header(small).expect("header").0, 1024);
    let v1 = git.revparse_single("v1.0.0^{commit}").expect("v1").peel_to_commit().expect("commit");
    let old = v1.tree().expect("tree");
    let core = old.get_path(Path::new("core")).expect("core").id();
    let mut sub = git.treebuilder(Some(&git.find_tree(core).expect("core tree"))).expect("tb");
    sub.insert("config.cpp", small, 0o100644).expect("insert");
    let mut root = git.treebuilder(Some(&old)).expect("tb");
    root.insert("core", sub.write().expect("write"), 0o040000).expect("insert");
    let tree = git.find_tree(root.write().expect("write")).expect("tree");
    let sig = Signature::new("t", "t@t.invalid", &git2::Time::new(1_760_000_000, 0)).expect("sig");
    let id = git.commit(None, &sig, &sig, "small", &tree, &[&v1]).expect("commit");
    git.tag_lightweight("v1.1.0", &git.find_object(id, None).expect("obj"), false).expect("tag");
    let r = support::knobs_bounded(t.path(), &["sync", "--repo", "history.git", "--tag", "v1.1.0", "--out", "out"], 60);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let err = flat(&r.stderr);
    let refused = "`core/config.cpp` at v1.1.0 in `history.git` would inflate 73400320 bytes to be read (a delta on a larger base), over the 64 MiB knobs takes to read one object";
    assert!(err.contains(refused), "{err}");
    assert_eq!(files_under(&t.path().join("out")), Vec::<String>::new());
    assert!(files_under(&t.path().join(".knobs-cache/repos")).is_empty());
    // A C++ file the metrics walk meets is judged alike.
    let mut sub = git.treebuilder(Some(&git.find_tree(core).expect("core tree"))).expect("tb");
    sub.insert("gen.cpp", small, 0o100644).expect("insert");
    let mut root = git.treebuilder(Some(&old)).expect("tb");
    root.insert("core", sub.write().expect("write"), 0o040000).expect("insert");
    let tree = git.find_tree(root.write().expect("write")).expect("tree");
    let id = git.commit(None, &sig, &sig, "gen", &tree, &[&v1]).expect("commit");
    git.tag_lightweight("v1.2.0", &git.find_object(id, None).expect("obj"), false).expect("tag");
    let r = support::knobs_bounded(t.path(), &["sync", "--repo", "history.git", "--tag", "v1.2.0", "--out", "out"], 60);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        flat(&r.stderr).contains("`core/gen.cpp` at v1.2.0 in `history.git` would inflate 73400320 bytes"),
        "{}",
        r.stderr
    );
    assert_eq!(files_under(&t.path().join("out")), Vec::<String>::new());
    // Building a history, each tag is skipped with its reason; the others are read.
    let r = support::knobs_bounded(t.path(), &["sync", "--repo", "history.git", "--all-tags", "--out", "out"], 60);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(flat(&r.stdout).contains(&format!("2 skipped (v1.1.0: {refused}")), "{}", r.stdout);
}

/// A catalogue's help and an overlay's texts are the pull request's: a
/// line of them that starts with `::` (after white space, which GitHub's
/// runner trims) must not begin a line of any output, `explain` and
/// `catalog show` included; in `--format github` a message's line breaks
/// are `%0A`.
#[test]
fn a_catalogue_or_overlay_cannot_forge_a_ci_command() {
    let embedded = std::fs::read_to_string(support::root().join("catalog/radiance/v1.8.1.toml")).expect("catalogue");
    let help = "help = \"tokens between two prefix snapshots\"";
    assert!(embedded.contains(help));
    let forged = embedded.replacen(help, "help = \"tokens\\n::stop-commands::tok\\n  ::error file=x::pwned\"", 1);
    let overlay = "schema = 1\nengine = \"radiance\"\n[flag.\"--checkpoint-interval\"]\nrole = \"r\\n::warning::role\"\ndoes = \"d\\n\\t::error::does\"\nrollback = \"X\\n::error::rollback\"\n";
    let t = support::tree(&[
        ("knobs.toml", b"[pin]\nengine = \"radiance\"\n" as &[u8]),
        ("catalog/radiance/v1.8.1.toml", forged.as_bytes()),
        ("catalog/radiance/semantics.toml", overlay.as_bytes()),
        ("run.md", b"Run `radiance --checkpoint-intervall 5 --checkpoint-policy bogus`.\n"),
    ]);
    let runs: [&[&str]; 5] = [
        &["lint", "-vv", "--format", "github", "."],
        &["lint", "--format", "short", "."],
        &["explain", "--checkpoint-interval"],
        &["catalog", "show"],
        &["lint", "."],
    ];
    for args in runs {
        let r = knobs(t.path(), args);
        assert!(r.code == 0 || r.code == 1, "{args:?}: {}", r.stderr);
        no_forged_line(&r.stdout, args.contains(&"github"));
        no_forged_line(&r.stderr, false);
    }
    let explain = knobs(t.path(), &["explain", "--checkpoint-interval"]).stdout;
    assert!(explain.contains("\u{2236}:error::rollback"), "{explain}");
}

/// A catalogue file in the repository for a tag knobs embeds is used (as
/// before), and a note says that it differs from the embedded one; a copy
/// of the embedded one gets no note.
#[test]
fn a_catalogue_differing_from_the_embedded_one_is_named() {
    let embedded = std::fs::read_to_string(support::root().join("catalog/radiance/v1.8.1.toml")).expect("catalogue");
    let t = support::tree(&[
        ("knobs.toml", b"[pin]\nengine = \"radiance\"\n" as &[u8]),
        ("catalog/radiance/v1.8.1.toml", embedded.as_bytes()),
        ("run.md", b"Run `radiance --checkpoint-slots 4`.\n"),
    ]);
    let r = knobs(t.path(), &["lint", "."]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""), "{}", r.stdout);
    // The pull request drops a flag from the catalogue: its use is now
    // invented, and the note says why the verdict is not knobs's own.
    let dropped = embedded.replace("name = \"--checkpoint-slots\"", "name = \"--checkpoint-slotz\"");
    std::fs::write(t.path().join("catalog/radiance/v1.8.1.toml"), dropped).expect("write");
    let r = knobs(t.path(), &["lint", "."]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "note: catalog/radiance/v1.8.1.toml is used for radiance v1.8.1, and it differs from the catalogue knobs embeds for that tag"
        ),
        "{}",
        r.stderr
    );
}

/// `knobs verify` on an argv of 50,000 unknown flags (440 KB): the report
/// shows the first 100 arguments and counts the rest, in both formats (it
/// was 9.8 MB of text and 18.7 MB of JSON).
#[test]
fn a_huge_argv_gives_a_bounded_verify_report() {
    let mut cmdline = b"radiance\0serve\0".to_vec();
    for i in 0..50_000 {
        cmdline.extend_from_slice(format!("--x{i}\0").as_bytes());
    }
    let t = support::tree(&[("cmdline", &cmdline)]);
    let metrics = support::fixtures().join("verify/metrics/armed-v1.8.1.prom");
    let metrics = metrics.to_str().expect("utf-8");
    let r = knobs(t.path(), &["verify", "--cmdline", "cmdline", "--metrics", metrics]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.len() < 100_000, "{} bytes", r.stdout.len());
    assert!(r.stdout.contains("… and 49900 more arguments, with 49900 more errors (not shown)"), "{}", r.stdout);
    assert!(r.stdout.contains("argv has 50000 errors"), "{}", r.stdout);
    let r = knobs(t.path(), &["verify", "--format", "json", "--cmdline", "cmdline", "--metrics", metrics]);
    assert!(r.stdout.len() < 200_000, "{} bytes", r.stdout.len());
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["omitted"]["argv.given"], 49_900);
    assert_eq!(v["argv"]["given"].as_array().map(Vec::len), Some(100));
}

/// Without a knobs.toml, sync writes to `catalog/` in the working folder:
/// a `catalog/<engine>` linked out is refused there too (it was followed).
#[test]
fn sync_without_knobs_toml_refuses_a_catalogue_folder_linked_out() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let bare = tmp.path().join("h.git");
    hostile_repo(&bare, &[&config_cpp()], &[("core/config.cpp".to_string(), 0)]);
    let outside = tmp.path().join("outside");
    std::fs::create_dir_all(&outside).expect("mkdir");
    let proj = tmp.path().join("proj");
    symlink(&outside, &proj.join("catalog/radiance"));
    let r = knobs(&proj, &["sync", "--repo", bare.to_str().expect("utf-8"), "--tag", "v1"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains("catalog/radiance/v1.toml"), "{}", r.stderr);
    assert!(flat(&r.stderr).contains("it leads outside the project"), "{}", r.stderr);
    assert!(flat(&r.stderr).contains("nothing was written"), "{}", r.stderr);
    assert!(files_under(&outside).is_empty(), "{:?}", files_under(&outside));
}

/// Two files whose names are not UTF-8 are reported under two names
/// (`\xff`, `\xfe`), in the short and JSON formats; both used to be `a�.md`.
#[test]
fn file_names_that_are_not_utf8_stay_distinct() {
    use std::os::unix::ffi::OsStrExt;
    let t = support::tree(&[("knobs.toml", PIN_RADIANCE)]);
    for b in [b'\xff', b'\xfe'] {
        let bytes = [b'a', b, b'.', b'm', b'd'];
        std::fs::write(t.path().join(std::ffi::OsStr::from_bytes(&bytes)), "Run `radiance --max-batchh 4`.\n")
            .expect("write");
    }
    let short = knobs(t.path(), &["lint", "--format", "short", "."]).stdout;
    assert!(short.contains("a\\xff.md:1:15: KNB001") && short.contains("a\\xfe.md:1:15: KNB001"), "{short}");
    let json = knobs(t.path(), &["lint", "--format", "json", "."]).stdout;
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    let mut paths: Vec<String> = v["findings"]
        .as_array()
        .map(|a| a.iter().filter_map(|f| f["path"].as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    paths.sort();
    paths.dedup();
    assert_eq!(paths, ["a\\xfe.md", "a\\xff.md"], "{json}");
}

const PIN_RADIANCE: &[u8] = b"[pin]\nengine = \"radiance\"\n";
