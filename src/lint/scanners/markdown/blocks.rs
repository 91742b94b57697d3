//! The code blocks of a runbook: a fence's text gathered with its map back
//! to the file, console transcripts reduced to their commands, runbook
//! notation (`<model>`, `(N)`) kept one word, and each block handed to the
//! scanner of its language (shell, env, PromQL, metric names in any other).

use crate::lint::scanners::{env, promql, shell, Scan, ScanCtx};
use crate::lint::span::{LineIndex, Span};
use crate::lint::suppress;

/// Text gathered from several pieces of the file, with a map back. Pieces
/// that follow each other in the file (a fenced block outside any
/// container, the usual case) are not copied: the text is the file's.
pub(super) struct Mapped<'t> {
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
    pub(super) fn new(file: &'t str) -> Self {
        Mapped { file, copied: None, pieces: Vec::new(), start: 0, end: 0 }
    }

    pub(super) fn push(&mut self, piece: &str, file_offset: usize) {
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
pub(super) fn console_commands(text: &str) -> String {
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
pub(super) fn prompted_commands(text: &str) -> std::borrow::Cow<'_, str> {
    // A prompt is `$ ` or `% `: a block with neither is all code, known
    // without walking its lines (most blocks).
    let b = text.as_bytes();
    let maybe = memchr::memchr2_iter(b'$', b'%', b).any(|i| b.get(i + 1) == Some(&b' '));
    let prompted = maybe
        && text.lines().any(|l| {
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
pub(super) fn notation(code: &str) -> std::borrow::Cow<'_, str> {
    let b = code.as_bytes();
    let mut out: Option<Vec<u8>> = None;
    let body = |from: usize| b[from..].iter().take_while(|c| !c.is_ascii_whitespace() && !b"<>()".contains(c)).count();
    let word_start = |i: usize| i.checked_sub(1).is_none_or(|p| matches!(b[p], b' ' | b'\t'));
    let word_end = |i: usize| b.get(i).is_none_or(|c| c.is_ascii_whitespace() || matches!(c, b'"' | b'\''));
    let mut i = 0;
    while i < b.len() {
        // Only `<`, `>` and `(` start a rewrite: jump to the next one.
        match memchr::memchr3(b'<', b'>', b'(', &b[i..]) {
            Some(n) => i += n,
            None => break,
        }
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
pub(super) fn env_lines(code: &str, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan) {
    if !code.contains('=') {
        return;
    }
    env::assignment_lines(code, span, ctx, out);
}

pub(super) fn code_block(lang: &str, m: &Mapped<'_>, text: &str, idx: &LineIndex, ctx: &ScanCtx<'_>, out: &mut Scan) {
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
pub(super) fn promql_block(m: &Mapped<'_>, text: &str, idx: &LineIndex, ctx: &ScanCtx<'_>, out: &mut Scan) -> bool {
    let code = m.text();
    let file_span = |s: usize, e: usize| idx.span(text, s, e);
    let raw = |s: usize, e: usize| m.file_offset(s)..m.file_offset(e);
    let first = out.refs.len();
    if promql::scan(code, raw(0, code.len()), text, &file_span, ctx, out).is_ok() {
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
        if let Err(why) = promql::scan(q, at, text, &file_span, ctx, out) {
            out.refs.truncate(first);
            let line_no = idx.position(text, m.file_offset(start)).0;
            out.notes.push(format!("line {line_no}: this PromQL query does not parse ({why})"));
            return false;
        }
    }
    true
}
