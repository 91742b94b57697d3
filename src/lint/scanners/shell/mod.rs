//! Shell: serve scripts and shell code blocks, read with tree-sitter-bash.
//!
//! Only the engine's argv is judged: words after an engine command (behind
//! `exec`, `sudo`, `env`, `nohup`, …), after an engine image in `podman run`,
//! after a serve script the config names, and the arrays (`args=(…)`,
//! `args+=(…)`) expanded into one of those. Flags of every other command are
//! not the engine's and are left alone.

mod full;
mod simple;
pub(super) mod words;

use std::sync::Arc;

use self::words::Part;
use super::{Scan, ScanCtx};
use crate::catalog::profile::Invocation;
use crate::lint::refs::{argv_refs, Binary, Ref, Word};
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
/// True for a wrapper or container runtime: a command that may run the engine.
pub fn runs_commands(word: &str) -> bool {
    WRAPPERS.iter().any(|(w, _, _)| *w == word) || RUNTIMES.contains(&word)
}

/// Container runtimes whose `run` takes an image and then the engine's argv.
const RUNTIMES: &[&str] = &["podman", "docker", "nerdctl"];

fn basename(s: &str) -> &str {
    s.rsplit('/').next().unwrap_or(s)
}

/// Scans shell code. `span` maps a byte range of `src` to a span in the file.
/// Simple command lines are read by a fast reader; the rest by tree-sitter.
pub fn scan(src: &str, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan) {
    // Only a command named as the engine, a wrapper or a runtime can run it.
    let wanted = |name: &str| ctx.commands.is_known(name) || runs_commands(name);
    let (commands, arrays) = match simple::simple_commands(src, &wanted) {
        Some(c) => c,
        None => {
            let Some(full) = full::full_commands(src) else { return };
            full
        }
    };
    // Only this text's references are read for env mappings below.
    let first_ref = out.refs.len();
    let mut used_arrays: Vec<(String, Option<Arc<Binary>>)> = Vec::new();
    for parts in &commands {
        let Some((start, binary)) = engine_argv_start(parts, src, ctx) else { continue };
        // Literal words and array expansions, each segment paired on its own.
        let mut segment: Vec<&Word<'_>> = Vec::new();
        for p in &parts[start..] {
            if let Some(name) = &p.array {
                argv_refs(&segment, ctx.takes_value, ctx.argv, binary.as_ref(), span, &mut out.refs);
                segment.clear();
                if !used_arrays.iter().any(|(n, _)| n == name) {
                    used_arrays.push((name.clone(), binary.clone()));
                }
                continue;
            }
            segment.push(&p.word);
        }
        argv_refs(&segment, ctx.takes_value, ctx.argv, binary.as_ref(), span, &mut out.refs);
    }
    for (name, binary) in used_arrays {
        for literal in arrays.get(&name).into_iter().flatten() {
            argv_refs(literal, ctx.takes_value, ctx.argv, binary.as_ref(), span, &mut out.refs);
        }
    }
    for r in &out.refs[first_ref..] {
        if let Ref::Flag { name, value: Some(v), .. } = r {
            if let Some(var) = &v.var {
                if !out.env_flags.iter().any(|(a, b)| a == var && b == name) {
                    out.env_flags.push((var.clone(), name.clone()));
                }
            }
        }
    }
}

/// Where the engine's argv starts among a command's parts, and which binary
/// it is, if this command runs the engine.
fn engine_argv_start(parts: &[Part<'_>], src: &str, ctx: &ScanCtx<'_>) -> Option<(usize, Option<Arc<Binary>>)> {
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

/// One word of an argv written in a structured file (a YAML list item, an
/// exec-form array element, a word of a unit's command line): its text and
/// where the text is in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub text: String,
    pub at: std::ops::Range<usize>,
}

/// An engine image reference (`ghcr.io/acme/radiance:1.8.1`): the tag when
/// the image is the engine's (an empty tag for none).
pub fn engine_image<'a>(image: &'a str, ctx: &ScanCtx<'_>) -> Option<&'a str> {
    let last = basename(image.split('@').next().unwrap_or(image));
    let (repo, tag) = last.split_once(':').unwrap_or((last, ""));
    ctx.commands.images().iter().any(|e| e == repo).then_some(tag)
}

/// Where each line of `script` sits in `raw`, the text it was read from (a
/// YAML block scalar holds the same lines, indented): (offset in `script`,
/// offset in `raw`) per non-empty line. None when a line is not there as
/// written (a folded scalar, escapes).
fn line_map(script: &str, raw: &str) -> Option<Vec<(usize, usize)>> {
    let mut out = Vec::new();
    let (mut from, mut at) = (0, 0);
    for line in script.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        if !body.is_empty() {
            let found = from + raw.get(from..)?.find(body)?;
            out.push((at, found));
            from = found + body.len();
        }
        at += line.len();
    }
    Some(out)
}

/// True when a container or service runs the engine: its image is the
/// engine's (and nothing overrides its entrypoint), or its command names the
/// engine, directly or in a `sh -c` script.
pub fn runs_engine(items: &[Item], image: Option<&str>, ctx: &ScanCtx<'_>) -> bool {
    if image.is_some_and(|i| engine_image(i, ctx).is_some()) {
        return true;
    }
    let Some(first) = items.first() else { return false };
    let name = basename(&first.text);
    if matches!(name, "sh" | "bash" | "dash" | "zsh" | "ash") {
        return items.get(2).is_some_and(|script| ctx.commands.mentioned_in(&script.text));
    }
    ctx.commands.is_known(name) || items.iter().skip(1).any(|i| ctx.commands.is_known(basename(&i.text)))
}

/// Judges an argv given as items. `image` is the container image that runs
/// it, when the format says: an engine image's entrypoint takes the items as
/// its arguments (unless they name a command themselves). `sh -c SCRIPT`
/// reads the script as shell. `file` is the whole file's text (the items'
/// places are in it); `span` maps its byte ranges.
pub fn scan_items(
    items: &[Item],
    image: Option<&str>,
    file: &str,
    span: &dyn Fn(usize, usize) -> Span,
    ctx: &ScanCtx<'_>,
    out: &mut Scan,
) {
    let Some(first) = items.first() else { return };
    // `sh -c "radiance …"`: the script is shell, read in place.
    if matches!(basename(&first.text), "sh" | "bash" | "dash" | "zsh" | "ash") {
        if let (Some(flag), Some(script)) = (items.get(1), items.get(2)) {
            if flag.text == "-c" || flag.text == "-ec" || flag.text == "-ce" {
                let raw = file.get(script.at.clone()).unwrap_or("");
                // Read in place when the file holds the script as written;
                // else every place points at the script's start.
                let base = script.at.start;
                if raw == script.text {
                    scan(&script.text, &|s, e| span(base + s, base + e), ctx, out);
                } else if let Some(lines) = line_map(&script.text, raw) {
                    // A block scalar: the same lines, indented.
                    let place = |s: usize| {
                        let i = lines.partition_point(|(a, _)| *a <= s).saturating_sub(1);
                        lines.get(i).map_or(base, |(a, r)| base + r + s.saturating_sub(*a))
                    };
                    scan(&script.text, &|s, e| span(place(s), place(e).max(place(s))), ctx, out);
                } else {
                    scan(&script.text, &|_, _| span(base, base), ctx, out);
                }
            }
        }
        return;
    }
    let parts: Vec<Part<'_>> = items
        .iter()
        .map(|i| {
            // `$(VAR)` (Kubernetes) and `${VAR}` (compose) are filled in later.
            let dynamic = i.text.contains("$(") || i.text.contains("${");
            let text = (!dynamic || i.text.starts_with("--")).then(|| std::borrow::Cow::Owned(i.text.clone()));
            Part {
                word: Word { text, var: None, default: None, start: i.at.start, end: i.at.end },
                named: true,
                array: None,
            }
        })
        .collect();
    let names_command = parts[0].name(file).is_some_and(|n| {
        let n = basename(&n);
        ctx.commands.is_known(n) || runs_commands(n)
    });
    let start = match image.and_then(|i| engine_image(i, ctx)) {
        // The items name a command themselves (`radiance …`, `nice -n 5 radiance …`).
        _ if names_command => engine_argv_start(&parts, file, ctx),
        // An engine image: its entrypoint, or a variant's, takes the items.
        Some(tag) => match ctx.commands.image_entrypoint(tag) {
            Some(Invocation::Foreign) => None,
            Some(Invocation::Engine { scope, .. }) => {
                let binary = scope.map(|s| Arc::new(Binary { command: format!("image :{tag}"), scope: Some(s) }));
                Some((0, binary))
            }
            None => Some((0, None)),
        },
        None => None,
    };
    let Some((start, binary)) = start else { return };
    let words: Vec<&Word<'_>> = parts[start..].iter().map(|p| &p.word).collect();
    argv_refs(&words, ctx.takes_value, ctx.argv, binary.as_ref(), span, &mut out.refs);
}

/// Splits a command line the way a unit file or a compose string is split:
/// on white space, with `"…"` and `'…'` quoting and `\` escapes. Each word's
/// place is its text's place in `src` from `base` (inside the quotes of a
/// word that is quoted whole).
pub fn split_words(src: &str, base: usize) -> Vec<Item> {
    let mut out = Vec::new();
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() {
            break;
        }
        let start = i;
        let mut text = String::new();
        let mut quote: Option<u8> = None;
        while i < b.len() {
            let c = b[i];
            match (quote, c) {
                (None, c) if c.is_ascii_whitespace() => break,
                (None, b'"' | b'\'') => quote = Some(c),
                (Some(q), c) if c == q => quote = None,
                (q, b'\\') if q != Some(b'\'') && i + 1 < b.len() => {
                    i += 1;
                    let ch = src[i..].chars().next().unwrap_or(' ');
                    text.push(ch);
                    i += ch.len_utf8();
                    continue;
                }
                _ => {
                    let ch = src[i..].chars().next().unwrap_or(' ');
                    text.push(ch);
                    i += ch.len_utf8();
                    continue;
                }
            }
            i += 1;
        }
        let raw = &src[start..i];
        // A word quoted whole points inside its quotes.
        let quoted_whole = raw.len() >= 2
            && matches!(raw.as_bytes()[0], b'"' | b'\'')
            && raw.as_bytes()[raw.len() - 1] == raw.as_bytes()[0];
        let at = if quoted_whole { base + start + 1..base + i - 1 } else { base + start..base + i };
        out.push(Item { text, at });
    }
    out
}

#[cfg(test)]
mod items_tests {
    use super::*;

    #[test]
    fn words_split_like_a_unit_file() {
        let src = r#"radiance --model "/m/a b" --log-level=warn 'x y' a\ b"#;
        let items = split_words(src, 10);
        let texts: Vec<&str> = items.iter().map(|i| i.text.as_str()).collect();
        assert_eq!(texts, ["radiance", "--model", "/m/a b", "--log-level=warn", "x y", "a b"]);
        assert_eq!(&src[items[2].at.start - 10..items[2].at.end - 10], "/m/a b", "inside the quotes");
    }
}
