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

/// The fixture history: b3000 (the server's own parser), b3500 (the common
/// parse chain), b5000 (the table, llama-cli passing LLAMA_EXAMPLE_MAIN,
/// tokenize with its own parser), b7400 (llama-cli passing LLAMA_EXAMPLE_CLI).
fn history(dir: &Path) {
    let f = support::fixtures().join("llama.cpp");
    support::build_repo(
        &dir.join("llama.git"),
        &[
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
    std::fs::write(dir.join("run.sh"), script).expect("run.sh");
    let r = knobs(
        dir,
        &["lint", "--engine", "llama.cpp", "--catalog-dir", "out", "--tag", tag, "--format", "short", "run.sh"],
    );
    let found = (r.stdout.lines())
        .filter_map(|l| {
            let mut w = l.split_whitespace();
            let at = w.next()?.strip_prefix("run.sh:")?.trim_end_matches(':').to_string();
            Some(format!("{} {at}", w.next()?))
        })
        .collect();
    (r.code, found)
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
