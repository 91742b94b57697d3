//! Markdown runbooks, read with a real Markdown parser: fenced code blocks
//! (shell, console, env; every language for metric names), inline code spans
//! (`radiance …`, a lone `--flag value`, `KEY=value`), and prose (metric
//! names only — a flag named in a sentence is not an argv). This file walks
//! the parser's events; `blocks` reads fenced code blocks, `spans` inline
//! code spans.

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use super::{Scan, ScanCtx};
use crate::lint::span::LineIndex;
use crate::lint::suppress::{self, Suppression};

mod blocks;
mod spans;

use blocks::{code_block, Mapped};
use spans::{documented_flag, inline_code};

pub fn scan(text: &str, ctx: &ScanCtx<'_>, out: &mut Scan) {
    // About a reference per 128 bytes in a runbook: the vector seldom grows
    // (each growth copies every reference made so far).
    out.refs.reserve(text.len() / 128);
    let idx = LineIndex::new(text);
    let file_span = |s: usize, e: usize| idx.span(text, s, e);
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    let mut block: Option<(String, Mapped<'_>)> = None;
    let mut pending: Vec<Suppression> = Vec::new();
    // The blocks open at this event (their ranges), innermost last.
    let mut open: Vec<Range<usize>> = Vec::with_capacity(8);
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
                // A text that opens with a visible letter is not blank (most are).
                if t.as_bytes().first().is_some_and(u8::is_ascii_graphic) || !t.trim().is_empty() {
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

#[cfg(test)]
mod tests {
    use super::blocks::{console_commands, notation};
    use super::*;
    use crate::lint::refs::Ref;

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

    /// The byte-wise first word and the prompt pre-check say what the
    /// Unicode-aware reading they stand in front of says.
    #[test]
    fn the_fast_paths_agree_with_the_full_readings() {
        let pieces = ["a", " ", "\t", "\u{b}", "\u{85}", "\u{a0}", "é", "$", "%", "\n", "-", "x:y_z"];
        let mut cases = vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> =
                cases.iter().flat_map(|c| pieces.iter().map(move |p| format!("{c}{p}"))).collect();
            cases.extend(longer);
        }
        for t in &cases {
            assert_eq!(super::spans::first_word(t), t.split_whitespace().next(), "{t:?}");
            let prompted = t.lines().any(|l| {
                let l = l.trim_start();
                l.starts_with("$ ") || l.starts_with("% ")
            });
            assert_eq!(matches!(super::blocks::prompted_commands(t), std::borrow::Cow::Owned(_)), prompted, "{t:?}");
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
