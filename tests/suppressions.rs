//! `knobs: ignore[…]` comments: what a suppression in Markdown, in a shell
//! block or for a whole file covers, and one that silences nothing.

use crate::support::{run_in, short, tree};

#[test]
fn markdown_suppression_covers_the_next_block_only() {
    let md = b"<!-- knobs: ignore[invented-member] -->\n```sh\nradiance --checkpoint-policy floor \\\n  --log-level loud\n```\n\nLater: `--checkpoint-policy floor`.\n";
    let t = tree(&[("run.md", md)]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    // Both lines of the block are covered (`loud` included); the later
    // paragraph is not.
    assert_eq!(short(&r.stdout), ["run.md:7:29: KNB002 `floor` is not a member of `--checkpoint-policy`"]);
}

#[test]
fn unused_markdown_suppression_is_reported() {
    let t = tree(&[("run.md", b"<!-- knobs: ignore[bad-value] -->\nAll fine: `--checkpoint-interval 2048`.\n")]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(short(&r.stdout), ["run.md:1:1: KNB008 this suppression of bad-value silences nothing"]);
}

#[test]
fn suppressions_in_shell_blocks_and_for_whole_files() {
    let t = tree(&[
        (
            "a.md",
            b"```sh\n# knobs: ignore[KNB002]\nradiance --checkpoint-policy floor\nradiance --log-level loud\n```\n",
        ),
        (
            "b.md",
            b"<!-- knobs: ignore-file[invented-member] -->\n`--checkpoint-policy floor` and `radiance:nope_total`\n",
        ),
    ]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(
        short(&r.stdout),
        [
            "a.md:4:22: KNB002 `loud` is not a member of `--log-level`",
            "b.md:2:34: KNB004 `radiance:nope_total` is not exported by radiance v1.8.1",
        ]
    );
}

#[test]
fn a_trailing_suppression_in_a_paragraph_covers_that_paragraph_not_the_next_block() {
    let md = b"Set `--checkpoint-policy floor`\nfor the drill. <!-- knobs: ignore[invented-member] -->\n\nThen `--checkpoint-policy floor` again.\n";
    let t = tree(&[("run.md", md)]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    // Line 1 is in the commented paragraph (lines 1-2); line 4 is not.
    assert_eq!(short(&r.stdout), ["run.md:4:27: KNB002 `floor` is not a member of `--checkpoint-policy`"]);
    // One that silences nothing in its paragraph is reported, and the next
    // block's finding still is.
    let md = b"All fine here. <!-- knobs: ignore[invented-member] -->\n\nThen `--checkpoint-policy floor` again.\n";
    let t = tree(&[("run.md", md)]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(
        short(&r.stdout),
        [
            "run.md:1:16: KNB008 this suppression of invented-member silences nothing",
            "run.md:3:27: KNB002 `floor` is not a member of `--checkpoint-policy`",
        ]
    );
}

#[test]
fn an_unknown_directive_is_a_warning() {
    let t = tree(&[
        ("run.md", b"<!-- knobs: disable-file -->\nSet `--checkpoint-policy floor`.\n"),
        (
            "arm.env",
            b"# knobs: disable\nFRANK_ARCHON_CHECKPOINT_POLICY=floor\n# knobs: the tuning above is the drill's\n",
        ),
        ("block.md", b"```sh\n# knobs: skip[KNB002]\nradiance --checkpoint-policy floor\n```\n"),
    ]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    // Each one silences nothing: the finding after it stays. A sentence
    // that starts with `knobs:` is not a directive.
    assert_eq!(
        short(&r.stdout),
        [
            "arm.env:1:1: KNB009 `knobs: disable` is no directive: it silences nothing",
            "arm.env:2:32: KNB002 `floor` is not a member of `FRANK_ARCHON_CHECKPOINT_POLICY` (`--checkpoint-policy`)",
            "block.md:2:1: KNB009 `knobs: skip` is no directive: it silences nothing",
            "block.md:3:30: KNB002 `floor` is not a member of `--checkpoint-policy`",
            "run.md:1:1: KNB009 `knobs: disable-file` is no directive: it silences nothing",
            "run.md:2:26: KNB002 `floor` is not a member of `--checkpoint-policy`",
        ]
    );
    assert_eq!(r.code, 1);
}
