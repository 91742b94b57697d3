//! Hostile file contents: no input can panic (fragment soup through every
//! scanner, rule and format; random bytes; nesting, lines and files far past
//! any real one), and what can still be judged is judged at its exact place,
//! with a note for the rest. The first case tried by hand (100,000 quote
//! markers) was a panic.

use crate::support::{run_in, short, tree, xorshift};

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

#[test]
fn fragment_soup_never_panics() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for round in 0..60 {
        for (i, name) in ["a.md", "b.env", "c.sh"].iter().enumerate() {
            let mut text = String::new();
            let n = (xorshift::next(&mut state) % 80) as usize;
            for _ in 0..n {
                text.push_str(FRAGMENTS[(xorshift::next(&mut state) as usize) % FRAGMENTS.len()]);
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
    std::fs::write(tmp.path().join("fence.md"), "```sh\nradiance --port 8000").expect("write");
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

#[test]
fn hostile_deployment_files_are_notes_not_crashes() {
    let deep_flow = format!("services:\n  e:\n    command: {}\n", "[".repeat(100_000));
    let mut deep_indent = String::from("groups:\n");
    for i in 0..600 {
        deep_indent.push_str(&format!("{}k{i}:\n", " ".repeat(2 * i + 2)));
    }
    let parens = format!("```promql\n{}radiance:engine_steps_total{}\n```\n", "(".repeat(10_000), ")".repeat(10_000));
    let garbage: Vec<u8> =
        (0..20_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).map(|b| b.max(1)).collect();
    let t = tree(&[
        ("compose.yaml", deep_flow.as_bytes()),
        ("alerts.rules.yaml", deep_indent.as_bytes()),
        ("panel.md", parens.as_bytes()),
        ("radiance.service", &garbage),
        ("radiance.container", &garbage),
        ("Dockerfile", &garbage),
        ("k8s/values.yaml", &garbage),
        // Compact nesting on one line (was a stack overflow that ended the run).
        ("seq.yaml", format!("{}x\n", "- ".repeat(5_000)).as_bytes()),
        ("keys/values.yaml", format!("{}x\n", "? ".repeat(5_000)).as_bytes()),
        // A PromQL chain whose parse time grows with its square.
        (
            "chain.rules.yaml",
            format!("groups:\n- name: g\n  rules:\n  - record: x\n    expr: 'up{}'\n", " + 1".repeat(100_000))
                .as_bytes(),
        ),
        // A valid file beside them is still judged.
        (
            "ok/compose.yaml",
            b"services:\n  e:\n    image: radiance:1.8.1\n    command: [\"--checkpoint-policy\", \"floor\"]\n",
        ),
    ]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(short(&r.stdout), ["ok/compose.yaml:4:39: KNB002 `floor` is not a member of `--checkpoint-policy`"]);
    assert!(
        r.stderr.contains(
            "warning: compose.yaml: line 3: not read, the YAML does not parse (nested deeper than 256 levels"
        ),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains(
            "warning: alerts.rules.yaml: line 258: not read, the YAML does not parse (nested deeper than 256 levels)"
        ),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("warning: panel.md: line 2: this PromQL query does not parse (nested deeper than 128 levels"),
        "{}",
        r.stderr
    );
    for name in ["seq.yaml", "keys/values.yaml"] {
        assert!(
            r.stderr.contains(&format!(
                "warning: {name}: line 1: not read, the YAML does not parse (nested deeper than 256 levels)"
            )),
            "{}",
            r.stderr
        );
    }
    assert!(r.stderr.contains("warning: chain.rules.yaml: line 5:"), "{}", r.stderr);
    assert!(r.stderr.contains("(more than 500 operators)"), "{}", r.stderr);
    assert!(!r.stderr.contains("knobs failed"), "{}", r.stderr);
}

#[test]
fn a_hundred_thousand_quote_markers_render_without_panic() {
    let text = format!("{} `--checkpoint-policy floor`\n", ">".repeat(100_000));
    let t = tree(&[("deep.md", text.as_bytes())]);
    // The human format draws a snippet: clamped, with the exact position kept.
    let r = run_in(t.path(), &["lint", "--format", "human", "--color", "never"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("deep.md:1:100023"), "{}", &r.stdout[..r.stdout.len().min(2000)]);
    assert!(r.stdout.contains("`floor` is not a member of `--checkpoint-policy`"));
    assert!(r.stdout.len() < 4000, "the snippet is elided, not 100,000 columns wide");
}

#[test]
fn nested_lists_quotes_and_substitutions_are_read_in_bounded_depth() {
    let lists: String = (0..3000).map(|i| format!("{}- x\n", "  ".repeat(i))).collect();
    let quotes: String = (1..2000).map(|i| format!("{} x\n", ">".repeat(i))).collect();
    let subst = format!("radiance --port {}{}\n", "$(".repeat(10_000), ")".repeat(10_000));
    let t = tree(&[
        ("lists.md", format!("{lists}`--checkpoint-policy floor`\n").as_bytes()),
        ("quotes.md", format!("{quotes}\n`--checkpoint-policy floor`\n").as_bytes()),
        ("subst.sh", subst.as_bytes()),
        ("subst.md", format!("```sh\n{subst}```\n").as_bytes()),
        ("knobs.toml", b"[lint]\nmax_file_size = 20000000\n"),
    ]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        short(&r.stdout),
        [
            "lists.md:3001:22: KNB002 `floor` is not a member of `--checkpoint-policy`",
            "quotes.md:2001:22: KNB002 `floor` is not a member of `--checkpoint-policy`",
        ]
    );
}

#[test]
fn a_five_megabyte_line_is_linted_or_passed_over_with_a_note() {
    let line = format!("{} `--checkpoint-policy floor`\n", "word ".repeat(1_000_000));
    let env = format!("CHECKPOINT_POLICY={}\n", "x".repeat(5_000_000));
    let t = tree(&[("long.md", line.as_bytes()), ("long.env", env.as_bytes())]);
    // Over the default size limit: a warning, not a failure.
    let r = run_in(t.path(), &["-v", "lint"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("warning: passed over long.md: larger than 1048576 bytes"), "{}", r.stderr);
    // With the limit raised, linted: the finding at its exact column, and a
    // 5 MB value named, not printed.
    std::fs::write(t.path().join("knobs.toml"), "[lint]\nmax_file_size = 20000000\n").expect("write");
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let lines = short(&r.stdout);
    assert_eq!(lines.len(), 2, "{}", &r.stdout[..r.stdout.len().min(3000)]);
    assert!(lines[0].starts_with("long.env:1:19: KNB002 `xxxxxxxxxx"), "{}", lines[0]);
    assert!(lines[0].contains("…") && lines[0].len() < 200, "{}", lines[0]);
    assert_eq!(lines[1], "long.md:1:5000023: KNB002 `floor` is not a member of `--checkpoint-policy`");
}

#[test]
fn random_bytes_nul_bom_crlf_and_empty_files() {
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut bytes = |n: usize, nul: bool| -> Vec<u8> {
        (0..n)
            .map(|_| {
                let b = (xorshift::next(&mut seed) >> 24) as u8;
                if !nul && b == 0 {
                    1
                } else {
                    b
                }
            })
            .collect()
    };
    let (md, env, sh, nul) = (bytes(100_000, false), bytes(100_000, false), bytes(100_000, false), bytes(1000, true));
    let t = tree(&[
        ("r.md", &md),
        ("r.env", &env),
        ("r.sh", &sh),
        ("n.md", &nul),
        ("empty.md", b""),
        ("empty.env", b""),
        ("bom.env", "\u{feff}CHECKPOINT_POLICY=floor\r\nMAX_SEQS=2\r\n".as_bytes()),
        ("bom.md", "\u{feff}# Arm\r\n\r\n`--checkpoint-policy floor`\r\n".as_bytes()),
        // Readers that expect a keyword first (found by a hostile review:
        // behind a mark, these were read as nothing).
        ("d/Dockerfile", "\u{feff}FROM radiance:1.8.1\r\nCMD [\"--checkpoint-policy\", \"floor\"]\r\n".as_bytes()),
        (
            "q/radiance.container",
            "\u{feff}[Container]\nImage=radiance:1.8.1\nExec=--checkpoint-policy floor\n".as_bytes(),
        ),
    ]);
    let r = run_in(t.path(), &["-v", "lint", "--format", "short"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    // Behind a byte-order mark and with CRLF, still caught, columns as an
    // editor counts them.
    assert_eq!(
        short(&r.stdout),
        [
            "bom.env:1:19: KNB002 `floor` is not a member of `CHECKPOINT_POLICY` (`--checkpoint-policy`)",
            "bom.md:3:22: KNB002 `floor` is not a member of `--checkpoint-policy`",
            "d/Dockerfile:2:30: KNB002 `floor` is not a member of `--checkpoint-policy`",
            "q/radiance.container:3:26: KNB002 `floor` is not a member of `--checkpoint-policy`",
        ]
    );
    for f in ["r.md", "r.env", "r.sh"] {
        assert!(r.stderr.contains(&format!("warning: {f}: not valid UTF-8")), "{f}: {}", r.stderr);
    }
    assert!(r.stderr.contains("warning: passed over n.md: binary (it holds NUL bytes)"), "{}", r.stderr);
    // The human snippet underlines the member itself, the mark not shown.
    let r = run_in(t.path(), &["lint", "bom.env", "--format", "human", "--color", "never"]);
    let lines: Vec<&str> = r.stdout.lines().collect();
    let at = lines.iter().position(|l| l.ends_with("CHECKPOINT_POLICY=floor")).expect("the line");
    let column = |l: &str, pat: &str| l.find(pat).map(|b| l[..b].chars().count());
    assert!(!lines[at].contains('\u{feff}'), "{:?}", lines[at]);
    assert_eq!(column(lines[at + 1], "─"), column(lines[at], "floor"), "{}", r.stdout);
}

#[test]
fn terminal_escapes_in_a_file_are_shown_not_sent_to_the_terminal() {
    // A value that would set the terminal's title if printed raw.
    let t = tree(&[("a.sh", b"radiance --checkpoint-policy \"fl\x1b]0;pwned\x07oor\"\n")]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(short(&r.stdout), ["a.sh:1:30: KNB002 `fl␛]0;pwned␇oor` is not a member of `--checkpoint-policy`"]);
    let r = run_in(t.path(), &["lint", "--format", "human", "--color", "never"]);
    assert!(!r.stdout.contains('\u{1b}') && !r.stdout.contains('\u{7}'), "{:?}", r.stdout);
    let lines: Vec<&str> = r.stdout.lines().collect();
    let at = lines.iter().position(|l| l.contains("│ radiance") && l.contains("␛]0;pwned␇")).expect("the line, shown");
    let column = |l: &str, pat: &str| l.find(pat).map(|b| l[..b].chars().count());
    assert_eq!(column(lines[at + 1], "─"), column(lines[at], "\"fl␛"), "{}", r.stdout);
    // A file's name in a note, too.
    std::fs::write(t.path().join("x\u{1b}[31m.txt"), "x").expect("write");
    let r = run_in(t.path(), &["-v", "lint"]);
    assert!(r.stderr.contains("note: skipped x␛[31m.txt: not a runbook"), "{}", r.stderr);
    assert!(!r.stderr.contains('\u{1b}'), "{:?}", r.stderr);
}

#[test]
fn unterminated_fences_and_quotes_are_still_read() {
    let t = tree(&[
        ("fence.md", b"```sh\nradiance --checkpoint-policy floor\n"),
        ("quote.sh", b"radiance --checkpoint-policy floor \"never closed\n"),
        ("tick.md", b"`--checkpoint-policy floor\n"),
    ]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        short(&r.stdout),
        [
            "fence.md:2:30: KNB002 `floor` is not a member of `--checkpoint-policy`",
            "quote.sh:1:30: KNB002 `floor` is not a member of `--checkpoint-policy`",
        ]
    );
}
