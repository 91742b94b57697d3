//! Every command reads the history (issue 23): pins to any tag of it, an
//! untagged build judged by the nearest earlier tag (and said so), KNB007
//! saying when a flag went and what it became, a flag or member a later
//! build added saying from when, explain's spans and `--history`, `catalog
//! diff` of two history tags, and the unknown-tag message's nearest tags.
//! The histories are hand-made here from the radiance catalogues embedded
//! in knobs and the llama.cpp fixture catalogue, edited; each expected
//! message is written from those edits.

use std::path::Path;

use knobs::catalog::history::History;
use knobs::catalog::model::{Catalog, Kind};
use knobs::catalog::store::{self, Store};

use crate::support::run::{run_in, Output};
use crate::support::tree;

/// `catalog` as the build `tag` (its commit `tag`'s digits, padded).
fn at(catalog: &Catalog, tag: &str) -> Catalog {
    let mut c = catalog.clone();
    c.source.tag = tag.to_string();
    let digits: String = tag.chars().filter(char::is_ascii_digit).collect();
    c.source.commit = format!("{digits:0<40}");
    c
}

/// radiance, nine tags: v1.0.13 and v1.2.0 are the embedded 1.0.13;
/// v1.4.0 is 1.8.1 without `keep-all` (so `--prefill-chunk` became
/// `--busy-prefill-chunk` and `--swap-space` went in v1.4.0); v1.8.1–v1.8.5
/// are 1.8.1; v1.9.0 adds `--decode-only-steps` and brings `--swap-space` back.
fn radiance() -> History {
    let embedded = Store::embedded("radiance").expect("embedded");
    let old = embedded.get("radiance", "v1.0.13").expect("v1.0.13").clone();
    let new = embedded.get("radiance", "v1.8.1").expect("v1.8.1").clone();
    let mut h = History::new("radiance", &new.source.repo);
    h.add("old", &at(&old, "v1.0.13"));
    h.add("old", &at(&old, "v1.2.0"));
    let mut mid = at(&new, "v1.4.0");
    for f in mid.flags.iter_mut().filter(|f| f.name == "--checkpoint-policy") {
        f.members.retain(|m| m != "keep-all");
    }
    h.add("mid", &mid);
    for tag in ["v1.8.1", "v1.8.2", "v1.8.3", "v1.8.4", "v1.8.5"] {
        h.add("new", &at(&new, tag));
    }
    let mut late = at(&new, "v1.9.0");
    let mut f = new.flag("--max-num-seqs").expect("--max-num-seqs").clone();
    f.name = "--decode-only-steps".into();
    f.help = "decode-only steps after a chunk".into();
    late.flags.push(f);
    late.flags.push(old.flag("--swap-space").expect("--swap-space").clone());
    late.normalise();
    h.add("late", &late);
    h
}

/// llama.cpp, five tags: b3900 and b4000 have `-fa` as a switch,
/// `--log-format`, and `tensor` among `--split-mode`'s members; b4100 is the fixture catalogue with `--log-style` (the
/// same help: a rename); b4200 and b4567 add `--reasoning-budget`, and
/// b4567 makes `--split-mode` a switch.
fn llama() -> History {
    let path = crate::support::root().join("fixtures/llama.cpp/catalog/llama.cpp/b4100.toml");
    let text = std::fs::read_to_string(&path).expect("fixture catalogue");
    let b4100 = store::parse(&path, &text).expect("parses");
    let port = b4100.flag("--port").expect("--port").clone();
    let named = |name: &str, help: &str, kind: Kind| {
        let mut f = port.clone();
        f.name = name.into();
        f.aliases.clear();
        f.env.clear();
        f.help = help.into();
        f.kind = kind;
        f.default.clear();
        f
    };
    let mut h = History::new("llama.cpp", &b4100.source.repo);
    let mut old = at(&b4100, "b3900");
    for f in old.flags.iter_mut().filter(|f| f.name == "--flash-attn") {
        f.kind = Kind::Switch;
        f.members.clear();
        f.members_from = None;
        f.metavar.clear();
    }
    for f in old.flags.iter_mut().filter(|f| f.name == "--split-mode") {
        f.members.push("tensor".into());
    }
    let mut log = named("--log-format", "log output format", Kind::String);
    log.env = vec!["LLAMA_ARG_LOG_FORMAT".into()];
    old.flags.push(log);
    old.normalise();
    h.add("old", &old);
    h.add("old", &at(&old, "b4000"));
    let mut mid = at(&b4100, "b4100");
    mid.flags.push(named("--log-style", "log output format", Kind::String));
    mid.normalise();
    h.add("mid", &mid);
    let mut new = at(&mid, "b4200");
    new.flags.push(named("--reasoning-budget", "tokens a model may think", Kind::Int));
    new.normalise();
    h.add("new", &new);
    let mut newest = at(&new, "b4567");
    for f in newest.flags.iter_mut().filter(|f| f.name == "--split-mode") {
        f.kind = Kind::Switch;
        f.members.clear();
    }
    h.add("newest", &newest);
    h
}

/// A project with `files` and the history under `cat/<engine>/`.
fn project(h: &History, files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let t = tree(files);
    let dir = t.path().join("cat").join(&h.engine);
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("history.json"), h.to_json().expect("json")).expect("write");
    t
}

/// Each finding as `CODE line:column message | help`.
fn findings(r: &Output) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout));
    v["findings"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|f| {
                    format!(
                        "{} {}:{} {} | {}",
                        f["code"].as_str().unwrap_or(""),
                        f["line"],
                        f["column"],
                        f["message"].as_str().unwrap_or(""),
                        f["help"].as_str().unwrap_or("")
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn lint(dir: &Path, engine: &str, extra: &[&str]) -> Output {
    let mut args = vec!["lint", "--engine", engine, "--catalog-dir", "cat", "--format", "json"];
    args.extend_from_slice(extra);
    run_in(dir, &args)
}

fn compose(image: &str, command: &str) -> Vec<u8> {
    format!("services:\n  engine:\n    image: {image}\n    command: {command}\n").into_bytes()
}

#[test]
fn a_pin_to_a_tag_of_the_history_is_judged_by_that_tag() {
    let file = compose("ghcr.io/acme/radiance:1.2.0", r#"["--prefill-chunk", "512", "--busy-prefill-chunk", "auto"]"#);
    let t = project(&radiance(), &[("compose.yaml", &file)]);
    let r = lint(t.path(), "radiance", &[]);
    // v1.2.0 is 1.0.13's source: --prefill-chunk is its flag, the new name comes in v1.4.0.
    assert_eq!(
        findings(&r),
        ["KNB007 4:42 `--busy-prefill-chunk` is not a flag of radiance v1.2.0 | `--busy-prefill-chunk` exists from v1.4.0; this file pins v1.2.0"],
        "{}",
        r.stderr
    );
    assert_eq!(r.stderr, "");
}

#[test]
fn a_pin_between_two_tags_is_judged_by_the_nearest_earlier_and_says_so() {
    let file = compose("ghcr.io/acme/radiance:1.3.5", r#"["--busy-prefill-chunk", "auto"]"#);
    let t = project(&radiance(), &[("compose.yaml", &file)]);
    let r = lint(t.path(), "radiance", &[]);
    assert_eq!(
        findings(&r),
        ["KNB007 4:16 `--busy-prefill-chunk` is not a flag of radiance v1.2.0 | `--busy-prefill-chunk` exists from v1.4.0; this file pins v1.2.0"]
    );
    assert_eq!(
        r.stderr,
        "warning: compose.yaml: pins radiance 1.3.5, which has no catalogue of its own: judged against v1.2.0, the nearest earlier tag\n"
    );
}

#[test]
fn an_env_file_pin_between_two_tags_judges_its_folder_by_the_nearest_earlier() {
    let t = project(
        &radiance(),
        &[
            ("svc/image.env", b"IMAGE=ghcr.io/x/radiance:1.3.5\n"),
            ("svc/serve.sh", b"#!/bin/sh\nexec radiance --busy-prefill-chunk auto\n"),
        ],
    );
    let r = lint(t.path(), "radiance", &[]);
    assert_eq!(
        findings(&r),
        ["KNB007 2:15 `--busy-prefill-chunk` is not a flag of radiance v1.2.0 | `--busy-prefill-chunk` exists from v1.4.0; this file pins v1.2.0"]
    );
    assert_eq!(
        r.stderr,
        "warning: svc/image.env pins radiance 1.3.5, which has no catalogue of its own: the files in svc are judged against v1.2.0, the nearest earlier tag\n"
    );
}

// Issue 31: a pin older than every catalogued build is not judged against a
// newer one (whose flags it may not have had), and the tag to sync is
// spelled as the repository spells its tags (radiance's are `v1.0.13`).
#[test]
fn a_pin_older_than_every_catalogued_build_is_not_judged() {
    // `--bogus-flag` is in no build; `--busy-prefill-chunk` only from v1.4.0.
    let file = compose("ghcr.io/acme/radiance:0.9.0", r#"["--bogus-flag", "--busy-prefill-chunk", "auto"]"#);
    let t = project(&radiance(), &[("compose.yaml", &file)]);
    let r = lint(t.path(), "radiance", &[]);
    assert_eq!(findings(&r), Vec::<String>::new());
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stderr,
        "warning: compose.yaml: pins radiance 0.9.0, older than every catalogued build (the oldest is v1.0.13), so the command it pins is not judged (run `knobs sync --tag v0.9.0` to catalogue it)\n"
    );
}

#[test]
fn an_env_file_pin_older_than_every_catalogued_build_leaves_its_folder_unjudged() {
    let t = project(
        &radiance(),
        &[
            ("svc/image.env", b"IMAGE=ghcr.io/x/radiance:v0.9.0\n"),
            ("svc/serve.sh", b"#!/bin/sh\nexec radiance --bogus-flag --busy-prefill-chunk auto\n"),
            // Another folder with no pin is judged as before (the newest, v1.9.0).
            ("other/serve.sh", b"#!/bin/sh\nexec radiance --bogus-flag\n"),
        ],
    );
    let r = lint(t.path(), "radiance", &[]);
    let found = findings(&r);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("KNB001 2:15 `--bogus-flag`"), "{found:?}");
    assert!(r.stdout.contains("other/serve.sh") && !r.stdout.contains("svc/serve.sh"), "{}", r.stdout);
    assert_eq!(
        r.stderr,
        "warning: svc/image.env pins radiance v0.9.0, older than every catalogued build (the oldest is v1.0.13), so the files in svc are not judged (run `knobs sync --tag v0.9.0` to catalogue it)\n"
    );
}

// Issue 31: `--tag` on the command line wins over every pin in the files.
#[test]
fn the_command_line_tag_wins_over_a_files_image_pin() {
    // The file pins v1.2.0, where `--prefill-chunk` is a flag and
    // `--busy-prefill-chunk` is not; v1.8.1 is the other way round.
    let file = compose("ghcr.io/acme/radiance:1.2.0", r#"["--prefill-chunk", "512", "--busy-prefill-chunk", "auto"]"#);
    let t = project(&radiance(), &[("compose.yaml", &file)]);
    let pinned = findings(&lint(t.path(), "radiance", &[]));
    assert!(pinned.iter().all(|f| f.contains("--busy-prefill-chunk")), "{pinned:?}");
    let r = lint(t.path(), "radiance", &["--tag", "v1.8.1"]);
    let found = findings(&r);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("KNB007 4:16 `--prefill-chunk` was removed in v1.4.0"), "{found:?}");
    assert_eq!(r.stderr, "");
}

#[test]
fn the_command_line_tag_wins_over_an_env_file_pin() {
    let t = project(
        &radiance(),
        &[
            ("svc/image.env", b"IMAGE=ghcr.io/x/radiance:1.3.5\n"),
            ("svc/serve.sh", b"#!/bin/sh\nexec radiance --busy-prefill-chunk auto\n"),
        ],
    );
    // By the pin (v1.2.0, the nearest earlier tag) the flag is not there yet...
    assert_eq!(findings(&lint(t.path(), "radiance", &[])).len(), 1);
    // ...by the command line's v1.8.1 it is, and no note names the pin.
    let r = lint(t.path(), "radiance", &["--tag", "v1.8.1"]);
    assert_eq!(findings(&r), Vec::<String>::new());
    assert_eq!(r.stderr, "");
}

#[test]
fn removed_flag_says_in_which_tag_it_went_and_what_it_became() {
    let file = compose("ghcr.io/acme/radiance:1.8.3", r#"["--prefill-chunk", "512", "--swap-space", "4"]"#);
    let t = project(&radiance(), &[("compose.yaml", &file)]);
    let r = lint(t.path(), "radiance", &[]);
    assert_eq!(
        findings(&r),
        [
            "KNB007 4:16 `--prefill-chunk` was removed in v1.4.0: it is not a flag of radiance v1.8.3 | it became `--busy-prefill-chunk` in v1.4.0",
            "KNB007 4:42 `--swap-space` was removed in v1.4.0: it is not a flag of radiance v1.8.3 | the last build with it is radiance v1.2.0; it is back from v1.9.0",
        ]
    );
    // Nine tags hold one of them: none is listed.
    assert!(!r.stdout.contains("v1.0.13, v1.2.0"), "{}", r.stdout);
}

#[test]
fn a_member_a_later_build_added_says_from_when() {
    let file = compose("ghcr.io/acme/radiance:1.4.0", r#"["--checkpoint-policy", "keep-all"]"#);
    let t = project(&radiance(), &[("compose.yaml", &file)]);
    let r = lint(t.path(), "radiance", &[]);
    assert_eq!(
        findings(&r),
        ["KNB002 4:39 `keep-all` is not a member of `--checkpoint-policy` | `keep-all` exists from v1.8.1; this file pins v1.4.0. radiance v1.4.0 accepts `geometric-backoff`, `tip-only` (validator message at core/config.cpp:92 @ 140000000000)"]
    );
}

#[test]
fn the_command_line_tag_of_an_untagged_build_is_judged_by_the_nearest_earlier() {
    let t = project(&radiance(), &[("run.md", b"```sh\nradiance --busy-prefill-chunk auto\n```\n")]);
    let r = lint(t.path(), "radiance", &["--tag", "v1.2.0-3-gabc", "run.md"]);
    assert_eq!(
        findings(&r),
        ["KNB007 2:10 `--busy-prefill-chunk` is not a flag of radiance v1.2.0 | `--busy-prefill-chunk` exists from v1.4.0; this file pins v1.2.0"]
    );
    assert_eq!(
        r.stderr,
        "note: radiance v1.2.0-3-gabc has no catalogue of its own: judged against v1.2.0, the nearest earlier tag\n"
    );
    // flags and catalog check read the tag the same way.
    let note =
        "note: radiance v1.2.0-3-gabc has no catalogue of its own: judged against v1.2.0, the nearest earlier tag\n";
    let r = run_in(t.path(), &["flags", "--tag", "v1.2.0-3-gabc", "--catalog-dir", "cat"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, note));
    assert!(r.stdout.contains("--prefill-chunk") && !r.stdout.contains("--busy-prefill-chunk"), "{}", r.stdout);
    let r = run_in(t.path(), &["catalog", "check", "--tag", "v1.2.0-3-gabc", "--catalog-dir", "cat"]);
    assert!(r.stderr.starts_with(note), "{}", r.stderr);
    assert!(r.stdout.contains("checked against radiance v1.2.0:"), "{}", r.stdout);
    // knobs.toml's pin, and explain, the same way.
    std::fs::write(t.path().join("knobs.toml"), "[pin]\ntag = \"v1.2.0-3-gabc\"\n\n[catalog]\ndir = \"cat\"\n")
        .expect("write");
    let r = run_in(t.path(), &["explain", "--prefill-chunk"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("--prefill-chunk\nradiance v1.2.0 (120000000000)\n"), "{}", r.stdout);
    assert_eq!(
        r.stderr,
        "note: radiance v1.2.0-3-gabc has no catalogue of its own: judged against v1.2.0, the nearest earlier tag\n"
    );
}

#[test]
fn explain_shows_the_history_as_spans_of_one_shape_each() {
    let t = project(&radiance(), &[]);
    let r = run_in(t.path(), &["explain", "--checkpoint-policy", "--catalog-dir", "cat"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let history = r.stdout.split("\nHistory\n").nth(1).unwrap_or_default();
    assert_eq!(
        history,
        "  v1.0.13–v1.4.0  geometric-backoff|tip-only, default geometric-backoff\n  v1.8.1–       geometric-backoff|tip-only|keep-all, default geometric-backoff\n"
    );
    let r = run_in(t.path(), &["explain", "--checkpoint-policy", "--catalog-dir", "cat", "--format", "markdown"]);
    assert!(
        r.stdout.ends_with("## History\n\n- v1.0.13–v1.4.0: geometric-backoff|tip-only, default geometric-backoff\n- v1.8.1–: geometric-backoff|tip-only|keep-all, default geometric-backoff\n"),
        "{}",
        r.stdout
    );
    let r = run_in(t.path(), &["explain", "--checkpoint-policy", "--catalog-dir", "cat", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(
        v["flag"]["spans"][1],
        serde_json::json!({"tags": "v1.8.1–", "shape": "geometric-backoff|tip-only|keep-all, default geometric-backoff"})
    );
    assert_eq!(v["flag"]["changes"][1], serde_json::json!({"tag": "v1.8.1", "change": "members added: `keep-all`"}));
    // Without a history, neither is there.
    let r = run_in(&crate::support::root(), &["explain", "--checkpoint-policy", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert!(v["flag"].get("spans").is_none() && v["flag"].get("changes").is_none(), "{v}");
    // A flag explained on llama.cpp: a switch, then members.
    let t = project(&llama(), &[]);
    let r = run_in(t.path(), &["--engine", "llama.cpp", "explain", "-fa", "--catalog-dir", "cat"]);
    let history = r.stdout.split("\nHistory\n").nth(1).unwrap_or_default();
    assert_eq!(history, "  b3900–b4000   switch\n  b4100–        on|true|1|off|false|0|auto|-1\n", "{}", r.stderr);
    // A flag only older tags have, by its env key: explained from the newest tag that has it.
    let r = run_in(t.path(), &["--engine", "llama.cpp", "explain", "LLAMA_ARG_LOG_FORMAT", "--catalog-dir", "cat"]);
    assert!(r.stdout.starts_with("--log-format\nllama.cpp b4567 ("), "{}", r.stdout);
    assert!(r.stdout.ends_with("\nHistory\n  b3900–b4000   string\n"), "{}", r.stdout);
}

#[test]
fn explain_history_lists_every_change_with_its_tag() {
    let t = project(&radiance(), &[]);
    let run = |args: &[&str]| {
        let mut all = vec!["explain"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--history", "--catalog-dir", "cat"]);
        run_in(t.path(), &all)
    };
    let r = run(&["--prefill-chunk"]);
    assert_eq!(
        r.stdout,
        "--prefill-chunk: every change across radiance's history (9 tags, v1.0.13–v1.9.0)\n  v1.0.13  present: auto-or-int, default auto\n  v1.4.0   removed: renamed to `--busy-prefill-chunk`\n"
    );
    let r = run(&["--busy-prefill-chunk"]);
    assert_eq!(
        r.stdout,
        "--busy-prefill-chunk: every change across radiance's history (9 tags, v1.0.13–v1.9.0)\n  v1.4.0  renamed from `--prefill-chunk`: auto-or-int, default auto\n"
    );
    let r = run(&["--checkpoint-policy"]);
    assert_eq!(
        r.stdout,
        "--checkpoint-policy: every change across radiance's history (9 tags, v1.0.13–v1.9.0)\n  v1.0.13  present: geometric-backoff|tip-only, default geometric-backoff\n  v1.8.1   members added: `keep-all`\n"
    );
    let r = run(&["--checkpoint-policy", "--format", "markdown"]);
    assert_eq!(
        r.stdout,
        "# `--checkpoint-policy`: every change across radiance's history (9 tags, v1.0.13–v1.9.0)\n\n- v1.0.13: present: geometric-backoff|tip-only, default geometric-backoff\n- v1.8.1: members added: `keep-all`\n"
    );
    // A flag only a later tag has is found there.
    let r = run(&["--decode-only-steps", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["changes"][0]["tag"], "v1.9.0");
    assert_eq!(v["changes"][0]["change"], "added: int");
    // Not a flag: refused.
    let r = run(&["radiance:engine_steps_total"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("`--history` lists the changes of a flag, and `radiance:engine_steps_total` is not one"),
        "{}",
        r.stderr
    );
    // The help says what it does.
    let help = run_in(t.path(), &["explain", "--help"]).stdout;
    assert!(help.contains("--history            List every change of the flag with the tag that made it"), "{help}");
    // No history: across the catalogued versions.
    let r = run_in(Path::new(&crate::support::root()), &["explain", "--checkpoint-policy", "--history"]);
    assert_eq!(
        r.stdout,
        "--checkpoint-policy: every change across the catalogued versions of radiance (v1.0.13, v1.8.1)\n  v1.0.13  present; members `geometric-backoff`, `tip-only`\n  v1.8.1   members added: `keep-all`\n"
    );
}

#[test]
fn catalog_diff_takes_any_two_tags_of_the_history() {
    let t = project(&radiance(), &[]);
    let r = run_in(t.path(), &["catalog", "diff", "v1.2.0", "v1.9.0", "--catalog-dir", "cat"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("radiance v1.2.0 → v1.9.0\n"), "{}", r.stdout);
    for line in ["  ~ --prefill-chunk → --busy-prefill-chunk\n", "  + --decode-only-steps\n"] {
        assert!(r.stdout.contains(line), "{line}: {}", r.stdout);
    }
    assert!(!r.stdout.contains("--swap-space"), "both tags have it: {}", r.stdout);
    let r = run_in(t.path(), &["catalog", "diff", "v1.8.2", "v1.8.5", "--catalog-dir", "cat", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!((v["from"].as_str(), v["to"].as_str()), (Some("v1.8.2"), Some("v1.8.5")));
    assert_eq!(v["flags_added"], serde_json::json!([]), "one source state");
    // A tag the history lacks: the nearest of the nine are named.
    let r = run_in(t.path(), &["catalog", "diff", "v1.3.0", "v1.9.0", "--catalog-dir", "cat"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains(
            "no catalogue for radiance v1.3.0; known: v1.0.13, v1.2.0, v1.4.0, v1.8.1, v1.8.2, v1.8.3, v1.8.4, v1.8.5 … (9 tags catalogued; these are the nearest)"
        ),
        "{}",
        r.stderr
    );
}

#[test]
fn a_compose_file_pinning_an_old_server_build_is_judged_by_that_build() {
    let h = llama();
    // b4000: `-fa` is a switch and `--log-format` a flag. Judged by the
    // newest (b4567) instead, `-fa` would swallow `--log-format`.
    let old = compose("ghcr.io/ggml-org/llama.cpp:server-b4000", r#"["-m", "/m.gguf", "-fa", "--log-format", "json"]"#);
    let t = project(&h, &[("compose.yaml", &old)]);
    let r = lint(t.path(), "llama.cpp", &[]);
    assert_eq!((r.code, findings(&r)), (0, Vec::<String>::new()), "{}", r.stderr);

    let new = compose("ghcr.io/ggml-org/llama.cpp:server-b4567", r#"["-m", "/m.gguf", "--log-format", "json", "-fa"]"#);
    let t = project(&h, &[("compose.yaml", &new)]);
    let r = lint(t.path(), "llama.cpp", &[]);
    assert_eq!(
        findings(&r),
        [
            "KNB007 4:33 `--log-format` was removed in b4100: it is not a flag of llama.cpp b4567 | it became `--log-style` in b4100",
            "KNB016 4:57 `-fa` is given no value: the command line ends after it | `-fa` takes one of `on`, `true`, `1`, `off`, `false`, `0`, `auto`, `-1` in llama.cpp b4567 (`-fa [on|off|auto]`), and was a switch in llama.cpp b3900–b4000: give it a value",
        ]
    );

    // A flag that takes a value at the pin and is a switch in a later build.
    let sm = compose("ghcr.io/ggml-org/llama.cpp:server-b4200", r#"["-m", "/m.gguf", "-sm"]"#);
    let t = project(&h, &[("compose.yaml", &sm)]);
    let r = lint(t.path(), "llama.cpp", &[]);
    assert_eq!(
        findings(&r),
        ["KNB016 4:33 `-sm` is given no value: the command line ends after it | `-sm` takes one of `none`, `layer`, `row` in llama.cpp b4200 (`-sm {none,layer,row}`), and is a switch in llama.cpp b4567–: give it a value"]
    );

    // b4101 is no tag of this history, nor of llama.cpp's (embedded beside it).
    let between =
        compose("ghcr.io/ggml-org/llama.cpp:server-b4101", r#"["-m", "/m.gguf", "--reasoning-budget", "64"]"#);
    let t = project(&h, &[("compose.yaml", &between)]);
    let r = lint(t.path(), "llama.cpp", &[]);
    assert_eq!(
        findings(&r),
        ["KNB007 4:33 `--reasoning-budget` is not a flag of llama.cpp b4100 | `--reasoning-budget` exists from b4200; this file pins b4100"]
    );
    assert_eq!(
        r.stderr,
        "warning: compose.yaml: pins llama.cpp b4101, which has no catalogue of its own: judged against b4100, the nearest earlier tag\n"
    );
}

#[test]
fn an_env_key_of_a_flag_another_tag_had_says_when_it_went() {
    // llama.cpp: the key is declared only by b3900 and b4000 of the history.
    let t = project(
        &llama(),
        &[("svc/image.env", b"IMAGE=ghcr.io/ggml-org/llama.cpp:server-b4567\nLLAMA_ARG_LOG_FORMAT=json\n")],
    );
    let r = lint(t.path(), "llama.cpp", &[]);
    assert_eq!(
        findings(&r),
        ["KNB007 2:1 `LLAMA_ARG_LOG_FORMAT` (`--log-format`) was removed in b4100: it is not a flag of llama.cpp b4567 | it became `--log-style` in b4100"],
        "{}",
        r.stderr
    );
    // radiance's convention: SWAP_SPACE sets --swap-space, gone in v1.4.0 and back in v1.9.0.
    let t = project(&radiance(), &[("svc/image.env", b"IMAGE=ghcr.io/x/radiance:1.8.3\nSWAP_SPACE=4\n")]);
    let r = lint(t.path(), "radiance", &[]);
    assert_eq!(
        findings(&r),
        ["KNB007 2:1 `SWAP_SPACE` (`--swap-space`) was removed in v1.4.0: it is not a flag of radiance v1.8.3 | the last build with it is radiance v1.2.0; it is back from v1.9.0"]
    );
}

#[test]
fn a_member_an_earlier_build_accepted_says_when_it_went() {
    let file = compose("ghcr.io/ggml-org/llama.cpp:server-b4100", r#"["-m", "/m.gguf", "-sm", "tensor"]"#);
    let t = project(&llama(), &[("compose.yaml", &file)]);
    let r = lint(t.path(), "llama.cpp", &[]);
    assert_eq!(
        findings(&r),
        ["KNB002 4:40 `tensor` is not a member of `-sm` | `tensor` was removed in b4100 (the last build that accepts it is b4000). llama.cpp b4100 accepts `none`, `layer`, `row` (validator comparisons at common/arg.cpp:121 @ 410000000000)"]
    );
}

/// vLLM, four tags from the hand-written fixture catalogues: v0.9.2 and
/// v0.10.0 read `VLLM_ATTENTION_BACKEND`, v0.15.0 and v0.20.1 (v0.20.1's
/// catalogue) do not; v0.20.1 alone reads a key added for this test.
fn vllm() -> History {
    let read = |tag: &str| {
        let path = crate::support::root().join(format!("fixtures/vllm/catalog/vllm/{tag}.toml"));
        let text = std::fs::read_to_string(&path).expect("fixture catalogue");
        store::parse(&path, &text).expect("parses")
    };
    let (old, mid, new) = (read("v0.9.2"), read("v0.10.0"), read("v0.20.1"));
    assert!(new.env_keys.iter().all(|k| k.name != "VLLM_ATTENTION_BACKEND"), "the fact the test is built on");
    let mut h = History::new("vllm", &new.source.repo);
    h.add("old", &at(&old, "v0.9.2"));
    h.add("mid", &at(&mid, "v0.10.0"));
    h.add("new", &at(&new, "v0.15.0"));
    let mut newest = at(&new, "v0.20.1");
    let mut k = newest.env_keys[0].clone();
    k.name = "VLLM_ONLY_IN_NEWEST".into();
    newest.env_keys.push(k);
    newest.normalise();
    h.add("newest", &newest);
    h
}

#[test]
fn an_engine_wide_env_key_says_when_it_went_or_from_when_it_is_read() {
    let env = b"IMAGE=vllm/vllm-openai:v0.15.0\nVLLM_ATTENTION_BACKEND=FLASH_ATTN\nVLLM_ONLY_IN_NEWEST=1\n";
    let t = project(&vllm(), &[("svc/image.env", env)]);
    let r = lint(t.path(), "vllm", &[]);
    assert_eq!(
        findings(&r),
        [
            "KNB007 2:1 `VLLM_ATTENTION_BACKEND` was removed in v0.15.0: it is not an env key of vllm v0.15.0 | the last build that reads it is vllm v0.10.0",
            "KNB007 3:1 `VLLM_ONLY_IN_NEWEST` is not an env key of vllm v0.15.0: the engine ignores it | `VLLM_ONLY_IN_NEWEST` exists from v0.20.1; this file pins v0.15.0",
        ],
        "{}",
        r.stderr
    );
}

#[test]
fn a_member_an_open_set_no_longer_lists_says_when_it_left_the_list() {
    // The fixtures: v0.10.0 lists `custom` (a closed set); v0.20.1's set
    // (at v0.15.0 and v0.20.1 here) is open and does not list it.
    let compose = b"services:\n  v:\n    image: vllm/vllm-openai:v0.15.0\n    command: [\"--tokenizer-mode\", \"custom\"]\n  w:\n    image: vllm/vllm-openai:v0.15.0\n    command: [\"--tokenizer-mode\", \"my-registered-mode\"]\n";
    let t = project(&vllm(), &[("compose.yaml", compose)]);
    let r = lint(t.path(), "vllm", &[]);
    assert_eq!(
        findings(&r),
        ["KNB002 4:36 `custom` is no longer a member of `--tokenizer-mode` in vllm v0.15.0 | `custom` was removed in v0.15.0 (the last build that lists it is v0.10.0); the set is open, so v0.15.0 passes it on as another name. It lists `auto`, `hf`, `slow`, `mistral`, `deepseek_v32`, `deepseek_v4`"],
        "a name no build listed is the open set's business: {}",
        r.stderr
    );
}

#[test]
fn history_of_what_is_not_a_flag_is_an_error_that_says_how_to_ask() {
    let t = tree(&[]);
    let r = run_in(t.path(), &["explain", "--history", "KNB001"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let flat = crate::support::flat(&r.stderr);
    assert!(flat.contains("`--history` lists the changes of a flag, and `KNB001` is not one"), "{flat}");
    assert!(flat.contains("give a flag: `knobs explain --history -- --FLAG`"), "{flat}");
}
