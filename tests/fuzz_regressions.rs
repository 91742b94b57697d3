//! Every input under `fuzz/regressions/<target>/` — each one a crash the
//! fuzzer (or a hostile user) once found — run through the same entry point
//! as its fuzz target (`fuzz/fuzz_targets/common.rs`, shared): none may
//! panic. Fuzzing itself is not part of the test suite (see
//! docs/reliability.md); its findings are.

#[path = "../fuzz/fuzz_targets/common.rs"]
mod common;

#[test]
fn every_regression_input_runs_through_its_target_without_a_panic() {
    let dir = crate::support::root().join("fuzz/regressions");
    let mut ran = 0;
    for target in std::fs::read_dir(&dir).expect("fuzz/regressions") {
        let target = target.expect("entry").path();
        let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let run = common::entry(&name).unwrap_or_else(|| panic!("fuzz/regressions/{name}: no such fuzz target"));
        for input in std::fs::read_dir(&target).expect("target folder") {
            let input = input.expect("entry").path();
            let data = std::fs::read(&input).expect("input");
            let caught = std::panic::catch_unwind(|| run(&data));
            assert!(caught.is_ok(), "{} panicked", input.display());
            ran += 1;
        }
    }
    // The first crash of issue 12 (100,000 quote markers, the human renderer) is there.
    assert!(ran >= 1, "no regression inputs under {}", dir.display());
}

#[test]
fn every_target_has_an_entry_point_that_lints_for_real() {
    // Every target name resolves and takes an ordinary input.
    for t in ["markdown", "env", "shell", "deploy", "human", "extract", "catalog"] {
        let run = common::entry(t).unwrap_or_else(|| panic!("{t}"));
        run(b"CHECKPOINT_POLICY=floor\n");
    }
    assert!(common::entry("nope").is_none());
    let report = common::lint_one("a.md", knobs::kinds::FileKind::Markdown, b"`--checkpoint-policy floor`\n");
    assert_eq!(report.findings().count(), 1);
}
