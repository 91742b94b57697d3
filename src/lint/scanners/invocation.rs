//! How a command line runs the engine: the wrappers it may stand behind
//! (`exec`, `sudo`, `env`, `nice`, …), the container runtimes whose `run`
//! starts an image, the engine's images and what their entrypoints run.
//! Every scanner that reads an argv — shell, unit files, Dockerfiles,
//! compose, Kubernetes, Helm — asks here where the engine's argv starts.

use std::sync::Arc;

use super::items::Item;
use super::shell::words::Part;
use super::{Scan, ScanCtx};
use crate::catalog::profile::Invocation;
use crate::lint::refs::Binary;
use crate::lint::span::Span;

/// Commands that run the command that follows them: (name, options that
/// take a value, positional words before the command). The value of a
/// wrapper's own option is not a command (`sudo -u radiance journalctl`).
const WRAPPERS: &[(&str, &[&str], usize)] = &[
    ("exec", &["-a"], 0),
    ("sudo", &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user", "--group"], 0),
    ("doas", &["-u", "-C"], 0),
    ("env", &["-u", "-C", "-S", "--unset", "--chdir"], 0),
    ("nohup", &[], 0),
    ("time", &["-f", "-o"], 0),
    ("nice", &["-n", "--adjustment"], 0),
    ("taskset", &["-c", "--cpu-list"], 1),
    (
        "numactl",
        &["-C", "-N", "-m", "-p", "-i", "--physcpubind", "--cpunodebind", "--membind", "--preferred", "--interleave"],
        0,
    ),
    ("stdbuf", &["-i", "-o", "-e"], 0),
    ("ionice", &["-c", "-n", "-p", "--class", "--classdata"], 0),
    ("chrt", &[], 1),
    ("setsid", &[], 0),
    ("timeout", &["-s", "-k", "--signal", "--kill-after"], 1),
    ("command", &[], 0),
    ("runuser", &["-u", "-g", "-G", "--user", "--group"], 0),
    ("systemd-run", &["-p", "-u", "-E", "--unit", "--property", "--setenv", "--uid", "--gid", "--slice"], 0),
    ("strace", &["-o", "-e", "-p", "-s", "-u"], 0),
    ("ltrace", &["-o", "-e", "-p", "-s", "-u"], 0),
    ("valgrind", &[], 0),
    ("gdb", &[], 0),
    ("perf", &["-e", "-o", "-F", "-p", "-c"], 0),
];

/// Container runtimes whose `run` takes an image and then the engine's argv.
const RUNTIMES: &[&str] = &["podman", "docker", "nerdctl"];

/// Shells whose `-c SCRIPT` runs a script.
const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ash"];

/// True for a wrapper or container runtime: a command that may run the engine.
fn runs_commands(word: &str) -> bool {
    WRAPPERS.iter().any(|(w, _, _)| *w == word) || RUNTIMES.contains(&word)
}

/// True when a command (by basename) may run the engine: it names one of
/// the engine's commands, a wrapper or a runtime.
pub(crate) fn may_run_engine(command: &str, ctx: &ScanCtx<'_>) -> bool {
    ctx.commands.is_known(command) || runs_commands(command)
}

/// True for a shell (by basename): its `-c SCRIPT` is a script.
pub(crate) fn is_shell(command: &str) -> bool {
    SHELLS.contains(&command)
}

/// The last segment of a path (`/usr/bin/radiance` → `radiance`).
pub(crate) fn basename(s: &str) -> &str {
    s.rsplit('/').next().unwrap_or(s)
}

/// Where the engine's argv starts among a command's parts, and which binary
/// it is, if this command runs the engine.
pub(crate) fn engine_argv_start(
    parts: &[Part<'_>],
    src: &str,
    ctx: &ScanCtx<'_>,
) -> Option<(usize, Option<Arc<Binary>>)> {
    let word_text = |p: &Part<'_>| p.name(src);
    let mut i = 0;
    // Past any wrappers (`exec sudo -u svc nice -n 5 radiance …`).
    loop {
        let first = word_text(parts.get(i)?)?;
        let cmd = basename(&first);
        let next = parts.get(i + 1).and_then(word_text);
        if let Some((inv, binary)) = ctx.commands.invocation(cmd, next.as_deref()) {
            return match inv {
                Invocation::Engine { words, .. } => Some((i + words, binary)),
                Invocation::Foreign => None,
            };
        }
        if RUNTIMES.contains(&cmd) {
            // Only `run` (or `container run`) starts an image; `build --target` does not.
            let sub = parts.get(i + 1).and_then(word_text);
            let sub2 = parts.get(i + 2).and_then(word_text);
            return match (sub.as_deref(), sub2.as_deref()) {
                (Some("run"), _) => runtime_argv(parts, i + 1, src, ctx),
                (Some("container"), Some("run")) => runtime_argv(parts, i + 2, src, ctx),
                _ => None,
            };
        }
        let (_, value_opts, positionals) = WRAPPERS.iter().find(|(w, _, _)| *w == cmd)?;
        // Skip the wrapper's options (and their values), assignments and positionals.
        i += 1;
        let mut left = *positionals;
        loop {
            let t = word_text(parts.get(i)?)?;
            if t == "--" {
                i += 1;
                break;
            }
            if t.starts_with('-') {
                let takes = value_opts.iter().any(|o| *o == t);
                i += if takes { 2 } else { 1 };
                continue;
            }
            if cmd == "env" && t.contains('=') {
                i += 1;
                continue;
            }
            if left > 0 {
                left -= 1;
                i += 1;
                continue;
            }
            break;
        }
    }
}

/// `podman run [options] IMAGE [engine] ARGS…`: the argv after an engine image.
fn runtime_argv(parts: &[Part<'_>], from: usize, src: &str, ctx: &ScanCtx<'_>) -> Option<(usize, Option<Arc<Binary>>)> {
    for (i, p) in parts.iter().enumerate().skip(from + 1) {
        let Some(t) = p.name(src) else { continue };
        if t.starts_with('-') {
            continue;
        }
        let image = basename(t.split('@').next().unwrap_or(&t));
        let (repo, tag) = image.split_once(':').unwrap_or((image, ""));
        if ctx.commands.images().iter().any(|e| e == repo) {
            // An image variant whose entrypoint is a given binary, or not the engine.
            match ctx.commands.image_entrypoint(tag) {
                Some(Invocation::Foreign) => return None,
                Some(Invocation::Engine { scope, .. }) => {
                    let binary = scope.map(|s| Arc::new(Binary { command: format!("{repo}:{tag}"), scope: Some(s) }));
                    return Some((i + 1, binary));
                }
                None => {}
            }
            // The image may be followed by the engine's command itself.
            let next = parts.get(i + 1).and_then(|p| p.name(src));
            let after = parts.get(i + 2).and_then(|p| p.name(src));
            if let Some(n) = next.as_deref() {
                if let Some((Invocation::Engine { words, .. }, binary)) =
                    ctx.commands.invocation(basename(n), after.as_deref())
                {
                    return Some((i + 1 + words, binary));
                }
            }
            return Some((i + 1, None));
        }
    }
    None
}

/// An engine image reference (`ghcr.io/acme/radiance:1.8.1`): the tag when
/// the image is the engine's (an empty tag for none).
pub(crate) fn engine_image<'a>(image: &'a str, ctx: &ScanCtx<'_>) -> Option<&'a str> {
    let last = basename(image.split('@').next().unwrap_or(image));
    let (repo, tag) = last.split_once(':').unwrap_or((last, ""));
    ctx.commands.images().iter().any(|e| e == repo).then_some(tag)
}

/// Where an engine image's entrypoint (or its variant's) starts the argv it
/// is given, and which binary it is; `None` when the variant is not the engine.
pub(crate) fn entrypoint_argv(tag: &str, ctx: &ScanCtx<'_>) -> Option<(usize, Option<Arc<Binary>>)> {
    match ctx.commands.image_entrypoint(tag) {
        Some(Invocation::Foreign) => None,
        Some(Invocation::Engine { scope, .. }) => {
            let binary = scope.map(|s| Arc::new(Binary { command: format!("image :{tag}"), scope: Some(s) }));
            Some((0, binary))
        }
        None => Some((0, None)),
    }
}

/// True when a container or service runs the engine: its image is the
/// engine's (and nothing overrides its entrypoint), or its command names the
/// engine, directly or in a `sh -c` script.
pub(crate) fn runs_engine(items: &[Item], image: Option<&str>, ctx: &ScanCtx<'_>) -> bool {
    if image.is_some_and(|i| engine_image(i, ctx).is_some()) {
        return true;
    }
    let Some(first) = items.first() else { return false };
    let name = basename(&first.text);
    if is_shell(name) {
        return items.get(2).is_some_and(|script| ctx.commands.mentioned_in(&script.text));
    }
    ctx.commands.is_known(name) || items.iter().skip(1).any(|i| ctx.commands.is_known(basename(&i.text)))
}

/// Records the version an engine image reference pins (`…/radiance:1.0.13`).
pub(crate) fn pin_image(
    image: &str,
    at: std::ops::Range<usize>,
    ctx: &ScanCtx<'_>,
    span: &dyn Fn(usize, usize) -> Span,
    out: &mut Scan,
) {
    if let Some(tag) = engine_image(image, ctx).filter(|t| !t.is_empty()) {
        if let Some(pinned) = ctx.commands.image_tag(tag) {
            out.pins.push((pinned, span(at.start, at.end)));
        }
    }
}
