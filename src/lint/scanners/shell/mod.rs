//! Shell: serve scripts and shell code blocks, read by a fast reader of
//! simple shell (`simple`) or else with tree-sitter-bash (`full`).
//!
//! Only the engine's argv is judged: words after an engine command (behind
//! `exec`, `sudo`, `env`, `nohup`, …), after an engine image in `podman run`,
//! after a serve script the config names, and the arrays (`args=(…)`,
//! `args+=(…)`, `set -- …` for `"$@"`) expanded into one of those. The argv
//! may be built indirectly, as serve scripts build it (`script`): a binary
//! held in a variable, a string split into words (`$EXTRA_ARGS`), a shell
//! function that wraps the engine, a script run by `sh -c '…'`. Flags of
//! every other command are not the engine's and are left alone.

mod full;
mod script;
mod simple;

use std::sync::Arc;

use super::engine_matcher::command_name;
use super::invocation::{is_runtime, may_run_engine, run_of, Target};
use super::words;
use super::{Scan, ScanCtx};
use crate::lint::pairing::{argv_refs, argv_refs_open, Word};
use crate::lint::refs::{Binary, Ref};
use crate::lint::span::Span;

/// How deep `sh -c '… sh -c "…"'` is followed.
const MAX_DEPTH: usize = 4;

/// Scans shell code. `span` maps a byte range of `src` to a span in the file.
/// Simple command lines are read by a fast reader; the rest by tree-sitter.
pub fn scan(src: &str, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan) {
    scan_at(src, span, ctx, out, 0);
}

fn scan_at(src: &str, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan, depth: usize) {
    // Only a command named as the engine, a wrapper, a runtime, a variable
    // (which may hold the binary) or `set` (which sets `"$@"`) can run it.
    let wanted = |name: &str| may_run_engine(command_name(name), ctx) || name.starts_with('$') || name == "set";
    let read = match simple::simple_commands(src, &wanted) {
        Some(c) => c,
        None => {
            let Some(full) = full::full_commands(src) else { return };
            full
        }
    };
    let s = script::Script::new(src, read, ctx);
    // Only this text's references are read for env mappings below.
    let first_ref = out.refs.len();
    let mut used_arrays: Vec<(String, Option<Arc<Binary>>)> = Vec::new();
    // The engine runs here, in the shell's own environment (not a container's).
    let mut runs_here = false;
    for command in s.read.commands.iter().filter(|c| s.may_run(c)) {
        // `exec $CMD`, where the script built CMD as a command line.
        let expanded = s.expand_command(&command.parts);
        let parts = expanded.as_ref().unwrap_or(&command.parts);
        let words = s.names(parts);
        // A call of a function that wraps the engine: its words are the engine's.
        let wrapped = words.first().and_then(|n| n.as_deref()).and_then(|n| s.functions.get(n).cloned());
        let run = run_of(&words, ctx);
        // The refs of an engine image run with a tag are judged by that
        // version (a section of its own, as a compose service's are).
        let (pin, refs_before) = (run.pin.clone(), out.refs.len());
        let (start, binary) = match (wrapped, run.target) {
            (Some(binary), _) => (1, binary),
            (None, Target::Argv { start, binary }) => (start, binary),
            (None, Target::Script(at)) => {
                if let Some(p) = parts.get(at).filter(|_| depth < MAX_DEPTH) {
                    let (inner, map) = words::unquote_map(src.get(p.word.start..p.word.end).unwrap_or(""));
                    if ctx.commands.mentioned_in(&inner) {
                        s.env_refs(&command.assigns, &run.env, parts, span, out);
                        let base = p.word.start;
                        let at = |i: usize| base + if i == 0 { map[0] } else { map[i - 1] + 1 };
                        scan_at(&inner, &|a, b| span(at(a), at(b).max(at(a))), ctx, out, depth + 1);
                    }
                }
                continue;
            }
            (None, Target::None) => continue,
        };
        s.env_refs(&command.assigns, &run.env, parts, span, out);
        runs_here |= !words[..start.min(words.len())].iter().flatten().any(|w| is_runtime(command_name(w)));
        // An old name counts as the renamed binary only when given options
        // (`./server --port 1`): alone, `tools/server` is a folder's name.
        let given_options =
            || parts[start..].iter().any(|p| p.word.text.as_deref().is_some_and(|t| t.starts_with('-')));
        if binary.as_ref().is_some_and(|b| b.renamed.is_some()) && !given_options() {
            continue;
        }
        if let Some(b) = binary.as_ref().filter(|b| b.renamed.is_some()) {
            if let Some(p) = start.checked_sub(1).and_then(|i| parts.get(i)) {
                out.refs.push(Ref::Program { span: span(p.word.start, p.word.end), binary: b.clone() });
            }
        }
        // A `\ ` meant as a continuation ends the argv where it stands.
        let end = match broken_continuation(src, &parts[start..]) {
            Some((k, next)) => {
                let p = &parts[start + k];
                let at = span(p.word.start, p.word.end);
                out.refs.push(Ref::Broken { span: at, next: next.map(|n| at.line + n) });
                start + k
            }
            None => parts.len(),
        };
        // Literal words and array expansions, each segment paired on its own.
        let mut segment: Vec<Word<'_>> = Vec::with_capacity(end - start);
        for p in &parts[start..end] {
            // A word without `$` is itself: no array, no split, nothing unset.
            if p.array.is_none() && !src.get(p.word.start..p.word.end).is_some_and(|raw| raw.contains('$')) {
                segment.push(p.word.clone());
                continue;
            }
            let array = p.array.clone().or_else(|| s.positional_array(p, command));
            if let Some(name) = array {
                // The array may give the last flag its value.
                argv_refs_open(&segment, ctx.takes_value, ctx.argv, binary.as_ref(), span, &mut out.refs);
                segment.clear();
                if !used_arrays.iter().any(|(n, _)| n == &name) {
                    used_arrays.push((name, binary.clone()));
                }
                continue;
            }
            match s.split(p) {
                script::Split::InPlace(words) => segment.extend(words),
                script::Split::Each(name) => {
                    // So may the words of a string split in its place.
                    argv_refs_open(&segment, ctx.takes_value, ctx.argv, binary.as_ref(), span, &mut out.refs);
                    segment.clear();
                    for words in s.split_each(&name) {
                        argv_refs(&words, ctx.takes_value, ctx.argv, binary.as_ref(), span, &mut out.refs);
                    }
                }
                script::Split::No => {
                    if let Some(var) = s.unset_options(p) {
                        if !out.env_argv.iter().any(|(v, _)| *v == var) {
                            out.env_argv.push((var, binary.clone()));
                        }
                    }
                    segment.push(p.word.clone());
                }
            }
        }
        argv_refs(&segment, ctx.takes_value, ctx.argv, binary.as_ref(), span, &mut out.refs);
        if pin.is_some() && out.refs.len() > refs_before {
            out.sections.push(super::Section { refs: refs_before..out.refs.len(), pin });
        }
    }
    if runs_here {
        s.export_refs(span, out);
    }
    for (name, binary) in used_arrays {
        for literal in s.arrays(&name) {
            argv_refs_open(literal, ctx.takes_value, ctx.argv, binary.as_ref(), span, &mut out.refs);
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

/// The first word of an argv that is a `\` escaping a space with only a
/// comment or blanks after it on its line (`--port 1 \ # note`): its
/// index, and how many lines on the next non-blank line is, if one follows.
fn broken_continuation(src: &str, parts: &[crate::lint::scanners::words::Part<'_>]) -> Option<(usize, Option<usize>)> {
    let k = parts.iter().position(|p| {
        let raw = src.get(p.word.start..p.word.end).unwrap_or("");
        raw.starts_with("\\ ") || raw.starts_with("\\\t")
    })?;
    let from = parts[k].word.start + 2;
    let rest = src.get(from..).unwrap_or("");
    let (line, after) = rest.split_once('\n').unwrap_or((rest, ""));
    let line = line.trim();
    if !(line.is_empty() || line.starts_with('#')) {
        return None;
    }
    let next = after.lines().take_while(|l| l.trim().is_empty()).count();
    let follows = after.lines().nth(next).is_some();
    Some((k, follows.then_some(next + 1)))
}

/// The values of env keys a serve script splits into the engine's argv
/// (`radiance $RADIANCE_ARGS`): each value on one line is split on white
/// space and judged as that argv, each word at its place in the value.
pub fn env_value_argv(
    keys: &std::collections::HashMap<String, Option<Arc<Binary>>>,
    takes_value: crate::lint::pairing::TakesValue<'_>,
    argv: crate::lint::pairing::ArgvRules,
    refs: &mut Vec<Ref>,
) {
    let mut found = Vec::new();
    for r in refs.iter() {
        let Ref::Env { key, value: Some(v), .. } = r else { continue };
        let (Some(binary), Some(text)) = (keys.get(key), v.text.as_deref()) else { continue };
        if v.span.line != v.span.end_line || text.contains('$') {
            continue;
        }
        let mut words = Vec::new();
        let mut at = 0;
        for w in text.split(|c: char| c.is_whitespace()) {
            if !w.is_empty() {
                let text = Some(std::borrow::Cow::Owned(w.to_string()));
                words.push(Word { text, var: None, default: None, start: at, end: at + w.len() });
            }
            at += w.len() + 1;
        }
        let line = v.span.line;
        let col = |i: usize| v.span.col + text.get(..i).map_or(i, |s| s.chars().count());
        let span = |s: usize, e: usize| Span { line, col: col(s), end_line: line, end_col: col(e) };
        argv_refs(&words, takes_value, argv, binary.as_ref(), &span, &mut found);
    }
    refs.extend(found);
}
