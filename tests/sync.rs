//! `knobs sync` end to end: a tagged git repository in, catalogues out.

use std::path::Path;

use crate::support::{self, files_under, knobs};

/// The committed catalogues are exactly what sync writes from the fixture
/// repository. Set KNOBS_BLESS=1 to rewrite them after a deliberate change.
#[test]
fn committed_catalogues_regenerate_exactly() {
    let tmp = tempfile::tempdir().expect("tempdir");
    support::radiance_repo(tmp.path());
    for tag in ["v1.0.13", "v1.8.1"] {
        let r = knobs(tmp.path(), &["sync", "--repo", "fixtures/radiance.git", "--tag", tag, "--out", "out"]);
        assert_eq!(r.code, 0, "sync {tag}: {}", r.stderr);
        assert!(r.stderr.is_empty(), "no warnings expected: {}", r.stderr);
        let fresh =
            std::fs::read_to_string(tmp.path().join("out/radiance").join(format!("{tag}.toml"))).expect("written");
        let committed_path = support::root().join("catalog/radiance").join(format!("{tag}.toml"));
        if std::env::var_os("KNOBS_BLESS").is_some() {
            std::fs::write(&committed_path, &fresh).expect("bless");
            continue;
        }
        let committed = std::fs::read_to_string(&committed_path).unwrap_or_default();
        assert!(
            fresh == committed,
            "catalog/radiance/{tag}.toml is stale; rerun with KNOBS_BLESS=1 and review the diff"
        );
    }
}

/// The llama.cpp-idiom fixture's catalogue, committed for the lint tests
/// (`fixtures/llama.cpp/catalog`, read with `--catalog-dir`), is what sync
/// writes. KNOBS_BLESS=1 rewrites it after a deliberate change.
#[test]
fn committed_llama_cpp_fixture_catalogue_regenerates_exactly() {
    let tmp = tempfile::tempdir().expect("tempdir");
    support::build_repo(&tmp.path().join("llama.git"), &[("b4100", support::fixtures().join("llama.cpp/b4100"))]);
    let r =
        knobs(tmp.path(), &["sync", "--engine", "llama.cpp", "--repo", "llama.git", "--tag", "b4100", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let fresh = std::fs::read_to_string(tmp.path().join("out/llama.cpp/b4100.toml")).expect("written");
    let committed_path = support::fixtures().join("llama.cpp/catalog/llama.cpp/b4100.toml");
    if std::env::var_os("KNOBS_BLESS").is_some() {
        std::fs::create_dir_all(committed_path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&committed_path, &fresh).expect("bless");
        return;
    }
    let committed = std::fs::read_to_string(&committed_path).unwrap_or_default();
    assert!(fresh == committed, "{} is stale; rerun with KNOBS_BLESS=1 and review the diff", committed_path.display());
}

/// A small repository with the given tags, at `<dir>/<name>`.
fn small_repo(dir: &Path, name: &str, tags: &[(&str, &str)]) -> std::path::PathBuf {
    let dest = dir.join(name);
    let versions: Vec<(&str, std::path::PathBuf)> =
        tags.iter().map(|(tag, tree)| (*tag, support::fixtures().join("small").join(tree))).collect();
    support::build_repo(&dest, &versions);
    dest
}

#[test]
fn summary_line_names_path_and_counts() {
    let tmp = tempfile::tempdir().expect("tempdir");
    support::radiance_repo(tmp.path());
    let r = knobs(tmp.path(), &["sync", "--repo", "fixtures/radiance.git", "--tag", "v1.8.1", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "out/radiance/v1.8.1.toml: 16 flags (2 enums), 21 metrics — radiance v1.8.1 @ 76552d15dfd0 (read in place)\n"
    );
    // A local repository is read where it is: no cache is made.
    assert!(!tmp.path().join(".knobs-cache/repos").exists());
}

/// A local clone that lacks some blobs (a partial or size-limited clone)
/// still syncs: only the blobs knobs reads must be there.
#[test]
fn a_local_clone_missing_unrelated_blobs_syncs() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let tree = tmp.path().join("tree");
    std::fs::create_dir_all(tree.join("core")).expect("mkdir");
    std::fs::copy(support::fixtures().join("radiance/v1.8.1/core/config.cpp"), tree.join("core/config.cpp"))
        .expect("copy");
    std::fs::write(tree.join("weights.bin"), vec![7u8; 4096]).expect("write");
    std::fs::write(tree.join("core/big_table.cpp"), "// a large generated table\nint x;\n").expect("write");
    let repo = support::build_repo(&tmp.path().join("partial.git"), &[("v1", tree)]);
    // Drop the two blobs, as a size-limited clone would.
    for path in ["weights.bin", "core/big_table.cpp"] {
        let id = repo
            .find_reference("refs/tags/v1")
            .and_then(|r| r.peel_to_tree())
            .and_then(|t| t.get_path(Path::new(path)).map(|e| e.id()))
            .expect("blob");
        let hex = id.to_string();
        std::fs::remove_file(tmp.path().join("partial.git/objects").join(&hex[..2]).join(&hex[2..])).expect("loose");
    }
    let r = knobs(tmp.path(), &["sync", "--repo", "partial.git", "--tag", "v1", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("16 flags"), "{}", r.stdout);
    assert!(r.stderr.contains("warning: 1 C++ file at v1 is not in the repository (a partial clone?) and was not read for metrics: core/big_table.cpp"), "{}", r.stderr);
    assert!(r.stderr.contains("core/big_table.cpp"), "{}", r.stderr);
}

#[test]
fn missing_tag_lists_nearest_and_writes_nothing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    support::radiance_repo(tmp.path());
    let r = knobs(tmp.path(), &["sync", "--repo", "fixtures/radiance.git", "--tag", "v1.8.2", "--out", "out"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("tag `v1.8.2` not found in `fixtures/radiance.git`; nearest tags: v1.8.1, v1.0.13"),
        "{}",
        r.stderr
    );
    assert!(files_under(&tmp.path().join("out")).is_empty());
}

#[test]
fn missing_repo_is_a_clear_error() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let r = knobs(tmp.path(), &["sync", "--repo", "no/such/repo", "--tag", "v1", "--out", "out"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("cannot read repository `no/such/repo`"), "{}", r.stderr);
    assert!(!tmp.path().join("out").exists());
}

#[test]
fn missing_config_cpp_and_zero_flags_write_nothing() {
    let tmp = tempfile::tempdir().expect("tempdir");
    small_repo(tmp.path(), "odd.git", &[("v0.0.1", "noconfig"), ("v0.0.2", "noflags")]);
    let r = knobs(tmp.path(), &["sync", "--repo", "odd.git", "--tag", "v0.0.1", "--out", "out"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("`core/config.cpp` does not exist at v0.0.1 in `odd.git`"), "{}", r.stderr);
    let r = knobs(tmp.path(), &["sync", "--repo", "odd.git", "--tag", "v0.0.2", "--out", "out"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no flags found in core/config.cpp"), "{}", r.stderr);
    assert!(files_under(&tmp.path().join("out")).is_empty());
}

#[test]
fn file_url_remote_and_new_tags_fetch_into_the_cache() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = small_repo(tmp.path(), "small.git", &[("v0.1.0", "v0.1.0")]);
    let url = format!("file://{}", repo.display());
    let r = knobs(tmp.path(), &["sync", "--repo", &url, "--tag", "v0.1.0", "--engine", "small"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(tmp.path().join("catalog/small/v0.1.0.toml")).expect("written");
    let cat: knobs::catalog::model::Catalog = toml::from_str(&text).expect("valid catalogue");
    assert_eq!(cat.source.repo, url);
    assert_eq!(cat.flags.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["--dry-run", "--workers"]);

    // A tag pushed later is fetched into the same cache on the next sync.
    std::fs::remove_dir_all(&repo).expect("reset");
    small_repo(tmp.path(), "small.git", &[("v0.1.0", "v0.1.0"), ("v0.2.0", "v0.2.0")]);
    let r = knobs(tmp.path(), &["sync", "--repo", &url, "--tag", "v0.2.0", "--engine", "small"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("(cached)"), "{}", r.stdout);
    // The same tag again comes from the cache.
    let again = knobs(tmp.path(), &["sync", "--repo", &url, "--tag", "v0.2.0", "--engine", "small"]);
    assert!(again.stdout.ends_with("(cached)\n"), "{}", again.stdout);
    let text = std::fs::read_to_string(tmp.path().join("catalog/small/v0.2.0.toml")).expect("written");
    let cat: knobs::catalog::model::Catalog = toml::from_str(&text).expect("valid catalogue");
    let queue = cat.flag("--queue").expect("--queue");
    assert_eq!(queue.members, ["fifo", "lifo"]);
    let cached: Vec<_> = std::fs::read_dir(tmp.path().join(".knobs-cache/repos")).expect("cache").collect();
    assert_eq!(cached.len(), 1, "one bare cache per repository");
}

#[test]
fn pin_in_knobs_toml_supplies_defaults() {
    let tmp = tempfile::tempdir().expect("tempdir");
    small_repo(tmp.path(), "small.git", &[("v0.1.0", "v0.1.0")]);
    std::fs::write(
        tmp.path().join("knobs.toml"),
        "[pin]\nengine = \"small\"\nrepo = \"small.git\"\ntag = \"v0.1.0\"\n",
    )
    .expect("write");
    let sub = tmp.path().join("runbooks");
    std::fs::create_dir_all(&sub).expect("mkdir");
    // Run from a subfolder: the repo path and the default output folder are
    // both read relative to knobs.toml.
    let r = knobs(&sub, &["sync"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(tmp.path().join("catalog/small/v0.1.0.toml").is_file());
    assert!(!sub.join("catalog").exists());
}

#[test]
fn nothing_to_sync_from_says_how_to_fix_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let r = knobs(tmp.path(), &["sync", "--tag", "v1.8.1"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no repository to sync from"), "{}", r.stderr);
    assert!(r.stderr.contains("pass --repo URL|PATH"), "{}", r.stderr);
}

#[test]
fn bad_knobs_toml_points_into_the_file() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("knobs.toml"), "[pin]\nengine = \"radiance\"\ntag = \"v1 8\"\n").expect("write");
    let r = knobs(tmp.path(), &["sync"]);
    assert_eq!(r.code, 2);
    // The tag with a space, on line 3 of the file.
    assert!(r.stderr.contains("invalid [pin] tag") && r.stderr.contains("knobs.toml:3:7]"), "{}", r.stderr);
    insta::assert_snapshot!(r.stderr.replace(&tmp.path().display().to_string(), "[TMP]"));
}

/// A fetch over the network protocol, from `git daemon` on loopback.
#[test]
fn git_daemon_on_loopback() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let served = tmp.path().join("served");
    small_repo(&served, "small.git", &[("v0.1.0", "v0.1.0")]);
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("free port");
        l.local_addr().expect("addr").port()
    };
    let child = std::process::Command::new("git")
        .args(["daemon", "--reuseaddr", "--export-all", "--listen=127.0.0.1", &format!("--port={port}")])
        .arg(format!("--base-path={}", served.display()))
        .arg(&served)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        panic!("`git daemon` could not start: CI installs git, so this should not happen");
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(std::time::Instant::now() < deadline, "git daemon did not listen on {port}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let url = format!("git://127.0.0.1:{port}/small.git");
    let r = knobs(tmp.path(), &["sync", "--repo", &url, "--tag", "v0.1.0", "--engine", "small"]);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(tmp.path().join("catalog/small/v0.1.0.toml").is_file());
}

const GFLAGS_QUERY: &str = r#"
[pin]
engine = "gflags"
repo = "g.git"
tag = "v1"

[[extract.query]]
flags = '''
(call_expression
  function: (identifier) @kind (#match? @kind "^DEFINE_")
  arguments: (argument_list . (identifier) @flag . (_) @default . (string_literal) @help))
'''
"#;

/// A shape outside the built-in families (gflags macros), described by a
/// tree-sitter query in knobs.toml.
#[test]
fn knobs_toml_queries_describe_other_shapes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    small_repo(tmp.path(), "g.git", &[("v1", "gflags")]);
    std::fs::write(tmp.path().join("knobs.toml"), GFLAGS_QUERY).expect("write");
    let r = knobs(tmp.path(), &["sync"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(tmp.path().join("catalog/gflags/v1.toml")).expect("written");
    let cat: knobs::catalog::model::Catalog = toml::from_str(&text).expect("catalogue");
    let summary: Vec<(String, &str, String, Vec<String>)> =
        cat.flags.iter().map(|f| (f.name.clone(), f.kind.as_str(), f.default.clone(), f.members.clone())).collect();
    let members = |m: &[&str]| m.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        summary,
        vec![
            (
                "--checkpoint-policy".into(),
                "enum",
                "geometric-backoff".into(),
                members(&["geometric-backoff", "tip-only", "keep-all"])
            ),
            ("--prefill-interleave".into(), "int", "0".into(), vec![]),
            ("--trust-remote-code".into(), "switch", "false".into(), vec![]),
        ]
    );
}

#[test]
fn a_broken_query_points_into_knobs_toml() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(
        tmp.path().join("knobs.toml"),
        "[[extract.query]]\nflags = \"(call_expression (no_such_node) @flag)\"\n",
    )
    .expect("write");
    let r = knobs(tmp.path(), &["sync", "--repo", "x", "--tag", "y"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("unknown node type `no_such_node`") && r.stderr.contains("knobs.toml:2:"),
        "{}",
        r.stderr
    );
    insta::assert_snapshot!(r.stderr.replace(&tmp.path().display().to_string(), "[TMP]"));
}

#[test]
fn parse_errors_are_located_warnings() {
    let tmp = tempfile::tempdir().expect("tempdir");
    small_repo(tmp.path(), "b.git", &[("v1", "broken")]);
    let r = knobs(tmp.path(), &["sync", "--repo", "b.git", "--tag", "v1", "--engine", "b"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.starts_with("warning: core/config.cpp:5:"), "{}", r.stderr);
    assert!(r.stderr.contains("parse error"), "{}", r.stderr);
    let text = std::fs::read_to_string(tmp.path().join("catalog/b/v1.toml")).expect("written");
    let cat: knobs::catalog::model::Catalog = toml::from_str(&text).expect("catalogue");
    assert!(cat.flag("--workers").is_some() && cat.flag("--dry-run").is_some(), "{text}");
}
