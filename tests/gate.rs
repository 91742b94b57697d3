//! The gate: `knobs hook install`, `knobs lint --staged` through a real
//! `git commit`, and `--changed-since`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{knobs, Output};

pub(crate) fn git(dir: &Path, args: &[&str]) -> Output {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_knobs"));
    let path = format!("{}:{}", bin.parent().expect("bin dir").display(), std::env::var("PATH").unwrap_or_default());
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs")
        .into()
}

pub(crate) fn repo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["config", "user.email", "ops@example.invalid"],
        &["config", "user.name", "Ops"],
        &["config", "commit.gpgsign", "false"],
    ] {
        assert_eq!(git(tmp.path(), args).code, 0);
    }
    tmp
}

const BAD: &str = "# Arm\n\nSet `--checkpoint-policy floor` and redeploy.\n";
const GOOD: &str = "# Arm\n\nSet `--checkpoint-policy tip-only` and redeploy.\n";

#[test]
fn pre_commit_hook_lints_what_is_staged() {
    let tmp = repo();
    let dir = tmp.path();
    let r = knobs(dir, &["hook", "install"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let hook = std::fs::read_to_string(dir.join(".git/hooks/pre-commit")).expect("hook written");
    assert!(hook.contains("lint --staged"));

    // A staged bad file is refused.
    std::fs::write(dir.join("run.md"), BAD).expect("write");
    assert_eq!(git(dir, &["add", "run.md"]).code, 0);
    let c = git(dir, &["commit", "-q", "-m", "arm"]);
    assert_ne!(c.code, 0, "the bad commit went through");
    assert!(
        c.stdout.contains("KNB002 invented-member") || c.stderr.contains("KNB002 invented-member"),
        "{}{}",
        c.stdout,
        c.stderr
    );

    // Fixed on disk only: the index still holds the bad text.
    std::fs::write(dir.join("run.md"), GOOD).expect("write");
    assert_ne!(git(dir, &["commit", "-q", "-m", "arm"]).code, 0, "a fix that is not staged must not pass");

    // Staged fix: accepted.
    assert_eq!(git(dir, &["add", "run.md"]).code, 0);
    let c = git(dir, &["commit", "-q", "-m", "arm"]);
    assert_eq!(c.code, 0, "{}{}", c.stdout, c.stderr);

    // Staged clean, dirty on disk: --staged passes, the work tree does not.
    std::fs::write(dir.join("run.md"), BAD).expect("write");
    assert_eq!(knobs(dir, &["lint", "--staged"]).code, 0);
    assert_eq!(knobs(dir, &["lint"]).code, 1);
}

#[test]
fn staged_lines_refer_to_the_staged_blob() {
    let tmp = repo();
    let dir = tmp.path();
    std::fs::create_dir_all(dir.join("docs")).expect("mkdir");
    std::fs::write(dir.join("docs/run.md"), BAD).expect("write");
    assert_eq!(git(dir, &["add", "."]).code, 0);
    std::fs::write(dir.join("docs/run.md"), format!("{}{BAD}", "padding\n\n".repeat(5))).expect("write");
    let r = knobs(dir, &["lint", "--staged", "--format", "short"]);
    assert_eq!(r.stdout, "docs/run.md:3:26: KNB002 `floor` is not a member of `--checkpoint-policy`\n");
    // From a subfolder, paths stay relative to the working directory.
    let r = knobs(&dir.join("docs"), &["lint", "--staged", "--format", "short"]);
    assert_eq!(r.stdout, "run.md:3:26: KNB002 `floor` is not a member of `--checkpoint-policy`\n");
    // An env file staged beside a serve script is judged with the script's mapping.
    std::fs::write(dir.join("docs/serve.sh"), "#!/bin/sh\nexec radiance --max-num-seqs \"${SEQS:-2}\"\n")
        .expect("write");
    std::fs::write(dir.join("docs/knobs.env"), "SEQS=two\n").expect("write");
    assert_eq!(git(dir, &["add", "."]).code, 0);
    let r = knobs(dir, &["lint", "--staged", "--format", "short", "docs/knobs.env"]);
    assert_eq!(r.stdout, "docs/knobs.env:1:6: KNB003 `two` is not a valid value for `SEQS` (`--max-num-seqs`)\n");
}

/// An existing hook is never overwritten silently: it is kept, backed up and
/// run first; uninstall puts it back.
#[test]
fn install_chains_an_existing_hook_and_uninstall_restores_it() {
    let tmp = repo();
    let dir = tmp.path();
    let hook = dir.join(".git/hooks/pre-commit");
    let backup = dir.join(".git/hooks/pre-commit.knobs-backup");
    std::fs::create_dir_all(hook.parent().expect("hooks")).expect("mkdir");
    let mine = "#!/bin/sh\necho mine > \"$(git rev-parse --git-dir)/ran-mine\"\n";
    std::fs::write(&hook, mine).expect("write");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    let r = knobs(dir, &["hook", "install"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("the hook that was there runs first"), "{}", r.stdout);
    assert_eq!(std::fs::read_to_string(&backup).expect("backup"), mine);
    let installed = std::fs::read_to_string(&hook).expect("hook");
    assert!(installed.contains("pre-commit.knobs-backup") && installed.contains("lint --staged"), "{installed}");
    // Reinstalling over its own hook keeps the chain.
    assert_eq!(knobs(dir, &["hook", "install"]).code, 0);
    assert!(std::fs::read_to_string(&hook).expect("hook").contains("pre-commit.knobs-backup"));
    let r = knobs(dir, &["hook", "uninstall"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(std::fs::read_to_string(&hook).expect("restored"), mine);
    assert!(!backup.exists());
    // Uninstall refuses a hook knobs did not write.
    let r = knobs(dir, &["hook", "uninstall"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("was not written by knobs; left as it is"), "{}", r.stderr);
    // --force replaces (the old hook is still kept as a backup).
    let r = knobs(dir, &["hook", "install", "--force"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(!std::fs::read_to_string(&hook).expect("hook").contains("pre-commit.knobs-backup"));
    assert_eq!(std::fs::read_to_string(&backup).expect("backup"), mine);
}

#[test]
fn outside_a_repository_is_a_clear_error() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let r = knobs(tmp.path(), &["lint", "--staged"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("is not inside a git repository"), "{}", r.stderr);
}

#[test]
fn changed_since_lints_only_changed_files() {
    let tmp = repo();
    let dir = tmp.path();
    std::fs::write(dir.join("old.md"), BAD).expect("write");
    std::fs::write(dir.join("edited.md"), GOOD).expect("write");
    assert_eq!(git(dir, &["add", "."]).code, 0);
    assert_eq!(git(dir, &["commit", "-q", "--no-verify", "-m", "base"]).code, 0);
    std::fs::write(dir.join("edited.md"), BAD).expect("write");
    std::fs::write(dir.join("new.md"), BAD).expect("write");
    let r = knobs(dir, &["lint", "--changed-since", "HEAD", "--format", "short"]);
    let files: Vec<&str> = r.stdout.lines().map(|l| l.split(':').next().unwrap_or("")).collect();
    assert_eq!(files, ["edited.md", "new.md"], "{}", r.stdout);
    let r = knobs(dir, &["lint", "--changed-since", "no-such-ref"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("`no-such-ref` does not name a commit"), "{}", r.stderr);
}

/// `--staged` judges what this commit changes, not every file in the index:
/// an old committed mistake does not block a commit that does not touch it.
#[test]
fn staged_judges_only_the_files_the_commit_changes() {
    let tmp = repo();
    let dir = tmp.path();
    std::fs::write(dir.join("old.md"), BAD).expect("write");
    assert_eq!(git(dir, &["add", "."]).code, 0);
    assert_eq!(git(dir, &["commit", "-q", "--no-verify", "-m", "old mistake"]).code, 0);
    std::fs::write(dir.join("new.md"), GOOD).expect("write");
    assert_eq!(git(dir, &["add", "new.md"]).code, 0);
    let r = knobs(dir, &["lint", "--staged", "--format", "short"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    // Touching the old file brings it in.
    std::fs::write(dir.join("old.md"), format!("{BAD}\nmore\n")).expect("write");
    assert_eq!(git(dir, &["add", "old.md"]).code, 0);
    let r = knobs(dir, &["lint", "--staged", "--format", "short"]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.starts_with("old.md:"), "{}", r.stdout);
}
