//! Dockerfiles and Containerfiles: `FROM` an engine image pins the version;
//! each stage's `ENTRYPOINT` and `CMD` — exec form (`["radiance", "--port",
//! "8000"]`) or shell form — are the engine's argv when they run it or when
//! the stage's image is the engine's; `ENV` assignments are env knobs.
//! `RUN` and `HEALTHCHECK` commands are left alone.

use super::argv::{scan_items, scan_items_open};
use super::continuation::Continuation;
use super::invocation::pin_image;
use super::items::{split_words, Item};
use super::{env_ref, shell, Scan, ScanCtx};
use crate::lint::span::{LineIndex, Span};

/// A `\` continues an instruction, white space after it or not; comment
/// lines and blank lines inside are skipped.
const CONTINUATION: Continuation = Continuation { space_after: true, comments: &['#'], skip_blank: true };

/// One instruction: its keyword and its arguments, continuations joined
/// (same length as in the file), and where the arguments start.
struct Instruction {
    keyword: String,
    args: String,
    at: usize,
}

fn instructions(text: &str) -> Vec<Instruction> {
    let mut out = Vec::new();
    let mut offset = 0;
    let mut lines = text.split_inclusive('\n');
    while let Some(line) = lines.next() {
        let start = offset;
        offset += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let body = content.trim_start();
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let lead = content.len() - body.len();
        let keyword: String = body.chars().take_while(|c| !c.is_whitespace()).collect();
        let args_at = start + lead + keyword.len();
        let args = CONTINUATION.join(content[lead + keyword.len()..].to_string(), &mut lines, &mut offset);
        out.push(Instruction { keyword: keyword.to_ascii_uppercase(), args, at: args_at });
    }
    out
}

/// An exec-form argument list (`["a", "b"]`): each string and where its text
/// is (inside its quotes). `None` when the text is not such a list.
fn exec_form(s: &str, base: usize) -> Option<Vec<Item>> {
    let b = s.as_bytes();
    let mut i = s.len() - s.trim_start().len();
    if b.get(i) != Some(&b'[') {
        return None;
    }
    i += 1;
    let mut out = Vec::new();
    let skip_ws = |i: &mut usize| {
        while *i < b.len() && b[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    loop {
        skip_ws(&mut i);
        match b.get(i)? {
            b']' if out.is_empty() => break,
            b'"' => {}
            _ => return None,
        }
        let start = i + 1;
        let mut text = String::new();
        i += 1;
        loop {
            match *b.get(i)? {
                b'"' => break,
                b'\\' => {
                    // The escaped character whole: it may take several bytes.
                    let c = s.get(i + 1..)?.chars().next()?;
                    text.push(match c {
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        'u' => return None,
                        other => other,
                    });
                    i += 1 + c.len_utf8();
                }
                _ => {
                    let ch = s.get(i..)?.chars().next()?;
                    text.push(ch);
                    i += ch.len_utf8();
                }
            }
        }
        out.push(Item { text, at: base + start..base + i });
        i += 1;
        skip_ws(&mut i);
        match b.get(i)? {
            b',' => i += 1,
            b']' => break,
            _ => return None,
        }
    }
    Some(out)
}

/// A stage's command: exec-form items, or a shell-form command line.
enum Command {
    Exec(Vec<Item>),
    Shell(String, usize),
}

fn command(args: &str, at: usize) -> Command {
    match exec_form(args, at) {
        Some(items) => Command::Exec(items),
        None => Command::Shell(args.to_string(), at),
    }
}

fn judge_stage(
    image: Option<&str>,
    entrypoint: Option<Command>,
    cmd: Option<Command>,
    text: &str,
    span: &dyn Fn(usize, usize) -> Span,
    ctx: &ScanCtx<'_>,
    out: &mut Scan,
) {
    let shell_form = |line: &str, at: usize, out: &mut Scan| {
        shell::scan(line, &|s, e| span(at + s, at + e), ctx, out);
    };
    match (entrypoint, cmd) {
        // An exec-form entrypoint takes an exec-form CMD as its arguments.
        (Some(Command::Exec(mut ep)), cmd) => match cmd {
            Some(Command::Exec(c)) => {
                ep.extend(c);
                scan_items(&ep, image, text, span, ctx, out);
            }
            // Without one, `docker run IMAGE ARGS` may give the last option its value.
            _ => scan_items_open(&ep, image, text, span, ctx, out),
        },
        // A shell-form entrypoint ignores CMD.
        (Some(Command::Shell(line, at)), _) => shell_form(&line, at, out),
        (None, Some(Command::Exec(items))) => scan_items(&items, image, text, span, ctx, out),
        (None, Some(Command::Shell(line, at))) => shell_form(&line, at, out),
        (None, None) => {}
    }
}

pub fn scan(text: &str, ctx: &ScanCtx<'_>, out: &mut Scan) {
    let idx = LineIndex::new(text);
    let span = |s: usize, e: usize| idx.span(text, s, e);
    let mut image: Option<String> = None;
    let (mut entrypoint, mut cmd): (Option<Command>, Option<Command>) = (None, None);
    for ins in instructions(text) {
        match ins.keyword.as_str() {
            "FROM" => {
                judge_stage(image.as_deref(), entrypoint.take(), cmd.take(), text, &span, ctx, out);
                // `FROM [--platform=…] image [AS name]`
                let words = split_words(&ins.args, ins.at);
                let from = words.into_iter().find(|w| !w.text.starts_with("--"));
                if let Some(w) = &from {
                    pin_image(&w.text, w.at.clone(), ctx, &span, out);
                }
                image = from.map(|w| w.text);
            }
            "ENTRYPOINT" => {
                entrypoint = Some(command(&ins.args, ins.at));
                // Docker drops an earlier CMD when ENTRYPOINT is set after it.
                cmd = None;
            }
            "CMD" => cmd = Some(command(&ins.args, ins.at)),
            "ENV" => {
                let words = split_words(&ins.args, ins.at);
                if words.first().is_some_and(|w| w.text.contains('=')) {
                    for w in words {
                        let Some((k, v)) = w.text.split_once('=') else { continue };
                        let key_at = w.at.start..w.at.start + k.len();
                        // A quoted value's place is inside its quotes.
                        let raw = text.get(key_at.end + 1..w.at.end).unwrap_or("");
                        let q = usize::from(raw.starts_with(['"', '\'']));
                        let value_at = key_at.end + 1 + q..w.at.end - q;
                        out.refs.push(env_ref(k, key_at, v, value_at, &span));
                    }
                } else if let Some(key) = words.first() {
                    // `ENV KEY value with spaces` (the old form).
                    let rest = words.get(1).map_or(key.at.end, |w| w.at.start);
                    let value = ins.args[rest - ins.at..].trim_end().to_string();
                    let value_at = rest..rest + value.len();
                    out.refs.push(env_ref(&key.text, key.at.clone(), &value, value_at, &span));
                }
            }
            _ => {}
        }
    }
    judge_stage(image.as_deref(), entrypoint, cmd, text, &span, ctx, out);
    out.suppressions.extend(crate::lint::suppress::line_comments(text));
}

/// The image a Dockerfile's last stage starts from, followed through
/// earlier stages by name (`FROM base AS final`) and with `ARG` defaults
/// put in (`FROM vllm/vllm-openai:${VLLM_VERSION}`), and whether that stage
/// (or a stage it builds on) sets an `ENTRYPOINT` of its own.
pub fn final_image(text: &str) -> Option<super::compose::Built> {
    let mut args: Vec<(String, String)> = Vec::new();
    // Each stage: its name, its image (or the stage it builds on), whether it sets an entrypoint.
    let mut stages: Vec<(Option<String>, String, bool)> = Vec::new();
    for ins in instructions(text) {
        let words: Vec<String> = split_words(&ins.args, ins.at).into_iter().map(|w| w.text).collect();
        match ins.keyword.as_str() {
            "ARG" if stages.is_empty() => {
                for w in &words {
                    let (k, v) = w.split_once('=').unwrap_or((w, ""));
                    args.push((k.to_string(), v.to_string()));
                }
            }
            "FROM" => {
                let mut rest = words.iter().filter(|w| !w.starts_with("--"));
                let Some(image) = rest.next() else { continue };
                let name = match (rest.next(), rest.next()) {
                    (Some(a), Some(n)) if a.eq_ignore_ascii_case("as") => Some(n.to_ascii_lowercase()),
                    _ => None,
                };
                let mut image = image.clone();
                for (k, v) in &args {
                    image = image.replace(&format!("${{{k}}}"), v).replace(&format!("${k}"), v);
                }
                stages.push((name, image, false));
            }
            "ENTRYPOINT" => {
                if let Some(last) = stages.last_mut() {
                    last.2 = true;
                }
            }
            _ => {}
        }
    }
    let (_, mut image, mut entrypoint) = stages.last()?.clone();
    // An image named by an earlier stage is that stage's (at most once per stage).
    for _ in 0..stages.len() {
        let key = image.to_ascii_lowercase();
        let Some((_, base, ep)) = stages.iter().find(|(n, _, _)| n.as_deref() == Some(key.as_str())) else { break };
        image = base.clone();
        entrypoint |= *ep;
    }
    (!image.contains('$')).then_some(super::compose::Built { image, entrypoint })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_last_stage_says_what_the_image_starts_from() {
        let f = "ARG V=v0.9.2\nFROM python:3.12 AS tools\nFROM vllm/vllm-openai:${V} AS base\nRUN pip install x\nFROM base\nCMD [\"--port\", \"1\"]\n";
        let b = final_image(f).expect("an image");
        assert_eq!((b.image.as_str(), b.entrypoint), ("vllm/vllm-openai:v0.9.2", false));
        let f = "FROM vllm/vllm-openai:v0.10.0\nENTRYPOINT [\"/start.sh\"]\n";
        assert_eq!(final_image(f).map(|b| b.entrypoint), Some(true));
        assert_eq!(final_image("FROM ${BASE}\n"), None, "an ARG without a default");
    }

    use super::*;

    #[test]
    fn an_escaped_multibyte_character_is_taken_whole() {
        // Found by the fuzzer: `\` before a character of several bytes.
        let items = exec_form("[\"a\\é\", \"--port\"]", 0).expect("exec form");
        assert_eq!(items.iter().map(|i| i.text.as_str()).collect::<Vec<_>>(), ["aé", "--port"]);
        assert_eq!(exec_form("[\"\\\u{fffd}", 0).map(|v| v.len()), None);
    }

    #[test]
    fn exec_form_keeps_places() {
        let s = r#" ["radiance", "--port", "8\"0"]"#;
        let items = exec_form(s, 0).expect("exec form");
        let texts: Vec<&str> = items.iter().map(|i| i.text.as_str()).collect();
        assert_eq!(texts, ["radiance", "--port", "8\"0"]);
        assert_eq!(&s[items[1].at.clone()], "--port");
        assert!(exec_form(" radiance --port 1", 0).is_none());
        assert!(exec_form(r#" ["a", b]"#, 0).is_none());
    }
}
