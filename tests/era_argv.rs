//! Each era of llama.cpp read as that era's source reads its argv (issue
//! 31): the scope a binary passed to the option table then, a binary with
//! a parser of its own, the kinds a parse chain gives (a branch that reads
//! no word is a switch; one that does is no switch, whatever its field),
//! and the member sets of if-chains ending in `invalid_param = true`, the
//! old server's own parser included. Every case is a fixture history in
//! that era's shape (knobs' own C++), synced at test time and linted with
//! the built-in profile's eras.

use std::path::Path;

use knobs::catalog::model::{Catalog, Kind};

use crate::support::{self, knobs};

/// The fixture history: b2400 (the server's own parser, no `_` read as
/// `-`), b3000 (the server's own parser), b3500 (the common parse chain),
/// b5000 (the table, llama-cli passing LLAMA_EXAMPLE_MAIN, tokenize with
/// its own parser, a switch's env taking `1` and `true`), b7400 (llama-cli
/// passing LLAMA_EXAMPLE_CLI, `is_truthy`, an option removed for two).
fn history(dir: &Path) {
    let f = support::fixtures().join("llama.cpp");
    support::build_repo(
        &dir.join("llama.git"),
        &[
            ("b2400", f.join("b2400")),
            ("b3000", f.join("b3000")),
            ("b3500", f.join("b3500")),
            ("b5000", f.join("scopes/b5000")),
            ("b7400", f.join("scopes/b7400")),
        ],
    );
    let r = knobs(dir, &["sync", "--engine", "llama.cpp", "--repo", "llama.git", "--all-tags", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

fn catalog(dir: &Path, tag: &str) -> Catalog {
    let r = knobs(dir, &["catalog", "show", tag, "--engine", "llama.cpp", "--catalog-dir", "out", "--format", "toml"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    knobs::catalog::store::parse(Path::new("shown.toml"), &r.stdout).expect("a catalogue")
}

/// `knobs lint` of one script at `tag`: the exit code and each finding as
/// `CODE line:column`.
fn lint(dir: &Path, tag: &str, script: &str) -> (i32, Vec<String>) {
    lint_file(dir, "out", tag, "run.sh", script)
}

/// The same for a file of any name, against the catalogues in `catalogs`.
fn lint_file(dir: &Path, catalogs: &str, tag: &str, name: &str, text: &str) -> (i32, Vec<String>) {
    std::fs::write(dir.join(name), text).expect("file");
    let r = knobs(
        dir,
        &["lint", "--engine", "llama.cpp", "--catalog-dir", catalogs, "--tag", tag, "--format", "short", name],
    );
    let found = (r.stdout.lines())
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let at = w.next()?.strip_prefix(name)?.trim_start_matches(':').trim_end_matches(':').to_string();
            Some(format!("{} {at}", w.next()?))
        })
        .collect();
    (r.code, found)
}

/// The first finding's message and help, linted as JSON.
fn said(dir: &Path, catalogs: &str, tag: &str, name: &str, text: &str) -> (String, String) {
    std::fs::write(dir.join(name), text).expect("file");
    let r = knobs(
        dir,
        &["lint", "--engine", "llama.cpp", "--catalog-dir", catalogs, "--tag", tag, "--format", "json", name],
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    let f = |k: &str| v["findings"][0][k].as_str().unwrap_or("").to_string();
    (f("message"), f("help"))
}

/// From b3687 to b7355 llama-cli passed LLAMA_EXAMPLE_MAIN (the profile's
/// era, from `gpt_params_parser_init(params, LLAMA_EXAMPLE_MAIN, …)` in
/// examples/main/main.cpp); from b7356 LLAMA_EXAMPLE_CLI, its old program
/// being llama-completion. Each build's llama-cli is judged by its own.
#[test]
fn llama_cli_is_judged_by_the_scope_it_passed_in_its_era() {
    let tmp = tempfile::tempdir().expect("tempdir");
    history(tmp.path());
    let line = "llama-cli -m m.gguf -cnv -i --color\n";
    assert_eq!(lint(tmp.path(), "b5000", line), (0, vec![]), "MAIN's options are llama-cli's at b5000");
    assert_eq!(
        lint(tmp.path(), "b5000", "llama-server -m m.gguf -cnv\n"),
        (1, vec!["KNB010 1:24".to_string()]),
        "and not the server's"
    );
    // b7400: -cnv and -i are llama-completion's; --color is both.
    assert_eq!(lint(tmp.path(), "b7400", line), (1, vec!["KNB010 1:21".to_string(), "KNB010 1:26".to_string()]));
    assert_eq!(lint(tmp.path(), "b7400", "llama-completion -m m.gguf -cnv -i --color\n"), (0, vec![]));
}

/// llama-tokenize compared its own `argv[i]` until b10015: its options
/// (`--ids`, `--show-count`) are no option of the table, and it is not
/// judged against it.
#[test]
fn a_binary_with_its_own_parser_in_its_era_is_not_judged_by_the_table() {
    let tmp = tempfile::tempdir().expect("tempdir");
    history(tmp.path());
    assert_eq!(lint(tmp.path(), "b5000", "llama-tokenize -m m.gguf -p hi --ids --show-count\n"), (0, vec![]));
}

/// Before the renames (b3183), `./main` ran the common chain only: the
/// server's own options are not its; `./server` parsed them.
#[test]
fn the_old_main_does_not_take_the_old_server_s_options() {
    let tmp = tempfile::tempdir().expect("tempdir");
    history(tmp.path());
    assert_eq!(lint(tmp.path(), "b3000", "./main -m m.gguf --port 8080\n"), (1, vec!["KNB010 1:18".to_string()]));
    assert_eq!(lint(tmp.path(), "b3000", "./server -m m.gguf --port 8080\n"), (0, vec![]));
}

/// b3500's chain (fixtures/llama.cpp/b3500/common/common.cpp): `-v` sets
/// `params.verbosity = 1` and reads no word (a switch, though the field is
/// an int); `--log-format` advances the index and compares `argv[i]` with
/// `json` and `text` before `invalid_param = true` (it takes a value,
/// though the field it sets is a bool); `--split-mode` and `--pooling`
/// compare a local copy the same way.
#[test]
fn the_chain_era_s_kinds_and_members_are_its_parser_s() {
    let tmp = tempfile::tempdir().expect("tempdir");
    history(tmp.path());
    let c = catalog(tmp.path(), "b3500");
    let flag = |n: &str| c.flags.iter().find(|f| f.name == n).unwrap_or_else(|| panic!("{n}"));
    assert_eq!(flag("--verbose").kind, Kind::Switch);
    assert_eq!(flag("--verbose").aliases, ["-v"]);
    let closed = |n: &str| {
        let f = flag(n);
        (f.kind, f.members.clone(), f.members_from.as_ref().is_some_and(|m| m.closed))
    };
    let set = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(closed("--log-format"), (Kind::Enum, set(&["json", "text"]), true));
    assert_eq!(closed("--split-mode"), (Kind::Enum, set(&["none", "layer", "row"]), true));
    assert_eq!(closed("--pooling"), (Kind::Enum, set(&["none", "mean", "cls"]), true));
    assert_eq!(lint(tmp.path(), "b3500", "llama-server --log-format json -v --port 8080\n"), (0, vec![]));
    let (code, found) = lint(tmp.path(), "b3500", "llama-server --split-mode rows --pooling avg --log-format yaml\n");
    assert_eq!((code, found.len()), (1, 3), "{found:?}");
}

/// The old server's own parser (fixtures/llama.cpp/b3000, examples/server/
/// server.cpp) compares `strcmp(argv[i], "json")` and `"text"` and sets
/// `invalid_param` otherwise: its `--log-format` is a closed set, the
/// server's.
#[test]
fn the_old_server_s_own_if_chains_give_members() {
    let tmp = tempfile::tempdir().expect("tempdir");
    history(tmp.path());
    let c = catalog(tmp.path(), "b3000");
    let f = c.flags.iter().find(|f| f.name == "--log-format").expect("--log-format");
    assert_eq!((f.kind, f.members.clone()), (Kind::Enum, vec!["json".to_string(), "text".to_string()]));
    assert_eq!(f.scopes, ["LLAMA_EXAMPLE_SERVER"]);
    assert_eq!(lint(tmp.path(), "b3000", "./server --log-format yaml\n"), (1, vec!["KNB002 1:23".to_string()]));
}

/// A handler that compares a local copy of its value (`std::string
/// arg_next = value;` in fixtures/llama.cpp/scopes/b5000's `--split-mode`,
/// the shape of the table's handler from b3716 on) gives the copy's words.
#[test]
fn a_handler_s_chain_over_a_copy_of_its_value_gives_members() {
    let tmp = tempfile::tempdir().expect("tempdir");
    history(tmp.path());
    let c = catalog(tmp.path(), "b5000");
    let f = c.flags.iter().find(|f| f.name == "--split-mode").expect("--split-mode");
    let members: Vec<String> = ["none", "layer", "row"].map(String::from).to_vec();
    assert_eq!(
        (f.kind, f.members.clone(), f.members_from.as_ref().map(|m| m.closed)),
        (Kind::Enum, members, Some(true))
    );
    assert_eq!(lint(tmp.path(), "b5000", "llama-server -m m.gguf -sm rows\n"), (1, vec!["KNB002 1:28".to_string()]));
}

/// The env value of a switch, as each era's parser reads it: from b3687 a
/// switch's handler runs only when `value == "1" || value == "true"`
/// (common/arg.cpp's env loop); from b7376 when `is_truthy(value)` (`on`,
/// `enabled`, `true`, `1`). Any other word is ignored and the switch stays
/// off; the words are the profile's era data.
#[test]
fn a_switch_s_env_value_its_build_ignores_is_reported() {
    let tmp = tempfile::tempdir().expect("tempdir");
    history(tmp.path());
    let env = |v: &str| format!("LLAMA_ARG_MODEL=m.gguf\nLLAMA_ARG_MLOCK={v}\n");
    let lint = |tag: &str, v: &str| lint_file(tmp.path(), "out", tag, "llama.env", &env(v));
    let ignored = (1, vec!["KNB003 2:17".to_string()]);
    for (tag, value, want) in [
        ("b5000", "yes", ignored.clone()),
        ("b5000", "on", ignored.clone()),
        ("b5000", "TRUE", ignored.clone()),
        ("b5000", "1", (0, vec![])),
        ("b5000", "true", (0, vec![])),
        ("b5000", "0", (0, vec![])),
        ("b7400", "yes", ignored.clone()),
        ("b7400", "on", (0, vec![])),
        ("b7400", "enabled", (0, vec![])),
        ("b7400", "off", (0, vec![])),
    ] {
        assert_eq!(lint(tag, value), want, "{tag} {value}");
    }
    assert_eq!(
        said(tmp.path(), "out", "b5000", "llama.env", &env("yes")),
        (
            "`LLAMA_ARG_MLOCK=yes` is ignored by llama.cpp b5000: `--mlock` stays off".to_string(),
            "`LLAMA_ARG_MLOCK` turns `--mlock` on only with `1`, `true`; `0`, `false` leave it off".to_string()
        )
    );
}

/// The old server (before b3183) parsed its own argv: it inherits none of
/// the common chain's options (`--color`), and it compared `--batch_size`
/// as written, where `gpt_params_parse` read `_` as `-` first
/// (fixtures/llama.cpp/b2400). Its own chain names `--ctx_size`.
#[test]
fn the_old_server_s_own_parser_takes_only_its_options_as_written() {
    let tmp = tempfile::tempdir().expect("tempdir");
    history(tmp.path());
    assert_eq!(lint(tmp.path(), "b2400", "./server -m m.gguf --ctx_size 4096 -b 512 --port 8080\n"), (0, vec![]));
    assert_eq!(
        lint(tmp.path(), "b2400", "./server -m m.gguf --batch_size 512\n"),
        (1, vec!["KNB001 1:20".to_string()])
    );
    assert_eq!(lint(tmp.path(), "b2400", "./server -m m.gguf --color\n"), (1, vec!["KNB010 1:20".to_string()]));
    assert_eq!(lint(tmp.path(), "b2400", "./main -m m.gguf --batch_size 512 --color -n 64\n"), (0, vec![]));
}

/// b7400's `--draft` always throws `the argument has been removed. use
/// --draft-max or --draft-min`: a history of facts only drops the sentence
/// but keeps the two successors it names.
#[test]
fn a_removed_flag_s_successors_survive_a_history_of_facts_only() {
    let tmp = tempfile::tempdir().expect("tempdir");
    history(tmp.path());
    let args = ["sync", "--engine", "llama.cpp", "--repo", "llama.git", "--all-tags", "--facts-only", "--out", "facts"];
    let r = knobs(tmp.path(), &args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let line = "llama-server -m m.gguf --draft 8\n";
    assert_eq!(lint_file(tmp.path(), "facts", "b7400", "run.sh", line), (1, vec!["KNB007 1:24".to_string()]));
    let (message, help) = said(tmp.path(), "facts", "b7400", "run.sh", line);
    assert_eq!(message, "`--draft` was removed from llama.cpp b7400: it is refused at start-up");
    assert_eq!(
        help,
        "the build names `--draft-max` or `--draft-min` in its place; its message is not in a history of facts \
         only (`knobs sync --tag TAG` reads it)"
    );
    // With the source's sentence, the sentence.
    let (_, help) = said(tmp.path(), "out", "b7400", "run.sh", line);
    assert_eq!(help, "the source says: the argument has been removed. use --draft-max or --draft-min");
}

/// radiance v1.0.13's `--model` took `-m` (fixtures/radiance/v1.0.13/core/
/// config.cpp compares `arg == "-m" || arg == "--model"`); v1.8.1's takes
/// `--model` only. The alias that left is said to have been `--model`'s.
#[test]
fn an_alias_that_left_is_said_to_have_been_its_flag_s() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("serve.sh"), "radiance -m /models/x --port 8080\n").expect("serve.sh");
    let r = knobs(tmp.path(), &["lint", "--version", "v1.8.1", "--format", "json", "serve.sh"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["findings"].as_array().map(Vec::len), Some(1), "{}", r.stdout);
    assert_eq!(v["findings"][0]["code"], "KNB007");
    assert_eq!(v["findings"][0]["message"], "`-m` is not a flag of radiance v1.8.1");
    assert_eq!(v["findings"][0]["help"], "it was `--model`'s alias in radiance v1.0.13; write `--model`");
}

/// A handler that passes its value on with the option's own name
/// (`log_param_pair_parse(false, "--log-file", value)`, the table's
/// `--log-file` at b3687–b3720) takes a word: the call inside it declares
/// nothing, and its `false` is no default.
#[test]
fn a_call_inside_a_handler_declares_no_option() {
    let tmp = tempfile::tempdir().expect("tempdir");
    history(tmp.path());
    let c = catalog(tmp.path(), "b5000");
    let f = c.flags.iter().find(|f| f.name == "--log-file").expect("--log-file");
    assert_eq!((f.kind, f.metavar.as_str(), f.default.as_str()), (Kind::String, "FNAME", ""));
    assert_eq!(lint(tmp.path(), "b5000", "llama-server -m m.gguf --log-file /var/log/llama\n"), (0, vec![]));
}
