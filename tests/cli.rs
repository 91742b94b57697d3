//! The command line's own texts: help for every command, and exit codes for
//! usage errors.

use crate::support::run_in;

fn help(args: &[&str]) -> String {
    let tmp = tempfile::tempdir().expect("tempdir");
    let r = run_in(tmp.path(), args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.stdout
}

#[test]
fn help_texts() {
    insta::assert_snapshot!("knobs", help(&["--help"]));
    insta::assert_snapshot!("lint", help(&["lint", "--help"]));
    insta::assert_snapshot!("sync", help(&["sync", "--help"]));
    insta::assert_snapshot!("catalog_show", help(&["catalog", "show", "--help"]));
    insta::assert_snapshot!("catalog_diff", help(&["catalog", "diff", "--help"]));
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
