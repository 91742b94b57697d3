//! The realistic clean tree, `fixtures/lint/clean`: false alarms (it must
//! lint clean; the shared corpus is linted by scripts/corpus.sh, outside this
//! suite) and misses (a mutation test plants invented names and values and
//! checks each is caught on its line).

use std::path::Path;

use crate::support::{self, run_in, short};

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).into_iter().filter_map(Result::ok) {
        let rel = entry.path().strip_prefix(from).expect("inside");
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &dest).expect("copy");
        }
    }
}

#[test]
fn realistic_tree_lints_clean() {
    let r = run_in(&support::fixtures().join("lint/clean"), &["lint"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    // services/old-batch pins radiance 1.0.13 in its image.env: its two files
    // are judged against that build.
    assert_eq!(r.stdout, "No findings in 8 files (against radiance v1.8.1; 2 files against v1.0.13).\n");
    assert_eq!(r.stderr, "");
}

/// (file, text to find, replacement, expected rule code)
const MUTATIONS: &[(&str, &str, &str, &str)] = &[
    (
        "runbooks/arm-decoder-dial.md",
        "--checkpoint-policy geometric-backoff --check",
        "--checkpoint-policy floor --check",
        "KNB002",
    ),
    ("runbooks/arm-decoder-dial.md", "--busy-prefill-chunk auto \\", "--busy-prefill-chunk automatic \\", "KNB003"),
    (
        "runbooks/arm-decoder-dial.md",
        "--max-num-seqs 2 --max-num-batched",
        "--max-num-seq 2 --max-num-batched",
        "KNB001",
    ),
    (
        "runbooks/arm-decoder-dial.md",
        "increase(radiance:engine_steps_held_total",
        "increase(radiance:engine_steps_hold_total",
        "KNB004",
    ),
    ("runbooks/arm-decoder-dial.md", "rate(vllm:time_to_first", "rate(radiance:time_to_first", "KNB005"),
    (
        "runbooks/arm-decoder-dial.md",
        "`vllm:num_preemptions_total` (the counter)",
        "`radiance:num_preemptions_total` (the counter)",
        "KNB005",
    ),
    ("runbooks/arm-decoder-dial.md", "`--checkpoint-slots 20 [auto]", "`--checkpoint-slots twenty [auto]", "KNB003"),
    // The dashboard: a name written with `_` for `:`, a label the series lacks.
    (
        "dashboards/radiance-cadence.json",
        "rate(radiance:engine_steps_decode_total",
        "rate(radiance_engine_steps_decode_total",
        "KNB005",
    ),
    ("dashboards/radiance-cadence.json", "sum by (reason) (rate(", "sum by (cause) (rate(", "KNB015"),
    (
        "dashboards/radiance-cadence.json",
        "label_values(radiance:engine_steps_total,",
        "label_values(radiance:engine_step_total,",
        "KNB004",
    ),
    ("runbooks/arm-decoder-dial.md", "--checkpoint-interval 2048\n```", "--prefill-chunk 2048\n```", "KNB007"),
    (
        "runbooks/arm-decoder-dial.md",
        "Set `FRANK_ARCHON_PREFILL_INTERLEAVE=0`",
        "Set `FRANK_ARCHON_PREFILL_INTERLEAVE=off`",
        "KNB003",
    ),
    (
        "runbooks/arm-decoder-dial.md",
        "radiance:engine_step_seconds_decode_total /",
        "radiance:engine_step_seconds_decoded_total /",
        "KNB004",
    ),
    (
        "runbooks/arm-decoder-dial.md",
        "Edit the trio (`FRANK_ARCHON_PREFILL_INTERLEAVE=0→1`)",
        "Edit the trio (`FRANK_ARCHON_PREFILL_INTERLEAVE=0→one`)",
        "KNB003",
    ),
    ("services/frank-archon/knobs.env", "CHECKPOINT_POLICY=geometric-backoff", "CHECKPOINT_POLICY=floor", "KNB002"),
    ("services/frank-archon/knobs.env", "BUSY_PREFILL_CHUNK=auto", "BUSY_PREFILL_CHUNK=automatic", "KNB003"),
    ("services/frank-archon/knobs.env", "CHECKPOINT_POLICY=", "CHECKPOINT_POLICE=", "KNB006"),
    ("services/frank-archon/knobs.env", "MAX_SEQS=2", "MAX_SEQS=two", "KNB003"),
    ("services/frank-archon/serve-radiance.sh", "--stats-port 7770", "--stats-prot 7770", "KNB001"),
    ("services/frank-archon/serve-radiance.sh", "${CHECKPOINT_INTERVAL:-2048}", "${CHECKPOINT_INTERVAL:-2k}", "KNB003"),
    (
        "services/frank-archon/serve-radiance.sh",
        "args+=(--prefill-interleave ",
        "args+=(--prefill-interleaved ",
        "KNB001",
    ),
    ("services/old-batch/knobs.env", "CHECKPOINT_POLICY=tip-only", "CHECKPOINT_POLICY=keep-all", "KNB002"),
    ("services/old-batch/knobs.env", "SWAP_SPACE=4", "SWAP_SPACE=four", "KNB003"),
];

#[test]
fn every_planted_mistake_is_caught_on_its_line() {
    let clean = support::fixtures().join("lint/clean");
    for (file, find, replace, code) in MUTATIONS {
        let tmp = tempfile::tempdir().expect("tempdir");
        copy_tree(&clean, tmp.path());
        let path = tmp.path().join(file);
        let text = std::fs::read_to_string(&path).expect("fixture");
        let at = text.find(find).unwrap_or_else(|| panic!("{file}: `{find}` not found"));
        let line =
            text[..at].matches('\n').count() + 1 + find[..find.find(|c| c != '\n').unwrap_or(0)].matches('\n').count();
        std::fs::write(&path, text.replacen(find, replace, 1)).expect("mutate");
        let r = run_in(tmp.path(), &["lint", "--format", "short"]);
        let findings = short(&r.stdout);
        assert_eq!(r.code, 1, "{file}: `{replace}` was not caught\n{}", r.stderr);
        assert_eq!(findings.len(), 1, "{file}: `{replace}` should give one finding: {findings:#?}");
        let prefix = format!("{file}:{line}:");
        assert!(
            findings[0].starts_with(&prefix) && findings[0].contains(&format!(" {code} ")),
            "{file}: `{replace}` expected {code} at line {line}, got {}",
            findings[0]
        );
    }
}
