//! Lint in real use: a project's pin and synced catalogues, knobs.toml found
//! from the linted path, folder pins, judging conventions, explain in the
//! project's terms, and the options ruff and shellcheck users expect. Each
//! case was seen failing before its change.

use std::path::Path;

use knobs::catalog::store::Store;

use crate::support::{self, knobs_with_stdin, run_in, tree};

fn short(out: &str) -> Vec<&str> {
    out.lines().collect()
}

/// A catalogue for `tag` written as `sync` would write it: radiance 1.8.1
/// with `--port` removed, so a test can tell it from the embedded one.
fn synced(dir: &Path, tag: &str) {
    let mut c = Store::embedded("radiance").expect("embedded").get("radiance", "v1.8.1").expect("v1.8.1").clone();
    c.source.tag = tag.to_string();
    c.flags.retain(|f| f.name != "--port");
    c.normalise();
    std::fs::create_dir_all(dir.join("radiance")).expect("mkdir");
    std::fs::write(dir.join("radiance").join(format!("{tag}.toml")), c.to_toml().expect("toml")).expect("write");
}

#[test]
fn a_synced_catalogue_beside_knobs_toml_is_used_and_merged() {
    let t = tree(&[
        ("proj/knobs.toml", b"[pin]\ntag = \"v1.9.0\"\n"),
        ("proj/run.md", b"```sh\nradiance --port 8000 --prefill-chunk 512\n```\n"),
    ]);
    synced(&t.path().join("proj/catalog"), "v1.9.0");
    let r = run_in(&t.path().join("proj"), &["lint", "--format", "short"]);
    // v1.9.0 (synced) has no --port, which the embedded versions have; and
    // --prefill-chunk is 1.0.13's: both are another version's flags.
    assert_eq!(
        short(&r.stdout),
        [
            "run.md:2:10: KNB007 `--port` is not a flag of radiance v1.9.0",
            "run.md:2:22: KNB007 `--prefill-chunk` is not a flag of radiance v1.9.0",
        ],
        "{}",
        r.stderr
    );
    // explain and flags read it too.
    let r = run_in(&t.path().join("proj"), &["flags"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("--port "), "{}", r.stdout);
    // [catalog] dir moves it.
    std::fs::rename(t.path().join("proj/catalog"), t.path().join("proj/cats")).expect("move");
    std::fs::write(t.path().join("proj/knobs.toml"), "[pin]\ntag = \"v1.9.0\"\n[catalog]\ndir = \"cats\"\n")
        .expect("write");
    let r = run_in(&t.path().join("proj"), &["explain", "--", "--port"]);
    assert!(r.stdout.contains("not in radiance v1.9.0"), "{}{}", r.stdout, r.stderr);
    // The synced catalogue wins over the embedded one for the same tag (the
    // embedded v1.8.1 has --port; 1.0.13 still does, hence removed-flag).
    let u = tree(&[("knobs.toml", b"[pin]\ntag = \"v1.8.1\"\n"), ("run.md", b"`radiance --port 1`\n")]);
    synced(&u.path().join("catalog"), "v1.8.1");
    let r = run_in(u.path(), &["lint", "--format", "short"]);
    assert_eq!(short(&r.stdout), ["run.md:1:11: KNB007 `--port` is not a flag of radiance v1.8.1"]);
}

#[test]
fn knobs_toml_is_found_from_the_linted_path_and_config_names_one() {
    let t = tree(&[
        ("proj/knobs.toml", b"[pin]\ntag = \"v1.0.13\"\n"),
        ("proj/run.md", b"`radiance --prefill-interleave 1`\n"),
        ("elsewhere/run.md", b"`radiance --prefill-interleave 1`\n"),
    ]);
    // From the parent folder: the project's pin applies to the project's file.
    let r = run_in(t.path(), &["lint", "--format", "short", "proj/run.md", "elsewhere/run.md"]);
    assert_eq!(short(&r.stdout), ["proj/run.md:1:11: KNB007 `--prefill-interleave` is not a flag of radiance v1.0.13"]);
    // --config names one for every path.
    let r = run_in(t.path(), &["--config", "proj/knobs.toml", "lint", "--format", "short", "elsewhere"]);
    assert_eq!(
        short(&r.stdout),
        ["elsewhere/run.md:1:11: KNB007 `--prefill-interleave` is not a flag of radiance v1.0.13"]
    );
}

#[test]
fn a_folder_pin_applies_to_every_file_in_the_folder() {
    let t = tree(&[
        ("svc/image.env", b"IMAGE=ghcr.io/x/radiance:1.0.13\n"),
        ("svc/serve.sh", b"#!/bin/sh\nexec radiance --prefill-chunk auto --checkpoint-policy keep-all\n"),
        ("svc/notes.md", b"Rolled back to `--checkpoint-policy tip-only`.\n"),
    ]);
    let r = run_in(t.path(), &["-v", "lint", "--format", "short"]);
    // 1.0.13 has --prefill-chunk and no keep-all: the script is judged as 1.0.13's.
    assert_eq!(short(&r.stdout), ["svc/serve.sh:2:56: KNB002 `keep-all` is not a member of `--checkpoint-policy`"]);
    for f in ["svc/image.env", "svc/notes.md", "svc/serve.sh"] {
        assert!(r.stderr.contains(&format!("note: {f}: judged against radiance v1.0.13")), "{f}: {}", r.stderr);
    }
}

#[test]
fn capitalised_values_are_values_not_placeholders() {
    let t = tree(&[
        ("run.md", b"```sh\nradiance --checkpoint-policy FLOOR --log-level ERROR --max-num-seqs N\n```\n"),
        ("svc/knobs.env", b"CHECKPOINT_POLICY=FLOOR\n"),
    ]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(
        short(&r.stdout),
        [
            "run.md:2:30: KNB002 `FLOOR` is not a member of `--checkpoint-policy`",
            "run.md:2:48: KNB002 `ERROR` is not a member of `--log-level`",
            "svc/knobs.env:1:19: KNB002 `FLOOR` is not a member of `CHECKPOINT_POLICY` (`--checkpoint-policy`)",
        ]
    );
}

#[test]
fn prompts_env_lines_patterns_and_wrappers_in_shell_blocks() {
    let md = b"```bash\n$ radiance --checkpoint-policy floor\nradiance: booted\n```\n\n```sh\nCHECKPOINT_POLICY=floor\nsudo -u radiance journalctl --since 1h\n```\n\n```promql\nsum(rate({__name__=~\"radiance:engine_steps_.*\"}[5m]))\n```\n\nWatch `radiance:engine_steps_*` and `grep -E '^radiance:engine_steps_(held|decode)_total'`; not `radiance:engine_stepz_*`.\n\nThe chunk was `--prefill-chunks 512` then.\n";
    let t = tree(&[("run.md", md)]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(
        short(&r.stdout),
        [
            "run.md:2:32: KNB002 `floor` is not a member of `--checkpoint-policy`",
            "run.md:7:19: KNB002 `floor` is not a member of `CHECKPOINT_POLICY` (`--checkpoint-policy`)",
            "run.md:15:98: KNB004 `radiance:engine_stepz_*` matches no metric radiance v1.8.1 exports",
            "run.md:17:16: KNB001 `--prefill-chunks` is not a flag of radiance v1.8.1",
        ],
        "{}",
        r.stderr
    );
}

#[test]
fn explain_resolves_the_keys_and_names_the_project_uses() {
    let root = support::fixtures().join("lint/clean");
    let r = run_in(&root, &["explain", "MAX_SEQS"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("--max-num-seqs"), "{}", r.stdout);
    assert!(r.stdout.contains("read as     MAX_SEQS by services/frank-archon/serve-radiance.sh"), "{}", r.stdout);
    // The rollback names the key the trio's serve script reads.
    assert!(r.stdout.contains("Rollback\n  MAX_SEQS=2\n"), "{}", r.stdout);
    let r = run_in(&root, &["explain", "engine_steps_held_total"]);
    assert!(r.stdout.starts_with("radiance:engine_steps_held_total — counter"), "{}{}", r.stdout, r.stderr);
    // The overlay's text about keep-all is left out for 1.0.13, which lacks it.
    let r = run_in(&root, &["explain", "--version", "v1.0.13", "--checkpoint-policy"]);
    let before_history = r.stdout.split("History").next().unwrap_or("");
    assert!(
        before_history.contains("(The overlay says more of `keep-all`, which radiance v1.0.13 lacks.)"),
        "{}",
        r.stdout
    );
    assert_eq!(before_history.matches("keep-all").count(), 1, "{}", r.stdout);
}

#[test]
fn env_file_names_ignore_files_excludes_and_skipped_counts() {
    let t = tree(&[
        (".env.example", b"CHECKPOINT_POLICY=floor\n"),
        ("svc/knobs.env.template", b"CHECKPOINT_POLICY=floor\n"),
        (".gitignore", b"generated/\n"),
        ("generated/run.md", b"`--checkpoint-policy floor`\n"),
        (".ignore", b"scratch.md\n"),
        ("scratch.md", b"`--checkpoint-policy floor`\n"),
        ("vendor/run.md", b"`--checkpoint-policy floor`\n"),
        ("knobs.toml", b"[lint]\nexclude = [\"vendor\"]\n"),
        ("notes.txt", b"hello\n"),
    ]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(
        short(&r.stdout),
        [
            ".env.example:1:19: KNB002 `floor` is not a member of `CHECKPOINT_POLICY` (`--checkpoint-policy`)",
            "svc/knobs.env.template:1:19: KNB002 `floor` is not a member of `CHECKPOINT_POLICY` (`--checkpoint-policy`)",
        ]
    );
    let r = run_in(t.path(), &["-v", "lint"]);
    // Passed over: .gitignore, .ignore, knobs.toml and notes.txt are not ours;
    // vendor/run.md is excluded.
    assert!(
        r.stdout.ends_with("in 2 files (against radiance v1.8.1); 5 files passed over (-v names them).\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains("note: skipped notes.txt: not a runbook, env file, shell script or deployment file"),
        "{}",
        r.stderr
    );
}

#[test]
fn overlapping_paths_lint_each_file_once_in_path_order() {
    let t = tree(&[
        ("docs/b.md", b"`--checkpoint-policy floor`\n"),
        ("docs/a/z.md", b"`--checkpoint-policy floor`\n"),
        ("docs/a-b.md", b"`--checkpoint-policy floor`\n"),
    ]);
    // docs/b.md is named twice (by itself and by its folder): one finding.
    let r = run_in(t.path(), &["lint", "--format", "short", "docs/b.md", "docs", "docs/b.md"]);
    assert_eq!(
        short(&r.stdout),
        [
            "docs/a/z.md:1:22: KNB002 `floor` is not a member of `--checkpoint-policy`",
            "docs/a-b.md:1:22: KNB002 `floor` is not a member of `--checkpoint-policy`",
            "docs/b.md:1:22: KNB002 `floor` is not a member of `--checkpoint-policy`",
        ],
        "{}",
        r.stderr
    );
}

#[test]
fn suppressions_in_shell_blocks_and_for_whole_files() {
    let t = tree(&[
        (
            "a.md",
            b"```sh\n# knobs: ignore[KNB002]\nradiance --checkpoint-policy floor\nradiance --log-level loud\n```\n",
        ),
        (
            "b.md",
            b"<!-- knobs: ignore-file[invented-member] -->\n`--checkpoint-policy floor` and `radiance:nope_total`\n",
        ),
    ]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(
        short(&r.stdout),
        [
            "a.md:4:22: KNB002 `loud` is not a member of `--log-level`",
            "b.md:2:34: KNB004 `radiance:nope_total` is not exported by radiance v1.8.1",
        ]
    );
}

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
fn fix_and_diff_rewrite_what_has_one_answer() {
    let md = "```sh\nradiance --prefill-chunk 512 --checkpoint-policy floor\n```\nLatency: `radiance:time_to_first_token_seconds_bucket`.\n";
    let t = tree(&[("run.md", md.as_bytes())]);
    let r = run_in(t.path(), &["lint", "--diff"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "--- a/run.md\n+++ b/run.md\n@@ -2,1 +2,1 @@\n-radiance --prefill-chunk 512 --checkpoint-policy floor\n+radiance --busy-prefill-chunk 512 --checkpoint-policy floor\n@@ -4,1 +4,1 @@\n-Latency: `radiance:time_to_first_token_seconds_bucket`.\n+Latency: `vllm:time_to_first_token_seconds_bucket`.\n"
    );
    assert_eq!(std::fs::read_to_string(t.path().join("run.md")).expect("read"), md, "--diff changes nothing");
    let r = run_in(t.path(), &["lint", "--fix"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stderr, "fixed 2 findings\n");
    // `floor` has no one right answer: it stays, and is still reported.
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(short(&r.stdout), ["run.md:2:55: KNB002 `floor` is not a member of `--checkpoint-policy`"]);
}

/// https and ssh remotes are reached (not refused as unsupported), and a
/// remote that never answers fails within the timeout with a clear message.
#[test]
fn https_and_ssh_remotes_time_out_cleanly() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let holder = std::thread::spawn(move || {
        let mut held = Vec::new();
        listener.set_nonblocking(true).expect("nonblocking");
        let end = std::time::Instant::now() + std::time::Duration::from_secs(8);
        while std::time::Instant::now() < end {
            if let Ok((c, _)) = listener.accept() {
                held.push(c);
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    });
    let tmp = tempfile::tempdir().expect("tempdir");
    for url in [format!("https://127.0.0.1:{port}/r.git"), format!("ssh://git@127.0.0.1:{port}/r.git")] {
        let started = std::time::Instant::now();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_knobs"))
            .args(["sync", "--repo", &url, "--tag", "v1", "--out", "out"])
            .current_dir(tmp.path())
            .env("KNOBS_CACHE_DIR", tmp.path().join("cache"))
            .env("KNOBS_GIT_TIMEOUT", "1")
            .env("NO_COLOR", "1")
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{url}: {stderr}");
        assert!(started.elapsed() < std::time::Duration::from_secs(6), "{url} took {:?}", started.elapsed());
        assert!(stderr.contains(&format!("cannot read repository `{url}`")), "{url}: {stderr}");
        assert!(!stderr.contains("unsupported URL protocol") && !stderr.contains("no TLS stream"), "{stderr}");
    }
    let _ = holder.join();
}

#[test]
fn a_nested_knobs_toml_a_run_does_not_read_is_named() {
    let t = tree(&[
        ("knobs.toml", b"[pin]\ntag = \"v1.8.1\"\n"),
        ("sub/knobs.toml", b"[lint]\nignore = [\"KNB002\"]\n"),
        ("sub/b.env", b"CHECKPOINT_POLICY=floor\n"),
    ]);
    // From the top, sub/knobs.toml's ignore does not apply: said so.
    let r = run_in(t.path(), &["lint", ".", "--format", "short"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "warning: sub/knobs.toml is not read: a run uses the knobs.toml above each path it is given (lint sub to use this one)"
        ),
        "{}",
        r.stderr
    );
    // Named, the folder is linted under its own knobs.toml: no warning.
    let r = run_in(t.path(), &["lint", "sub", "--format", "short"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    assert!(!r.stderr.contains("is not read"), "{}", r.stderr);
}
