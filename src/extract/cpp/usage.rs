//! Usage texts: the `--help` output a program prints, as string literals
//! (`"  --port N      port to bind (default: 8000)\n"`). They name flags,
//! metavars, help and defaults even where the parse code says nothing.

use tree_sitter::Node;

use super::node_kind::KindName;

use super::candidate::Candidate;
use super::cst::{self, line, string_value};
use super::parsed::Parsed;
use super::text::usage_lines;

pub(crate) fn candidates(p: &Parsed<'_>) -> Vec<Candidate> {
    let mut out = Vec::new();
    for node in p.nodes() {
        if !cst::is_string(node) || p.parent(node).is_some_and(|n| n.kind_name() == "concatenated_string") {
            continue;
        }
        let (text, lines) = text_with_lines(node, p.src);
        if !text.contains("--") {
            continue;
        }
        // Byte offset of each text line's start, to map back to the source.
        let mut offset = 0usize;
        let mut starts = Vec::new();
        for l in text.split_inclusive('\n') {
            starts.push(offset);
            offset += l.len();
        }
        for u in usage_lines(&text) {
            // The source line of the usage line that names this flag.
            let at = text.lines().zip(&starts).find(|(l, _)| l.contains(&u.name)).map_or(0, |(_, s)| *s);
            let src_line = lines.iter().rev().find(|(start, _)| *start <= at).map_or(line(node), |(_, l)| *l);
            out.push(Candidate {
                name: u.name,
                aliases: u.aliases,
                metavar: Some(u.metavar.clone()),
                help: Some(u.help),
                takes_value: Some(!u.metavar.is_empty()),
                line: src_line,
                rank: 2,
                ..Candidate::default()
            });
        }
    }
    out
}

/// A string expression's value, with the source line at which each of its
/// literal pieces starts (as `(byte offset in value, line)`).
fn text_with_lines(node: Node<'_>, src: &str) -> (String, Vec<(usize, usize)>) {
    let mut text = String::new();
    let mut lines = Vec::new();
    if node.kind_name() == "concatenated_string" {
        let mut cursor = node.walk();
        for piece in node.named_children(&mut cursor) {
            if let Some(s) = string_value(piece, src) {
                lines.push((text.len(), line(piece)));
                text.push_str(&s);
            }
        }
    } else if let Some(s) = string_value(node, src) {
        // A single literal (perhaps raw) spans lines itself.
        let first = line(node);
        let mut offset = 0;
        for (i, l) in s.split_inclusive('\n').enumerate() {
            lines.push((offset, first + i));
            offset += l.len();
        }
        text = s;
    }
    (text, lines)
}
