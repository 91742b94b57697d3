//! The rule fixtures, `fixtures/lint/rules/<CODE>/bad.*` and `good.*`,
//! linted from the crate root so findings name them by their path there.

use super::{fixtures, root, run_in, Output};

/// Runs knobs in-process at the crate root.
pub fn lint(args: &[&str]) -> Output {
    run_in(&root(), args)
}

/// `fixtures/lint/rules/<code>/<which>.*`, relative to the crate root.
pub fn fixture(code: &str, which: &str) -> String {
    let dir = fixtures().join("lint/rules").join(code);
    let name = std::fs::read_dir(&dir)
        .expect("rule fixture folder")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with(&format!("{which}.")))
        .unwrap_or_else(|| panic!("{code}: no {which}.* fixture"));
    format!("fixtures/lint/rules/{code}/{name}")
}

/// Extra arguments a rule's fixtures need (`args`, one per line), e.g. an
/// engine other than the default and the catalogue folder for it.
pub fn fixture_args(code: &str) -> Vec<String> {
    let path = fixtures().join("lint/rules").join(code).join("args");
    std::fs::read_to_string(path).map(|t| t.lines().map(str::to_string).collect()).unwrap_or_default()
}

/// One rule fixture linted in the short format, with its extra arguments.
pub fn lint_fixture(code: &str, which: &str) -> Output {
    let extra = fixture_args(code);
    let file = fixture(code, which);
    let mut args = vec!["lint", "--format", "short"];
    args.extend(extra.iter().map(String::as_str));
    args.push(&file);
    lint(&args)
}
