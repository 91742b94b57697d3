//! Fixture git repositories, built from folders of the work tree with fixed
//! signatures and times, so their commit ids never change.

use std::path::{Path, PathBuf};

use git2::{Oid, Repository, Signature, Time};

use super::fixtures;

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
