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
