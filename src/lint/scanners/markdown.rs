//! Markdown runbooks, read with a real Markdown parser: fenced code blocks
//! (shell, console, env; every language for metric names), inline code spans
//! (`radiance …`, a lone `--flag value`, `KEY=value`), and prose (metric
//! names only — a flag named in a sentence is not an argv).

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use super::{env, shell, Scan, ScanCtx};
use crate::lint::refs::{FlagSite, Ref, Value};
use crate::lint::span::{LineIndex, Span};
use crate::lint::suppress::{self, Suppression};

/// Text gathered from several pieces of the file, with a map back. Pieces
/// that follow each other in the file (a fenced block outside any
/// container, the usual case) are not copied: the text is the file's.
struct Mapped<'t> {
    file: &'t str,
    /// Copied text, once a piece did not follow the one before.
    copied: Option<String>,
    /// (offset in the text, offset in the file) where each piece starts.
    pieces: Vec<(usize, usize)>,
    /// Where the pieces so far start and end in the file (while contiguous).
    start: usize,
    end: usize,
}

impl<'t> Mapped<'t> {
    fn new(file: &'t str) -> Self {
        Mapped { file, copied: None, pieces: Vec::new(), start: 0, end: 0 }
    }

    fn push(&mut self, piece: &str, file_offset: usize) {
        let follows = self.file.get(file_offset..file_offset + piece.len()) == Some(piece);
        match &mut self.copied {
            None if self.pieces.is_empty() && follows => {
                self.start = file_offset;
                self.end = file_offset + piece.len();
            }
            None if follows && file_offset == self.end => self.end += piece.len(),
            None => {
                let mut text = self.file[self.start..self.end].to_string();
                self.pieces.clear();
                if self.end > self.start {
                    self.pieces.push((0, self.start));
                }
                self.pieces.push((text.len(), file_offset));
                text.push_str(piece);
                self.copied = Some(text);
                return;
            }
            Some(text) => {
                self.pieces.push((text.len(), file_offset));
                text.push_str(piece);
                return;
            }
        }
        if self.pieces.is_empty() {
            self.pieces.push((0, file_offset));
        }
    }

    fn text(&self) -> &str {
        self.copied.as_deref().unwrap_or(&self.file[self.start..self.end])
    }

    fn file_offset(&self, o: usize) -> usize {
        if self.copied.is_none() {
            return self.start + o;
        }
        let i = self.pieces.partition_point(|(b, _)| *b <= o).saturating_sub(1);
        self.pieces.get(i).map_or(o, |(b, f)| f + (o - b))
    }
}

/// Blanks every line of a console transcript that is not a command, and the
/// prompts of those that are, keeping byte offsets.
fn console_commands(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut continued = false;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        let lead = body.len() - body.trim_start().len();
        let rest = &body[lead..];
        let prompt = ["$ ", "% "].iter().find(|p| rest.starts_with(**p)).map(|p| p.len());
        if let Some(p) = prompt {
            out.push_str(&" ".repeat(lead + p));
            out.push_str(&rest[p..]);
            continued = rest.ends_with('\\');
        } else if continued {
            out.push_str(body);
            continued = body.ends_with('\\');
        } else {
            out.push_str(&" ".repeat(body.len()));
        }
        if line.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// A shell block with prompts (`$ radiance …`) is a transcript: its
/// commands are the prompted lines; a block with none is all code.
fn prompted_commands(text: &str) -> std::borrow::Cow<'_, str> {
    let prompted = text.lines().any(|l| {
        let t = l.trim_start();
        t.starts_with("$ ") || t.starts_with("% ")
    });
    if prompted {
        std::borrow::Cow::Owned(console_commands(text))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// A runbook's `<model>`, `(N)` and `-np > 1` stand for values; to a shell
/// they are redirections and a subshell, which would cut the command line
/// short. Each is rewritten to the same length, so places hold: `{model}`,
/// `{N}`, `-np {1}` — one word, and a placeholder to the rules. A real
/// redirection (`<in.txt`, `2>&1`, `> log`, `<<EOF`) and `$(…)` are not of
/// those shapes.
fn notation(code: &str) -> std::borrow::Cow<'_, str> {
    let b = code.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let body = |from: usize| b[from..].iter().take_while(|c| !c.is_ascii_whitespace() && !b"<>()".contains(c)).count();
    let word_start = |i: usize| i.checked_sub(1).is_none_or(|p| matches!(b[p], b' ' | b'\t'));
    let word_end = |i: usize| b.get(i).is_none_or(|c| c.is_ascii_whitespace() || matches!(c, b'"' | b'\''));
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        // `<name>`, also inside a word (`<user>/<model>:<tag>`).
        let n = if c == b'<' { body(i + 1) } else { 0 };
        if c == b'<' && n > 0 && b.get(i + 1 + n) == Some(&b'>') {
            let o = out.get_or_insert_with(|| b.to_vec());
            (o[i], o[i + 1 + n]) = (b'{', b'}');
            i += n + 2;
            continue;
        }
        // `(N)` as a word of its own.
        let n = if c == b'(' && word_start(i) { body(i + 1) } else { 0 };
        if n > 0 && b.get(i + 1 + n) == Some(&b')') && word_end(i + 2 + n) {
            let o = out.get_or_insert_with(|| b.to_vec());
            (o[i], o[i + 1 + n]) = (b'{', b'}');
            i += n + 2;
            continue;
        }
        // `> 1`, `<= 4`: a comparison with a number, not a file named `1`.
        let op = usize::from(matches!(next, Some(b'='))) + 1;
        let digits = b.get(i + op + 1..).map_or(0, |r| r.iter().take_while(|d| d.is_ascii_digit()).count());
        let compares = matches!(c, b'<' | b'>') && word_start(i) && b.get(i + op) == Some(&b' ');
        if compares && digits > 0 && word_end(i + op + 1 + digits) {
            let o = out.get_or_insert_with(|| b.to_vec());
            // `{` + the operator's rest + the number + `}`, the same length.
            let mut w = vec![b'{'];
            w.extend_from_slice(&b[i + 1..i + op]);
            w.extend_from_slice(&b[i + op + 1..i + op + 1 + digits]);
            w.push(b'}');
            o[i..i + op + 1 + digits].copy_from_slice(&w);
            i += op + 1 + digits;
            continue;
        }
        i += 1;
    }
    // Only ASCII bytes were rewritten, by ASCII bytes: still UTF-8.
    match out.map(String::from_utf8) {
        Some(Ok(s)) => std::borrow::Cow::Owned(s),
        _ => std::borrow::Cow::Borrowed(code),
    }
}

/// `KEY=value` lines standing alone in a shell block (an env file shown in
/// a runbook) are env lines.
fn env_lines(code: &str, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan) {
    if !code.contains('=') {
        return;
    }
    env::assignment_lines(code, span, ctx, out);
}

pub fn scan(text: &str, ctx: &ScanCtx<'_>, out: &mut Scan) {
    let idx = LineIndex::new(text);
    let file_span = |s: usize, e: usize| idx.span(text, s, e);
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut block: Option<(String, Mapped<'_>)> = None;
    let mut pending: Vec<Suppression> = Vec::new();
    // The blocks open at this event (their ranges), innermost last.
    let mut open: Vec<Range<usize>> = Vec::new();
    let end_line = |at: usize| {
        let (line, col) = idx.position(text, at);
        if col == 1 && line > 1 {
            line - 1
        } else {
            line
        }
    };
    // In a list item or a row's first cell, before anything but a code span.
    let mut entry = false;
    let mut cell = 0usize;
    for (event, range) in Parser::new_ext(text, opts).into_offset_iter() {
        let inline = matches!(event, Event::InlineHtml(_));
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info.split_whitespace().next().unwrap_or("").to_ascii_lowercase(),
                    CodeBlockKind::Indented => String::new(),
                };
                claim(&mut pending, &idx, text, &range, out);
                block = Some((lang, Mapped::new(text)));
                entry = false;
            }
            Event::Text(t) if block.is_some() => {
                if let Some((_, m)) = block.as_mut() {
                    // The event text is the raw content for code blocks.
                    m.push(&t, offset_of(text, &t, &range));
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((lang, m)) = block.take() {
                    code_block(&lang, &m, text, &idx, ctx, out);
                }
            }
            Event::Start(tag) if is_block(&tag) => {
                claim(&mut pending, &idx, text, &range, out);
                open.push(range.clone());
                // A list item that opens with a code span documents the
                // option it names.
                entry |= matches!(tag, Tag::Item);
            }
            Event::End(end) if is_block_end(&end) => drop(open.pop()),
            // So does a table row whose first cell opens with one.
            Event::Start(Tag::TableHead | Tag::TableRow) => cell = 0,
            Event::Start(Tag::TableCell) => {
                entry = cell == 0;
                cell += 1;
            }
            Event::Code(code) => {
                let at = offset_of(text, &code, &range);
                if std::mem::take(&mut entry) && code.trim_start().starts_with("--") {
                    documented_flag(&code, at, text, &idx, ctx, out);
                } else {
                    inline_code(&code, at, text, &idx, ctx, out);
                }
            }
            Event::Text(t) => {
                if !t.trim().is_empty() {
                    entry = false;
                }
                let raw = text.get(range.clone()).unwrap_or("");
                ctx.metrics.scan_prose(raw, &|s, e| file_span(range.start + s, range.start + e), &mut out.refs);
            }
            Event::Html(h) | Event::InlineHtml(h) => {
                let sp = file_span(range.start, range.start + h.trim_end().len());
                if let Some(rules) = suppress::directive(&h) {
                    match open.last().filter(|_| inline) {
                        // Inside a paragraph (a heading, an item): that block.
                        Some(block) => {
                            let (first, last) = (file_span(block.start, block.end).line, end_line(block.end));
                            out.suppressions.push(Suppression::new(rules, sp, first, last.max(first)));
                        }
                        // Until a block follows, it covers the next line.
                        None => pending.push(Suppression::new(rules, sp, sp.end_line + 1, sp.end_line + 1)),
                    }
                } else if let Some(word) = suppress::unknown_directive(&h) {
                    out.suppressions.push(Suppression::unknown(word, sp));
                }
            }
            _ => {}
        }
    }
    out.suppressions.append(&mut pending);
}

/// Where an event's text starts in the file: read off the slice when the
/// parser lends one (the usual case), else found in the event's range.
fn offset_of(text: &str, piece: &str, range: &Range<usize>) -> usize {
    let (base, at) = (text.as_ptr() as usize, piece.as_ptr() as usize);
    if at >= base && at + piece.len() <= base + text.len() {
        return at - base;
    }
    let raw = text.get(range.clone()).unwrap_or("");
    raw.find(piece).map_or(range.start, |i| range.start + i)
}

fn is_block_end(tag: &TagEnd) -> bool {
    matches!(
        tag,
        TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::BlockQuote(_) | TagEnd::List(_) | TagEnd::Item | TagEnd::Table
    )
}

fn is_block(tag: &Tag<'_>) -> bool {
    matches!(tag, Tag::Paragraph | Tag::Heading { .. } | Tag::BlockQuote(_) | Tag::List(_) | Tag::Item | Tag::Table(_))
}

/// A block starting after pending suppressions: they cover the whole block.
fn claim(pending: &mut Vec<Suppression>, idx: &LineIndex, text: &str, range: &Range<usize>, out: &mut Scan) {
    if pending.is_empty() {
        return;
    }
    let (first, _) = idx.position(text, range.start);
    let (last, col) = idx.position(text, range.end);
    // A range ending at the start of a line ends on the line before.
    let last = if col == 1 && last > first { last - 1 } else { last };
    for mut s in pending.drain(..) {
        if first > s.span.end_line {
            s.first_line = first;
            s.last_line = last.max(first);
        }
        out.suppressions.push(s);
    }
}

fn code_block(lang: &str, m: &Mapped<'_>, text: &str, idx: &LineIndex, ctx: &ScanCtx<'_>, out: &mut Scan) {
    let span = |s: usize, e: usize| idx.span(text, m.file_offset(s), m.file_offset(e));
    let shell_block = |code: &str, out: &mut Scan| {
        // `# knobs: ignore[…]` in the block, on the block's lines in the file.
        let comments = suppress::line_comments(m.text());
        let first = if comments.is_empty() { 0 } else { idx.position(text, m.file_offset(0)).0 };
        for mut s in comments {
            for l in [&mut s.span.line, &mut s.span.end_line, &mut s.first_line, &mut s.last_line] {
                *l += first - 1;
            }
            out.suppressions.push(s);
        }
        // Only a block that may run the engine is worth a shell parse.
        if ctx.commands.mentioned_in(code) {
            shell::scan(&notation(code), &span, ctx, out);
        }
        env_lines(code, &span, ctx, out);
    };
    match lang {
        // A prompt is a prompt in every shell block: `$ radiance …`.
        "" | "bash" | "sh" | "shell" | "zsh" | "ksh" => shell_block(&prompted_commands(m.text()), out),
        "console" | "shell-session" | "shellsession" | "terminal" | "sh-session" => {
            shell_block(&console_commands(m.text()), out)
        }
        "env" | "dotenv" => {
            env::scan_text(m.text(), &span, ctx, out);
            return;
        }
        "promql" if promql_block(m, text, idx, ctx, out) => {
            env::image_pins(m.text(), ctx.commands, &span, &mut out.pins);
            return;
        }
        _ => {}
    }
    ctx.metrics.scan(m.text(), &span, &mut out.refs);
    env::image_pins(m.text(), ctx.commands, &span, &mut out.pins);
}

/// A `promql` block: one query, or one per line (`#` comments aside), read
/// with the PromQL parser. False (with a note naming the line) when a query
/// does not parse: its names are then only checked as names.
fn promql_block(m: &Mapped<'_>, text: &str, idx: &LineIndex, ctx: &ScanCtx<'_>, out: &mut Scan) -> bool {
    let code = m.text();
    let file_span = |s: usize, e: usize| idx.span(text, s, e);
    let raw = |s: usize, e: usize| m.file_offset(s)..m.file_offset(e);
    let first = out.refs.len();
    if super::promql::scan(code, raw(0, code.len()), text, &file_span, ctx, out).is_ok() {
        return true;
    }
    out.refs.truncate(first);
    let mut offset = 0;
    for line in code.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let q = line.trim();
        if q.is_empty() || q.starts_with('#') {
            continue;
        }
        let lead = line.len() - line.trim_start().len();
        let at = raw(start + lead, start + lead + q.len());
        if let Err(why) = super::promql::scan(q, at, text, &file_span, ctx, out) {
            out.refs.truncate(first);
            let line_no = idx.position(text, m.file_offset(start)).0;
            out.notes.push(format!("line {line_no}: this PromQL query does not parse ({why})"));
            return false;
        }
    }
    true
}

fn inline_code(code: &str, at: usize, text: &str, idx: &LineIndex, ctx: &ScanCtx<'_>, out: &mut Scan) {
    let span = |s: usize, e: usize| idx.span(text, at + s, at + e);
    let trimmed = code.trim_start();
    let lead = code.len() - trimmed.len();
    let is_env = trimmed.split_once('=').is_some_and(|(k, _)| {
        !k.is_empty() && k.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    });
    if is_env {
        env::scan_text(code, &span, ctx, out);
        return;
    }
    if trimmed.starts_with("--") {
        loose_flag(trimmed, lead, &span, ctx, out);
    } else if trimmed.split_whitespace().next().is_some_and(|w| could_run_engine(w, ctx)) {
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

/// A code span that opens a list item or a table cell documenting options
/// (`- `--mlock` keeps the model in RAM`, `| `--port N` | … |`): each
/// option it names is judged by name only, and its other words are notation.
fn documented_flag(code: &str, at: usize, text: &str, idx: &LineIndex, ctx: &ScanCtx<'_>, out: &mut Scan) {
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
fn could_run_engine(first: &str, ctx: &ScanCtx<'_>) -> bool {
    let w = first.trim_start_matches(['$', '%', ' ']).rsplit('/').next().unwrap_or(first);
    w.is_empty() || super::invocation::may_run_engine(w, ctx)
}

/// `--checkpoint-policy floor`, `--prefill-interleave N`, `--checkpoint-slots 20 [auto]`.
fn loose_flag(code: &str, lead: usize, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A block inside a quote or a list comes in pieces that do not follow
    /// each other in the file: its references still point at their place.
    #[test]
    fn blocks_in_containers_map_back_to_the_file() {
        let text = "> ```sh\n> radiance --port 1 \\\n>   --log-level x\n> ```\n\n```sh\nradiance --port 2\n```\n";
        let mut out = Scan::default();
        super::super::test_ctx(|ctx| scan(text, ctx, &mut out));
        let flags: Vec<(String, usize, usize)> = out
            .refs
            .iter()
            .filter_map(|r| match r {
                Ref::Flag { name, span, .. } => Some((name.clone(), span.line, span.col)),
                _ => None,
            })
            .collect();
        assert_eq!(flags, [("--port".into(), 2, 12), ("--log-level".into(), 3, 5), ("--port".into(), 7, 10)], "{text}");
    }

    #[test]
    fn notation_is_one_word_of_the_same_length() {
        // (runbook text, what the shell reader is given)
        let cases = [
            ("llama-server -m <model> -c (N)", "llama-server -m {model} -c {N}"),
            ("llama-server -hf <user>/<model>:<tag>", "llama-server -hf {user}/{model}:{tag}"),
            ("llama-server -np > 1 and -c <= 4096", "llama-server -np {1} and -c {=4096}"),
            // Real redirections, heredocs, substitutions and subshells stay.
            ("radiance <in.txt >out.log 2>&1", "radiance <in.txt >out.log 2>&1"),
            ("cat <<EOF > 1.txt", "cat <<EOF > 1.txt"),
            ("x=$(<f) (cd a && b) diff <(a) <(b)", "x=$(<f) (cd a && b) diff <(a) <(b)"),
        ];
        for (text, want) in cases {
            assert_eq!(notation(text), want, "{text}");
        }
    }

    #[test]
    fn console_keeps_offsets() {
        let t = "$ radiance --port 1\noutput --x\n% ls \\\n  -l\n";
        let c = console_commands(t);
        assert_eq!(c.len(), t.len());
        assert_eq!(c, "  radiance --port 1\n          \n  ls \\\n  -l\n");
    }
}
