//! Shared test helpers: fixture git repositories and running knobs.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use git2::{Oid, Repository, Signature, Time};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixtures() -> PathBuf {
    root().join("fixtures")
}

/// A fixed signature, so the fixture repository's commit ids never change.
fn sig() -> Signature<'static> {
    Signature::new("knobs fixtures", "fixtures@knobs.invalid", &Time::new(1_760_000_000, 0)).expect("signature")
}

/// Writes a folder of the work tree as a git tree, recursively, sorted.
fn write_dir(repo: &Repository, dir: &Path) -> Oid {
    let mut entries: Vec<_> =
        std::fs::read_dir(dir).expect("read fixture dir").map(|e| e.expect("entry").path()).collect();
    entries.sort();
    let mut tb = repo.treebuilder(None).expect("treebuilder");
    for p in entries {
        let name = p.file_name().expect("name").to_string_lossy().into_owned();
        if p.is_dir() {
            tb.insert(&name, write_dir(repo, &p), 0o040000).expect("insert tree");
        } else {
            let blob = repo.blob(&std::fs::read(&p).expect("read fixture")).expect("blob");
            tb.insert(&name, blob, 0o100644).expect("insert blob");
        }
    }
    tb.write().expect("write tree")
}

/// Builds a bare repository at `dest` with one commit per `(tag, tree dir)`,
/// in order, each tagged. Odd positions get annotated tags, even lightweight.
pub fn build_repo(dest: &Path, versions: &[(&str, PathBuf)]) -> Repository {
    let repo = Repository::init_bare(dest).expect("init bare");
    let mut parent: Option<Oid> = None;
    for (i, (tag, dir)) in versions.iter().enumerate() {
        let tree = repo.find_tree(write_dir(&repo, dir)).expect("tree");
        let parents: Vec<git2::Commit<'_>> = parent.iter().map(|p| repo.find_commit(*p).expect("parent")).collect();
        let refs: Vec<&git2::Commit<'_>> = parents.iter().collect();
        let id = repo
            .commit(Some("refs/heads/main"), &sig(), &sig(), &format!("radiance {tag}"), &tree, &refs)
            .expect("commit");
        let obj = repo.find_object(id, None).expect("object");
        if i % 2 == 0 {
            repo.tag(tag, &obj, &sig(), &format!("release {tag}"), false).expect("annotated tag");
        } else {
            repo.tag_lightweight(tag, &obj, false).expect("tag");
        }
        parent = Some(id);
    }
    repo
}

/// The reconstructed radiance, both versions, at `<dir>/fixtures/radiance.git`.
pub fn radiance_repo(dir: &Path) -> PathBuf {
    let dest = dir.join("fixtures").join("radiance.git");
    build_repo(
        &dest,
        &[("v1.0.13", fixtures().join("radiance/v1.0.13")), ("v1.8.1", fixtures().join("radiance/v1.8.1"))],
    );
    dest
}

pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the built binary in `cwd` with a private cache.
pub fn knobs(cwd: &Path, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_knobs"))
        .args(args)
        .current_dir(cwd)
        .env("KNOBS_CACHE_DIR", cwd.join(".knobs-cache"))
        .env("NO_COLOR", "1")
        .output()
        .expect("run knobs");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs knobs in-process.
pub fn run_in(cwd: &Path, args: &[&str]) -> Output {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let mut argv = vec!["knobs"];
    argv.extend_from_slice(args);
    let code = knobs::run(argv, &mut out, &mut err, cwd);
    Output {
        code: i32::from(code),
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
    }
}

/// A temporary folder holding the given files.
pub fn tree(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    for (name, body) in files {
        let p = tmp.path().join(name);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, body).expect("write");
    }
    tmp
}

/// Runs the built binary with `stdin` as standard input.
pub fn knobs_with_stdin(cwd: &Path, args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_knobs"))
        .args(args)
        .current_dir(cwd)
        .env("KNOBS_CACHE_DIR", cwd.join(".knobs-cache"))
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run knobs");
    child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("write stdin");
    let out = child.wait_with_output().expect("wait");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
