//! Running knobs — the built binary or in-process — and what a run left:
//! its exit code and its two streams as text, built in one place.

use std::path::Path;
use std::process::Command;

pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    /// A run's exit code and streams, decoded lossily.
    pub fn new(code: i32, stdout: &[u8], stderr: &[u8]) -> Output {
        Output {
            code,
            stdout: String::from_utf8_lossy(stdout).into_owned(),
            stderr: String::from_utf8_lossy(stderr).into_owned(),
        }
    }
}

/// A finished process (knobs, or git); a signal's death is exit code -1.
impl From<std::process::Output> for Output {
    fn from(out: std::process::Output) -> Output {
        Output::new(out.status.code().unwrap_or(-1), &out.stdout, &out.stderr)
    }
}

/// Runs the built binary in `cwd` with a private cache.
pub fn knobs(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_knobs"))
        .args(args)
        .current_dir(cwd)
        .env("KNOBS_CACHE_DIR", cwd.join(".knobs-cache"))
        .env("NO_COLOR", "1")
        .output()
        .expect("run knobs")
        .into()
}

/// Runs the built binary in `cwd` with a private cache, within 1 GiB of
/// address space and killed after `secs` seconds (exit 137): an attack or a
/// hang fails the test, not the machine.
pub fn knobs_bounded(cwd: &Path, args: &[&str], secs: u32) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v 1048576 && exec timeout -s KILL {secs} \"$@\""))
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_knobs"))
        .args(args)
        .current_dir(cwd)
        .env("KNOBS_CACHE_DIR", cwd.join(".knobs-cache"))
        .env("NO_COLOR", "1")
        .output()
        .expect("run knobs")
        .into()
}

/// Runs knobs in-process.
pub fn run_in(cwd: &Path, args: &[&str]) -> Output {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let mut argv = vec!["knobs"];
    argv.extend_from_slice(args);
    let code = knobs::run(argv, &mut out, &mut err, cwd);
    Output::new(i32::from(code), &out, &err)
}

/// Runs the built binary with `stdin` as standard input.
pub fn knobs_with_stdin(cwd: &Path, args: &[&str], stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_knobs"))
        .args(args)
        .current_dir(cwd)
        .env("KNOBS_CACHE_DIR", cwd.join(".knobs-cache"))
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run knobs");
    child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("write stdin");
    child.wait_with_output().expect("wait").into()
}
