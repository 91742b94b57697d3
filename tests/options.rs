//! The lint options ruff and shellcheck users expect: `--select`,
//! `--ignore`, per-file ignores, `--exit-zero`, `--statistics`,
//! `--fail-on`, and standard input with `--stdin-filename`.

use crate::support::rule_fixtures::lint;
use crate::support::{knobs_with_stdin, run_in, short, tree};

#[test]
fn select_ignore_per_file_ignores_exit_zero_and_statistics() {
    let md = b"`--checkpoint-policy floor` `radiance:nope_total` `radiance:num_preemptions_total`\n";
    let t = tree(&[("a.md", md), ("docs/b.md", md)]);
    let r = run_in(t.path(), &["lint", "--format", "short", "--select", "KNB002,unknown-metric"]);
    assert_eq!(r.stdout.lines().count(), 4, "{}", r.stdout);
    let r = run_in(t.path(), &["lint", "--format", "short", "--ignore", "invented-member"]);
    assert!(r.stdout.lines().all(|l| !l.contains("KNB002")) && r.stdout.lines().count() == 4, "{}", r.stdout);
    let r = run_in(t.path(), &["lint", "--exit-zero"]);
    assert_eq!(r.code, 0);
    let r = run_in(t.path(), &["lint", "--statistics"]);
    assert_eq!(r.stdout, "2  KNB002  invented-member\n2  KNB004  unknown-metric\n2  KNB005  wrong-metric-prefix\n6 findings in 2 files.\n");
    assert_eq!(r.code, 1);
    let r = run_in(t.path(), &["lint", "--select", "KNB999"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--select names no rule `KNB999`"), "{}", r.stderr);
    std::fs::write(
        t.path().join("knobs.toml"),
        "[lint]\nignore = [\"KNB005\"]\n\n[lint.per-file-ignores]\n\"docs/**\" = [\"unknown-metric\"]\n",
    )
    .expect("write");
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(
        short(&r.stdout),
        [
            "a.md:1:22: KNB002 `floor` is not a member of `--checkpoint-policy`",
            "a.md:1:30: KNB004 `radiance:nope_total` is not exported by radiance v1.8.1",
            "docs/b.md:1:22: KNB002 `floor` is not a member of `--checkpoint-policy`",
        ]
    );
}

#[test]
fn standard_input_with_a_file_name() {
    let t = tree(&[("svc/serve.sh", b"#!/bin/sh\nexec radiance --max-num-seqs \"${MAX_SEQS:-2}\"\n")]);
    let r = knobs_with_stdin(
        t.path(),
        &["lint", "-", "--stdin-filename", "svc/knobs.env", "--format", "short"],
        "MAX_SEQS=two\n",
    );
    // The folder's serve script maps MAX_SEQS, read from the disk.
    assert_eq!(r.stdout, "svc/knobs.env:1:10: KNB003 `two` is not a valid value for `MAX_SEQS` (`--max-num-seqs`)\n");
    assert_eq!(r.code, 1);
    let r = knobs_with_stdin(t.path(), &["lint", "-"], "x");
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("needs --stdin-filename"), "{}", r.stderr);
}

#[test]
fn fail_on_error_ignores_warnings() {
    let env = "fixtures/lint/rules/KNB006/bad.env";
    assert_eq!(lint(&["lint", "--format", "short", env]).code, 1);
    let r = lint(&["lint", "--format", "short", "--fail-on", "error", env]);
    assert_eq!(r.code, 0, "a warning below the fail level exits 0");
    assert!(!r.stdout.is_empty(), "the warning is still shown");
}
