//! `knobs explain`, `knobs flags`, `knobs rules` and the semantics overlay.

use knobs::catalog::semantics::{check, Semantics};
use knobs::catalog::store::Store;

use crate::support::{self, run_in};

fn explain(args: &[&str]) -> crate::support::Output {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut argv = vec!["explain"];
    argv.extend_from_slice(args);
    run_in(tmp.path(), &argv)
}

#[test]
fn every_1_8_1_flag() {
    let store = Store::embedded("radiance").expect("embedded");
    let c = store.get("radiance", "v1.8.1").expect("v1.8.1");
    for f in &c.flags {
        // `--` keeps knobs' own options (`--help`) from taking the name.
        let r = explain(&["--", &f.name]);
        assert_eq!(r.code, 0, "{}: {}", f.name, r.stderr);
        // The engine's flag, not knobs' own (`--help` once recorded knobs' help).
        let first = r.stdout.lines().next().unwrap_or("");
        assert!(first == f.name || first.starts_with(&format!("{} — ", f.name)), "{}: {first}", f.name);
        assert!(r.stdout.contains("radiance v1.8.1"), "{}", r.stdout);
        insta::assert_snapshot!(format!("flag{}", f.name), r.stdout);
    }
}

#[test]
fn every_rule() {
    for rule in knobs::lint::rules::RULES {
        let by_code = explain(&[rule.code]);
        assert_eq!(by_code.code, 0);
        assert_eq!(by_code.stdout, explain(&[rule.name]).stdout, "{} by name", rule.code);
        assert!(by_code.stdout.starts_with(&format!("{} {} (", rule.code, rule.name)), "{}", by_code.stdout);
        insta::assert_snapshot!(format!("rule-{}", rule.code), by_code.stdout);
    }
}

#[test]
fn subjects_in_every_spelling() {
    let dashed = explain(&["--busy-prefill-chunk"]).stdout;
    assert!(dashed.starts_with("--busy-prefill-chunk — prefill-speed dial"), "{dashed}");
    assert_eq!(explain(&["busy-prefill-chunk"]).stdout, dashed);
    assert_eq!(explain(&["BUSY_PREFILL_CHUNK"]).stdout, dashed);
    assert_eq!(explain(&["FRANK_ARCHON_BUSY_PREFILL_CHUNK"]).stdout, dashed);
    // knobs' own options keep their meaning beside a flag subject.
    let json = explain(&["--format", "json", "--busy-prefill-chunk"]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("json");
    assert_eq!(v["flag"]["flag"]["name"], "--busy-prefill-chunk");
    // After `--`, `--format` is an engine flag; radiance has none.
    let r = explain(&["--", "--format"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("`--format` is not a flag, env key, metric or rule of radiance v1.8.1"), "{}", r.stderr);
}

#[test]
fn metrics_and_their_traps() {
    let r = explain(&["radiance:num_requests_preempted"]);
    // radiance.md: an instant gauge; the counter is vllm:num_preemptions_total.
    assert!(r.stdout.starts_with("radiance:num_requests_preempted — gauge\n"), "{}", r.stdout);
    assert!(r.stdout.contains("vllm:num_preemptions_total"), "{}", r.stdout);
    insta::assert_snapshot!(r.stdout);
    let r = explain(&["radiance:num_preemptions_total"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("it is exported as `vllm:num_preemptions_total`"), "{}", r.stderr);
    let r = explain(&["vllm:time_to_first_token_seconds_bucket", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["metric"]["metric"]["name"], "vllm:time_to_first_token_seconds");
}

#[test]
fn did_you_mean_across_subject_kinds() {
    for (typo, near) in [
        ("--prefill-interleav", "`--prefill-interleave`"),
        ("CHECKPOINT_POLICE", "`CHECKPOINT_POLICY`"),
        ("radiance:engine_steps_hold_total", "`radiance:engine_steps_held_total`"),
        ("invented-membr", "`invented-member`"),
        ("KNB02", "`KNB002`"),
    ] {
        let r = explain(&[typo]);
        assert_eq!(r.code, 2, "{typo}");
        assert!(r.stderr.contains(near), "{typo}: {}", r.stderr);
    }
}

#[test]
fn versions_history_and_meter_presence() {
    let r = explain(&["--version", "v1.0.13", "--prefill-interleave"]);
    assert!(r.stdout.contains("not in radiance v1.0.13"), "{}", r.stdout);
    // The meter 1.0.13 does not register and the related flag it named
    // `--prefill-chunk` are left out, and said to be (issue 21).
    assert!(
        r.stdout.contains("(The overlay describes `radiance:engine_steps_held_total`, `--busy-prefill-chunk`, which radiance v1.0.13 embedded in knobs (from fixtures/radiance.git) does not register: left out.)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("Related\n  --max-num-batched-tokens\n"), "{}", r.stdout);
    assert!(!r.stdout.contains("Meters"), "{}", r.stdout);
    let r = explain(&["--prefill-chunk"]);
    assert!(r.stdout.contains("v1.8.1      removed: renamed to `--busy-prefill-chunk`"), "{}", r.stdout);
    let r = explain(&["--checkpoint-policy", "--format", "markdown"]);
    assert!(r.stdout.starts_with("# `--checkpoint-policy`"), "{}", r.stdout);
    assert!(r.stdout.contains("- members: `geometric-backoff`, `tip-only`, `keep-all`"), "{}", r.stdout);
    insta::assert_snapshot!(r.stdout);
}

#[test]
fn flags_and_rules_listings() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let flags = run_in(tmp.path(), &["flags"]).stdout;
    // One line per flag of v1.8.1: sixteen, as the hand-written expectation lists.
    assert_eq!(flags.lines().count(), 16, "{flags}");
    assert!(flags.lines().any(|l| l.starts_with("--busy-prefill-chunk ") && l.contains("auto-or-int")), "{flags}");
    insta::assert_snapshot!("flags", flags);
    let old = run_in(tmp.path(), &["flags", "--version", "v1.0.13"]).stdout;
    assert!(old.lines().any(|l| l.starts_with("--prefill-chunk ")), "{old}");
    let rules = run_in(tmp.path(), &["rules"]).stdout;
    let codes: Vec<&str> = rules.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert_eq!(
        codes,
        [
            "KNB001", "KNB002", "KNB003", "KNB004", "KNB005", "KNB006", "KNB007", "KNB008", "KNB009", "KNB010",
            "KNB011", "KNB012", "KNB013", "KNB014", "KNB015", "KNB016", "KNB017", "KNB018", "KNB019", "KNB020",
            "KNB021", "KNB022", "KNB023"
        ]
    );
    insta::assert_snapshot!("rules", rules);
}

fn radiance() -> knobs::catalog::profile::Profile {
    knobs::catalog::profile::builtin("radiance").expect("radiance profile")
}

/// The committed overlay names nothing the newest catalogue lacks.
#[test]
fn overlay_matches_the_catalogue() {
    let store = Store::embedded("radiance").expect("embedded");
    let sem = Semantics::embedded("radiance").expect("overlay");
    let newest = store.newest("radiance").expect("newest");
    assert_eq!(check(&sem, newest, &radiance()), vec![]);
    assert!(sem.flag.len() >= 8 && sem.metric.len() >= 5);
    let tmp = tempfile::tempdir().expect("tempdir");
    let r = run_in(tmp.path(), &["catalog", "check"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
}

/// A planted invented name — a meter, a member in a rollback, a flag in prose
/// — fails the check.
#[test]
fn overlay_check_catches_planted_names() {
    let store = Store::embedded("radiance").expect("embedded");
    let newest = store.newest("radiance").expect("newest");
    let text = std::fs::read_to_string(support::root().join("catalog/radiance/semantics.toml")).expect("overlay");
    for (find, plant, needle) in [
        (
            "meters = [\"radiance:engine_steps_held_total\"]",
            "meters = [\"radiance:engine_steps_hold_total\"]",
            "`radiance:engine_steps_hold_total` is not exported",
        ),
        (
            "rollback = \"CHECKPOINT_POLICY=geometric-backoff\"",
            "rollback = \"CHECKPOINT_POLICY=floor\"",
            "`floor` is not a value",
        ),
        (
            "It governs retention only.",
            "It governs retention only; see --checkpoint-floor.",
            "`--checkpoint-floor` is not a flag",
        ),
        (
            "[metric.\"radiance:num_requests_preempted\"]",
            "[metric.\"radiance:num_preemptions_total\"]",
            "`radiance:num_preemptions_total` is not exported",
        ),
    ] {
        assert!(text.contains(find), "{find}");
        let planted = Semantics::parse(std::path::Path::new("t.toml"), &text.replacen(find, plant, 1)).expect("parse");
        let problems = check(&planted, newest, &radiance());
        assert!(problems.iter().any(|p| p.message.contains(needle)), "{plant}: {problems:?}");
    }
    // Through the CLI, from a catalogue folder holding the planted overlay.
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(tmp.path().join("cat/radiance")).expect("mkdir");
    std::fs::write(tmp.path().join("cat/radiance/v1.8.1.toml"), newest.to_toml().expect("toml")).expect("write");
    std::fs::write(tmp.path().join("cat/radiance/semantics.toml"), text.replacen("MAX_NUM_SEQS=2", "MAX_SEQS=2", 1))
        .expect("write");
    let r = run_in(tmp.path(), &["catalog", "check", "--catalog-dir", "cat"]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.stderr,
        "warning: radiance/semantics.toml flag.\"--max-num-seqs\".rollback: `MAX_SEQS` sets no flag of radiance v1.8.1\n"
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

/// A serve script that reads `--busy-prefill-chunk` under a key of its own:
/// `CHUNK_WHILE_BUSY` is no key the profile's convention gives that flag.
const SERVE: &[u8] = b"#!/bin/sh\nexec radiance --busy-prefill-chunk \"${CHUNK_WHILE_BUSY:-auto}\"\n";

/// Outside the folder of a knobs.toml and outside any git work tree there is
/// no project: explain reads no serve script, not even one in the working
/// folder, and still explains the flag from the catalogue and the overlay.
#[test]
fn no_project_root_reads_no_serve_scripts() {
    let t = support::tree(&[("serve.sh", SERVE)]);
    let outside_git = git2::Repository::discover(t.path()).is_err();
    let outside_config = t.path().ancestors().all(|a| !a.join("knobs.toml").exists());
    assert!(outside_git && outside_config, "{} must be in no git work tree and hold no knobs.toml", t.path().display());
    let r = support::knobs(t.path(), &["explain", "--busy-prefill-chunk"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("--busy-prefill-chunk — prefill-speed dial"), "{}", r.stdout);
    assert!(!r.stdout.contains("read as"), "{}", r.stdout);
    assert!(!r.stdout.contains("CHUNK_WHILE_BUSY"), "{}", r.stdout);
    // The overlay's rollback keeps the convention's key.
    assert!(r.stdout.contains("Rollback\n  BUSY_PREFILL_CHUNK=auto\n"), "{}", r.stdout);
    let r = support::knobs(t.path(), &["explain", "--format", "json", "--busy-prefill-chunk"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["flag"]["read_by"], serde_json::json!([]));
    // The script's own key names nothing without the script.
    let r = support::knobs(t.path(), &["explain", "CHUNK_WHILE_BUSY"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    assert!(
        r.stderr.contains("`CHUNK_WHILE_BUSY` is not a flag, env key, metric or rule of radiance v1.8.1"),
        "{}",
        r.stderr
    );
}

/// Inside a git work tree without a knobs.toml the work tree is the project:
/// its serve scripts are read, from the root as from a folder below it.
#[test]
fn a_git_work_tree_is_the_project_root() {
    let t = support::tree(&[("services/serve.sh", SERVE), ("runbooks/README.md", b"# Runbooks\n")]);
    git2::Repository::init(t.path()).expect("git init");
    let r = support::knobs(t.path(), &["explain", "--busy-prefill-chunk"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("  read as     CHUNK_WHILE_BUSY by services/serve.sh\n"), "{}", r.stdout);
    // The rollback names the key the script reads.
    assert!(r.stdout.contains("Rollback\n  CHUNK_WHILE_BUSY=auto\n"), "{}", r.stdout);
    // The key the script reads names its flag.
    let by_key = support::knobs(t.path(), &["explain", "CHUNK_WHILE_BUSY"]);
    assert_eq!((by_key.code, by_key.stdout.as_str()), (0, r.stdout.as_str()), "{}", by_key.stderr);
    // From a folder below the root, the script outside it is named in full.
    let below = support::knobs(&t.path().join("runbooks"), &["explain", "--busy-prefill-chunk"]);
    let script = t.path().join("services").join("serve.sh");
    let line = format!("  read as     CHUNK_WHILE_BUSY by {}\n", script.display());
    assert!(below.stdout.contains(&line), "{}", below.stdout);
}
