//! Shared test helpers, each defined once: fixture paths and folders here;
//! fixture git repositories ([`repo`]), served by `git daemon` ([`daemon`])
//! or over smart HTTP ([`smart_http`]), running knobs ([`run`]), reading its
//! output ([`text`]), the rule fixtures ([`rule_fixtures`]) and a
//! deterministic input generator ([`xorshift`]) in their own files.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub mod daemon;
pub mod hostile_pack;
pub mod lsp;
pub mod repo;
pub mod rule_fixtures;
pub mod run;
pub mod smart_http;
pub mod text;
pub mod xorshift;

pub use repo::{build_repo, radiance_repo};
pub use run::{knobs, knobs_bounded, knobs_with_stdin, run_in, Output};
pub use text::{flat, short};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixtures() -> PathBuf {
    root().join("fixtures")
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

/// Files written under `dir`, relative, sorted (none if `dir` does not exist).
pub fn files_under(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().strip_prefix(dir).unwrap_or(e.path()).display().to_string())
        .collect();
    out.sort();
    out
}
