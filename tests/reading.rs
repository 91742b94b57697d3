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

/// `${X:+words}` puts its words in the argv whenever `X` is set: each is
/// judged where it stands in the line (a serve script, a runbook block, a
/// Dockerfile's shell form). A double-quoted one without white space is one
/// word; `${X:-default}` is a value judged by its default, as before.
#[test]
fn the_words_of_an_alternate_expansion_are_judged() {
    let script = b"#!/bin/sh\nexec radiance --port 8080 \\\n  ${POLICY:+--checkpoint-policy floor} \\\n  ${CHUNK:+--prefill-chunks \"$CHUNK\"} \\\n  ${OK:+--log-level info} \\\n  --max-num-seqs \"${SEQS:-many}\" \\\n  \"${SLOTS:+--checkpoint-slotz}\"\n";
    let md = b"```sh\nradiance ${A+--kv-cache-gib lots} ${B:+--port 1}\n```\n";
    let docker = b"FROM ghcr.io/example/radiance:1.8.1\nCMD radiance --port 1 ${SPAN:+--prefill-spam 4}\n";
    let t = tree(&[("svc/serve.sh", script), ("run.md", md), ("img/Dockerfile", docker)]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(
        short(&r.stdout),
        [
            "img/Dockerfile:2:31: KNB001 `--prefill-spam` is not a flag of radiance v1.8.1",
            "run.md:2:29: KNB003 `lots` is not a valid value for `--kv-cache-gib`",
            "svc/serve.sh:3:33: KNB002 `floor` is not a member of `--checkpoint-policy`",
            "svc/serve.sh:4:12: KNB001 `--prefill-chunks` is not a flag of radiance v1.8.1",
            "svc/serve.sh:6:18: KNB003 `many` is not a valid value for `--max-num-seqs`",
            "svc/serve.sh:7:13: KNB001 `--checkpoint-slotz` is not a flag of radiance v1.8.1",
        ],
        "{}",
        r.stderr
    );
}

/// A `\` with a space after it ends the command line where it stands: the
/// options on the lines below never reach the engine (KNB022 names that
/// line), and the comment's words are not read as arguments. A `\ ` inside
/// a word (`a\ b`, a path with a space) or before more words is no
/// continuation, and a last `\ ` with nothing below gives a lone space.
#[test]
fn a_backslash_before_a_space_or_a_comment_ends_the_command() {
    let md = b"```sh\nradiance --port 8080 \\ # the public port\n  --max-num-seqs 4\n```\n\n```sh\nradiance --model /m/a\\ b --port 1 \\ \n\n  --kv-cache-gib lots\n```\n\n```sh\nradiance --port 2 \\\t\n```\n";
    let t = tree(&[("run.md", md)]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(
        short(&r.stdout),
        [
            "run.md:2:22: KNB022 this `\\` escapes the space after it, not the line end: the command ends here, and line 3 runs as a command of its own",
            "run.md:7:35: KNB022 this `\\` escapes the space after it, not the line end: the command ends here, and line 9 runs as a command of its own",
            "run.md:13:19: KNB022 this `\\` escapes the space after it: the engine is given a lone space as an argument",
        ],
        "{}",
        r.stderr
    );
}
