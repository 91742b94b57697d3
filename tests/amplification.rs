//! A catalogue folder in a pull request that costs memory or time out of
//! proportion to its size (issue 29): a history whose state names one
//! large record again and again, and a catalogue of 100,000 flags.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use crate::support;

const PIN: &[u8] = b"[pin]\nengine = \"radiance\"\n";

/// A history of one tag whose state names `record` `times` times, with a
/// record of 64 KiB of help text.
fn repeated_history(times: usize, record: usize) -> String {
    let mut flags = String::with_capacity(times * 8);
    for i in 0..times {
        if i > 0 {
            flags.push(',');
        }
        let _ = write!(flags, "{record},0,0");
    }
    let help = "x".repeat(64 * 1024);
    format!(
        r#"{{"schema":2,"engine":"radiance","repo":"https://example.com/r.git","knobs_version":"0.1.0","tags":[{{"tag":"v9.9.9","commit":"c","state":0}}],"states":[{{"key":"k","flags":"{flags}","metrics":""}}],"flags":[{{"name":"--big","metavar":"","kind":"string","default":"","help":"{help}","location":"core/config.cpp"}}],"metrics":[]}}"#
    )
}

/// A state naming its one record 200,000 times (a 1.4 MB file; a 710 KB one
/// took 8 GB), or naming a record that is not there: exit 2 at once,
/// naming the file and the state, within 1 GiB of address space.
#[test]
fn a_history_state_naming_a_record_twice_is_refused() {
    for (times, record, says) in [(200_000, 0, "names flag record 0 twice"), (1, 7, "names flag record 7, of 1")] {
        let t = support::tree(&[("run.md", b"Run `radiance --prot 1`.\n" as &[u8]), ("knobs.toml", PIN)]);
        let dir = t.path().join("catalog/radiance");
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("history.json"), repeated_history(times, record)).expect("write");
        let started = Instant::now();
        let r = support::knobs_bounded(t.path(), &["lint", "--tag", "v9.9.9"], 300);
        let took = started.elapsed();
        assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
        let err = r.stderr.replace('\n', " ");
        assert!(err.contains("history.json") && err.contains(says), "{}", r.stderr);
        assert!(took < Duration::from_secs(3), "took {took:?}");
    }
}

/// A catalogue of 25,000 flags in the project is refused, naming it.
#[test]
fn a_catalogue_far_larger_than_an_engines_is_refused() {
    let mut text = String::from(
        "schema = 1\n[source]\nengine = \"radiance\"\nrepo = \"r\"\ntag = \"v9.9.9\"\ncommit = \"c\"\nknobs_version = \"0.1.0\"\n",
    );
    for i in 0..25_000 {
        let _ = write!(text, "[[flag]]\nname = \"--flag-{i}\"\nkind = \"int\"\nlocation = \"core/config.cpp:{i}\"\n");
    }
    let t = support::tree(&[
        ("run.md", b"Run `radiance --prot 1`.\n" as &[u8]),
        ("catalog/radiance/v9.9.9.toml", text.as_bytes()),
        ("knobs.toml", PIN),
    ]);
    let r = support::knobs(t.path(), &["lint", "--tag", "v9.9.9"]);
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    let err = r.stderr.replace('\n', " ");
    assert!(err.contains("v9.9.9.toml") && err.contains("25000 flags"), "{}", r.stderr);
}

/// `(_ ((_)?)+)`, 16 bytes in `[[extract.query]]`, spun for ever inside
/// tree-sitter's query compiler before any file was read; now it is exit 2
/// naming the query's number in knobs.toml, and nothing is written.
#[test]
fn a_query_that_never_compiles_is_refused() {
    let tmp = tempfile::tempdir().expect("tempdir");
    support::radiance_repo(tmp.path());
    let toml = "[pin]\nengine = \"radiance\"\nrepo = \"fixtures/radiance.git\"\ntag = \"v1.8.1\"\n\
                [[extract.query]]\nflags = \"(call_expression) @flag\"\n\
                [[extract.query]]\nflags = \"(_ ((_)?)+) @flag\"\n";
    std::fs::write(tmp.path().join("knobs.toml"), toml).expect("write");
    let r = support::knobs_bounded(tmp.path(), &["sync", "--out", "out"], 60);
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(
        support::flat(&r.stderr).contains(
            "[[extract.query]] number 2 in knobs.toml repeats with `+` or `*` a group that may match nothing; nothing was written"
        ),
        "{}",
        r.stderr
    );
    assert!(support::files_under(&tmp.path().join("out")).is_empty());
}

/// A vLLM-shaped repository (tag `v1`) of `files` (path, text) at `dir/v.git`.
fn python_repo(dir: &std::path::Path, files: &[(&str, String)]) {
    let src = dir.join("src");
    for (path, text) in files {
        let p = src.join(path);
        std::fs::create_dir_all(p.parent().expect("folder")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    support::build_repo(&dir.join("v.git"), &[("v1", src)]);
}

const ENTRY: &str = "vllm/entrypoints/openai/cli_args.py";

/// A list doubled through names (`X1 = X0 + X0`, …) and named as an
/// option's choices: 11 names over 10,000 strings took 71 s and 1.9 GB.
/// Now a settled list keeps at most 10,000 elements and settling one value
/// a bounded number of steps: the choices are open (with the warning that
/// says so), the sync succeeds within 1 GiB and 60 s.
#[test]
fn a_list_doubled_through_names_is_not_built() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut consts = format!("X0 = [{}]\n", (0..10_000).map(|i| format!("'s{i}'")).collect::<Vec<_>>().join(", "));
    for i in 1..=11 {
        let _ = writeln!(consts, "X{i} = X{} + X{}", i - 1, i - 1);
    }
    let entry =
        "def make_arg_parser(parser):\n    parser.add_argument('--port', type=int, default=8000, help='Port.')\n    \
                 parser.add_argument('--pick', type=str, choices=X11, help='Pick.')\n    return parser\n";
    python_repo(tmp.path(), &[("vllm/consts.py", consts), (ENTRY, entry.to_string())]);
    let r = support::knobs_bounded(
        tmp.path(),
        &["sync", "--engine", "vllm", "--repo", "v.git", "--tag", "v1", "--out", "out"],
        60,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("vllm/entrypoints/openai/cli_args.py:3: the choices of --pick are computed at run time (open)"),
        "{}",
        r.stderr
    );
    let written = std::fs::read_to_string(tmp.path().join("out/vllm/v1.toml")).expect("written");
    assert!(written.contains("--pick") && written.len() < 10_000, "{} bytes", written.len());
}

/// A module of 400,001 tokens (`[0,0,0,…]`: parsing one of 4 MB took
/// 850 MB) is passed over before it is parsed, with a warning naming it;
/// the entry file is read.
#[test]
fn a_module_of_dense_literals_is_passed_over_by_name() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let entry =
        "def make_arg_parser(parser):\n    parser.add_argument('--port', type=int, default=8000)\n    return parser\n";
    let dense = format!("X = [{}]\n", "0,".repeat(200_000));
    python_repo(tmp.path(), &[("vllm/gen/dense.py", dense), (ENTRY, entry.to_string())]);
    let r = support::knobs_bounded(
        tmp.path(),
        &["sync", "--engine", "vllm", "--repo", "v.git", "--tag", "v1", "--out", "out"],
        60,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        support::flat(&r.stderr).contains(
            "warning: 1 Python file was passed over: each holds more than 400000 tokens, or their syntax trees would \
             pass the 8000000 nodes knobs keeps for one tag: vllm/gen/dense.py"
        ),
        "{}",
        r.stderr
    );
}

/// An entry function found but declaring nothing (`run-batch` here) lost
/// its scope with exit 0 and no word; now a warning names the scope, the
/// function and the file.
#[test]
fn a_scope_that_declares_nothing_is_named() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let entry =
        "def make_arg_parser(parser):\n    parser.add_argument('--port', type=int, default=8000)\n    return parser\n";
    let batch = "def make_arg_parser(parser):\n    return parser\n";
    python_repo(tmp.path(), &[(ENTRY, entry.to_string()), ("vllm/entrypoints/openai/run_batch.py", batch.to_string())]);
    let r = support::knobs_bounded(
        tmp.path(),
        &["sync", "--engine", "vllm", "--repo", "v.git", "--tag", "v1", "--out", "out"],
        60,
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.lines().any(|l| l
            == "warning: scope run-batch: make_arg_parser in vllm/entrypoints/openai/run_batch.py declares no option \
                at this tag; the scope has none in the catalogue"),
        "{}",
        r.stderr
    );
}
