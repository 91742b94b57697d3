//! A fast reading of simple shell: command lines of words, quotes,
//! expansions, continuations, comments, pipes, redirections, `if`/`while`
//! bodies and array assignments (`args=(…)`, `args+=(…)`) — what runbook
//! blocks and serve scripts hold. It reads the same commands and arrays the
//! full parser does, and says so by returning `None` for anything it does not
//! read (`for`, `case`, functions, subshells, command substitution,
//! here-documents, `[[ … ]]`), which then goes to tree-sitter-bash.
//! `tests::agrees_with_the_full_parser` holds the two readings to each other.

use std::sync::LazyLock;

use memchr::memmem;

use crate::lint::pairing::Word;
use crate::lint::scanners::words::{array_name, unquote, Arrays, Command, Part, Script, Var};

/// Words that start compound commands only the full parser reads.
const FULL_ONLY: &[&str] = &["for", "case", "esac", "function", "select", "[[", "]]", "coproc", "time", "in", "(("];

/// Keywords before a command (`then radiance …`, `! grep …`): skipped.
const LEADING: &[&str] = &["if", "then", "else", "elif", "do", "while", "until", "!", "{"];

/// Keywords that close a compound command; alone they are no command.
const CLOSING: &[&str] = &["fi", "done", "}"];

/// Declarations: the full parser reads them as declarations, not commands
/// (their array assignments still count).
const DECLARATIONS: &[&str] = &["declare", "local", "export", "readonly", "typeset"];

/// One raw word: its byte range.
struct Raw {
    start: usize,
    end: usize,
}

/// The commands of `src` as parts, its arrays and variables, or `None` when
/// it is not simple shell. Only commands whose name (unquoted, as written)
/// `wanted` accepts are read into parts: no other can run the engine.
pub fn simple_commands<'s>(src: &'s str, wanted: &dyn Fn(&str) -> bool) -> Option<Script<'s>> {
    let b = src.as_bytes();
    // Constructs left to the full parser, found in one pass.
    static SUBSTITUTION: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new(b"$("));
    static HEREDOC: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new(b"<<"));
    if SUBSTITUTION.find(b).is_some() || memchr::memchr(b'`', b).is_some() || HEREDOC.find(b).is_some() {
        return None;
    }
    // Every word, flat; each command starts at one of `starts`.
    let mut raws: Vec<Raw> = Vec::with_capacity(b.len() / 8);
    // Sized for a command every 32 bytes: most blocks never grow them.
    let mut starts: Vec<usize> = Vec::with_capacity(b.len() / 32 + 2);
    starts.push(0);
    let mut arrays = Arrays::default();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\r' => i += 1,
            b'\\' if b.get(i + 1) == Some(&b'\n') => i += 2,
            b'\\' if b.get(i + 1) == Some(&b'\r') && b.get(i + 2) == Some(&b'\n') => i += 3,
            b'\n' | b';' => {
                if b.get(i + 1) == Some(&b';') {
                    return None;
                }
                starts.push(raws.len());
                i += 1;
            }
            b'#' => i = line_end(b, i),
            b'|' | b'&' => {
                // `|`, `||`, `&&`, `&`, `|&`: a new command follows.
                starts.push(raws.len());
                i += 1;
                if i < b.len() && (b[i] == b'|' || b[i] == b'&') {
                    i += 1;
                }
            }
            b'(' | b')' => return None,
            b'<' | b'>' => {
                // A redirection and its target are not words of the command.
                i += 1;
                while i < b.len() && matches!(b[i], b'>' | b'&' | b'|') {
                    i += 1;
                }
                while i < b.len() && matches!(b[i], b' ' | b'\t') {
                    i += 1;
                }
                let (_, next) = scan_word(b, i, false)?;
                i = next;
            }
            _ => {
                // The word first: `NAME=(` or `NAME+=(` stops it at its `(`,
                // so only a word that stops there may open an array.
                let word = scan_word(b, i, false);
                if let Some(open) = word.is_none().then(|| array_open(b, i)).flatten() {
                    // `args=(…)` / `args+=(…)`: only before a command's words.
                    let current = &raws[*starts.last()?..];
                    let declared = current.first().is_some_and(|r| DECLARATIONS.contains(&&src[r.start..r.end]));
                    if !declared && current.iter().any(|r| !is_assignment(&src[r.start..r.end])) {
                        return None;
                    }
                    let name = src[i..open].trim_end_matches('=').trim_end_matches('+').to_string();
                    let (words, next) = array_words(src, open + 1)?;
                    arrays.entry(name).or_default().push(words);
                    i = next;
                    continue;
                }
                let (end, next) = word?;
                // `2>file`, `2>&1`: a file descriptor before a redirection.
                if b.get(end).is_some_and(|c| matches!(c, b'<' | b'>')) && b[i..end].iter().all(u8::is_ascii_digit) {
                    i = end;
                    continue;
                }
                raws.push(Raw { start: i, end });
                i = next;
            }
        }
    }
    let mut out = Vec::new();
    let mut vars = Vec::new();
    starts.push(raws.len());
    for k in starts.windows(2) {
        let raws = &raws[k[0]..k[1]];
        let mut first = 0;
        let mut assigns = Vec::new();
        loop {
            // Leading assignments (`X=1 radiance …`) are not words of the command.
            while raws.get(first).is_some_and(|r| is_assignment(&src[r.start..r.end])) {
                assigns.push(raws[first].start..raws[first].end);
                first += 1;
            }
            let Some(r) = raws.get(first) else { break };
            let w = &src[r.start..r.end];
            if LEADING.contains(&w) {
                first += 1;
                continue;
            }
            break;
        }
        let Some(r) = raws.get(first) else {
            // Assignments alone set the script's variables.
            vars.extend(assigns.into_iter().map(|a| var(src, a, false)));
            continue;
        };
        let w = &src[r.start..r.end];
        if FULL_ONLY.contains(&w) || w.ends_with("()") {
            return None;
        }
        if CLOSING.contains(&w) {
            if raws.len() > first + 1 {
                return None;
            }
            continue;
        }
        // `[ … ]` is a test, and a declaration is not a command to the full parser.
        if DECLARATIONS.contains(&w) {
            // `export ARGS="…"`: the script's variables.
            let declared = raws[first + 1..].iter().filter(|r| is_assignment(&src[r.start..r.end]));
            vars.extend(declared.map(|r| var(src, r.start..r.end, w == "export")));
            continue;
        }
        if w == "[" {
            continue;
        }
        let name = if w.contains(['"', '\'', '\\']) { std::borrow::Cow::Owned(unquote(w)) } else { w.into() };
        if !wanted(&name) {
            continue;
        }
        let parts: Vec<Part<'s>> =
            raws[first..].iter().enumerate().map(|(k, r)| part(&src[r.start..r.end], r, k == 0)).collect();
        out.push(Command { parts, assigns, func: None });
    }
    Some(Script { commands: out, arrays, vars })
}

/// A variable from an assignment word (`NAME=value`, `NAME+=value`).
fn var(src: &str, at: std::ops::Range<usize>, exported: bool) -> Var {
    let raw = &src[at.clone()];
    let eq = raw.find('=').unwrap_or(raw.len());
    Var { name: raw[..eq].trim_end_matches('+').to_string(), value: at.start + eq + 1..at.end, exported }
}

/// Where the line holding `i` ends (at its newline).
fn line_end(b: &[u8], i: usize) -> usize {
    memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n)
}

/// At `i`, `NAME=(` or `NAME+=(`: the offset of the `(`.
fn array_open(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    if !b.get(j).is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') {
        return None;
    }
    while b.get(j).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
        j += 1;
    }
    if b.get(j) == Some(&b'+') {
        j += 1;
    }
    (b.get(j) == Some(&b'=') && b.get(j + 1) == Some(&b'(')).then_some(j + 1)
}

/// The words of an array literal starting after its `(`, and where scanning
/// resumes after its `)`.
fn array_words(src: &str, mut i: usize) -> Option<(Vec<Word<'_>>, usize)> {
    let b = src.as_bytes();
    let mut words = Vec::new();
    loop {
        match *b.get(i)? {
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b'\\' if b.get(i + 1) == Some(&b'\n') => i += 2,
            b'#' => i = line_end(b, i),
            b')' => return Some((words, i + 1)),
            b'(' | b';' | b'|' | b'&' | b'<' | b'>' => return None,
            _ => {
                let (end, next) = scan_word(b, i, true)?;
                if end == i {
                    return None;
                }
                let r = Raw { start: i, end };
                words.push(part(&src[i..end], &r, false).word);
                i = next;
            }
        }
    }
}

/// `NAME=value` (or `NAME+=value`).
fn is_assignment(raw: &str) -> bool {
    // By bytes: a name, an optional `+`, then `=` (this runs for the first
    // words of every command).
    let b = raw.as_bytes();
    if !b.first().is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') {
        return false;
    }
    let mut i = 1;
    while b.get(i).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
        i += 1;
    }
    if b.get(i) == Some(&b'+') {
        i += 1;
    }
    b.get(i) == Some(&b'=')
}

/// Where the word starting at `i` ends, and where scanning resumes; `None`
/// for an unterminated quote or a construct the full parser must read.
/// Bytes that end a word or change how it reads; every other byte is
/// stepped over in a tight loop.
static SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    let specials = b" \t\n\r;|&<>()\\'\"$";
    let mut k = 0;
    while k < specials.len() {
        t[specials[k] as usize] = true;
        k += 1;
    }
    t
};

fn scan_word(b: &[u8], mut i: usize, in_array: bool) -> Option<(usize, usize)> {
    while i < b.len() {
        while i < b.len() && !SPECIAL[usize::from(b[i])] {
            i += 1;
        }
        let Some(&c) = b.get(i) else { break };
        match c {
            b' ' | b'\t' | b'\n' | b'\r' | b';' | b'|' | b'&' | b'<' | b'>' => break,
            b')' if in_array => break,
            b'(' | b')' => return None,
            b'\\' => {
                if b.get(i + 1) == Some(&b'\n') {
                    break;
                }
                i += 2;
            }
            b'\'' => {
                i += 1;
                while i < b.len() && b[i] != b'\'' {
                    i += 1;
                }
                if i >= b.len() {
                    return None;
                }
                i += 1;
            }
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if i >= b.len() {
                    return None;
                }
                i += 1;
            }
            b'$' if b.get(i + 1) == Some(&b'{') => {
                while i < b.len() && b[i] != b'}' {
                    i += 1;
                }
                if i >= b.len() {
                    return None;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    Some((i.min(b.len()), i.min(b.len())))
}

/// How tree-sitter-bash would name a word: its node kind.
#[derive(PartialEq)]
enum NodeKind {
    Word,
    RawString,
    String,
    Expansion,
    Concatenation,
}

fn node_kind(raw: &str) -> NodeKind {
    let b = raw.as_bytes();
    let quoted_whole = |q: u8| b.len() >= 2 && b[0] == q && b[b.len() - 1] == q && !b[1..b.len() - 1].contains(&q);
    if quoted_whole(b'\'') {
        return NodeKind::RawString;
    }
    if b.first() == Some(&b'"') && closing_quote(b) == Some(b.len() - 1) {
        return NodeKind::String;
    }
    if b.first() == Some(&b'$') {
        let rest = &raw[1..];
        let simple = !rest.is_empty() && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let braced = rest.starts_with('{') && rest.find('}') == Some(rest.len() - 1);
        if simple || braced {
            return NodeKind::Expansion;
        }
    }
    if b.iter().any(|c| matches!(c, b'\'' | b'"' | b'$')) {
        return NodeKind::Concatenation;
    }
    NodeKind::Word
}

/// The index of the quote that closes a double-quoted string at 0.
fn closing_quote(b: &[u8]) -> Option<usize> {
    let mut i = 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// The first expansion in a raw word (outside single quotes): its variable
/// and its default (`${X:-d}` → `X`, `d`).
fn first_expansion(raw: &str) -> Option<(String, Option<String>)> {
    let b = raw.as_bytes();
    let mut i = 0;
    let mut single = false;
    while i < b.len() {
        match b[i] {
            b'\'' => single = !single,
            b'\\' if !single => i += 1,
            b'$' if !single => {
                let rest = &raw[i + 1..];
                if let Some(inner) = rest.strip_prefix('{') {
                    let inner = &inner[..inner.find('}')?];
                    let name_len =
                        inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(inner.len());
                    let name = inner[..name_len].to_string();
                    let op = &inner[name_len..];
                    let default = [":-", ":=", ":+", ":?", "-", "=", "+", "?"]
                        .iter()
                        .find_map(|o| op.strip_prefix(o))
                        .filter(|d| !d.is_empty())
                        .map(|d| d.trim_matches(['"', '\'']).to_string());
                    return Some((name, default));
                }
                let name_len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
                if name_len > 0 {
                    return Some((rest[..name_len].to_string(), None));
                }
                // `$@`, `$*`, `$#`, `$?`: a special parameter, dynamic and unnamed.
                if rest.starts_with(['@', '*', '#', '?', '!', '$', '-']) {
                    return Some((String::new(), None));
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

fn part<'s>(raw: &'s str, r: &Raw, first: bool) -> Part<'s> {
    // A plain word (no quote, escape, expansion or glob bracket) reads as itself.
    if !raw.bytes().any(|c| matches!(c, b'\'' | b'"' | b'\\' | b'$' | b'[')) {
        let word = Word { text: Some(raw.into()), var: None, default: None, start: r.start, end: r.end };
        return Part { word, named: true, array: None };
    }
    let kind = node_kind(raw);
    let mut w = Word { text: None, var: None, default: None, start: r.start, end: r.end };
    match kind {
        NodeKind::Word => w.text = Some(unquote(raw).into()),
        NodeKind::RawString => w.text = Some(raw.trim_matches('\'').into()),
        NodeKind::String | NodeKind::Expansion | NodeKind::Concatenation => match first_expansion(raw) {
            None => w.text = Some(unquote(raw).into()),
            Some((var, default)) => {
                w.var = Some(var).filter(|v| !v.is_empty());
                w.default = default;
                if raw.starts_with("--") || raw.starts_with("\"--") {
                    w.text = Some(unquote(raw).into());
                }
            }
        },
    }
    // A command name is always read by a command-name match; later words
    // only when plain or quoted.
    let named = first || matches!(kind, NodeKind::Word | NodeKind::RawString | NodeKind::String);
    let array = array_name(raw);
    if array.is_some() {
        // An array expansion is read as the array's literals, not as a word.
        w.var = None;
    }
    Part { word: w, named, array }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_assignment_is_read_by_bytes_as_by_its_name_and_value() {
        // The reading by chars it replaced, kept here to hold the two together.
        let by_chars = |raw: &str| {
            let Some((name, _)) = raw.split_once('=') else { return false };
            let name = name.strip_suffix('+').unwrap_or(name);
            !name.is_empty()
                && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        let words = [
            "A=1", "A+=1", "_x9=", "a++=1", "=1", "+=1", "9A=1", "A", "A-B=1", "é=1", "Aé=1", "A=é", "A+", "A+b=1",
            "--x=1", "A==1", "",
        ];
        for w in words {
            assert_eq!(is_assignment(w), by_chars(w), "{w:?}");
        }
    }

    /// A word that opens an array is one the word reader stops at its `(`:
    /// the reader is asked first, and the array only where it stops.
    #[test]
    fn an_array_opens_only_where_a_word_stops() {
        let pieces = ["a", "_", "9", "+", "=", "(", ")", "\"", "'", "$", "-", " ", "\\"];
        let mut cases = vec![String::new()];
        for _ in 0..5 {
            let longer: Vec<String> =
                cases.iter().flat_map(|c| pieces.iter().map(move |p| format!("{c}{p}"))).collect();
            cases.extend(longer);
        }
        let mut opened = 0;
        for t in &cases {
            if array_open(t.as_bytes(), 0).is_some() {
                opened += 1;
                assert_eq!(scan_word(t.as_bytes(), 0, false), None, "{t:?}");
            }
        }
        assert!(opened > 100, "only {opened} of the cases open an array");
    }

    /// Every simple line reads the same with both readers; the others are
    /// left to the full parser.
    #[test]
    fn agrees_with_the_full_parser() {
        let simple = [
            "radiance --port 8000 --checkpoint-policy tip-only",
            "radiance --model /m --max-num-seqs \"${MAX_SEQS:-2}\" \\\n  --busy-prefill-chunk auto",
            "exec sudo -u svc nice -n 5 radiance --prefill-interleave 1",
            "sudo -u radiance journalctl --since 1h",
            "RADIANCE_LOG=debug radiance --log-level=info # trailing comment",
            "radiance --x='a b' --y=\"c d\" --z=$V --w=\"$V\" -- rest",
            "podman run --rm -v /m:/m ghcr.io/x/radiance:1.8.1 radiance --port 1 > out.log 2>&1",
            "curl -s localhost:7770/stats | jq .prefill_tps && radiance --max-num-seqs 2; echo done",
            "\"$DIR/radiance\" --port 9 &",
            "radiance --checkpoint-slots ${SLOTS} --kv-cache-gib 31.5 'quoted word' a\\ b",
            "X=1 Y=2",
            "radiance \"${args[@]}\" --port 1",
            "env -u HOME FOO=bar radiance --port 2",
            "timeout 30 radiance --port 3 < /dev/null",
            "radiance --port 4 |& tee log",
            "if [ -n \"$X\" ]; then radiance --port 1; fi",
            "args=(--port 1)",
            "while true; do\n  ! radiance --port 1 --log-level \"$L\"\ndone < /dev/null",
            "{ radiance --port 5; } > log",
            "declare -a args=(--max-num-seqs 2 # the budget\n  --port \"$PORT\")",
            "args=(--model \"$MODEL\" --max-num-seqs \"${MAX_SEQS:-2}\")\nif [ \"${PI:-0}\" -gt 0 ]; then\n  args+=(--prefill-interleave \"$PI\")\nfi\nexec radiance \"${args[@]}\"",
            "if grep -q x f; then\n  radiance --port 1\nelif true; then radiance --port 2\nelse\n  exit 1\nfi",
            "BIN=/opt/radiance/bin/radiance\nexport ARGS=\"--port 1 --max-num-seqs 2\"\nARGS+=\" --log-level info\"\n$BIN $ARGS",
            "X=1 Y='a b' \"$BIN\" --port 1",
            "set -- --port 1\nexec radiance \"$@\"",
        ];
        for line in simple {
            let fast = simple_commands(line, &|_| true).unwrap_or_else(|| panic!("simple: {line}"));
            let full = super::super::full::full_commands(line).expect("parses");
            let commands: Vec<&Command<'_>> = fast.commands.iter().filter(|c| !c.parts.is_empty()).collect();
            assert_eq!(commands, full.commands.iter().collect::<Vec<_>>(), "{line}");
            assert_eq!(fast.arrays, full.arrays, "{line}");
            assert_eq!(fast.vars, full.vars, "{line}");
        }
        for line in [
            "radiance --port $(cat port)",
            "case $x in a) radiance --port 1 ;; esac",
            "f() { radiance --port 1; }",
            "[[ -n $X && -z $Y ]] && radiance --port 1",
            "cat <<EOF\nradiance --port 1\nEOF",
            "(cd x && radiance --port 1)",
            "for i in 1 2; do radiance --port $i; done",
            "radiance --name 'unterminated",
        ] {
            assert!(simple_commands(line, &|_| true).is_none(), "{line} is not simple");
        }
    }
}
