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
