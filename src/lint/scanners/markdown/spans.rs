//! Inline code spans of a runbook: a span that starts an engine command
//! line is read as shell; a lone `--flag value`, a `KEY=value` and a metric
//! name are read as such; a span that opens a list item or a table row
//! documents an option and is judged by name only.

use crate::lint::refs::{FlagSite, Ref, Value};
use crate::lint::scanners::{env, shell, Scan, ScanCtx};
use crate::lint::span::{LineIndex, Span};

use super::blocks::notation;

pub(super) fn inline_code(code: &str, at: usize, text: &str, idx: &LineIndex, ctx: &ScanCtx<'_>, out: &mut Scan) {
    let span = |s: usize, e: usize| idx.span(text, at + s, at + e);
    let trimmed = code.trim_start();
    let lead = code.len() - trimmed.len();
    let is_env = crate::lint::pairing::split_at_equals(trimmed).is_some_and(|(k, _)| {
        !k.is_empty() && k.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    });
    if is_env {
        env::scan_text(code, &span, ctx, out);
        return;
    }
    if trimmed.starts_with("--") {
        loose_flag(trimmed, lead, &span, ctx, out);
    } else if first_word(trimmed).is_some_and(|w| could_run_engine(w, ctx)) {
        let first = out.refs.len();
        shell::scan(&notation(code), &span, ctx, out);
        // `llama-server -m` in a sentence names an option of the binary; it
        // is not a command line that ends without the value.
        if trimmed.split_whitespace().count() <= 2 {
            for r in &mut out.refs[first..] {
                if let Ref::Flag { gap, .. } = r {
                    *gap = None;
                }
            }
        }
    }
    ctx.metrics.scan(code, &span, &mut out.refs);
}

/// The first word of a text split at white space, as `split_whitespace`
/// finds it, by bytes while they are ASCII (a span is usually one long
/// metric name or a short command line).
pub(super) fn first_word(text: &str) -> Option<&str> {
    let b = text.as_bytes();
    // ASCII white space as `char::is_whitespace` has it (with the vertical tab).
    let space = |c: u8| c.is_ascii_whitespace() || c == 0x0b;
    let start = b.iter().position(|c| !space(*c))?;
    match b[start..].iter().position(|c| space(*c) || !c.is_ascii()) {
        _ if !b[start].is_ascii() => text.split_whitespace().next(),
        None => Some(&text[start..]),
        Some(n) if b[start + n].is_ascii() => Some(&text[start..start + n]),
        // Non-ASCII: Unicode decides what is white space.
        Some(_) => text.split_whitespace().next(),
    }
}

/// A code span that opens a list item or a table cell documenting options
/// (`- `--mlock` keeps the model in RAM`, `| `--port N` | … |`): each
/// option it names is judged by name only, and its other words are notation.
pub(super) fn documented_flag(code: &str, at: usize, text: &str, idx: &LineIndex, ctx: &ScanCtx<'_>, out: &mut Scan) {
    let span = |s: usize, e: usize| idx.span(text, at + s, at + e);
    // Words split at white space, commas and bars (`-c, --ctx-size N`,
    // `--chunk | --from-chunk`).
    let mut words: Vec<(usize, &str)> = Vec::new();
    let mut start = None;
    for (i, c) in code.char_indices().chain([(code.len(), ' ')]) {
        match (start, c.is_whitespace() || c == ',' || c == '|') {
            (None, false) => start = Some(i),
            (Some(s), true) => {
                words.push((s, &code[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    for (start, word) in words {
        let name = word.trim_end_matches(['.', ';', ':', ')']);
        // A long option only, as a lone span is read; not a family (`--x-*`).
        if !name.starts_with("--") || name.len() < 3 || name.contains(['*', '<', '{', '[', '=']) {
            continue;
        }
        out.refs.push(Ref::Flag {
            name: name.to_string(),
            span: span(start, start + name.len()),
            value: None,
            site: FlagSite::Loose,
            binary: None,
            joined: false,
            gap: None,
        });
    }
    ctx.metrics.scan(code, &span, &mut out.refs);
}

/// True when an inline span's first word may start an engine command line
/// (an engine binary, a wrapper or runtime that could run one): only such
/// spans are worth a shell parse.
pub(super) fn could_run_engine(first: &str, ctx: &ScanCtx<'_>) -> bool {
    let w = first.trim_start_matches(['$', '%', ' ']);
    // Its last path segment (as `rsplit('/')` gives it), found by bytes.
    let w = &w[memchr::memrchr(b'/', w.as_bytes()).map_or(0, |i| i + 1)..];
    w.is_empty() || crate::lint::scanners::invocation::may_run_engine(w, ctx)
}

/// `--checkpoint-policy floor`, `--prefill-interleave N`, `--checkpoint-slots 20 [auto]`.
pub(super) fn loose_flag(
    code: &str,
    lead: usize,
    span: &dyn Fn(usize, usize) -> Span,
    ctx: &ScanCtx<'_>,
    out: &mut Scan,
) {
    let mut tokens = code.split_whitespace().map(|t| {
        let start = t.as_ptr() as usize - code.as_ptr() as usize + lead;
        (t, start)
    });
    let Some((first, fs)) = tokens.next() else { return };
    let (name, inline_value) = match first.split_once('=') {
        Some((n, v)) => (n, Some((v, fs + n.len() + 1))),
        None => (first, None),
    };
    // `--temp, --temperature N` and `--chunk | --from-chunk` list spellings
    // of one option, as help tables do: no value is given.
    let listing = first.ends_with(',') || code.split_whitespace().nth(1) == Some("|");
    let name = name.trim_end_matches([',', '.', ';', ':', ')']);
    // `--spec-ngram-*-size-n` names a family, not a flag.
    if name.contains(['*', '<', '{', '[']) {
        return;
    }
    // Prose is not an argv: a word that starts with `-` is never a value here.
    // An unknown flag's next word is kept too: a value makes a flag of the
    // engine's families worth judging (it is never judged as a value).
    let value = match inline_value {
        Some((v, vs)) => Some((v, vs)),
        None if !listing && (ctx.takes_value)(name).is_none_or(|n| n > 0) => {
            tokens.next().filter(|(t, _)| !t.starts_with('-') && *t != "|")
        }
        None => None,
    };
    out.refs.push(Ref::Flag {
        name: name.to_string(),
        span: span(fs, fs + name.len()),
        value: value.map(|(v, vs)| Value { text: Some(v.to_string()), span: span(vs, vs + v.len()), var: None }),
        site: FlagSite::Loose,
        binary: None,
        joined: inline_value.is_some(),
        gap: None,
    });
}
