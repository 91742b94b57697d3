//! The gate as users of ruff expect it: `--fix` and `--diff` exit 1 while
//! something remains, `--diff | git apply` works, fixable findings are
//! marked, excludes and per-file ignores are read from the knobs.toml that
//! declares them (also under `--staged`), a baseline adopts a repository's
//! old findings, `--version` after a subcommand is knobs' version. And
//! tests that pass wherever the clone is: errors and findings naming a long
//! path stay one line.

use std::path::{Path, PathBuf};

use crate::support::{self, knobs, run_in, short, tree};

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

/// A runbook with two fixable findings (a flag renamed in v1.8.1, a metric
/// under radiance's prefix that v1.8.1 exports under `vllm:`) and one that
/// is not (`floor` is no member of `--checkpoint-policy`).
const MIXED: &str = "```sh\nradiance --prefill-chunk 512 --checkpoint-policy floor\n```\nLatency: `radiance:time_to_first_token_seconds_bucket`.\n";

#[test]
fn fix_exits_1_while_an_unfixable_finding_remains_and_reports_it() {
    let t = tree(&[("run.md", MIXED.as_bytes())]);
    let r = run_in(t.path(), &["lint", "--fix", "--format", "short"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(r.stderr, "fixed 2 findings\n");
    // What remains, where it is after the rewrite (`--busy-prefill-chunk`
    // is five characters longer: `floor` moved from column 50 to 55).
    assert_eq!(short(&r.stdout), ["run.md:2:55: KNB002 `floor` is not a member of `--checkpoint-policy`"]);
    // Nothing left that it cannot fix: 0.
    let t = tree(&[("run.md", b"Latency: `radiance:time_to_first_token_seconds_bucket`.\n")]);
    let r = run_in(t.path(), &["lint", "--fix"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, "fixed 1 finding\n"), "{}", r.stdout);
    assert!(r.stdout.starts_with("No findings in 1 file"), "{}", r.stdout);
    // --exit-zero still wins.
    let t = tree(&[("run.md", MIXED.as_bytes())]);
    assert_eq!(run_in(t.path(), &["lint", "--fix", "--exit-zero"]).code, 0);
}

#[test]
fn diff_exits_1_when_it_would_change_something() {
    let t = tree(&[("run.md", MIXED.as_bytes())]);
    let r = run_in(t.path(), &["lint", "--diff"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    // One hunk: the two changed lines are within three lines of each other.
    assert_eq!(
        r.stdout,
        "--- a/run.md\n+++ b/run.md\n@@ -1,4 +1,4 @@\n ```sh\n-radiance --prefill-chunk 512 --checkpoint-policy floor\n+radiance --busy-prefill-chunk 512 --checkpoint-policy floor\n ```\n-Latency: `radiance:time_to_first_token_seconds_bucket`.\n+Latency: `vllm:time_to_first_token_seconds_bucket`.\n"
    );
    // Nothing to rewrite (only `floor`): an empty diff, 0.
    let t = tree(&[("run.md", b"Set `--checkpoint-policy floor`.\n")]);
    let r = run_in(t.path(), &["lint", "--diff"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
}

#[test]
fn diff_output_is_taken_by_git_apply() {
    let tmp = crate::gate::repo();
    let dir = tmp.path();
    // The fixable line in the middle of a longer file, with no final newline,
    // in a subfolder: context on both sides, paths relative to where knobs ran.
    let mut text: String = (1..=8).map(|i| format!("Step {i}: check the dashboard.\n")).collect();
    text.push_str("Watch `radiance:time_to_first_token_seconds_bucket` while it warms up.\n");
    text.extend((10..=16).map(|i| format!("Step {i}: check the dashboard.\n")));
    text.push_str("Done: `radiance:time_to_first_token_seconds_bucket` is flat.");
    std::fs::create_dir_all(dir.join("docs")).expect("mkdir");
    std::fs::write(dir.join("docs/warm.md"), &text).expect("write");
    let r = knobs(dir, &["lint", "--diff"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("@@ -6,7 +6,7 @@\n"), "{}", r.stdout);
    assert!(r.stdout.ends_with("\\ No newline at end of file\n"), "{}", r.stdout);
    std::fs::write(dir.join("fix.patch"), &r.stdout).expect("write");
    let check = crate::gate::git(dir, &["apply", "--check", "fix.patch"]);
    assert_eq!(check.code, 0, "{}", check.stderr);
    assert_eq!(crate::gate::git(dir, &["apply", "fix.patch"]).code, 0);
    let fixed = std::fs::read_to_string(dir.join("docs/warm.md")).expect("read");
    assert_eq!(fixed, text.replace("radiance:time_to_first", "vllm:time_to_first"));
}

#[test]
fn fixable_findings_are_marked_and_counted() {
    let t = tree(&[("run.md", MIXED.as_bytes())]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(
        short(&r.stdout),
        [
            "run.md:2:10: KNB007 [*] `--prefill-chunk` is not a flag of radiance v1.8.1",
            "run.md:2:50: KNB002 `floor` is not a member of `--checkpoint-policy`",
            "run.md:4:11: KNB005 [*] `radiance:time_to_first_token_seconds_bucket` is exported as `vllm:time_to_first_token_seconds_bucket`",
        ]
    );
    let r = run_in(t.path(), &["lint"]);
    assert!(r.stdout.contains("KNB007 [*] removed-flag\n"), "{}", r.stdout);
    assert!(r.stdout.contains("KNB002 invented-member\n"), "{}", r.stdout);
    assert!(r.stdout.ends_with("[*] 2 fixable with `knobs lint --fix`.\n"), "{}", r.stdout);
}

/// `floor` is no member of `--checkpoint-policy` (KNB002, invented-member).
const BAD: &str = "# Arm\n\nSet `--checkpoint-policy floor` and redeploy.\n";

#[test]
fn exclude_holds_for_staged_changed_since_and_a_plain_run() {
    let tmp = crate::gate::repo();
    let dir = tmp.path();
    std::fs::write(dir.join("knobs.toml"), "[lint]\nexclude = [\"archive\"]\n").expect("write");
    assert_eq!(crate::gate::git(dir, &["add", "."]).code, 0);
    assert_eq!(crate::gate::git(dir, &["commit", "-q", "--no-verify", "-m", "base"]).code, 0);
    std::fs::create_dir_all(dir.join("archive")).expect("mkdir");
    std::fs::write(dir.join("archive/old.md"), BAD).expect("write");
    std::fs::write(dir.join("new.md"), "# Arm\n\nSet `--checkpoint-policy tip-only`.\n").expect("write");
    assert_eq!(crate::gate::git(dir, &["add", "."]).code, 0);
    for args in [&["lint", "--staged"][..], &["lint", "--changed-since", "HEAD"], &["lint"]] {
        let r = knobs(dir, args);
        assert_eq!(r.code, 0, "{args:?}: {}{}", r.stdout, r.stderr);
    }
    // The same file outside the excluded folder is judged.
    std::fs::write(dir.join("old.md"), BAD).expect("write");
    assert_eq!(crate::gate::git(dir, &["add", "."]).code, 0);
    let r = knobs(dir, &["lint", "--staged", "--format", "short"]);
    assert_eq!(r.code, 1);
    assert_eq!(short(&r.stdout), ["old.md:3:26: KNB002 `floor` is not a member of `--checkpoint-policy`"]);
}

#[test]
fn knobs_toml_globs_are_read_from_its_folder_not_the_working_directory() {
    let toml =
        "[lint]\nexclude = [\"archive/drafts\"]\n\n[lint.per-file-ignores]\n\"archive/*.md\" = [\"invented-member\"]\n";
    let t = tree(&[
        ("knobs.toml", toml.as_bytes()),
        ("archive/old.md", BAD.as_bytes()),
        ("archive/drafts/x.md", BAD.as_bytes()),
        ("archive/kept.md", b"Watch `radiance:nope_total`.\n"),
    ]);
    // From the root and from inside archive/: the same verdict, the one
    // finding neither glob covers.
    for cwd in [t.path().to_path_buf(), t.path().join("archive")] {
        let r = run_in(&cwd, &["lint", "--format", "short"]);
        let shown = if cwd == t.path() { "archive/kept.md" } else { "kept.md" };
        assert_eq!(
            short(&r.stdout),
            [format!("{shown}:1:8: KNB004 `radiance:nope_total` is not exported by radiance v1.8.1")],
            "from {}: {}",
            cwd.display(),
            r.stderr
        );
    }
}

#[test]
fn version_after_a_subcommand_is_knobs_version_and_tag_names_a_catalogue() {
    let t = tree(&[("run.md", b"```sh\nradiance --prefill-interleave 1\n```\n")]);
    // The embedded catalogues are radiance v1.0.13 and v1.8.1.
    let version = format!(
        "knobs {} (catalogues: radiance v1.0.13, v1.8.1; history: llama.cpp, facts only)\n",
        env!("CARGO_PKG_VERSION")
    );
    for sub in [&["lint"][..], &["explain"], &["flags"], &["verify"], &["catalog", "check"]] {
        let mut args = sub.to_vec();
        args.push("--version");
        let r = run_in(t.path(), &args);
        assert_eq!((r.code, r.stdout.as_str()), (0, version.as_str()), "{args:?}: {}", r.stderr);
        // Its help names `--tag`, and says the old spelling still works.
        let mut args = sub.to_vec();
        args.push("--help");
        let help = run_in(t.path(), &args).stdout;
        assert!(help.contains("--tag <TAG>") && help.contains("(also `--version TAG`)"), "{args:?}: {help}");
    }
    // `--prefill-interleave` is v1.8.1's: v1.0.13 lacks it (KNB007).
    let expected = ["run.md:2:10: KNB007 `--prefill-interleave` is not a flag of radiance v1.0.13"];
    for tag in ["--tag", "--version"] {
        let r = run_in(t.path(), &["lint", "--format", "short", tag, "v1.0.13"]);
        assert_eq!((r.code, short(&r.stdout)), (1, expected.to_vec()), "{tag}: {}", r.stderr);
    }
    assert_eq!(run_in(t.path(), &["lint"]).code, 0);
    let r = run_in(t.path(), &["lint", "--tag", "v1.0.13", "--version", "v1.8.1"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("the argument '--tag <TAG>' cannot be used with '--version [<TAG>]'"), "{}", r.stderr);
    // After `--`, `--version` is a subject like any flag.
    let r = run_in(t.path(), &["explain", "--", "--version"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("`--version` is not a flag, env key, metric or rule of radiance v1.8.1"), "{}", r.stderr);
}

/// A repository with findings before it adopts knobs: `floor` is no member
/// of `--checkpoint-policy` (KNB002) in a runbook's prose, in its shell
/// block, in an env file, and `loud` no member of `--log-level` in a script.
fn adopting() -> tempfile::TempDir {
    tree(&[
        (
            "docs/arm.md",
            b"# Arm\n\nSet `--checkpoint-policy floor`.\n\n```sh\nradiance --checkpoint-policy floor\n```\n",
        ),
        ("deploy/arm.env", b"FRANK_ARCHON_CHECKPOINT_POLICY=floor\n"),
        ("deploy/serve.sh", b"#!/bin/sh\nexec radiance --log-level loud\n"),
    ])
}

#[test]
fn a_baseline_adopts_old_findings_and_still_reports_new_and_changed_lines() {
    let t = adopting();
    let dir = t.path();
    let r = run_in(dir, &["lint", "--write-baseline", "knobs-baseline.json"]);
    assert_eq!((r.code, r.stderr.as_str(), r.stdout.as_str()), (0, "wrote 4 findings to knobs-baseline.json\n", ""));
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("knobs-baseline.json")).expect("read")).expect("json");
    let entries = written["findings"].as_array().expect("findings");
    assert_eq!(entries.len(), 4);
    assert_eq!(entries[0]["path"], "deploy/arm.env");
    assert_eq!(entries[0]["code"], "KNB002");
    assert_eq!(entries[0]["line"], "FRANK_ARCHON_CHECKPOINT_POLICY=floor");
    // Adopted: lint is clean (the baseline itself is JSON, read for
    // dashboard queries: it has none).
    let r = run_in(dir, &["lint", "--baseline", "knobs-baseline.json"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    assert_eq!(r.stdout, "No findings in 4 files (against radiance v1.8.1); 4 findings in the baseline.\n");
    // Lines added above an old finding do not bring it back; a new defect
    // is reported, and so is an old line once it changes.
    std::fs::write(
        dir.join("docs/arm.md"),
        "# Arm\n\nFirst drain the node.\n\nSet `--checkpoint-policy floor`.\n\nThen `--log-level loud`.\n\n```sh\nradiance --checkpoint-policy floor --port 8000\n```\n",
    )
    .expect("write");
    let r = run_in(dir, &["lint", "--baseline", "knobs-baseline.json", "--format", "short"]);
    assert_eq!(r.code, 1);
    assert_eq!(
        short(&r.stdout),
        [
            "docs/arm.md:7:19: KNB002 `loud` is not a member of `--log-level`",
            "docs/arm.md:10:30: KNB002 `floor` is not a member of `--checkpoint-policy`",
        ]
    );
}

#[test]
fn knobs_toml_names_the_baseline_for_every_run_and_the_hook() {
    let tmp = crate::gate::repo();
    let dir = tmp.path();
    let t = adopting();
    for f in crate::support::files_under(t.path()) {
        std::fs::create_dir_all(dir.join(&f).parent().expect("parent")).expect("mkdir");
        std::fs::copy(t.path().join(&f), dir.join(&f)).expect("copy");
    }
    std::fs::write(dir.join("knobs.toml"), "[lint]\nbaseline = \"knobs-baseline.json\"\n").expect("write");
    // Written while knobs.toml names it: every finding, not none.
    let r = knobs(dir, &["lint", "--write-baseline", "knobs-baseline.json"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, "wrote 4 findings to knobs-baseline.json\n"));
    assert_eq!(crate::gate::git(dir, &["add", "."]).code, 0);
    assert_eq!(crate::gate::git(dir, &["commit", "-q", "--no-verify", "-m", "adopt knobs"]).code, 0);
    // From a subfolder, paths are read from the baseline's folder.
    let r = knobs(&dir.join("deploy"), &["lint"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    // The hook: an old finding in a file the commit touches does not block it.
    std::fs::write(dir.join("deploy/arm.env"), "# the drill's policy\nFRANK_ARCHON_CHECKPOINT_POLICY=floor\n")
        .expect("write");
    assert_eq!(crate::gate::git(dir, &["add", "."]).code, 0);
    let r = knobs(dir, &["lint", "--staged"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    std::fs::write(dir.join("deploy/arm.env"), "FRANK_ARCHON_CHECKPOINT_POLICY=floor\nFRANK_ARCHON_LOG_LEVEL=loud\n")
        .expect("write");
    assert_eq!(crate::gate::git(dir, &["add", "."]).code, 0);
    let r = knobs(dir, &["lint", "--staged", "--format", "short"]);
    assert_eq!(r.code, 1);
    assert_eq!(
        short(&r.stdout),
        ["deploy/arm.env:2:24: KNB002 `loud` is not a member of `FRANK_ARCHON_LOG_LEVEL` (`--log-level`)"]
    );
}

#[test]
fn a_missing_or_foreign_baseline_is_an_error_naming_it() {
    let t = adopting();
    let r = run_in(t.path(), &["lint", "--baseline", "none.json"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("cannot read the baseline"), "{}", r.stderr);
    assert!(r.stderr.contains("none.json"), "{}", r.stderr);
    assert!(r.stderr.contains("write it with `knobs lint --write-baseline"), "{}", r.stderr);
    std::fs::write(t.path().join("other.json"), "{\"rules\": []}\n").expect("write");
    let r = run_in(t.path(), &["lint", "--baseline", "other.json"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("other.json is not a baseline knobs wrote"), "{}", r.stderr);
    // knobs.toml's, named from its folder.
    std::fs::write(t.path().join("knobs.toml"), "[lint]\nbaseline = \"gone.json\"\n").expect("write");
    let r = run_in(&t.path().join("docs"), &["lint"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains(&format!("{}", t.path().join("gone.json").display())), "{}", r.stderr);
}
