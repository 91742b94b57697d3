//! No input can panic: fragment soup through every scanner, rule and format.

use crate::support::run_in;

const FRAGMENTS: &[&str] = &[
    "radiance ",
    "--checkpoint-policy ",
    "floor",
    "=",
    "\"",
    "'",
    "`",
    "```",
    "```sh\n",
    "```console\n$ ",
    "\n",
    "\r\n",
    "\\\n",
    "${X:-",
    "}",
    "$(",
    ")",
    "args=(",
    "args+=(",
    "\"${args[@]}\"",
    "exec ",
    "podman run ",
    "radiance:1.8.1 ",
    "radiance:engine_steps_held_total",
    "vllm:",
    "radiance:",
    "→",
    "->",
    "é",
    "🦀",
    "\u{feff}",
    "\0",
    "<!-- knobs: ignore[",
    "] -->",
    "# knobs: ignore",
    "KEY=",
    "CHECKPOINT_POLICY=",
    "export ",
    "|",
    "{",
    "[",
    "--",
    "-",
    "-m ",
    "2k",
    "auto ",
    "<n>",
    "…",
    "\t",
    "    ",
    "> ",
    "* ",
    "| a | b |\n|---|---|\n",
    "#!/bin/bash\n",
    "if [ ",
    " ]; then\n",
    "fi\n",
];

/// xorshift: deterministic, no dependency.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

#[test]
fn fragment_soup_never_panics() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for round in 0..60 {
        for (i, name) in ["a.md", "b.env", "c.sh"].iter().enumerate() {
            let mut text = String::new();
            let n = (next(&mut state) % 80) as usize;
            for _ in 0..n {
                text.push_str(FRAGMENTS[(next(&mut state) as usize) % FRAGMENTS.len()]);
            }
            std::fs::write(tmp.path().join(format!("{round}-{i}-{name}")), text).expect("write");
        }
    }
    for format in ["human", "short", "json", "sarif", "github"] {
        let r = run_in(tmp.path(), &["lint", "--format", format]);
        assert!(r.code == 0 || r.code == 1, "{format}: exit {} {}", r.code, r.stderr);
    }
}

#[test]
fn cut_utf8_and_empty_files_never_panic() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("empty.md"), "").expect("write");
    std::fs::write(tmp.path().join("cut.env"), [b'X', b'=', 0xe2, 0x86]).expect("write");
    std::fs::write(tmp.path().join("only-bom.env"), "\u{feff}").expect("write");
    std::fs::write(tmp.path().join("fence.md"), "```sh\nradiance --port").expect("write");
    let r = run_in(tmp.path(), &["lint"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    // Decoded lossily, with a note saying so (the bad byte is the third).
    assert!(
        r.stderr.contains(
            "warning: cut.env: not valid UTF-8 (first bad byte at offset 2); read with replacement characters"
        ),
        "{}",
        r.stderr
    );
    assert!(r.stdout.starts_with("No findings in 4 files"), "{}", r.stdout);
}
