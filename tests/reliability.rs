//! Reliability: hostile files, broken configuration and catalogues, failing
//! git — exit 0/1 with findings or a note, or exit 2 with the file and line
//! named; never a panic, never a half-written file, never a write outside
//! `--out` and the cache. Each case was tried by hand first; the first one
//! (100,000 quote markers) was a panic.

use std::path::Path;

use crate::support::{self, knobs, run_in, tree};

fn short(out: &str) -> Vec<&str> {
    out.lines().collect()
}

/// A miette message as one line: its renderer wraps long ones at 80 columns.
fn flat(s: &str) -> String {
    s.replace("\n  │ ", " ")
}

/// Files written under `dir`, relative, sorted.
fn files_under(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().strip_prefix(dir).unwrap_or(e.path()).display().to_string())
        .collect();
    out.sort();
    out
}

// ---------------------------------------------------------------- lint input

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
    // Over the default size limit: a note, not a failure.
    let r = run_in(t.path(), &["-v", "lint"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("note: skipped long.md: larger than 1048576 bytes"), "{}", r.stderr);
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
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let b = (seed >> 24) as u8;
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
    assert!(r.stderr.contains("note: skipped n.md: binary (it holds NUL bytes)"), "{}", r.stderr);
    // The human snippet underlines the member itself, the mark not shown.
    let r = run_in(t.path(), &["lint", "bom.env", "--format", "human", "--color", "never"]);
    let lines: Vec<&str> = r.stdout.lines().collect();
    let at = lines.iter().position(|l| l.ends_with("CHECKPOINT_POLICY=floor")).expect("the line");
    let column = |l: &str, pat: &str| l.find(pat).map(|b| l[..b].chars().count());
    assert!(!lines[at].contains('\u{feff}'), "{:?}", lines[at]);
    assert_eq!(column(lines[at + 1], "─"), column(lines[at], "floor"), "{}", r.stdout);
}

#[test]
fn a_fix_after_a_byte_order_mark_lands_in_place() {
    let md = "\u{feff}Watch `radiance:time_to_first_token_seconds_bucket`.\n";
    let t = tree(&[("run.md", md.as_bytes())]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(short(&r.stdout), ["run.md:1:8: KNB005 `radiance:time_to_first_token_seconds_bucket` is exported as `vllm:time_to_first_token_seconds_bucket`"]);
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

#[test]
fn endless_inputs_are_refused_at_a_limit_not_read_into_memory() {
    let t = tree(&[("a.md", b"# A\n")]);
    // Standard input: the most a linted file may hold.
    let zero = std::fs::File::open("/dev/zero").expect("/dev/zero");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_knobs"))
        .args(["lint", "-", "--stdin-filename", "a.env"])
        .current_dir(t.path())
        .stdin(zero)
        .output()
        .expect("run knobs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        flat(&stderr).contains("standard input is larger than 1048576 bytes, the most knobs lints in one file"),
        "{stderr}"
    );
    // knobs.toml and a scrape file: a fixed ceiling.
    let r = run_in(t.path(), &["lint", "--config", "/dev/zero", "a.md"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains("larger than 16 MiB, the most knobs reads of it"), "{}", r.stderr);
    let argv = support::fixtures().join("verify/argv/armed");
    let argv = argv.to_str().expect("utf-8 path");
    let r = run_in(t.path(), &["verify", "--cmdline", argv, "--metrics", "/dev/zero"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains("larger than 64 MiB, the most knobs reads of it"), "{}", r.stderr);
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

#[cfg(unix)]
#[test]
fn symlinks_are_passed_over_with_a_note_and_never_followed() {
    let t = tree(&[("real.md", b"`--checkpoint-policy floor`\n")]);
    let p = t.path();
    std::os::unix::fs::symlink("loop-b", p.join("loop-a")).expect("symlink");
    std::os::unix::fs::symlink("loop-a", p.join("loop-b")).expect("symlink");
    std::os::unix::fs::symlink("nowhere.md", p.join("dangling.md")).expect("symlink");
    std::fs::create_dir(p.join("sub")).expect("mkdir");
    std::os::unix::fs::symlink("..", p.join("sub/up")).expect("symlink");
    std::os::unix::fs::symlink("real.md", p.join("alias.md")).expect("symlink");
    let r = run_in(p, &["-v", "lint", "--format", "short"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    // Linted once, under its own name: the alias and the loop up are not followed.
    assert_eq!(short(&r.stdout), ["real.md:1:22: KNB002 `floor` is not a member of `--checkpoint-policy`"]);
    for link in ["alias.md", "dangling.md", "loop-a", "loop-b", "sub/up"] {
        assert!(r.stderr.contains(&format!("note: skipped {link}: a symbolic link (not followed)")), "{link}");
    }
    // Named on the command line, a link that leads nowhere is an error (CI
    // must not pass on a file it never read), the other files still linted.
    let r = run_in(p, &["lint", "--format", "short", "dangling.md", "real.md"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert_eq!(short(&r.stdout), ["real.md:1:22: KNB002 `floor` is not a member of `--checkpoint-policy`"]);
    assert!(flat(&r.stderr).contains("cannot lint dangling.md, named on the command line: a symlink to nothing"));
    let r = run_in(p, &["lint", "loop-a"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        flat(&r.stderr).contains("cannot lint loop-a, named on the command line: cannot follow the symlink: Too many levels of symbolic links"),
        "{}",
        r.stderr
    );
}

#[cfg(unix)]
#[test]
fn a_pipe_or_device_named_is_an_error_and_one_in_a_folder_is_not_read() {
    let t = tree(&[("real.md", b"`--checkpoint-policy floor`\n")]);
    let fifo = t.path().join("pipe.md");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
    assert!(made.success());
    // In a folder: passed by (opening it would wait for a writer for ever).
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(short(&r.stdout), ["real.md:1:22: KNB002 `floor` is not a member of `--checkpoint-policy`"]);
    for named in ["pipe.md", "/dev/zero"] {
        let r = run_in(t.path(), &["lint", named]);
        assert_eq!(r.code, 2, "{named}: {}", r.stderr);
        assert!(
            flat(&r.stderr).contains(&format!("cannot lint {named}, named on the command line: not a regular file")),
            "{}",
            r.stderr
        );
    }
}

#[cfg(unix)]
#[test]
fn an_unreadable_file_or_folder_is_reported_and_the_run_goes_on() {
    use std::os::unix::fs::PermissionsExt;
    let t = tree(&[("ok.md", b"`--checkpoint-policy floor`\n"), ("secret.md", b"x\n"), ("locked/a.md", b"x\n")]);
    let p = t.path();
    std::fs::set_permissions(p.join("secret.md"), std::fs::Permissions::from_mode(0o000)).expect("chmod");
    std::fs::set_permissions(p.join("locked"), std::fs::Permissions::from_mode(0o000)).expect("chmod");
    // root reads anything: the refusal cannot be staged for it.
    let root = std::fs::read(p.join("secret.md")).is_ok();
    let r = run_in(p, &["-v", "lint", "--format", "short"]);
    std::fs::set_permissions(p.join("locked"), std::fs::Permissions::from_mode(0o755)).expect("chmod back");
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(short(&r.stdout), ["ok.md:1:22: KNB002 `floor` is not a member of `--checkpoint-policy`"]);
    if !root {
        assert!(r.stderr.contains("note: skipped secret.md: cannot read: Permission denied"), "{}", r.stderr);
        assert!(r.stderr.contains("note: skipped locked: cannot read: Permission denied"), "{}", r.stderr);
    }
}

#[test]
fn a_file_that_vanishes_before_it_is_read_is_reported() {
    use knobs::lint::{lint_files, Disk, Settings};
    let t = tree(&[("there.md", b"`--checkpoint-policy floor`\n")]);
    let store = knobs::catalog::store::Store::embedded("radiance").expect("store");
    let profile = knobs::catalog::profile::builtin("radiance").expect("profile");
    let catalog = store.catalogs.last().expect("a catalogue");
    let settings = Settings::new(&profile, catalog, &store.catalogs, Vec::new());
    let disk = Disk { cwd: t.path().to_path_buf(), max_file_size: 1 << 20 };
    // Walked, then gone before its turn: a note, and the others are linted.
    let files =
        [("gone.md".into(), knobs::walk::FileKind::Markdown), ("there.md".into(), knobs::walk::FileKind::Markdown)];
    let report = lint_files(&files, &disk, &settings);
    assert_eq!(report.findings().count(), 1);
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].path, Path::new("gone.md"));
    assert!(report.skipped[0].reason.starts_with("cannot read: No such file"), "{}", report.skipped[0].reason);
}

// ------------------------------------------------- configuration, catalogues

#[test]
fn a_catalogue_of_the_wrong_types_or_schema_points_at_the_place() {
    let t = tree(&[
        ("run.md", b"`--port 1`\n"),
        ("knobs.toml", b"[catalog]\ndir = \"cats\"\n"),
        (
            "cats/radiance/v9.toml",
            b"schema = 2\n[source]\nengine = \"radiance\"\nrepo = \"x\"\ntag = \"v9\"\ncommit = 5\n",
        ),
    ]);
    let r = run_in(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains("cats/radiance/v9.toml is not a valid catalogue"), "{}", r.stderr);
    assert!(r.stderr.contains("v9.toml:6:10]"), "{}", r.stderr);
    assert!(r.stderr.contains("invalid type: integer `5`, expected a string"), "{}", r.stderr);
    std::fs::write(t.path().join("cats/radiance/v9.toml"), "# synced later\nschema = 99\n").expect("write");
    let r = run_in(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains("v9.toml has schema 99"), "{}", r.stderr);
    assert!(r.stderr.contains("v9.toml:2:1]") && r.stderr.contains("this knobs reads schema 2 and older"));
}

#[test]
fn an_overlay_naming_an_unknown_flag_or_metric_points_at_the_name() {
    let head = "schema = 1\nengine = \"radiance\"\n\n";
    let t = tree(&[
        ("run.md", b"`--port 1`\n"),
        ("knobs.toml", b"[catalog]\ndir = \"cats\"\n"),
        (
            "cats/radiance/semantics.toml",
            format!("{head}[flag.\"--prot\"]\nrole = \"listener\"\ndoes = \"the port\"\n").as_bytes(),
        ),
    ]);
    for args in [&["lint"][..], &["explain", "--port"][..]] {
        let r = run_in(t.path(), args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(flat(&r.stderr).contains("semantics.toml describes `--prot`, which no catalogued version has"));
        assert!(r.stderr.contains("semantics.toml:4:7]"), "{}", r.stderr);
        assert!(r.stderr.contains("did you mean `--port`?"), "{}", r.stderr);
    }
    std::fs::write(
        t.path().join("cats/radiance/semantics.toml"),
        format!("{head}[metric.\"radiance:engine_steps_hold_total\"]\nmeasures = \"x\"\n"),
    )
    .expect("write");
    let r = run_in(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("did you mean `radiance:engine_steps_held_total`?"), "{}", r.stderr);
    // An overlay that is not TOML at all, or has unknown fields.
    std::fs::write(t.path().join("cats/radiance/semantics.toml"), format!("{head}[flag.\"--port\"]\npurpose = 1\n"))
        .expect("write");
    let r = run_in(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains("semantics.toml is not a valid overlay"), "{}", r.stderr);
    assert!(r.stderr.contains("unknown field `purpose`"), "{}", r.stderr);
    // A newer schema is refused, as a catalogue's is; an empty file says why.
    std::fs::write(t.path().join("cats/radiance/semantics.toml"), "schema = 5\nengine = \"radiance\"\n")
        .expect("write");
    let r = run_in(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains("semantics.toml has schema 5"), "{}", r.stderr);
    assert!(flat(&r.stderr).contains("this knobs reads schema 1 and older"), "{}", r.stderr);
    std::fs::write(t.path().join("cats/radiance/semantics.toml"), "").expect("write");
    std::fs::write(t.path().join("cats/radiance/v1.8.1.toml"), "\n").expect("write");
    for file in ["v1.8.1.toml", "semantics.toml"] {
        let r = run_in(t.path(), &["lint"]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        let what = if file == "semantics.toml" { "overlay" } else { "catalogue" };
        assert!(
            flat(&r.stderr)
                .contains(&format!("{file} is not a valid {what}: missing field `schema` (the file is empty)")),
            "{}",
            r.stderr
        );
        std::fs::remove_file(t.path().join("cats/radiance").join(file)).expect("rm");
    }
}

#[test]
fn a_pin_without_a_catalogue_or_a_misnamed_catalogue_points_at_the_place() {
    let t = tree(&[("run.md", b"`--port 1`\n"), ("knobs.toml", b"[pin]\ntag = \"v9.9.9\"\n")]);
    let r = run_in(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains("no catalogue for radiance v9.9.9; known: v1.0.13, v1.8.1"), "{}", r.stderr);
    assert!(r.stderr.contains("knobs.toml:2:1]") && r.stderr.contains("pinned here"), "{}", r.stderr);
    // The command line's version is not knobs.toml's fault.
    std::fs::write(t.path().join("knobs.toml"), "[catalog]\ndir = \"cats\"\n").expect("write");
    let r = run_in(t.path(), &["lint", "--version", "v9.9.9"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(!r.stderr.contains("pinned here"), "{}", r.stderr);
    // A catalogue of v1.8.1 saved as v7.7.7.toml would be read as v7.7.7.
    let v181 = std::fs::read_to_string(support::fixtures().join("../catalog/radiance/v1.8.1.toml")).expect("catalogue");
    std::fs::create_dir_all(t.path().join("cats/radiance")).expect("mkdir");
    std::fs::write(t.path().join("cats/radiance/v7.7.7.toml"), v181).expect("write");
    let r = run_in(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains("v7.7.7.toml holds tag v1.8.1, not v7.7.7"), "{}", r.stderr);
    assert!(r.stderr.contains("rename it v1.8.1.toml"), "{}", r.stderr);
}

#[test]
fn an_unknown_knobs_toml_key_gets_a_did_you_mean() {
    let t = tree(&[("run.md", b"`--port 1`\n"), ("knobs.toml", b"[pin]\ntga = \"v1.8.1\"\n")]);
    let r = run_in(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("knobs.toml:2:1]"), "{}", r.stderr);
    assert!(r.stderr.contains("help: did you mean `tag`?"), "{}", r.stderr);
}

// ------------------------------------------------------------------ git, sync

#[test]
fn a_folder_that_is_not_a_repository_is_a_clear_error() {
    let t = tree(&[("plain/readme.md", b"not git\n")]);
    let r = knobs(t.path(), &["sync", "--repo", "plain", "--tag", "v1", "--out", "out"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("cannot read repository `plain`"), "{}", r.stderr);
    assert!(!t.path().join("out").exists());
}

#[test]
fn names_that_would_escape_the_output_folder_are_refused() {
    let t = tempfile::tempdir().expect("tempdir");
    support::radiance_repo(t.path());
    let repo = "fixtures/radiance.git";
    for (flag, value) in
        [("--tag", "../x"), ("--tag", "/tmp/x"), ("--tag", "a/b"), ("--engine", "../x"), ("--engine", "/abs")]
    {
        let mut args = vec!["sync", "--repo", repo, "--out", "out", "--tag", "v1.8.1"];
        if flag == "--tag" {
            let last = args.len() - 1;
            args[last] = value;
        } else {
            args.splice(0..0, ["--engine", value]);
        }
        let r = knobs(t.path(), &args);
        assert_eq!(r.code, 2, "{flag} {value}: {}", r.stderr);
        assert!(!t.path().join("out").exists(), "{flag} {value} wrote something");
        assert!(!t.path().join("x").exists() && !t.path().join("x.toml").exists());
    }
}

#[test]
fn missing_objects_the_sync_needs_are_a_clear_error_and_nothing_is_written() {
    let t = tempfile::tempdir().expect("tempdir");
    let repo = support::radiance_repo(t.path());
    // The config file's blob at the tag is removed from the object store.
    let git = git2::Repository::open_bare(&repo).expect("open");
    let tree = git.revparse_single("v1.8.1^{tree}").expect("tree").peel_to_tree().expect("tree");
    let entry = tree.get_path(Path::new("core/config.cpp")).expect("config.cpp");
    let hex = entry.id().to_string();
    std::fs::remove_file(repo.join("objects").join(&hex[..2]).join(&hex[2..])).expect("remove blob");
    let r = knobs(t.path(), &["sync", "--repo", "fixtures/radiance.git", "--tag", "v1.8.1", "--out", "out"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("core/config.cpp"), "{}", r.stderr);
    assert!(!t.path().join("out").exists(), "a partial catalogue was written");
}

#[test]
fn a_corrupt_cache_is_rebuilt_and_concurrent_syncs_share_it() {
    let t = tempfile::tempdir().expect("tempdir");
    let repo = support::radiance_repo(t.path());
    let url = format!("file://{}", repo.display());
    let sync = |out: &str| knobs(t.path(), &["sync", "--repo", &url, "--tag", "v1.8.1", "--out", out]);
    let first = sync("a");
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(sync("a").stdout.ends_with("(cached)\n"));
    // Break the cache: its objects are gone.
    let cached = t.path().join(".knobs-cache/repos");
    let dir = std::fs::read_dir(&cached).expect("cache").next().expect("one repo").expect("entry").path();
    std::fs::remove_dir_all(dir.join("objects")).expect("break");
    std::fs::create_dir(dir.join("objects")).expect("empty objects");
    let r = sync("b");
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!r.stdout.contains("(cached)"), "a broken cache is fetched afresh: {}", r.stdout);
    assert_eq!(
        std::fs::read(t.path().join("a/radiance/v1.8.1.toml")).expect("a"),
        std::fs::read(t.path().join("b/radiance/v1.8.1.toml")).expect("b")
    );
    // Four syncs at once into an empty cache: each gets the same catalogue.
    std::fs::remove_dir_all(t.path().join(".knobs-cache")).expect("reset");
    let children: Vec<_> = ["c1", "c2", "c3", "c4"]
        .iter()
        .map(|out| {
            std::process::Command::new(env!("CARGO_BIN_EXE_knobs"))
                .args(["sync", "--repo", &url, "--tag", "v1.8.1", "--out", out])
                .current_dir(t.path())
                .env("KNOBS_CACHE_DIR", t.path().join(".knobs-cache"))
                .output()
        })
        .collect();
    for (i, c) in children.into_iter().enumerate() {
        let c = c.expect("run");
        assert!(c.status.success(), "sync {i}: {}", String::from_utf8_lossy(&c.stderr));
    }
    for out in ["c1", "c2", "c3", "c4"] {
        assert_eq!(
            std::fs::read(t.path().join(out).join("radiance/v1.8.1.toml")).expect(out),
            std::fs::read(t.path().join("a/radiance/v1.8.1.toml")).expect("a")
        );
    }
    let repos: Vec<_> = std::fs::read_dir(&cached).expect("cache").collect();
    assert_eq!(repos.len(), 1, "one cached repository, no leftovers");
}

#[test]
fn sync_runs_no_filters_hooks_or_checkout() {
    let t = tempfile::tempdir().expect("tempdir");
    let src = t.path().join("work");
    std::fs::create_dir_all(src.join("core")).expect("mkdir");
    let marker = t.path().join("ran");
    std::fs::copy(support::fixtures().join("radiance/v1.8.1/core/config.cpp"), src.join("core/config.cpp"))
        .expect("copy");
    std::fs::write(src.join(".gitattributes"), "*.cpp filter=evil\n").expect("attributes");
    let repo = git2::Repository::init(&src).expect("init");
    let mut cfg = repo.config().expect("config");
    let touch = format!("touch {}", marker.display());
    cfg.set_str("filter.evil.smudge", &touch).expect("smudge");
    cfg.set_str("filter.evil.clean", &touch).expect("clean");
    std::fs::write(src.join(".git/hooks/post-checkout"), format!("#!/bin/sh\n{touch}\n")).expect("hook");
    let mut index = repo.index().expect("index");
    index.add_all(["*"], git2::IndexAddOption::DEFAULT, None).expect("add");
    let tree = repo.find_tree(index.write_tree().expect("tree")).expect("tree");
    let sig = git2::Signature::now("t", "t@t.invalid").expect("sig");
    let commit = repo.commit(Some("HEAD"), &sig, &sig, "x", &tree, &[]).expect("commit");
    repo.tag_lightweight("v1", &repo.find_object(commit, None).expect("obj"), false).expect("tag");
    for remote in [src.display().to_string(), format!("file://{}", src.display())] {
        let r = knobs(t.path(), &["sync", "--repo", &remote, "--tag", "v1", "--out", "out"]);
        assert_eq!(r.code, 0, "{remote}: {}", r.stderr);
        assert!(!marker.exists(), "{remote}: a filter or hook ran");
    }
    // Only the catalogue was written (and the cache, elsewhere).
    assert_eq!(files_under(&t.path().join("out")), ["radiance/v1.toml"]);
}

#[test]
fn a_repo_path_that_does_not_exist_is_said_so_and_leaves_nothing() {
    let t = tempfile::tempdir().expect("tempdir");
    let relative = t.path().join("no/such/repo").display().to_string();
    for (repo, path) in [
        ("/nonexistent/x", "/nonexistent/x"),
        ("file:///nonexistent/x", "/nonexistent/x"),
        ("no/such/repo", relative.as_str()),
    ] {
        let r = knobs(t.path(), &["sync", "--repo", repo, "--tag", "v1", "--out", "out"]);
        assert_eq!(r.code, 2, "{repo}: {}", r.stderr);
        let said = words(&r.stderr);
        assert!(said.contains(&format!("cannot read repository `{repo}`: {path} does not exist")), "{said}");
        assert!(
            said.contains("a local repository is read in place; a remote needs a URL (https://, ssh://, git://, file://) or host:org/repo"),
            "{said}"
        );
        assert!(!said.contains("unsupported URL protocol"), "{said}");
        // Nothing is made for it: no cache folder, no lock file.
        assert!(!t.path().join(".knobs-cache").exists(), "{repo} left a cache behind");
        assert!(!t.path().join("out").exists());
    }
}

/// Text with miette's wrapping undone: words joined by single spaces.
fn words(s: &str) -> String {
    s.split_whitespace().filter(|w| *w != "│").collect::<Vec<_>>().join(" ")
}

/// A web server on loopback that answers every request with `200 OK` and
/// then one header line a second, never ending the headers, until `stop`.
fn dribbling_server() -> (u16, std::sync::Arc<std::sync::atomic::AtomicBool>) {
    use std::io::Write;
    use std::sync::atomic::Ordering;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stopped = std::sync::Arc::clone(&stop);
    listener.set_nonblocking(true).expect("nonblocking");
    std::thread::spawn(move || {
        while !stopped.load(Ordering::Relaxed) {
            let Ok((mut conn, _)) = listener.accept() else {
                std::thread::sleep(std::time::Duration::from_millis(20));
                continue;
            };
            let stopped = std::sync::Arc::clone(&stopped);
            std::thread::spawn(move || {
                let _ = conn.set_nonblocking(false);
                let mut line: &[u8] = b"HTTP/1.1 200 OK\r\n";
                while !stopped.load(Ordering::Relaxed) && conn.write_all(line).is_ok() {
                    line = b"X-a: b\r\n";
                    std::thread::sleep(std::time::Duration::from_secs(1));
                }
            });
        }
    });
    (port, stop)
}

/// Starts `knobs sync --repo URL` with a private cache in `dir`.
fn start_sync(dir: &Path, url: &str, timeout: &str) -> std::process::Child {
    std::process::Command::new(env!("CARGO_BIN_EXE_knobs"))
        .args(["sync", "--repo", url, "--tag", "v1", "--out", "out"])
        .current_dir(dir)
        .env("KNOBS_CACHE_DIR", dir.join("cache"))
        .env("KNOBS_GIT_TIMEOUT", timeout)
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run knobs")
}

/// Waits for `child` to end; kills it and fails after `limit`.
fn finish(mut child: std::process::Child, limit: std::time::Duration) -> (support::Output, std::time::Duration) {
    let started = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("knobs was still running after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("output");
    let output = support::Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    };
    (output, started.elapsed())
}

/// The names in `<dir>/cache/repos`, sorted.
fn cached(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("cache/repos"))
        .map(|d| d.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.sort();
    names
}

/// A server that sends a status line and then one header line a second
/// keeps every socket wait short of the timeout; the fetch is abandoned when
/// it has made no progress for twice the timeout.
#[test]
fn a_server_that_dribbles_headers_is_abandoned_at_the_deadline() {
    let (port, stop) = dribbling_server();
    let t = tempfile::tempdir().expect("tempdir");
    let url = format!("http://127.0.0.1:{port}/r.git");
    let (r, took) = finish(start_sync(t.path(), &url, "2"), std::time::Duration::from_secs(30));
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    eprintln!("dribbling server: knobs ended after {took:?}");
    assert_eq!(r.code, 2, "{}", r.stderr);
    let said = words(&r.stderr);
    assert!(
        said.contains(&format!("cannot read repository `{url}`: the fetch was abandoned after 4 s without progress (the limit is 2 × KNOBS_GIT_TIMEOUT = 2 × 2 s)")),
        "{said}"
    );
    assert!(
        said.contains("KNOBS_GIT_TIMEOUT (seconds, default 30) sets the limits: a fetch is abandoned after 2× it without progress, and after 120× it in all"),
        "{said}"
    );
    // Nothing written, nothing half-fetched moved into the cache, no
    // temporary folder left.
    assert!(!t.path().join("out").exists());
    assert!(cached(t.path()).is_empty(), "{:?}", cached(t.path()));
}

/// A sync killed mid-fetch leaves its temporary folder; the next sync of
/// the same cache removes it, whichever repository that sync is for.
#[test]
fn a_killed_syncs_temporary_folder_is_removed_by_the_next_sync() {
    let (port, stop) = dribbling_server();
    let t = tempfile::tempdir().expect("tempdir");
    let url = format!("http://127.0.0.1:{port}/r.git");
    let kill_mid_fetch = || {
        let mut child = start_sync(t.path(), &url, "30");
        let started = std::time::Instant::now();
        while !cached(t.path()).iter().any(|n| n.starts_with(".fetch-")) {
            assert!(started.elapsed() < std::time::Duration::from_secs(10), "no fetch folder appeared");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        child.kill().expect("kill");
        let _ = child.wait();
        let left = cached(t.path());
        assert!(left.len() == 1 && left[0].starts_with(".fetch-"), "{left:?}");
    };
    // The same repository's next sync, holding its lock, removes it (and
    // fails in turn, leaving nothing of its own).
    kill_mid_fetch();
    let (r, _) = finish(start_sync(t.path(), &url, "1"), std::time::Duration::from_secs(20));
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(cached(t.path()).is_empty(), "{:?}", cached(t.path()));
    // Another repository's sync removes it too: nothing holds its lock.
    kill_mid_fetch();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let repo = support::radiance_repo(t.path());
    let other = format!("file://{}", repo.display());
    let (r, _) = finish(
        std::process::Command::new(env!("CARGO_BIN_EXE_knobs"))
            .args(["sync", "--repo", &other, "--tag", "v1.8.1", "--out", "out"])
            .current_dir(t.path())
            .env("KNOBS_CACHE_DIR", t.path().join("cache"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run knobs"),
        std::time::Duration::from_secs(20),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let left = cached(t.path());
    assert!(left.len() == 1 && left[0].starts_with("radiance-"), "{left:?}");
}

/// The umask the test (and the knobs it starts) runs under.
#[cfg(unix)]
fn umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("Umask:").map(|v| v.trim().to_string())))
        .and_then(|v| u32::from_str_radix(&v, 8).ok())
        .unwrap_or(0o022)
}

#[cfg(unix)]
#[test]
fn written_files_get_the_usual_modes() {
    use std::os::unix::fs::PermissionsExt;
    let t = tempfile::tempdir().expect("tempdir");
    support::radiance_repo(t.path());
    let r = knobs(t.path(), &["sync", "--repo", "fixtures/radiance.git", "--tag", "v1.8.1", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mode = |p: &Path| std::fs::metadata(p).expect("written").permissions().mode() & 0o777;
    // A catalogue is meant to be committed and read by the team: 0644 under
    // the usual umask, not a temporary file's 0600.
    assert_eq!(mode(&t.path().join("out/radiance/v1.8.1.toml")), 0o666 & !umask());
    // A hook is executable the moment it is in place.
    let g = tempfile::tempdir().expect("tempdir");
    assert!(std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(g.path())
        .status()
        .expect("git")
        .success());
    let r = knobs(g.path(), &["hook", "install"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(mode(&g.path().join(".git/hooks/pre-commit")), 0o777 & 0o755 & !umask());
}
