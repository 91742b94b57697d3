//! The llama.cpp history embedded in knobs (issue 23): facts only (no help
//! text or other sentence of llama.cpp's), every tag, and enough for
//! `knobs lint --engine llama.cpp` and `explain` with no sync and no
//! network. The facts asserted were read with `git show TAG:common/arg.cpp`
//! on the mirror the history was made from: `--log-format` is in b3757's
//! table and not in b3761's (the next tag); `-fa` takes no value up to
//! b6324, and from b6325 takes `on`/`enabled`, `off`/`disabled` or `auto`,
//! with `1`, `0` and `-1` beside them from b6358.

use knobs::catalog::history::REMOVED_UNSAID;
use knobs::catalog::store::Store;

use crate::support::{run_in, tree};

#[test]
fn the_embedded_llama_cpp_history_holds_facts_only_and_every_tag() {
    let store = Store::embedded("llama.cpp").expect("the embedded store reads");
    let h = store.history().expect("an embedded history");
    assert!(store.history_is_embedded() && h.facts_only);
    assert_eq!(h.repo, "https://github.com/ngxson/llama.cpp");
    assert!(h.tags.len() > 2000, "every tag: {}", h.tags.len());
    assert_eq!(h.tags.first().map(|t| t.tag.as_str()), Some("b1953"));
    assert_eq!(h.tags.last().map(|t| t.tag.as_str()), Some("b10573"));
    assert!(h.flags.iter().all(|f| f.help.is_empty() && f.auto_means.is_none()), "no sentence of the source");
    assert!(h.flags.iter().filter_map(|f| f.removed.as_deref()).all(|m| m == REMOVED_UNSAID));
    assert!(h.metrics.iter().all(|m| m.help.is_empty()));
    // Nothing more to drop: the file is what `facts_only` makes of it.
    assert_eq!(h.facts_only().flags.len(), h.flags.len());
    // The newest build is the default, materialised from the history.
    let newest = store.newest("llama.cpp").expect("newest");
    assert_eq!(newest.source.tag, "b10573");
    assert!(store.from_history(newest));
}

#[test]
fn llama_cpp_lints_offline_each_service_by_its_pinned_build() {
    let compose = b"services:
  old:
    image: ghcr.io/ggml-org/llama.cpp:server-b3757
    command: [\"--log-format\", \"json\", \"-fa\"]
  new:
    image: ghcr.io/ggml-org/llama.cpp:server-b3761
    command: [\"--log-format\", \"json\"]
";
    // Two services pinned to two builds other than the file's own (the
    // newest): each ref is judged once, by its service's build.
    let t = tree(&[("compose.yaml", compose)]);
    let r = run_in(t.path(), &["lint", "--engine", "llama.cpp", "--format", "json", "compose.yaml"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    let found: Vec<String> = v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| format!("{} {} {} | {}", f["code"], f["line"], f["message"], f["help"]))
        .collect();
    assert_eq!(
        found,
        [
            r#""KNB007" 7 "`--log-format` was removed in b3761: it is not a flag of llama.cpp b3761" | "the last build with it is llama.cpp b3757""#
        ],
        "{}",
        r.stderr
    );
}

#[test]
fn explain_says_the_spans_of_fa_and_that_help_texts_need_a_sync() {
    let t = tree(&[]);
    let r = run_in(t.path(), &["explain", "--engine", "llama.cpp", "--", "-fa"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let spans: Vec<&str> = r.stdout.lines().map(str::trim_end).collect();
    assert!(spans.contains(&"  b3687–b6324   switch, default disabled"), "{}", r.stdout);
    assert!(spans.contains(&"  b6325–b6357   on|enabled|off|disabled|auto"), "{}", r.stdout);
    assert!(spans.contains(&"  b6358–b7361   on|enabled|1|off|disabled|0|auto|-1"), "{}", r.stdout);
    assert!(
        knobs_flat(&r.stdout)
            .contains("not in this history, which holds facts only: run `knobs sync --tag TAG` for help texts"),
        "{}",
        r.stdout
    );
}

/// Output with its wrapped lines joined.
fn knobs_flat(s: &str) -> String {
    crate::support::flat(s)
}

/// `docker run IMAGE:TAG …` in a script or a runbook pins the command it
/// runs (only that one): `-fa` is a switch at b4567, so it does not take
/// `--log-format` as its value, and `--log-format`, gone in b3761, is
/// reported against b4567; the bare `llama-server` line beside it is judged
/// by the newest build, where `-fa` takes a value.
#[test]
fn docker_run_with_an_image_tag_pins_that_command() {
    let script = b"#!/bin/sh\ndocker run --gpus all -p 8080:8080 ghcr.io/ggml-org/llama.cpp:server-b4567 \\\n  -m /models/q.gguf -fa --log-format json\nllama-server -m /models/q.gguf -fa --port 8080\n";
    let runbook =
        b"# serve\n\n```sh\npodman run --rm ghcr.io/ggml-org/llama.cpp:server-b4567 -m m.gguf --log-format json\n```\n";
    let t = tree(&[("run.sh", script), ("serve.md", runbook)]);
    let r = run_in(t.path(), &["lint", "--engine", "llama.cpp", "--format", "short", "run.sh", "serve.md"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "run.sh:3:25: KNB007 `--log-format` was removed in b3761: it is not a flag of llama.cpp b4567",
            "run.sh:4:32: KNB017 `-fa` takes a value and would swallow `--port`",
            "serve.md:4:67: KNB007 `--log-format` was removed in b3761: it is not a flag of llama.cpp b4567",
        ],
        "{}",
        r.stdout
    );
}

/// A history synced from elsewhere with only some tags (here one, b4009,
/// made from the fixture catalogue) is the one in use, but a pin to a tag
/// only the embedded history holds is judged by that tag, not by the
/// synced history's nearest earlier one: `--jinja` is b6500's (read with
/// `git show b6500:common/arg.cpp`), not the fixture's.
#[test]
fn a_tag_only_the_embedded_history_holds_is_judged_by_it_beside_a_partial_one() {
    use knobs::catalog::history::History;
    let path = crate::support::root().join("fixtures/llama.cpp/catalog/llama.cpp/b4100.toml");
    let text = std::fs::read_to_string(&path).expect("fixture catalogue");
    let mut c = knobs::catalog::store::parse(&path, &text).expect("parses");
    assert!(c.flag("--jinja").is_none(), "the fact the test rests on");
    c.source.tag = "b4009".into();
    c.source.repo = "somewhere-else".into();
    let mut h = History::new("llama.cpp", "somewhere-else");
    h.add("k", &c);
    let compose = b"services:\n  s:\n    image: ghcr.io/ggml-org/llama.cpp:server-b6500\n    command: [\"--jinja\"]\n";
    let t = tree(&[("compose.yaml", compose)]);
    let dir = t.path().join("cat/llama.cpp");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("history.json"), h.to_json().expect("json")).expect("write");
    let r = run_in(
        t.path(),
        &["lint", "--engine", "llama.cpp", "--catalog-dir", "cat", "--format", "short", "compose.yaml"],
    );
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    // A tag neither holds is still judged by the history in use.
    let compose = b"services:\n  s:\n    image: ghcr.io/ggml-org/llama.cpp:server-b4010\n    command: [\"--jinja\"]\n";
    std::fs::write(t.path().join("compose.yaml"), compose).expect("write");
    let r = run_in(
        t.path(),
        &["lint", "--engine", "llama.cpp", "--catalog-dir", "cat", "--format", "short", "compose.yaml"],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("KNB001 `--jinja` is not a flag of llama.cpp b4009"), "{}", r.stdout);
}

/// Between b3212 and b3682 llama.cpp's parse chain reads an option's value
/// through a statement macro (`#define CHECK_ARG if (++i >= argc) {…}`, used
/// bare on its line, then `argv[i]`): those options take a value, as the
/// usage text says (`--api-key-file FNAME`, `--grammar-file FNAME`).
#[test]
fn options_read_through_a_statement_macro_take_a_value() {
    let store = Store::embedded("llama.cpp").expect("embedded");
    let b3499 = store.get("llama.cpp", "b3499").expect("b3499");
    for name in ["--api-key-file", "--grammar-file", "--override-kv"] {
        let f = b3499.flag(name).unwrap_or_else(|| panic!("{name} at b3499"));
        assert_eq!(f.kind, knobs::catalog::model::Kind::String, "{name}");
    }
}
