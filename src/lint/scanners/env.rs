//! Env files: `KEY=value` lines, with `export`, quotes, comments, CRLF and a
//! byte-order mark. Every key is reported; the rules decide which keys set a
//! flag. Lines no reader takes as written are reported as such: spaces
//! around `=`, a `-` in a key, a key set again (the earlier line is dead). Image pins (`…/radiance:1.0.13`) are collected for version selection.

use std::collections::hash_map::{Entry, HashMap};
use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::engine_matcher::EngineMatcher;
use super::{Scan, ScanCtx};
use crate::lint::refs::{EnvProblem, Ref, Value};
use crate::lint::span::{LineIndex, Span};
use crate::lint::suppress;

/// An env line: optional `export `, a key, `=`, a value (whitespace around
/// each dropped). Returns the key's and the value's byte ranges in `line`.
fn env_line(line: &str) -> Option<(Range<usize>, Range<usize>)> {
    let lead = line.len() - line.trim_start().len();
    let after_export = line[lead..]
        .strip_prefix("export")
        .filter(|rest| rest.starts_with(char::is_whitespace))
        .map(|rest| line.len() - rest.trim_start().len());
    // `export  =1` sets a key called `export`: try the shorter reading too.
    after_export.and_then(|at| assignment(line, at)).or_else(|| assignment(line, lead))
}

/// `KEY = value` from byte `at` to the end of `line`.
fn assignment(line: &str, at: usize) -> Option<(Range<usize>, Range<usize>)> {
    let b = line.as_bytes();
    if !b.get(at).is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') {
        return None;
    }
    let key_end = at + b[at..].iter().position(|c| !(c.is_ascii_alphanumeric() || *c == b'_')).unwrap_or(b.len() - at);
    let rest = &line[key_end..];
    let eq = key_end + (rest.len() - rest.trim_start().len());
    if b.get(eq) != Some(&b'=') {
        return None;
    }
    let value_start = line.len() - line[eq + 1..].trim_start().len();
    let value_end = value_start.max(line.trim_end().len());
    Some((at..key_end, value_start..value_end))
}

/// The key of a line that would be an assignment but for a `-` in its key
/// (`CHECKPOINT-POLICY=floor`).
fn hyphenated(line: &str) -> Option<Range<usize>> {
    let lead = line.len() - line.trim_start().len();
    let at = line[lead..]
        .strip_prefix("export")
        .filter(|r| r.starts_with(char::is_whitespace))
        .map_or(lead, |r| line.len() - r.trim_start().len());
    let b = line.as_bytes();
    if !b.get(at).is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') {
        return None;
    }
    let len = b[at..].iter().position(|c| !(c.is_ascii_alphanumeric() || *c == b'_' || *c == b'-'))?;
    let key = at..at + len;
    let eq = line[key.end..].trim_start().starts_with('=');
    (eq && line[key.clone()].contains('-') && !line[key.clone()].ends_with('-')).then_some(key)
}

/// Splits a raw value into its text and byte range within `raw`: quotes
/// removed, a trailing ` # comment` dropped from unquoted values.
fn value_of(raw: &str) -> (String, usize, usize) {
    let bytes = raw.as_bytes();
    if let Some(&q) = bytes.first().filter(|b| **b == b'"' || **b == b'\'') {
        if let Some(end) = raw[1..].find(q as char) {
            return (raw[1..1 + end].to_string(), 1, 1 + end);
        }
    }
    let end = raw.find(" #").or_else(|| raw.find("\t#")).unwrap_or(raw.len());
    let v = raw[..end].trim_end();
    (v.to_string(), 0, v.len())
}

/// Pins of an engine image in a text: `ghcr.io/org/radiance:1.0.13`; the
/// profile says which image names are the engine's and which part of the
/// tag is the catalogue's.
pub fn image_pins(
    text: &str,
    commands: &EngineMatcher,
    span: &dyn Fn(usize, usize) -> Span,
    out: &mut Vec<(String, Span)>,
) {
    if !commands.may_pin(text) {
        return;
    }
    for tag in commands.image_refs(text) {
        if let Some(pinned) = commands.image_tag(&text[tag.clone()]) {
            out.push((pinned, span(tag.start, tag.end)));
        }
    }
}

/// Env lines among shell code: a line that is only an assignment to an
/// upper-case key (`export CHECKPOINT_POLICY=tip-only`, `MAX_SEQS=2`), not
/// one that prefixes a command (`KEY=v radiance …`).
pub fn assignment_lines(text: &str, span: &dyn Fn(usize, usize) -> Span, _ctx: &ScanCtx<'_>, out: &mut Scan) {
    static ALONE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"^(\s*(?:export\s+)?)([A-Z][A-Z0-9_]*)=("[^"]*"|'[^']*'|[^\s;&|]*)\s*(?:#.*)?$"#)
            .expect("valid regex")
    });
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        // Only a line that starts with a capital (or `export`) and holds `=`
        // can be an assignment alone: most lines are decided here.
        let lead = content.trim_start();
        if !(lead.starts_with(|c: char| c.is_ascii_uppercase()) || lead.starts_with("export")) || !lead.contains('=') {
            continue;
        }
        let Some(c) = ALONE.captures(content) else { continue };
        let (Some(key), Some(raw)) = (c.get(2), c.get(3)) else { continue };
        let (value, vs, ve) = value_of(raw.as_str());
        let value = (!value.is_empty()).then(|| Value {
            text: Some(value.clone()),
            span: span(start + raw.start() + vs, start + raw.start() + ve),
            var: None,
        });
        out.refs.push(Ref::Env {
            key: key.as_str().to_string(),
            span: span(start + key.start(), start + key.end()),
            value,
        });
    }
}

/// Scans an env file.
pub fn scan(text: &str, ctx: &ScanCtx<'_>, out: &mut Scan) {
    let idx = LineIndex::new(text);
    let span = |s: usize, e: usize| idx.span(text, s, e);
    scan_lines(text, &span, ctx, true, out);
    out.suppressions.extend(suppress::line_comments(text));
}

/// Scans env lines in `text`; `span` maps byte ranges of `text` into the file.
pub fn scan_text(text: &str, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan) {
    scan_lines(text, span, ctx, false, out)
}

/// An env key as the check for keys set twice compares it; a test counts
/// the comparisons.
#[derive(Hash)]
struct Key<'a>(&'a str);

impl PartialEq for Key<'_> {
    fn eq(&self, other: &Self) -> bool {
        #[cfg(test)]
        tests::COMPARED.with(|c| c.set(c.get() + 1));
        self.0 == other.0
    }
}

impl Eq for Key<'_> {}

/// Scans env lines; in an env file (`file`), the lines no reader takes as
/// written too (in a runbook, two lines of one key may be two choices).
fn scan_lines(text: &str, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, file: bool, out: &mut Scan) {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let bom = text.len() - body.len();
    let mut offset = bom;
    // Each key's lines, for the keys set more than once, in the order first
    // met; `index` finds a key's entry (a search of `seen` made a file of n
    // distinct keys cost n² comparisons).
    let mut seen: Vec<(&str, Vec<(usize, Span)>)> = Vec::new();
    let mut index: HashMap<Key<'_>, usize> = HashMap::new();
    for (n, line) in body.split_inclusive('\n').enumerate() {
        let content = line.trim_end_matches(['\n', '\r']);
        let start = offset;
        offset += line.len();
        let trimmed = content.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let Some((key, raw)) = env_line(content) else {
            if let Some(key) = hyphenated(content).filter(|_| file) {
                let problem = EnvProblem::Hyphen { key: content[key.clone()].to_string() };
                out.refs.push(Ref::EnvLine { problem, span: span(start + key.start, start + key.end) });
            }
            continue;
        };
        let (value, vs, ve) = value_of(&content[raw.clone()]);
        let key_span = span(start + key.start, start + key.end);
        // `KEY = value`: the spaces and the `=` between key and value.
        let eq = key.end + content[key.end..].find('=').unwrap_or(0);
        let spaced_value = raw.start > eq + 1 && !raw.is_empty();
        if file && (key.end < eq || spaced_value) {
            let problem = EnvProblem::Spaces { key: content[key.clone()].to_string(), before: key.end < eq };
            let end = if spaced_value { raw.start } else { eq + 1 };
            out.refs.push(Ref::EnvLine { problem, span: span(start + key.end, start + end) });
        }
        // Only a file's keys set twice are reported (`seen` is read below):
        // a runbook's env lines are not looked up.
        if file {
            match index.entry(Key(&content[key.clone()])) {
                Entry::Occupied(at) => seen[*at.get()].1.push((n + 1, key_span)),
                Entry::Vacant(slot) => {
                    slot.insert(seen.len());
                    seen.push((&content[key.clone()], vec![(n + 1, key_span)]));
                }
            }
        }
        let value = (!value.is_empty()).then(|| Value {
            text: Some(value.clone()),
            span: span(start + raw.start + vs, start + raw.start + ve),
            var: None,
        });
        out.refs.push(Ref::Env { key: content[key].to_string(), span: key_span, value });
    }
    // A key set again: the last line wins, the others set nothing.
    for (key, lines) in seen.into_iter().filter(|(_, l)| l.len() > 1) {
        let last = lines.last().map_or(0, |(n, _)| *n);
        for (_, at) in &lines[..lines.len() - 1] {
            let problem = EnvProblem::Duplicate { key: key.to_string(), line: last };
            out.refs.push(Ref::EnvLine { problem, span: *at });
        }
    }
    ctx.metrics.scan(text, span, &mut out.refs);
    image_pins(text, ctx.commands, span, &mut out.pins);
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// Env keys compared by the check for keys set twice.
        pub(super) static COMPARED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// A file of n distinct keys costs about n key comparisons, not n²/2
    /// (20,000 keys took 5.6 s; `benches/linear.py` times it), and a key
    /// set twice is still found.
    #[test]
    fn distinct_keys_cost_linear_comparisons() {
        let n = 20_000;
        let mut text: String = (0..n).map(|i| format!("KEY_{i:06}=v\n")).collect();
        text.push_str("KEY_000007=w\n");
        let mut out = Scan::default();
        COMPARED.with(|c| c.set(0));
        super::super::test_ctx(|ctx| scan(&text, ctx, &mut out));
        let compared = COMPARED.with(|c| c.get());
        assert!(compared <= 2 * n, "{compared} comparisons for {n} keys");
        let twice = out.refs.iter().filter(|r| matches!(r, Ref::EnvLine { problem: EnvProblem::Duplicate { .. }, .. }));
        assert_eq!(twice.count(), 1);
    }

    #[test]
    fn env_lines() {
        let text = "\u{feff}# trio\r\nexport BUSY_PREFILL_CHUNK=\"auto\" # keep\r\nMAX_SEQS=2 # two\nEMPTY=\nIMAGE=ghcr.io/x/radiance:1.0.13\n";
        let mut scan_out = Scan::default();
        super::super::test_ctx(|ctx| scan(text, ctx, &mut scan_out));
        let envs: Vec<(String, Option<String>, usize, usize)> = scan_out
            .refs
            .iter()
            .filter_map(|r| match r {
                Ref::Env { key, value, span } => {
                    Some((key.clone(), value.as_ref().and_then(|v| v.text.clone()), span.line, span.col))
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            envs,
            vec![
                ("BUSY_PREFILL_CHUNK".into(), Some("auto".into()), 2, 8),
                ("MAX_SEQS".into(), Some("2".into()), 3, 1),
                ("EMPTY".into(), None, 4, 1),
                ("IMAGE".into(), Some("ghcr.io/x/radiance:1.0.13".into()), 5, 1),
            ]
        );
        assert_eq!(scan_out.pins.iter().map(|p| p.0.as_str()).collect::<Vec<_>>(), ["1.0.13"]);
    }

    /// The line reader reads every line as the regular expression it
    /// replaced did: hand-picked lines, then 20,000 drawn from the
    /// characters that matter to it.
    #[test]
    fn env_line_agrees_with_the_regex() {
        let re = Regex::new(r"^(\s*(?:export\s+)?)([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$").expect("regex");
        let by_regex = |l: &str| re.captures(l).and_then(|c| Some((c.get(2)?.range(), c.get(3)?.range())));
        let mut lines: Vec<String> = [
            "export  =1",
            "export X=1",
            "exportX=1",
            " \u{a0}export\tKEY = v a l \u{2003}",
            "K=",
            "K =  ",
            "=1",
            "9K=1",
            "K==1",
            "export",
            "export K",
            "K=\"a b\" # c",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let alphabet = ["export", " ", "\t", "\u{a0}", "K", "_", "9", "=", "v", "\"", "#", "é", "\r"];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..20_000 {
            let mut l = String::new();
            for _ in 0..8 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                l.push_str(alphabet[(seed % alphabet.len() as u64) as usize]);
            }
            lines.push(l);
        }
        for l in &lines {
            assert_eq!(env_line(l), by_regex(l), "{l:?}");
        }
    }

    /// Image pins are read as the regular expression that found them did:
    /// hand-picked texts, then 20,000 drawn from the characters that matter.
    #[test]
    fn image_pins_agree_with_the_regex() {
        let re = Regex::new(r"(?:^|[/\s=])([A-Za-z0-9_.-]+):([A-Za-z0-9][A-Za-z0-9_.-]*)").expect("regex");
        let profile = crate::catalog::profile::builtin("radiance").expect("radiance");
        let commands = EngineMatcher::new(&profile, vec![]);
        let by_regex = |t: &str| -> Vec<std::ops::Range<usize>> {
            re.captures_iter(t)
                .filter(|c| c.get(1).is_some_and(|n| n.as_str() == "radiance"))
                .filter_map(|c| c.get(2).map(|m| m.range()))
                .collect()
        };
        let mut texts: Vec<String> = [
            "IMAGE=ghcr.io/x/radiance:1.0.13",
            "radiance:1.8.1 and radiance:engine_steps_total",
            "myradiance:1.0 x-radiance:2 /radiance:3 =radiance:4 \u{2003}radiance:5",
            "radiance:radiance:1",
            "radiance::1 radiance:_x radiance:-1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let alphabet = ["radiance", ":", "1", ".", "-", "_", "/", "=", " ", "\u{2003}", "x", "é", "\n", "("];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            let mut t = String::new();
            for _ in 0..10 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                t.push_str(alphabet[(seed % alphabet.len() as u64) as usize]);
            }
            texts.push(t);
        }
        for t in &texts {
            assert_eq!(commands.image_refs(t), by_regex(t), "{t:?}");
        }
    }
}
