//! `knobs lint --fix` and `--diff`: only what has one right answer is
//! rewritten, in place — after a byte-order mark, through a symlink.

use crate::support::{run_in, short, tree};

#[test]
fn fix_and_diff_rewrite_what_has_one_answer() {
    let md = "```sh\nradiance --prefill-chunk 512 --checkpoint-policy floor\n```\nLatency: `radiance:time_to_first_token_seconds_bucket`.\n";
    let t = tree(&[("run.md", md.as_bytes())]);
    // `--diff` would change something: 1 (its text: tests/gate_like_ruff.rs).
    let r = run_in(t.path(), &["lint", "--diff"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.starts_with("--- a/run.md\n+++ b/run.md\n@@ -1,4 +1,4 @@\n"), "{}", r.stdout);
    assert_eq!(std::fs::read_to_string(t.path().join("run.md")).expect("read"), md, "--diff changes nothing");
    // `floor` remains: 1.
    let r = run_in(t.path(), &["lint", "--fix"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(r.stderr, "fixed 2 findings\n");
    // `floor` has no one right answer: it stays, and is still reported.
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(short(&r.stdout), ["run.md:2:55: KNB002 `floor` is not a member of `--checkpoint-policy`"]);
}

#[test]
fn a_fix_after_a_byte_order_mark_lands_in_place() {
    let md = "\u{feff}Watch `radiance:time_to_first_token_seconds_bucket`.\n";
    let t = tree(&[("run.md", md.as_bytes())]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(short(&r.stdout), ["run.md:1:8: KNB005 [*] `radiance:time_to_first_token_seconds_bucket` is exported as `vllm:time_to_first_token_seconds_bucket`"]);
    let r = run_in(t.path(), &["lint", "--fix"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(t.path().join("run.md")).expect("read"),
        "\u{feff}Watch `vllm:time_to_first_token_seconds_bucket`.\n"
    );
}

#[test]
fn a_fix_through_a_symlink_rewrites_its_target_and_keeps_the_link() {
    let t = tree(&[("real.md", b"Watch `radiance:time_to_first_token_seconds_bucket`.\n")]);
    std::os::unix::fs::symlink("real.md", t.path().join("link.md")).expect("symlink");
    let r = run_in(t.path(), &["lint", "--fix", "link.md"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let link = std::fs::symlink_metadata(t.path().join("link.md")).expect("link");
    assert!(link.file_type().is_symlink(), "the link is still a link");
    assert_eq!(
        std::fs::read_to_string(t.path().join("real.md")).expect("read"),
        "Watch `vllm:time_to_first_token_seconds_bucket`.\n"
    );
}

/// A flag of another build named alone in prose is a mention (an upgrade
/// note names the old flag beside the new on purpose): no finding, and
/// `--fix` leaves the sentence as written. Given a value in prose it is an
/// instruction, reported, but prose is never rewritten; in a shell block
/// the renamed flag is rewritten as before.
#[test]
fn prose_naming_an_old_flag_is_not_rewritten() {
    let md = "In v1.8.1 `--prefill-chunk` became `--busy-prefill-chunk`.\n\nThen set `--prefill-chunk 512`.\n\n```sh\nradiance --prefill-chunk 512\n```\n";
    let t = tree(&[("run.md", md.as_bytes())]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(
        short(&r.stdout),
        [
            "run.md:3:11: KNB007 `--prefill-chunk` is not a flag of radiance v1.8.1",
            "run.md:6:10: KNB007 [*] `--prefill-chunk` is not a flag of radiance v1.8.1",
        ],
        "{}",
        r.stderr
    );
    let r = run_in(t.path(), &["lint", "--fix"]);
    assert_eq!((r.code, r.stderr.as_str()), (1, "fixed 1 finding\n"));
    let fixed = md.replace("radiance --prefill-chunk 512", "radiance --busy-prefill-chunk 512");
    assert_eq!(std::fs::read_to_string(t.path().join("run.md")).expect("read"), fixed);
}
