//! Which files a run reads: file names and kinds, ignore files and
//! excludes, paths named twice, and what is passed over (binary, too large,
//! a symlink, a pipe, unreadable, gone) — said in a note (a warning for a
//! binary or too large file), or an error when the file was named on the command line; endless inputs stop at a limit.

use std::path::Path;

use crate::support::rule_fixtures::lint;
use crate::support::{self, flat, run_in, short, tree};

/// A runbook that is binary (a NUL byte) or over the size cap may hide
/// findings: in a folder walk each is a warning naming it and why, counted
/// apart in the summary; the exit stays 0 (binary and generated files are
/// normal in a tree) unless `--fail-on-skipped`.
#[test]
fn binary_and_large_files_are_passed_over_with_a_warning() {
    let big = format!("# big\n{}", "x".repeat(2 * 1024 * 1024));
    let t = tree(&[
        ("bin.md", b"`--checkpoint-policy floor`\0\n"),
        ("big.md", big.as_bytes()),
        (".git/notes.md", b"`--checkpoint-policy floor`\n"),
        ("ok.md", b"fine\n"),
        ("notes.txt", b"hello\n"),
    ]);
    let r = run_in(t.path(), &["lint"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
    // Two files passed over with a warning, one not ours (.git is not walked at all).
    assert_eq!(
        r.stdout,
        "No findings in 1 file (against radiance v1.8.1); 2 files passed over with a warning; 1 file passed over (-v names them).\n"
    );
    assert_eq!(
        r.stderr,
        "warning: passed over big.md: larger than 1048576 bytes\nwarning: passed over bin.md: binary (it holds NUL bytes)\n"
    );
    // Quiet: no summary, the warnings still said.
    let r = run_in(t.path(), &["-q", "lint"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    let r = run_in(t.path(), &["lint", "--fail-on-skipped"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("warning: passed over bin.md: binary (it holds NUL bytes)"), "{}", r.stderr);
    // `--exit-zero` wins, and a file not ours does not fail the run.
    assert_eq!(run_in(t.path(), &["lint", "--fail-on-skipped", "--exit-zero"]).code, 0);
    assert_eq!(run_in(t.path(), &["lint", "--fail-on-skipped", "ok.md", "notes.txt"]).code, 0);
    // JSON lists them under `skipped`, as before.
    let r = run_in(t.path(), &["lint", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    let skipped: Vec<&str> =
        v["summary"]["skipped"].as_array().expect("skipped").iter().filter_map(|s| s["path"].as_str()).collect();
    assert_eq!(skipped, ["big.md", "bin.md", "notes.txt"], "{}", r.stdout);
}

#[test]
fn env_file_names_ignore_files_excludes_and_skipped_counts() {
    let t = tree(&[
        (".env.example", b"CHECKPOINT_POLICY=floor\n"),
        ("svc/knobs.env.template", b"CHECKPOINT_POLICY=floor\n"),
        (".gitignore", b"generated/\n"),
        ("generated/run.md", b"`--checkpoint-policy floor`\n"),
        (".ignore", b"scratch.md\n"),
        ("scratch.md", b"`--checkpoint-policy floor`\n"),
        ("vendor/run.md", b"`--checkpoint-policy floor`\n"),
        ("knobs.toml", b"[lint]\nexclude = [\"vendor\"]\n"),
        ("notes.txt", b"hello\n"),
    ]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(
        short(&r.stdout),
        [
            ".env.example:1:19: KNB002 `floor` is not a member of `CHECKPOINT_POLICY` (`--checkpoint-policy`)",
            "svc/knobs.env.template:1:19: KNB002 `floor` is not a member of `CHECKPOINT_POLICY` (`--checkpoint-policy`)",
        ]
    );
    let r = run_in(t.path(), &["-v", "lint"]);
    // Passed over: .gitignore, .ignore, knobs.toml and notes.txt are not ours;
    // vendor/run.md is excluded.
    assert!(
        r.stdout.ends_with("in 2 files (against radiance v1.8.1); 5 files passed over (-v names them).\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains("note: skipped notes.txt: not a runbook, env file, shell script or deployment file"),
        "{}",
        r.stderr
    );
}

#[test]
fn overlapping_paths_lint_each_file_once_in_path_order() {
    let t = tree(&[
        ("docs/b.md", b"`--checkpoint-policy floor`\n"),
        ("docs/a/z.md", b"`--checkpoint-policy floor`\n"),
        ("docs/a-b.md", b"`--checkpoint-policy floor`\n"),
    ]);
    // docs/b.md is named twice (by itself and by its folder): one finding.
    let r = run_in(t.path(), &["lint", "--format", "short", "docs/b.md", "docs", "docs/b.md"]);
    assert_eq!(
        short(&r.stdout),
        [
            "docs/a/z.md:1:22: KNB002 `floor` is not a member of `--checkpoint-policy`",
            "docs/a-b.md:1:22: KNB002 `floor` is not a member of `--checkpoint-policy`",
            "docs/b.md:1:22: KNB002 `floor` is not a member of `--checkpoint-policy`",
        ],
        "{}",
        r.stderr
    );
}

#[test]
fn missing_path_is_a_tool_error() {
    let r = lint(&["lint", "no/such/runbook.md"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no/such/runbook.md: no such file or folder"), "{}", r.stderr);
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
        [("gone.md".into(), knobs::kinds::FileKind::Markdown), ("there.md".into(), knobs::kinds::FileKind::Markdown)];
    let report = lint_files(&files, &disk, &settings);
    assert_eq!(report.findings().count(), 1);
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].path, Path::new("gone.md"));
    assert!(report.skipped[0].reason.starts_with("cannot read: No such file"), "{}", report.skipped[0].reason);
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
