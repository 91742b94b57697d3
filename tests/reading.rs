//! How a knob is read where it is written: values that look like
//! placeholders, prompts, env lines, patterns and wrappers in a runbook's
//! shell blocks, and env files as people write them (byte-order mark, CRLF,
//! `export`, quotes, comments).

use crate::support::{run_in, short, tree};

#[test]
fn capitalised_values_are_values_not_placeholders() {
    let t = tree(&[
        ("run.md", b"```sh\nradiance --checkpoint-policy FLOOR --log-level ERROR --max-num-seqs N\n```\n"),
        ("svc/knobs.env", b"CHECKPOINT_POLICY=FLOOR\n"),
    ]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(
        short(&r.stdout),
        [
            "run.md:2:30: KNB002 `FLOOR` is not a member of `--checkpoint-policy`",
            "run.md:2:48: KNB002 `ERROR` is not a member of `--log-level`",
            "svc/knobs.env:1:19: KNB002 `FLOOR` is not a member of `CHECKPOINT_POLICY` (`--checkpoint-policy`)",
        ]
    );
}

#[test]
fn prompts_env_lines_patterns_and_wrappers_in_shell_blocks() {
    let md = b"```bash\n$ radiance --checkpoint-policy floor\nradiance: booted\n```\n\n```sh\nCHECKPOINT_POLICY=floor\nsudo -u radiance journalctl --since 1h\n```\n\n```promql\nsum(rate({__name__=~\"radiance:engine_steps_.*\"}[5m]))\n```\n\nWatch `radiance:engine_steps_*` and `grep -E '^radiance:engine_steps_(held|decode)_total'`; not `radiance:engine_stepz_*`.\n\nThe chunk was `--prefill-chunks 512` then.\n";
    let t = tree(&[("run.md", md)]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(
        short(&r.stdout),
        [
            "run.md:2:32: KNB002 `floor` is not a member of `--checkpoint-policy`",
            "run.md:7:19: KNB002 `floor` is not a member of `CHECKPOINT_POLICY` (`--checkpoint-policy`)",
            "run.md:15:98: KNB004 `radiance:engine_stepz_*` matches no metric radiance v1.8.1 exports",
            "run.md:17:16: KNB001 `--prefill-chunks` is not a flag of radiance v1.8.1",
        ],
        "{}",
        r.stderr
    );
}

#[test]
fn env_files_tolerate_bom_crlf_export_and_quotes() {
    let t = tree(&[(
        "svc/knobs.env",
        "\u{feff}export CHECKPOINT_POLICY='tip-only'\r\nBUSY_PREFILL_CHUNK=\"automatic\" # comment\r\n".as_bytes(),
    )]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(short(&r.stdout), ["svc/knobs.env:2:21: KNB003 `automatic` is not a valid value for `BUSY_PREFILL_CHUNK` (`--busy-prefill-chunk`)"]);
}
