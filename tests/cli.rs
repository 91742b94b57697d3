//! The command line's own texts: help for every command, and exit codes for
//! usage errors.

use crate::support::run_in;

/// The help of a command, after checking it is that command's: its usage
/// line names the command (so a snapshot cannot record another's help).
fn help(args: &[&str]) -> String {
    let tmp = tempfile::tempdir().expect("tempdir");
    let r = run_in(tmp.path(), args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let command: Vec<&str> = args.iter().copied().filter(|a| *a != "--help").collect();
    let usage = format!("Usage: knobs {}", command.join(" "));
    assert!(r.stdout.lines().any(|l| l.starts_with(usage.trim_end())), "{args:?}: no `{usage}` line\n{}", r.stdout);
    r.stdout
}

#[test]
fn help_texts() {
    // Issue 31: lint's help says that `--tag` wins over the files' pins.
    let lint = help(&["lint", "--help"]);
    assert!(lint.contains("Judge every file against this catalogued version, over any version a file pins"), "{lint}");
    insta::assert_snapshot!("knobs", help(&["--help"]));
    insta::assert_snapshot!("lint", help(&["lint", "--help"]));
    insta::assert_snapshot!("sync", help(&["sync", "--help"]));
    insta::assert_snapshot!("catalog_show", help(&["catalog", "show", "--help"]));
    insta::assert_snapshot!("catalog_diff", help(&["catalog", "diff", "--help"]));
    insta::assert_snapshot!("server", help(&["server", "--help"]));
}

#[test]
fn usage_errors_exit_2() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let r = run_in(tmp.path(), &["lint", "--format", "xml"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("invalid value 'xml' for '--format <FORMAT>'"), "{}", r.stderr);
    let r = run_in(tmp.path(), &["frobnicate"]);
    assert_eq!(r.code, 2);
}

#[test]
fn color_always_and_never() {
    let root = crate::support::root();
    let md = "fixtures/lint/rules/KNB001/bad.md";
    let always = run_in(&root, &["lint", "--color", "always", md]);
    assert!(always.stdout.contains("\u{1b}["), "--color always colours");
    let never = run_in(&root, &["--color", "never", "lint", md]);
    assert!(!never.stdout.contains("\u{1b}["), "--color never does not");
    // The built binary writing to a pipe is not a terminal: no colour.
    let piped = crate::support::knobs(&root, &["lint", md]);
    assert!(!piped.stdout.contains("\u{1b}["));
}

#[test]
fn explain_help() {
    insta::assert_snapshot!("explain", help(&["explain", "--help"]));
    insta::assert_snapshot!("catalog_check", help(&["catalog", "check", "--help"]));
}

#[test]
fn version_names_the_embedded_catalogues() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let r = run_in(tmp.path(), &["--version"]);
    assert_eq!(r.code, 0);
    assert_eq!(
        r.stdout,
        format!(
            "knobs {} (catalogues: radiance v1.0.13, v1.8.1; history: llama.cpp, facts only)\n",
            env!("CARGO_PKG_VERSION")
        )
    );
}

#[test]
fn completions_and_man_page() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for shell in ["bash", "zsh", "fish"] {
        let r = run_in(tmp.path(), &["completions", shell]);
        assert_eq!(r.code, 0, "{shell}");
        for word in ["lint", "explain", "staged", "changed-since"] {
            assert!(r.stdout.contains(word), "{shell} completion lacks {word}");
        }
    }
    let r = run_in(tmp.path(), &["man"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.starts_with(".ie") && r.stdout.contains(".TH knobs 1"), "{}", &r.stdout[..80.min(r.stdout.len())]);
    // A broken knobs.toml does not stop them.
    std::fs::write(tmp.path().join("knobs.toml"), "[pin\n").expect("write");
    assert_eq!(run_in(tmp.path(), &["completions", "fish"]).code, 0);
}

#[test]
fn quiet_and_verbose() {
    let clean = crate::support::fixtures().join("lint/clean");
    let r = run_in(&clean, &["lint", "-q"]);
    assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (0, "", ""));
    let r = run_in(&clean, &["lint", "-v"]);
    assert_eq!(
        r.stderr,
        "note: services/old-batch/image.env: judged against radiance v1.0.13\nnote: services/old-batch/knobs.env: judged against radiance v1.0.13\n"
    );
    let root = crate::support::root();
    // A file named on the command line that knobs cannot read is said to
    // be passed over, without -v too (issue 20: never a silent pass).
    for args in [&["lint", "Cargo.toml", "README.md"][..], &["lint", "-v", "Cargo.toml", "README.md"]] {
        let r = run_in(&root, args);
        assert!(
            r.stderr.contains("note: skipped Cargo.toml: named, but not a kind of file knobs reads"),
            "{}",
            r.stderr
        );
    }
}

/// `knobs lint | head -1`: the reader goes away; knobs exits quietly.
#[test]
fn a_broken_pipe_is_not_an_error() {
    use std::io::{BufRead, BufReader};
    let tmp = tempfile::tempdir().expect("tempdir");
    let many: String = (0..4000).map(|i| format!("L{i}=1\nCHECKPOINT_POLICY=floor\n")).collect();
    std::fs::write(tmp.path().join("big.env"), many).expect("write");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_knobs"))
        .args(["lint", "--format", "short"])
        .current_dir(tmp.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let stdout = child.stdout.take().expect("stdout");
    let mut first = String::new();
    BufReader::new(stdout).read_line(&mut first).expect("one line");
    // Dropping the reader closes the pipe.
    let out = child.wait_with_output().expect("wait");
    // Line 2's first finding: the key is set again below (KNB018, column 1).
    assert!(first.contains("KNB018"), "{first}");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn the_engine_option_names_every_built_in_profile() {
    let t = crate::support::tree(&[]);
    let r = crate::support::run_in(t.path(), &["lint", "--help"]);
    let help = crate::support::flat(&r.stdout);
    for p in knobs::catalog::profile::builtins() {
        assert!(help.contains(&p.name), "`{}` is not named in --engine's help: {help}", p.name);
    }
}
