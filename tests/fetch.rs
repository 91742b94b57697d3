//! A sync from a remote fetches only what it reads (issue 23): one tag at
//! depth 1, a later tag the same way into the same cache, a missing tag's
//! help from the remote's ref list with nothing fetched; and the library
//! calls a sync of many tags makes (`list_tags`, `fetch_tags`). Served by
//! `git daemon` on loopback, over smart HTTP, and as a `file://` URL (which
//! knobs copies itself: libgit2's local transport refuses depth).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use git2::Repository;

use crate::support::{self, daemon::Daemon, flat, smart_http::SmartHttp};

/// Runs knobs in `cwd` with the cache at `cache`.
fn knobs_cached(cwd: &Path, cache: &Path, args: &[&str]) -> support::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_knobs"))
        .args(args)
        .current_dir(cwd)
        .env("KNOBS_CACHE_DIR", cache)
        .env("NO_COLOR", "1")
        .output()
        .expect("run knobs")
        .into()
}

/// The one repository in the cache at `cache`.
fn cached_repo(cache: &Path) -> Repository {
    let repos: Vec<PathBuf> =
        std::fs::read_dir(cache.join("repos")).expect("cache").map(|e| e.expect("entry").path()).collect();
    assert_eq!(repos.len(), 1, "{repos:?}");
    Repository::open_bare(&repos[0]).expect("cached repository")
}

/// Every ref of `repo`, sorted.
fn refs(repo: &Repository) -> Vec<String> {
    let mut names: Vec<String> =
        repo.references().expect("refs").map(|r| r.expect("ref").name().expect("name").to_string()).collect();
    names.sort();
    names
}

/// The commit `tag` of `repo` peels to.
fn commit_of(repo: &Repository, tag: &str) -> git2::Oid {
    repo.find_reference(&format!("refs/tags/{tag}")).and_then(|r| r.peel_to_commit()).expect("tag").id()
}

/// The ids of a tree and of every tree and blob under it.
fn objects_of(repo: &Repository, tree: git2::Oid) -> BTreeSet<git2::Oid> {
    let mut ids = BTreeSet::from([tree]);
    repo.find_tree(tree)
        .expect("tree")
        .walk(git2::TreeWalkMode::PreOrder, |_, e| {
            ids.insert(e.id());
            git2::TreeWalkResult::Ok
        })
        .expect("walk");
    ids
}

/// The `fetched N objects, M bytes` note of a `-v` sync: N.
fn objects_fetched(stderr: &str, url: &str) -> usize {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("note: fetched ") && l.ends_with(&format!(" bytes from `{url}`")))
        .unwrap_or_else(|| panic!("no fetch note in {stderr}"));
    line["note: fetched ".len()..].split(' ').next().and_then(|n| n.parse().ok()).expect("a count")
}

/// The served radiance fixture: v1.0.13 (annotated) and its child v1.8.1
/// (lightweight) on `main`.
fn served(dir: &Path) -> (Repository, PathBuf) {
    let served = dir.join("fixtures");
    let bare = support::radiance_repo(dir);
    (Repository::open_bare(&bare).expect("served"), served)
}

#[test]
fn a_remote_tag_is_fetched_alone_at_depth_one_and_a_later_one_beside_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (_, served) = served(tmp.path());
    let Some(daemon) = Daemon::start(&served) else { return };
    one_tag_then_another(tmp.path(), &daemon.url("radiance.git"));
}

/// A `file://` remote the same way (libgit2's local transport refuses
/// depth, so knobs copies the tag's objects itself).
#[test]
fn a_file_url_tag_is_copied_alone_at_depth_one_and_a_later_one_beside_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (_, served) = served(tmp.path());
    one_tag_then_another(tmp.path(), &format!("file://{}", served.join("radiance.git").display()));
}

/// Syncs v1.8.1, then v1.0.13 (its parent), from `url` serving the
/// radiance fixture built under `tmp`: each tag alone, at depth 1.
fn one_tag_then_another(tmp: &Path, url: &str) {
    let upstream = Repository::open_bare(tmp.join("fixtures/radiance.git")).expect("served");
    let cache = tmp.join("cache");
    let (new, old) = (commit_of(&upstream, "v1.8.1"), commit_of(&upstream, "v1.0.13"));
    let new_tree = upstream.find_commit(new).expect("commit").tree_id();
    let old_tree = upstream.find_commit(old).expect("commit").tree_id();

    let r = knobs_cached(tmp, &cache, &["-v", "sync", "--repo", url, "--tag", "v1.8.1", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        format!(
            "out/radiance/v1.8.1.toml: 16 flags (2 enums), 21 metrics — radiance v1.8.1 @ {}\n",
            &new.to_string()[..12]
        )
    );
    // The tag's commit and its tree, nothing of its parent: 1 + the 4
    // folders and 5 files of fixtures/radiance/v1.8.1.
    assert_eq!(objects_fetched(&r.stderr, url), 1 + 4 + 5, "{}", r.stderr);
    let git = cached_repo(&cache);
    assert_eq!(refs(&git), ["refs/tags/v1.8.1"], "no other tag, no branch");
    assert!(git.is_shallow(), "a depth-1 fetch leaves a shallow repository");
    assert!(git.find_commit(old).is_err(), "the parent commit was fetched");
    assert!(git.find_tree(old_tree).is_err(), "the parent's tree was fetched");

    // A later tag: the same way into the same cache, only what it adds.
    let r = knobs_cached(tmp, &cache, &["-v", "sync", "--repo", url, "--tag", "v1.0.13", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("(cached)"), "{}", r.stdout);
    let added = objects_of(&upstream, old_tree).difference(&objects_of(&upstream, new_tree)).count();
    // Its tag object, its commit, and the folders and files that differ.
    assert_eq!(objects_fetched(&r.stderr, url), 2 + added, "{}", r.stderr);
    let git = cached_repo(&cache);
    assert_eq!(refs(&git), ["refs/tags/v1.0.13", "refs/tags/v1.8.1"]);
    assert!(git.is_shallow());
    let shallow = std::fs::read_to_string(git.path().join("shallow")).expect("shallow file");
    let mut roots: Vec<&str> = shallow.lines().collect();
    roots.sort();
    let mut expected = [old.to_string(), new.to_string()];
    expected.sort();
    assert_eq!(roots, expected, "each tag's commit is a shallow root");

    // Again: from the cache, nothing fetched, no note.
    let r = knobs_cached(tmp, &cache, &["-v", "sync", "--repo", url, "--tag", "v1.0.13", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.ends_with(" (cached)\n"), "{}", r.stdout);
    assert!(!r.stderr.contains("note: fetched"), "{}", r.stderr);
}

/// Over smart HTTP the same: the tag alone, at depth 1.
#[test]
fn over_http_a_tag_is_fetched_alone_at_depth_one() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (upstream, served) = served(tmp.path());
    let server = SmartHttp::start(&served);
    let url = server.url("radiance.git");
    let cache = tmp.path().join("cache");
    let r = knobs_cached(tmp.path(), &cache, &["-v", "sync", "--repo", &url, "--tag", "v1.8.1", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // The commit, and the 4 folders and 5 files of its tree.
    assert_eq!(objects_fetched(&r.stderr, &url), 1 + 4 + 5, "{}", r.stderr);
    let git = cached_repo(&cache);
    assert_eq!(refs(&git), ["refs/tags/v1.8.1"]);
    assert!(git.is_shallow());
    assert!(git.find_commit(commit_of(&upstream, "v1.0.13")).is_err(), "the parent commit was fetched");
}

#[test]
fn a_tag_the_remote_lacks_names_its_nearest_tags_and_fetches_nothing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (_upstream, served) = served(tmp.path());
    let Some(daemon) = Daemon::start(&served) else { return };
    let url = daemon.url("radiance.git");
    let said = format!("tag `v1.8.2` not found in `{url}`; nearest tags: v1.8.1, v1.0.13");
    // A fresh cache: the ref list answers, nothing is left in the cache.
    let fresh = tmp.path().join("fresh");
    let r = knobs_cached(tmp.path(), &fresh, &["sync", "--repo", &url, "--tag", "v1.8.2", "--out", "out"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains(&said), "{}", r.stderr);
    assert_eq!(std::fs::read_dir(fresh.join("repos")).expect("repos").count(), 0, "something was fetched");
    assert!(!tmp.path().join("out").exists());
    // A cache holding v1.8.1 only: v1.0.13, which it lacks, is named (the
    // remote's list), and the cache is as it was.
    let cache = tmp.path().join("cache");
    let r = knobs_cached(tmp.path(), &cache, &["sync", "--repo", &url, "--tag", "v1.8.1", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let packs = |git: &Repository| support::files_under(&git.path().join("objects"));
    let before = packs(&cached_repo(&cache));
    let r = knobs_cached(tmp.path(), &cache, &["sync", "--repo", &url, "--tag", "v1.8.2", "--out", "out"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains(&said), "{}", r.stderr);
    let git = cached_repo(&cache);
    assert_eq!(refs(&git), ["refs/tags/v1.8.1"]);
    assert_eq!(packs(&git), before, "nothing was fetched");
}

/// The calls `sync --all-tags` makes: the remote's tags from its ref list
/// (annotated ones peeled), then a set of them in one fetch.
#[test]
fn many_tags_are_listed_without_a_fetch_and_fetched_in_one() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (upstream, served) = served(tmp.path());
    let Some(daemon) = Daemon::start(&served) else { return };
    let url = daemon.url("radiance.git");
    let cache = tmp.path().join("cache");
    let expected = vec![
        ("v1.0.13".to_string(), commit_of(&upstream, "v1.0.13").to_string()),
        ("v1.8.1".to_string(), commit_of(&upstream, "v1.8.1").to_string()),
    ];
    let pairs = |tags: Vec<knobs::source::RemoteTag>| -> Vec<(String, String)> {
        tags.into_iter().map(|t| (t.name, t.commit)).collect()
    };
    let listed = knobs::source::list_tags(&url, tmp.path()).expect("listed");
    assert_eq!(pairs(listed.tags), expected);
    assert!(!cache.exists(), "listing made a cache");
    // A local repository lists the same, read in place; a path that is not
    // there is said so.
    assert_eq!(pairs(knobs::source::list_tags("fixtures/radiance.git", tmp.path()).expect("local").tags), expected);
    let err = knobs::source::list_tags("no/such.git", tmp.path()).expect_err("no such path");
    assert_eq!(
        err.to_string(),
        format!("cannot read repository `no/such.git`: {} does not exist", tmp.path().join("no/such.git").display())
    );

    let both = ["v1.0.13".to_string(), "v1.8.1".to_string()];
    let fetched = knobs::source::fetch_tags(&url, tmp.path(), &cache, &both, false).expect("fetched");
    // Two commits, one tag object, and every folder and file of the two trees.
    let trees: BTreeSet<git2::Oid> = both
        .iter()
        .flat_map(|t| objects_of(&upstream, upstream.find_commit(commit_of(&upstream, t)).expect("c").tree_id()))
        .collect();
    assert_eq!(fetched.map(|t| t.objects), Some(3 + trees.len()));
    let git = cached_repo(&cache);
    assert_eq!(refs(&git), ["refs/tags/v1.0.13", "refs/tags/v1.8.1"]);
    assert!(git.is_shallow());
    // Already there: nothing fetched, and each opens from the cache.
    assert_eq!(knobs::source::fetch_tags(&url, tmp.path(), &cache, &both, false).expect("again"), None);
    for tag in &both {
        let tree = knobs::source::PinnedTree::open(&url, tmp.path(), tag, &cache, false).expect("open");
        assert_eq!(tree.how, knobs::source::Origin::Cached);
    }
    // A tag the remote lacks: said so, with its nearest, nothing fetched.
    let err = knobs::source::fetch_tags(&url, tmp.path(), &cache, &["v1.0.13".into(), "v2".into()], true)
        .expect_err("v2 is not there");
    assert_eq!(err.to_string(), format!("tag `v2` not found in `{url}`; nearest tags: v1.8.1, v1.0.13"));
    // A local repository is read in place: nothing to fetch.
    assert_eq!(knobs::source::fetch_tags("fixtures/radiance.git", tmp.path(), &cache, &both, false).expect("x"), None);
}
