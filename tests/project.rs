//! A project's own setup: its pin and synced catalogues, knobs.toml found
//! from the linted path (and one a run does not read), folder pins, the
//! `[lint]` settings, and `--version` choosing another catalogue. Each case
//! was seen failing before its change.

use std::path::Path;

use knobs::catalog::store::Store;

use crate::support::rule_fixtures::lint;
use crate::support::{run_in, short, tree};

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
            "run.md:2:22: KNB007 [*] `--prefill-chunk` is not a flag of radiance v1.9.0",
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
fn a_trio_pinning_an_uncatalogued_build_gets_a_warning() {
    let t =
        tree(&[("svc/image.env", b"IMAGE=registry.example/radiance:2.0.0\n"), ("svc/knobs.env", b"MAX_NUM_SEQS=2\n")]);
    let r = run_in(t.path(), &["lint"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    // Said once for the folder, as a warning, never a silent fallback; the
    // tag to sync is spelled as radiance's tags are (`v1.8.1`).
    assert_eq!(
        r.stderr,
        "warning: svc/image.env pins radiance 2.0.0, which has no catalogue of its own: the files in svc are judged against v1.8.1, the nearest earlier tag catalogued (run `knobs sync --tag v2.0.0`)\n"
    );
}

#[test]
fn knobs_toml_lint_settings() {
    let t = tree(&[
        (
            "knobs.toml",
            b"[lint]\nengine_commands = [\"radiance-server\"]\nserve_scripts = [\"serve-radiance\"]\nenv_files = [\"service.conf\"]\n\n[lint.severity]\nunknown-env-knob = \"off\"\nKNB003 = \"warning\"\n",
        ),
        ("run.md", b"```sh\nradiance-server --prefill-interleav 1\n./serve-radiance --checkpoint-interval 2k\nother-tool --prefill-interleav 1\n```\n"),
        ("svc/service.conf", b"CHECKPOINT_POLICE=x\nCHECKPOINT_POLICY=floor\n"),
    ]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(
        short(&r.stdout),
        [
            "run.md:2:17: KNB001 `--prefill-interleav` is not a flag of radiance v1.8.1",
            "run.md:3:40: KNB003 `2k` is not a valid value for `--checkpoint-interval`",
            "svc/service.conf:2:19: KNB002 `floor` is not a member of `CHECKPOINT_POLICY` (`--checkpoint-policy`)",
        ]
    );
    let r = run_in(t.path(), &["lint", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["findings"][1]["severity"], "warning");
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

#[test]
fn version_selects_another_catalogue() {
    let md = "fixtures/lint/rules/KNB007/bad.md";
    let r = lint(&["lint", "--format", "short", "--version", "v1.0.13", md]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "1.0.13 has --prefill-chunk and --swap-space");
    let r = lint(&["lint", "--version", "v9", md]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no catalogue for radiance v9"), "{}", r.stderr);
}
