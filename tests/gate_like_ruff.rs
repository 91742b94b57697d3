//! The gate as users of ruff expect it: `--fix` and `--diff` exit 1 while
//! something remains, `--diff | git apply` works, fixable findings are
//! marked, excludes and per-file ignores are read from the knobs.toml that
//! declares them (also under `--staged`), a baseline adopts a repository's
//! old findings, `--version` after a subcommand is knobs' version. And
//! tests that pass wherever the clone is: errors and findings naming a long
//! path stay one line.

use std::path::{Path, PathBuf};

use crate::support::{self, knobs, run_in};

/// A folder under `base` whose absolute path is longer than 100 characters.
fn deep(base: &Path) -> PathBuf {
    let mut dir = base.to_path_buf();
    while dir.display().to_string().len() <= 110 {
        dir = dir.join("a-folder-with-a-long-name");
    }
    std::fs::create_dir_all(&dir).expect("mkdir");
    dir
}

#[test]
fn an_error_naming_a_long_path_is_one_line() {
    let t = tempfile::tempdir().expect("tempdir");
    let dir = deep(t.path());
    let prom = dir.join("malformed.prom");
    std::fs::copy(support::fixtures().join("verify/metrics/malformed.prom"), &prom).expect("copy");
    let argv = support::fixtures().join("verify/argv/armed").display().to_string();
    let shown = prom.display().to_string();
    assert!(shown.len() > 100);
    let r = knobs(&dir, &["verify", "--cmdline", &argv, "--metrics", &shown]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    // Line 6 of the fixture is `radiance:engine_steps_held_total 12x`.
    let sentence = format!(
        "{shown} is not a Prometheus text exposition: line 6: the value `12x` of `radiance:engine_steps_held_total` is not a number"
    );
    assert!(r.stderr.contains(&sentence), "{}", r.stderr);
}

#[test]
fn a_finding_under_a_long_path_is_one_line() {
    let t = tempfile::tempdir().expect("tempdir");
    let dir = deep(t.path());
    let flag = format!("--{}", "x".repeat(70));
    std::fs::write(dir.join("run.md"), format!("```sh\nradiance {flag} 1\n```\n")).expect("write");
    let r = run_in(t.path(), &["lint", "--format", "human"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let message = format!("`{flag}` is not a flag of radiance v1.8.1");
    assert!(r.stdout.lines().any(|l| l.contains(&message)), "{}", r.stdout);
    let rel = dir.strip_prefix(t.path()).expect("under").join("run.md").display().to_string();
    assert!(r.stdout.contains(&format!("[{rel}:2:10]")), "{}", r.stdout);
}
