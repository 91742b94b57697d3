//! Shell: serve scripts and shell code blocks, read by a fast reader of
//! simple shell (`simple`) or else with tree-sitter-bash (`full`).
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

use super::invocation::{engine_argv_start, may_run_engine};
use super::{Scan, ScanCtx};
use crate::lint::refs::{argv_refs, argv_refs_open, Binary, Ref, Word};
use crate::lint::span::Span;

/// Scans shell code. `span` maps a byte range of `src` to a span in the file.
/// Simple command lines are read by a fast reader; the rest by tree-sitter.
pub fn scan(src: &str, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan) {
    // Only a command named as the engine, a wrapper or a runtime can run it.
    let wanted = |name: &str| may_run_engine(name, ctx);
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
                // The array may give the last flag its value.
                argv_refs_open(&segment, ctx.takes_value, ctx.argv, binary.as_ref(), span, &mut out.refs);
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
