//! The argument values operators write (issue 20, "Arguments" and "Container
//! argv"): an option given no value (missing-value, KNB016) or another
//! option as its value (swallowed-option, KNB017), placeholders in docs that
//! are not values, Markdown lists and tables that document options, an
//! exec-form element holding several words, and folded YAML scalars whose
//! words keep their own lines. Fixtures under `fixtures/lint/arguments/`,
//! written in the shapes of real serve scripts, compose files and READMEs;
//! every expected finding below was written by hand from the fixture text
//! and the catalogue facts.

use crate::support::{self, run_in};

const LLAMA: &[&str] = &["--engine", "llama.cpp", "--catalog-dir", "fixtures/llama.cpp/catalog"];

/// Lints `path` (relative to the crate root), in the short format unless
/// `extra` names another.
fn lint(path: &str, extra: &[&str]) -> crate::support::Output {
    let mut args = vec!["lint"];
    if !extra.contains(&"--format") {
        args.extend(["--format", "short"]);
    }
    args.extend_from_slice(extra);
    args.push(path);
    run_in(&support::root(), &args)
}

/// (line, column, rule) of every finding in `out`, in order.
fn found(out: &str) -> Vec<(usize, usize, String)> {
    out.lines()
        .filter_map(|l| {
            let (place, message) = l.split_once(": ")?;
            let mut at = place.rsplitn(3, ':');
            let col = at.next()?.parse().ok()?;
            let line = at.next()?.parse().ok()?;
            Some((line, col, message.split_whitespace().next()?.to_string()))
        })
        .collect()
}

/// Expected findings: (line, column, rule).
type Rows = &'static [(usize, usize, &'static str)];

fn want(rows: &[(usize, usize, &str)]) -> Vec<(usize, usize, String)> {
    rows.iter().map(|(l, c, r)| (*l, *c, r.to_string())).collect()
}

#[test]
fn folded_and_literal_scalars_keep_each_word_on_its_line() {
    // Each planted value is on the line after a `${VAR}` word; the columns
    // are where the value starts on its own line.
    let r = lint("fixtures/lint/arguments/folded/compose.yaml", &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let expected = want(&[
        (10, 27, "KNB002"), // `floor`, in a `>` scalar
        (16, 29, "KNB003"), // `2k`, in a `>-` scalar with a more-indented line
        (24, 30, "KNB003"), // `one`, in a folded `sh -c` script
        (32, 32, "KNB003"), // `automatic`, in a literal `sh -c` script
    ]);
    assert_eq!(found(&r.stdout), expected, "{}", r.stdout);
}

#[test]
fn an_option_without_its_value_is_found_in_every_kind_of_file() {
    // radiance: its values never start with `-`, so an option before
    // another option has none either. The array `args+=(--checkpoint-policy)`
    // is given its value by the next `args+=`, the Dockerfile's third
    // ENTRYPOINT by its CMD, and its fourth (no CMD) by `docker run`'s
    // arguments: none is a finding.
    let cases: &[(&str, Rows)] = &[
        ("serve.sh", &[(12, 3, "KNB016"), (13, 10, "KNB016"), (14, 28, "KNB001")]),
        ("Dockerfile", &[(3, 43, "KNB016"), (7, 7, "KNB001")]),
        ("compose.yaml", &[(4, 52, "KNB001"), (9, 24, "KNB016")]),
        ("deployment.yaml", &[(15, 16, "KNB001"), (16, 15, "KNB016")]),
    ];
    for (file, rows) in cases {
        let r = lint(&format!("fixtures/lint/arguments/radiance/{file}"), &[]);
        assert_eq!(r.code, 1, "{file}: {}", r.stderr);
        assert_eq!(found(&r.stdout), want(rows), "{file}\n{}", r.stdout);
    }
}

#[test]
fn the_messages_say_what_the_engine_does_with_the_line() {
    let r = lint("fixtures/lint/arguments/radiance/serve.sh", &["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    let f = |i: usize, key: &str| v["findings"][i][key].as_str().unwrap_or("").to_string();
    assert_eq!(f(0, "message"), "`--prefill-interleave` is given no value: the command line ends after it");
    // The catalogue's facts: an integer, metavar N, default 0.
    assert_eq!(
        f(0, "help"),
        "`--prefill-interleave` takes an integer in radiance v1.8.1 (`--prefill-interleave N`): give it a value, \
         or drop it to keep the default (`0`)"
    );
    assert_eq!(f(1, "message"), "`--checkpoint-slots` is given no value: the next word, `--port`, is an option");
    assert_eq!(
        f(2, "message"),
        "the engine receives `--max-num-seqs 2` as one word, which is no flag of radiance v1.8.1"
    );
    assert_eq!(f(2, "help"), "split it into separate words: `--max-num-seqs` and `2`");
    // An enum names its members.
    let r = lint("fixtures/lint/arguments/radiance/Dockerfile", &["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(
        v["findings"][0]["help"],
        "`--checkpoint-policy` takes one of `geometric-backoff`, `tip-only`, `keep-all` in radiance v1.8.1 \
         (`--checkpoint-policy POLICY`): give it a value, or drop it to keep the default (`geometric-backoff`)"
    );
}

#[test]
fn llama_cpp_options_read_the_next_option_as_their_value() {
    // llama.cpp takes the next word whatever it is: a bare `-fa` at the end
    // has no value (KNB016); before another option it swallows it (KNB017),
    // `-m` too (a path option reading `--port`).
    let r = lint("fixtures/lint/arguments/llama/README.md", LLAMA);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        found(&r.stdout),
        // Line 31: in a sentence, `llama-server -m` names an option; the
        // longer span beside it is a command line, and a stale one.
        want(&[(6, 42, "KNB016"), (7, 32, "KNB017"), (8, 29, "KNB017"), (9, 14, "KNB017"), (31, 75, "KNB016")]),
        "{}",
        r.stdout
    );
    let mut args = LLAMA.to_vec();
    args.extend(["--format", "json"]);
    let r = lint("fixtures/lint/arguments/llama/README.md", &args);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    let f = |i: usize, key: &str| v["findings"][i][key].as_str().unwrap_or("").to_string();
    assert_eq!(f(1, "message"), "`--flash-attn` takes a value and would swallow `--port`");
    // The b4100 catalogue's members of `--flash-attn`, and its metavar.
    assert_eq!(
        f(1, "help"),
        "`--port` is read as its value and never set; `--flash-attn` takes one of `on`, `true`, `1`, `off`, \
         `false`, `0`, `auto`, `-1` in llama.cpp b4100 (`--flash-attn [on|off|auto]`): give it a value"
    );
    assert_eq!(f(2, "help").split(';').next(), Some("`-p` (`--prompt`) is read as its value and never set"));
    // No `not a member` finding beside it: the value is an option, not a wrong member.
    assert!(!r.stdout.contains("KNB002"), "{}", r.stdout);
    // Containers: an element of several words, a bare `-fa` last, and one
    // in a folded scalar before `-p`.
    let r = lint("fixtures/lint/arguments/llama/compose.yaml", LLAMA);
    assert_eq!(found(&r.stdout), want(&[(4, 41, "KNB001"), (4, 56, "KNB016"), (9, 7, "KNB017")]), "{}", r.stdout);
}

#[test]
fn a_switch_that_took_a_value_later_says_so() {
    // Two catalogues: b4100 (fixtures/llama.cpp) where `-fa` takes
    // on|off|auto, and a hand-written b3000 where it is a switch.
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("llama.cpp");
    std::fs::create_dir_all(&dir).expect("mkdir");
    for (from, to) in [
        ("fixtures/llama.cpp/catalog/llama.cpp/b4100.toml", "b4100.toml"),
        ("fixtures/lint/arguments/history/b3000.toml", "b3000.toml"),
    ] {
        std::fs::copy(support::root().join(from), dir.join(to)).expect("copy");
    }
    let catalogs = tmp.path().to_string_lossy().into_owned();
    let args = ["--engine", "llama.cpp", "--catalog-dir", catalogs.as_str(), "--format", "json"];
    let r = lint("fixtures/lint/arguments/history/serve.sh", &args);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["findings"].as_array().map(Vec::len), Some(1), "{}", r.stdout);
    assert_eq!(v["findings"][0]["code"], "KNB016");
    assert!(
        v["findings"][0]["help"].as_str().is_some_and(|h| h.contains(
            "in llama.cpp b4100 (`-fa [on|off|auto]`), and was a switch in llama.cpp b3000: give it a value"
        )),
        "{}",
        r.stdout
    );
    // Pinned to the old build, the bare switch is right.
    let old = ["--engine", "llama.cpp", "--catalog-dir", catalogs.as_str(), "--version", "b3000"];
    let r = lint("fixtures/lint/arguments/history/serve.sh", &old);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
}

#[test]
fn placeholders_and_option_lists_in_docs_are_not_values() {
    // Every placeholder shape and every documenting list item and table
    // cell of the runbook is silent; the four planted values at the end
    // are still judged (an invented member in a sentence's list item, a
    // bad value in a second code span, a capitalised member, a missing value).
    let r = lint("fixtures/lint/arguments/radiance/runbook.md", &[]);
    assert_eq!(
        found(&r.stdout),
        want(&[(28, 28, "KNB002"), (29, 43, "KNB003"), (32, 48, "KNB002"), (33, 28, "KNB016")]),
        "{}",
        r.stdout
    );
    // llama.cpp's: `<model.gguf>`, `<N>`, `(N)`, `PORT`, `n`, `<mode>`, and
    // `-ngl > 0` in prose, which a shell would read as redirections.
    let r = lint("fixtures/lint/arguments/llama/README.md", LLAMA);
    assert!(found(&r.stdout).iter().all(|(line, _, _)| *line < 12 || *line == 31), "{}", r.stdout);
}
