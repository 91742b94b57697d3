//! The git folder is not project content (issue 29): a checkout's
//! `.git/config` may hold a token (`http.extraheader`, a remote URL), so no
//! path or symlink the tree commits leads knobs to read, print or write
//! anything there — knobs.toml, an `EnvironmentFile=` target, a catalogue,
//! a baseline, a `--fix` write, a file named on the command line.

use std::path::Path;

use crate::support;

const URL_TOKEN: &str = "ghp_FAKEurl0123456789";
const HEADER_TOKEN: &str = "ghp_FAKEhdr0123456789";

/// A checkout: `.git/config` with a token in a remote URL and in an
/// extra header, and the files given.
fn checkout(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let config = format!(
        "[core]\n\trepositoryformatversion = 0\n[remote \"origin\"]\n\turl = https://x-access-token:{URL_TOKEN}@github.com/o/r.git\n[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic {HEADER_TOKEN}\nTOKEN={HEADER_TOKEN}\n"
    );
    let t = support::tree(files);
    std::fs::create_dir_all(t.path().join(".git/refs")).expect("mkdir");
    std::fs::create_dir_all(t.path().join(".git/objects")).expect("mkdir");
    std::fs::write(t.path().join(".git/HEAD"), "ref: refs/heads/main\n").expect("write");
    std::fs::write(t.path().join(".git/config"), config).expect("write");
    t
}

fn link(target: &str, at: &Path) {
    std::fs::create_dir_all(at.parent().expect("parent")).expect("mkdir");
    std::os::unix::fs::symlink(target, at).expect("symlink");
}

fn assert_unshown(r: &support::Output, what: &str) {
    for token in [URL_TOKEN, HEADER_TOKEN] {
        assert!(!r.stdout.contains(token) && !r.stderr.contains(token), "{what}:\n{}\n{}", r.stdout, r.stderr);
    }
}

/// Every file under `dir` but the git folder holds no token.
fn assert_unwritten(dir: &Path) {
    for f in support::files_under(dir) {
        if f.starts_with(".git/") {
            continue;
        }
        let bytes = std::fs::read(dir.join(&f)).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(URL_TOKEN) && !text.contains(HEADER_TOKEN), "{f} holds a token");
    }
}

const UNIT: &[u8] = b"[Service]\nEnvironmentFile=/etc/radiance/engine.conf\nExecStart=/usr/bin/radiance\n";

/// `EnvironmentFile=` naming a committed `deploy/engine.conf -> ../.git/config`:
/// not linted, in no format; not in the baseline written; `--fix` leaves
/// `.git/config` as it was.
#[test]
fn an_environment_file_linked_into_the_git_folder_is_not_read() {
    let t = checkout(&[("deploy/radiance.service", UNIT), ("run.md", b"Nothing here.\n")]);
    link("../.git/config", &t.path().join("deploy/engine.conf"));
    let before = std::fs::read(t.path().join(".git/config")).expect("read");
    for format in ["human", "short", "json", "sarif", "github"] {
        let r = support::knobs(t.path(), &["lint", "-vv", "--format", format]);
        assert_eq!(r.code, 0, "{format}: {}\n{}", r.stdout, r.stderr);
        assert_unshown(&r, format);
    }
    let r = support::knobs(t.path(), &["lint", "--write-baseline", "base.json"]);
    assert_unshown(&r, "--write-baseline");
    let r = support::knobs(t.path(), &["lint", "--fix"]);
    assert_unshown(&r, "--fix");
    assert_eq!(std::fs::read(t.path().join(".git/config")).expect("read"), before, "--fix rewrote .git/config");
    assert_unwritten(t.path());
}

/// `knobs.toml -> .git/config`: exit 2 naming knobs.toml and the git
/// folder, the token in no format.
#[test]
fn a_knobs_toml_linked_into_the_git_folder_is_refused() {
    let t = checkout(&[("run.md", b"Nothing here.\n")]);
    link(".git/config", &t.path().join("knobs.toml"));
    for format in ["human", "short", "json", "sarif", "github"] {
        let r = support::knobs(t.path(), &["lint", "--format", format]);
        assert_eq!(r.code, 2, "{format}: {}\n{}", r.stdout, r.stderr);
        assert!(r.stderr.contains("knobs.toml") && r.stderr.contains("git folder"), "{format}: {}", r.stderr);
        assert_unshown(&r, format);
    }
    let r = support::knobs(t.path(), &["explain", "--port"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_unshown(&r, "explain");
}

/// A catalogue, an overlay and a baseline linked into the git folder, a
/// `.git` file (`gitdir:`) pointing at one elsewhere, and the git folder
/// named on the command line: refused, the token shown nowhere, nothing
/// written there.
#[test]
fn every_other_way_into_the_git_folder_is_refused() {
    let t = checkout(&[("run.md", b"Nothing here.\n"), ("knobs.toml", b"[pin]\nengine = \"radiance\"\n")]);
    link("../../.git/config", &t.path().join("catalog/radiance/v9.9.9.toml"));
    let r = support::knobs(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    assert_unshown(&r, "catalogue");
    std::fs::remove_file(t.path().join("catalog/radiance/v9.9.9.toml")).expect("rm");
    link("../../.git/config", &t.path().join("catalog/radiance/semantics.toml"));
    let r = support::knobs(t.path(), &["lint"]);
    assert_unshown(&r, "overlay");
    std::fs::remove_dir_all(t.path().join("catalog")).expect("rm");

    std::fs::write(t.path().join("knobs.toml"), "[pin]\nengine = \"radiance\"\n[lint]\nbaseline = \"base.json\"\n")
        .expect("write");
    link(".git/config", &t.path().join("base.json"));
    let r = support::knobs(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("git folder"), "{}", r.stderr);
    assert_unshown(&r, "baseline");
    std::fs::remove_file(t.path().join("knobs.toml")).expect("rm");

    for named in [".git/config", "base.json", ".git"] {
        let r = support::knobs(t.path(), &["lint", named]);
        assert_eq!(r.code, 2, "{named}: {}\n{}", r.stdout, r.stderr);
        assert_unshown(&r, named);
    }
    let r = support::knobs(t.path(), &["--config", "base.json", "lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_unshown(&r, "--config");
    let before = std::fs::read(t.path().join(".git/config")).expect("read");
    let r = support::knobs(t.path(), &["lint", "--write-baseline", "base.json"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(std::fs::read(t.path().join(".git/config")).expect("read"), before);

    // A work tree whose `.git` is a file pointing at its git folder elsewhere.
    let other = tempfile::tempdir().expect("tempdir");
    let gitdir = other.path().join("repo.git");
    std::fs::create_dir_all(&gitdir).expect("mkdir");
    std::fs::rename(t.path().join(".git/config"), gitdir.join("config")).expect("mv");
    std::fs::remove_dir_all(t.path().join(".git")).expect("rm");
    std::fs::write(t.path().join(".git"), format!("gitdir: {}\n", gitdir.display())).expect("write");
    std::fs::remove_file(t.path().join("base.json")).expect("rm");
    std::fs::create_dir_all(t.path().join("deploy")).expect("mkdir");
    std::fs::write(t.path().join("deploy/radiance.service"), UNIT).expect("write");
    link(&gitdir.join("config").display().to_string(), &t.path().join("deploy/engine.conf"));
    let r = support::knobs(t.path(), &["lint"]);
    assert_unshown(&r, "gitdir file");
    let r = support::knobs(t.path(), &["lint", "deploy/engine.conf"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_unshown(&r, "gitdir file, named");
}
