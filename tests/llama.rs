//! llama.cpp as the second engine: its argv rules on a fixture written in
//! its idiom (`fixtures/lint/llama.cpp`, judged against the catalogue of
//! `fixtures/llama.cpp/b4100`). Each planted defect and each trap is listed
//! here by hand, from the facts of the idiom: an option taking a value
//! consumes the next word even when it starts with `-`; options are scoped
//! to binaries; tri-state words; comma lists only where the option splits
//! its value; no `=` form; `_` reads as `-`; no positional arguments (a
//! usage synopsis is not a command); negated env keys; removed options;
//! binaries with their own parsers and image variants.

use crate::support::{self, run_in};

const ARGS: &[&str] = &["--engine", "llama.cpp", "--catalog-dir", "fixtures/llama.cpp/catalog", "--format", "short"];

fn lint(path: &str) -> crate::support::Output {
    let mut args = vec!["lint", path];
    args.extend_from_slice(ARGS);
    run_in(&support::root(), &args)
}

/// (file, line, rule) of every finding, in order.
use crate::support::text::file_line_code as found;

#[test]
fn planted_defects_are_found_and_traps_are_not() {
    let r = lint("fixtures/lint/llama.cpp");
    assert_eq!(r.code, 1, "{}", r.stderr);
    let md = "fixtures/lint/llama.cpp/docs/serve.md";
    let env = "fixtures/lint/llama.cpp/svc/server.env";
    let want: Vec<(String, usize, String)> = [
        (md, 8, "KNB017"),  // -fa takes a value: it consumes -ngl (issue 20: said so, not "not a member")
        (md, 9, "KNB010"),  // --host is the server's, not llama-cli's
        (md, 11, "KNB002"), // `yes` is not one of the tri-state words
        (md, 13, "KNB002"), // -sm does not split its value: `layer,row` is one word
        (md, 14, "KNB007"), // --draft still parses but always throws
        (md, 15, "KNB001"), // no `--opt=value` form
        (md, 19, "KNB010"), // `llama cli` is llama-cli
        (md, 21, "KNB001"), // an unknown single-dash option (its value is not a second finding)
        (md, 22, "KNB011"), // --lora-range takes two values: `3` is refused
        (md, 34, "KNB010"), // the light image runs llama-cli
        (md, 37, "KNB004"), // a metric the server does not print
        (env, 3, "KNB003"), // a negatable option's env value must be a boolean word
        (env, 4, "KNB002"),
        (env, 5, "KNB006"), // one letter from LLAMA_ARG_CTX_SIZE
        (env, 6, "KNB007"), // the removed option's env key throws too
    ]
    .iter()
    .map(|(f, l, c)| (f.to_string(), *l, c.to_string()))
    .collect();
    assert_eq!(found(&r.stdout), want, "{}", r.stdout);
}

#[test]
fn messages_say_why() {
    let r = lint("fixtures/lint/llama.cpp/docs/serve.md");
    let human = {
        let mut args = vec!["lint", "fixtures/lint/llama.cpp/docs/serve.md", "--engine", "llama.cpp"];
        args.extend_from_slice(&["--catalog-dir", "fixtures/llama.cpp/catalog", "--format", "json"]);
        run_in(&support::root(), &args)
    };
    let v: serde_json::Value = serde_json::from_str(&human.stdout).expect("json");
    let first = &v["findings"][0];
    // Issue 20: what happened, not "`-ngl` is not a member of `-fa`".
    assert_eq!(first["message"], "`-fa` takes a value and would swallow `-ngl`");
    assert!(
        first["help"].as_str().is_some_and(|h| h.starts_with(
            "`-ngl` (`--gpu-layers`) is read as its value and never set; `-fa` takes one of `on`, `true`, `1`, `off`, `false`, `0`, `auto`, `-1` in llama.cpp b4100 (`-fa [on|off|auto]`)"
        )),
        "{first}"
    );
    assert!(r.stdout.contains("`--host` is not an option of llama-cli in llama.cpp b4100"), "{}", r.stdout);
    assert!(r.stdout.contains("`--ctx-size=…` is not a flag of llama.cpp b4100: it takes no `=` form"), "{}", r.stdout);
}

/// The same files, judged as radiance's, are not llama.cpp's argv: nothing
/// in them runs radiance.
#[test]
fn another_engine_leaves_them_alone() {
    let r = run_in(&support::root(), &["lint", "fixtures/lint/llama.cpp/docs/serve.md", "--format", "short"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
}
