//! An argv given as items (see [`Item`]) judged as the engine's: when its
//! words name the engine (behind any wrappers), or when the container image
//! that runs them is the engine's and its entrypoint takes them. `sh -c
//! SCRIPT` reads the script as shell, each place still in the file.

use super::invocation::{
    basename, engine_argv_start, engine_image, entrypoint_argv, is_shell, may_run_engine, shell_script,
};
use super::items::{place_map, Item};
use super::shell;
use super::words::Part;
use super::{Scan, ScanCtx};
use crate::lint::pairing::{argv_refs, argv_refs_open, Word};
use crate::lint::refs::Ref;
use crate::lint::span::Span;

/// `${NAME}`, `${NAME:-default}` or `${NAME-default}` read whole (compose's
/// interpolation, a shell's): the variable and its default, when it has one
/// that is a literal word.
fn braced_default(text: &str) -> Option<(String, Option<String>)> {
    let inner = text.strip_prefix("${")?.strip_suffix('}')?;
    let end = inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(inner.len());
    let (name, op) = inner.split_at(end);
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return None;
    }
    if op.is_empty() {
        return Some((name.to_string(), None));
    }
    let default = [":-", "-"].iter().find_map(|o| op.strip_prefix(o))?;
    let literal = !default.is_empty() && !default.contains(['$', '{', '}']) && !default.contains(char::is_whitespace);
    Some((name.to_string(), literal.then(|| default.to_string())))
}

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
    scan(items, image, file, span, ctx, out, true);
}

/// [`scan_items`] on an argv that more words may follow where it is run (a
/// Dockerfile's exec-form `ENTRYPOINT` without a `CMD`: `docker run IMAGE
/// ARGS` appends them): its last option may take its value from them.
pub(crate) fn scan_items_open(
    items: &[Item],
    image: Option<&str>,
    file: &str,
    span: &dyn Fn(usize, usize) -> Span,
    ctx: &ScanCtx<'_>,
    out: &mut Scan,
) {
    scan(items, image, file, span, ctx, out, false);
}

fn scan(
    items: &[Item],
    image: Option<&str>,
    file: &str,
    span: &dyn Fn(usize, usize) -> Span,
    ctx: &ScanCtx<'_>,
    out: &mut Scan,
    closed: bool,
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
                } else if let Some(map) = place_map(&script.text, raw) {
                    // A block scalar: the same words, folded or indented.
                    let place = |s: usize| base + map.get(s).copied().unwrap_or(0);
                    let end = |s: usize, e: usize| if e > s { place(e - 1) + 1 } else { place(s) };
                    shell::scan(&script.text, &|s, e| span(place(s), end(s, e)), ctx, out);
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
            // `$(VAR)` (Kubernetes) and `${VAR}` (compose) are filled in later;
            // `${VAR:-default}` is judged by its default, as in a shell.
            let dynamic = i.text.contains("$(") || i.text.contains("${");
            let text = (!dynamic || i.text.starts_with("--")).then(|| std::borrow::Cow::Owned(i.text.clone()));
            let value = i.text.split_once('=').filter(|_| i.text.starts_with("--")).map_or(i.text.as_str(), |(_, v)| v);
            let (var, default) = braced_default(value).map_or((None, None), |(n, d)| (Some(n), d));
            Part { word: Word { text, var, default, start: i.at.start, end: i.at.end }, named: true, array: None }
        })
        .collect();
    let names_command = parts[0].name(file).is_some_and(|n| may_run_engine(basename(&n), ctx));
    let start = match image.and_then(|i| engine_image(i, ctx)) {
        // The items name a command themselves (`radiance …`, `nice -n 5 radiance …`).
        _ if names_command => engine_argv_start(&parts, file, ctx),
        // An engine image: its entrypoint, or a variant's, takes the items.
        Some(tag) => entrypoint_argv(tag, parts[0].word.text.as_deref(), ctx),
        None => None,
    };
    let Some((start, binary)) = start else { return };
    // An old name of a renamed binary (`["./server", "--host", …]`) is that
    // binary only when given options, as on a shell line; then it is named.
    if let Some(b) = binary.as_ref().filter(|b| b.renamed.is_some()) {
        let given_options = parts[start..].iter().any(|p| p.word.text.as_deref().is_some_and(|t| t.starts_with('-')));
        if !given_options {
            return;
        }
        if let Some(p) = start.checked_sub(1).and_then(|i| parts.get(i)) {
            out.refs.push(Ref::Program { span: span(p.word.start, p.word.end), binary: b.clone() });
        }
    }
    let words: Vec<&Word<'_>> = parts[start..].iter().map(|p| &p.word).collect();
    let pair = if closed { argv_refs } else { argv_refs_open };
    pair(&words, ctx.takes_value, ctx.argv, binary.as_ref(), span, &mut out.refs);
}

#[cfg(test)]
mod tests {
    use super::braced_default;

    #[test]
    fn a_braced_expansion_gives_its_literal_default() {
        let d = |t: &str| braced_default(t).map(|(n, d)| (n, d.unwrap_or_default()));
        assert_eq!(d("${GPU:-90%}"), Some(("GPU".into(), "90%".into())));
        assert_eq!(d("${GPU-0.9}"), Some(("GPU".into(), "0.9".into())));
        assert_eq!(d("${MODEL}"), Some(("MODEL".into(), String::new())));
        // A default read from another variable, or several words, is not a value.
        assert_eq!(d("${A:-$B}"), Some(("A".into(), String::new())));
        assert_eq!(d("${A:-x y}"), Some(("A".into(), String::new())));
        // `:+` and `:?` give no default; a word around the expansion is no expansion read whole.
        assert_eq!(d("${A:+--x}"), None);
        assert_eq!(d("${A:?unset}"), None);
        assert_eq!(d("/m/${A:-x}"), None);
        assert_eq!(d("${1:-x}"), None);
    }
}
