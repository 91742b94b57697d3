//! An argv given as items (see [`Item`]) judged as the engine's: when its
//! words name the engine (behind any wrappers), or when the container image
//! that runs them is the engine's and its entrypoint takes them. `sh -c
//! SCRIPT` reads the script as shell, each place still in the file.

use super::invocation::{
    basename, engine_argv_start, engine_image, entrypoint_argv, is_shell, may_run_engine, shell_script,
};
use super::items::Item;
use super::shell::{self, words::Part};
use super::{Scan, ScanCtx};
use crate::lint::refs::{argv_refs, Word};
use crate::lint::span::Span;

/// Judges an argv given as items. `image` is the container image that runs
/// it, when the format says: an engine image's entrypoint takes the items as
/// its arguments (unless they name a command themselves). `sh -c SCRIPT`
/// reads the script as shell. `file` is the whole file's text (the items'
/// places are in it); `span` maps its byte ranges.
pub(crate) fn scan_items(
    items: &[Item],
    image: Option<&str>,
    file: &str,
    span: &dyn Fn(usize, usize) -> Span,
    ctx: &ScanCtx<'_>,
    out: &mut Scan,
) {
    let Some(first) = items.first() else { return };
    // `sh -c "radiance …"`: the script is shell, read in place.
    if is_shell(basename(&first.text)) {
        let texts: Vec<&str> = items.iter().map(|i| i.text.as_str()).collect();
        if let Some(script) = shell_script(&texts).and_then(|s| items.get(s)) {
            {
                let raw = file.get(script.at.clone()).unwrap_or("");
                // Read in place when the file holds the script as written;
                // else every place points at the script's start.
                let base = script.at.start;
                if raw == script.text {
                    shell::scan(&script.text, &|s, e| span(base + s, base + e), ctx, out);
                } else if let Some(lines) = line_map(&script.text, raw) {
                    // A block scalar: the same lines, indented.
                    let place = |s: usize| {
                        let i = lines.partition_point(|(a, _)| *a <= s).saturating_sub(1);
                        lines.get(i).map_or(base, |(a, r)| base + r + s.saturating_sub(*a))
                    };
                    shell::scan(&script.text, &|s, e| span(place(s), place(e).max(place(s))), ctx, out);
                } else {
                    shell::scan(&script.text, &|_, _| span(base, base), ctx, out);
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
    let names_command = parts[0].name(file).is_some_and(|n| may_run_engine(basename(&n), ctx));
    let start = match image.and_then(|i| engine_image(i, ctx)) {
        // The items name a command themselves (`radiance …`, `nice -n 5 radiance …`).
        _ if names_command => engine_argv_start(&parts, file, ctx),
        // An engine image: its entrypoint, or a variant's, takes the items.
        Some(tag) => entrypoint_argv(tag, ctx),
        None => None,
    };
    let Some((start, binary)) = start else { return };
    let words: Vec<&Word<'_>> = parts[start..].iter().map(|p| &p.word).collect();
    argv_refs(&words, ctx.takes_value, ctx.argv, binary.as_ref(), span, &mut out.refs);
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
