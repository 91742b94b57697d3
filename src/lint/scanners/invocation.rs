//! How a command line runs the engine: the wrappers it may stand behind
//! (`exec`, `sudo -iu svc`, `env K=V`, `taskset -c 0-7`, `su - svc -c '…'`,
//! `bash -lc '…'`, read with their own option grammar in `wrappers`), the
//! container runtimes whose `run` starts an image (or whose `exec` runs a
//! command in a container, as `kubectl exec POD --` does), the engine's
//! images and what their entrypoints run. Every scanner that reads an argv
//! — shell, unit files, Dockerfiles, compose, Kubernetes, Helm — asks here
//! where the engine's argv starts, or which word is a script to read as
//! shell, and which words set the engine's environment.

use std::ops::Deref;
use std::sync::Arc;

use super::engine_matcher::command_name;
use super::items::Item;
use super::words::Part;
use super::wrappers::{self, Step};
use super::{Scan, ScanCtx};
use crate::catalog::profile::Invocation;
use crate::lint::refs::Binary;
use crate::lint::span::Span;

/// Container runtimes whose `run` takes an image and then the engine's argv.
const RUNTIMES: &[&str] = &["podman", "docker", "nerdctl"];

/// Runs a command in a running pod: `kubectl exec POD -- CMD…`.
const KUBECTL: &str = "kubectl";

/// True for a container runtime or `kubectl`: what it runs gets the
/// container's environment, not the shell's.
pub(crate) fn is_runtime(word: &str) -> bool {
    RUNTIMES.contains(&word) || word == KUBECTL
}

/// True for a wrapper or container runtime: a command that may run the engine.
fn runs_commands(word: &str) -> bool {
    // One lookup: this runs for the first word of every command of every script.
    // With the longest name's length: a longer word is none of them.
    static NAMES: std::sync::LazyLock<(rustc_hash::FxHashSet<&'static str>, usize)> = std::sync::LazyLock::new(|| {
        let wrappers = wrappers::WRAPPERS.iter().map(|g| g.name);
        let names: rustc_hash::FxHashSet<&'static str> =
            wrappers.chain(RUNTIMES.iter().copied()).chain([KUBECTL]).collect();
        let longest = names.iter().map(|n| n.len()).max().unwrap_or(0);
        (names, longest)
    });
    word.len() <= NAMES.1 && NAMES.0.contains(word)
}

/// True when a command (by basename) may run the engine: it names one of
/// the engine's commands, a wrapper, a shell or a runtime.
pub(crate) fn may_run_engine(command: &str, ctx: &ScanCtx<'_>) -> bool {
    let name = command_name(command);
    ctx.commands.is_known_or_renamed(name) || runs_commands(name) || (is_python(name) && ctx.commands.has_modules())
}

/// True for a shell (by basename): its `-c SCRIPT` is a script.
pub(crate) fn is_shell(command: &str) -> bool {
    wrappers::find(command_name(command)).is_some_and(|g| g.script == wrappers::Script::Operand('c'))
}

/// Where a shell's script is among its words (`sh -c S`, `bash -lc S`,
/// `bash -o pipefail -c S`): the index of the script, if it is given one.
pub(crate) fn shell_script(words: &[&str]) -> Option<usize> {
    let g = wrappers::find(command_name(words.first()?))?;
    let words: Vec<Option<&str>> = words.iter().copied().map(Some).collect();
    match (g.script, wrappers::step(g, &words, 1).0) {
        (wrappers::Script::Operand(_), Step::Script(at)) => Some(at),
        _ => None,
    }
}

/// The last segment of a path (`/usr/bin/radiance` → `radiance`).
pub(crate) fn basename(s: &str) -> &str {
    s.rsplit('/').next().unwrap_or(s)
}

/// What a command line runs, as far as the engine is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// The engine's argv starts at this word, for this binary.
    Argv { start: usize, binary: Option<Arc<Binary>> },
    /// This word is a shell script the command runs (`sh -c '…'`).
    Script(usize),
    /// Not the engine.
    None,
}

/// A command line's target, and the words that set the environment of
/// what it runs: (word, offset of `K=V` in the word's text).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Run {
    pub target: Target,
    pub env: Vec<(usize, usize)>,
    /// The version an engine image run here pins (`docker run …:server-b4567`).
    pub pin: Option<String>,
}

/// Where the engine's argv starts among a command's parts, and which binary
/// it is, if this command runs the engine.
pub(crate) fn engine_argv_start(
    parts: &[Part<'_>],
    src: &str,
    ctx: &ScanCtx<'_>,
) -> Option<(usize, Option<Arc<Binary>>)> {
    let words: Vec<Option<std::borrow::Cow<'_, str>>> = parts.iter().map(|p| p.name(src)).collect();
    match run_of(&words, ctx).target {
        Target::Argv { start, binary } => Some((start, binary)),
        _ => None,
    }
}

/// What a command line (its words' literal texts, `None` for a dynamic
/// word; owned or borrowed from the text) runs: past any wrappers,
/// runtimes and `kubectl exec`.
pub(crate) fn run_of<W: Deref<Target = str>>(words: &[Option<W>], ctx: &ScanCtx<'_>) -> Run {
    let mut env = Vec::new();
    let mut i = 0;
    let none = |env| Run { target: Target::None, env, pin: None };
    loop {
        let Some(Some(word)) = words.get(i) else { return none(env) };
        let name = command_name(word);
        let next = words.get(i + 1).and_then(|w| w.as_deref());
        let after = words.get(i + 2).and_then(|w| w.as_deref());
        if let Some((inv, binary)) = ctx.commands.invocation_written_nested(word, next, after) {
            let target = match inv {
                Invocation::Engine { words, .. } => Target::Argv { start: i + words, binary },
                Invocation::Foreign => Target::None,
            };
            return Run { target, env, pin: None };
        }
        if is_python(name) {
            // `python3 -u -m vllm.entrypoints.openai.api_server …`
            let target = match python_module(words, i + 1) {
                Some((at, module)) => match ctx.commands.module_invocation(&module) {
                    Some((Invocation::Engine { .. }, binary)) => Target::Argv { start: at + 1, binary },
                    _ => Target::None,
                },
                None => Target::None,
            };
            return Run { target, env, pin: None };
        }
        if RUNTIMES.contains(&name) {
            // What the engine in a container sees is not the host's env.
            env.clear();
            let sub = words.get(i + 1).and_then(|w| w.as_deref());
            let sub2 = words.get(i + 2).and_then(|w| w.as_deref());
            let at = match (sub, sub2) {
                (Some("run" | "exec"), _) => i + 1,
                (Some("container"), Some("run" | "exec")) => i + 2,
                _ => return none(env),
            };
            if words[at].as_deref() == Some("exec") {
                match wrappers::step(&wrappers::EXEC, words, at + 1) {
                    (Step::Command(c), e) => {
                        env = e;
                        i = c;
                        continue;
                    }
                    (_, e) => return none(e),
                }
            }
            return runtime_run(words, at, ctx);
        }
        if name == KUBECTL {
            // `kubectl exec [options] POD -- CMD…`: the command follows `--`.
            let dashes = (words.iter().skip(i + 1).position(|w| w.as_deref() == Some("--"))).map(|p| i + 2 + p);
            match (next, dashes) {
                (Some("exec"), Some(c)) => {
                    env.clear();
                    i = c;
                    continue;
                }
                _ => return none(env),
            }
        }
        let Some(g) = wrappers::find(name) else { return none(env) };
        let (step, e) = wrappers::step(g, words, i + 1);
        env.extend(e);
        match step {
            Step::Command(c) => i = c,
            Step::Script(s) => return Run { target: Target::Script(s), env, pin: None },
            Step::None => return none(env),
        }
    }
}

/// True for a Python interpreter by basename: `python`, `python3`,
/// `python3.12`.
pub(crate) fn is_python(name: &str) -> bool {
    name.strip_prefix("python").is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// The module a Python command line runs with `-m` (`-m MOD`, `-mMOD`,
/// behind options such as `-u`, `-O`, `-X dev`, `-W error`): the index of
/// the word that ends with it, and the module. `-c` or a script file runs
/// no module.
fn python_module<W: Deref<Target = str>>(words: &[Option<W>], from: usize) -> Option<(usize, String)> {
    let mut i = from;
    while let Some(Some(w)) = words.get(i) {
        let opts = w.strip_prefix('-').filter(|o| !o.is_empty() && !o.starts_with('-'))?;
        // Bundled letters: the first that takes a value ends the word.
        for (k, c) in opts.char_indices() {
            match c {
                'm' if k + 1 < opts.len() => return Some((i, opts[k + 1..].to_string())),
                'm' => return words.get(i + 1).and_then(|w| w.as_deref()).map(|m| (i + 1, m.to_string())),
                'c' => return None,
                'X' | 'W' if k + 1 == opts.len() => i += 1,
                'X' | 'W' => break,
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// `podman run [options] IMAGE [command] ARGS…` from the word `run` at
/// `at`: what runs in an engine image. `--entrypoint` replaces the
/// image's: a shell's `-c SCRIPT` is a script, an engine binary takes the
/// words after the image, anything else is not the engine.
fn runtime_run<W: Deref<Target = str>>(words: &[Option<W>], at: usize, ctx: &ScanCtx<'_>) -> Run {
    let (step, mut env) = wrappers::step(&wrappers::RUN, words, at + 1);
    let none = Run { target: Target::None, env: Vec::new(), pin: None };
    let Step::Command(first) = step else { return none };
    // The first operand is the image; an option knobs does not know may
    // take a value, so a later engine image is taken too.
    let is_image = |w: &Option<W>| w.as_deref().is_some_and(|t| !t.starts_with('-') && engine_image(t, ctx).is_some());
    let Some(image) = (first..words.len()).find(|k| is_image(&words[*k])) else { return none };
    env.retain(|(w, _)| *w < image);
    let t = words[image].as_deref().unwrap_or("");
    let last = basename(t.split('@').next().unwrap_or(t));
    let (repo, tag) = last.split_once(':').unwrap_or((last, ""));
    let entrypoint = entrypoint_option(&words[at + 1..image]);
    let target = match entrypoint.as_deref() {
        Some(ep) if !ep.is_empty() => {
            let ep_words: Vec<Option<&str>> =
                std::iter::once(Some(ep)).chain(words[image + 1..].iter().map(|w| w.as_deref())).collect();
            // The entrypoint and the words after the image, as one command line.
            match run_of(&ep_words, ctx).target {
                Target::Argv { start, binary } => Target::Argv { start: image + start, binary },
                Target::Script(s) => Target::Script(image + s),
                Target::None => Target::None,
            }
        }
        // Words after the image that form a whole command (`python3 -m
        // sglang.launch_server …`, `bash -c '…'`, `vllm serve …`) are what
        // the author runs: an image of the engine's name may be a build
        // without its entrypoint (`rocm/vllm`).
        _ => match (
            command_after_image(words, image, ctx),
            ctx.commands.image_entrypoint(tag, words.get(image + 1).and_then(|w| w.as_deref())),
        ) {
            (Some(target), _) => target,
            // An image variant whose entrypoint is a given binary, or not the engine.
            (None, Some((Invocation::Foreign, _))) => Target::None,
            (None, Some((Invocation::Engine { scope, .. }, took))) => {
                let positionals = ctx.commands.image_positionals(tag);
                let ignored_positional = ctx.commands.image_ignored_positional(tag);
                let binary = (scope.is_some() || positionals.is_some()).then(|| {
                    let command = format!("{repo}:{tag}");
                    Arc::new(Binary { command, scope, positionals, ignored_positional, ..Binary::default() })
                });
                Target::Argv { start: image + 1 + took, binary }
            }
            (None, None) => Target::Argv { start: image + 1, binary: None },
        },
    };
    let pin = (!tag.is_empty()).then(|| ctx.commands.image_tag(tag)).flatten();
    Run { target, env, pin }
}

/// What the words after an image run when they form a whole command — the
/// engine's own command, a Python interpreter, a wrapper or a shell — which
/// replaces the image's: `None` when they are arguments for the image's
/// entrypoint (a model, options).
fn command_after_image<W: Deref<Target = str>>(words: &[Option<W>], image: usize, ctx: &ScanCtx<'_>) -> Option<Target> {
    let next = words.get(image + 1)?.as_deref()?;
    let name = command_name(next);
    let command = ctx.commands.invocation_written(next, words.get(image + 2).and_then(|w| w.as_deref())).is_some()
        || wrappers::find(name).is_some()
        || is_python(name);
    if !command {
        return None;
    }
    Some(match run_of(&words[image + 1..], ctx).target {
        Target::Argv { start, binary } => Target::Argv { start: image + 1 + start, binary },
        Target::Script(s) => Target::Script(image + 1 + s),
        Target::None => Target::None,
    })
}

/// The value of `--entrypoint` among a runtime's options, if given.
fn entrypoint_option<W: Deref<Target = str>>(options: &[Option<W>]) -> Option<String> {
    let mut found = None;
    for (k, w) in options.iter().enumerate() {
        let Some(t) = w.as_deref() else { continue };
        if let Some(v) = t.strip_prefix("--entrypoint=") {
            found = Some(v.to_string());
        } else if t == "--entrypoint" {
            found = Some(options.get(k + 1).and_then(|w| w.as_deref()).unwrap_or_default().to_string());
        }
    }
    found
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
pub(crate) fn entrypoint_argv(
    tag: &str,
    first: Option<&str>,
    ctx: &ScanCtx<'_>,
) -> Option<(usize, Option<Arc<Binary>>)> {
    match ctx.commands.image_entrypoint(tag, first) {
        Some((Invocation::Foreign, _)) => None,
        Some((Invocation::Engine { scope, .. }, took)) => {
            let positionals = ctx.commands.image_positionals(tag);
            let ignored_positional = ctx.commands.image_ignored_positional(tag);
            let binary = (scope.is_some() || positionals.is_some()).then(|| {
                let command = format!("image :{tag}");
                Arc::new(Binary { command, scope, positionals, ignored_positional, ..Binary::default() })
            });
            Some((took, binary))
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
    if is_shell(&first.text) {
        let words: Vec<&str> = items.iter().map(|i| i.text.as_str()).collect();
        return shell_script(&words).is_some_and(|s| ctx.commands.mentioned_in(&items[s].text));
    }
    let named = |t: &str| ctx.commands.is_known(command_name(t));
    named(&first.text) || items.iter().skip(1).any(|i| named(&i.text))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn module(line: &str) -> Option<(usize, String)> {
        let words: Vec<Option<String>> = line.split(' ').map(|w| Some(w.to_string())).collect();
        python_module(&words, 1)
    }

    #[test]
    fn a_python_command_line_runs_the_module_after_m() {
        let m = |i: usize, s: &str| Some((i, s.to_string()));
        assert_eq!(module("python3 -m vllm.x --port 1"), m(2, "vllm.x"));
        assert_eq!(module("python -u -X dev -W error -m vllm.x"), m(7, "vllm.x"));
        assert_eq!(module("python3 -OO -mvllm.x"), m(2, "vllm.x"));
        assert_eq!(module("python3 -um vllm.x"), m(2, "vllm.x"), "bundled letters");
        assert_eq!(module("python3 -c print(1) -m vllm.x"), None, "-c runs a command");
        assert_eq!(module("python3 serve.py -m vllm.x"), None, "a script runs");
        assert!(is_python("python3.12") && is_python("python") && !is_python("pythonista"));
    }
}
