//! llama-swap configs (a model switcher in front of llama.cpp's server):
//! under `models:`, each model's `cmd:` is the command line it starts,
//! read in place as shell. A macro of the config's `macros:` (`${server}`)
//! stands in for its value, read where the macro is set; a `cmd:` is one
//! command line over as many lines as it takes (`#` lines are comments); `${PORT}` and the
//! other built-in macros are values known only when llama-swap runs.

use std::collections::HashMap;

use super::rewrite::{self, Rewrite};
use super::yaml::Node;
use super::{Scan, ScanCtx};
use crate::lint::span::Span;

/// True when a document is a llama-swap config: `models:` maps names to
/// models with a `cmd:`.
pub fn is_config(doc: &Node) -> bool {
    doc.get("models").is_some_and(|m| m.entries().iter().any(|(_, _, v)| v.get("cmd").is_some()))
}

pub fn scan(docs: &[Node], text: &str, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan) {
    for doc in docs.iter().filter(|d| is_config(d)) {
        let macros: HashMap<&str, Rewrite> = doc
            .get("macros")
            .map(Node::entries)
            .unwrap_or_default()
            .iter()
            .filter_map(|(k, _, v)| match v {
                // A macro is one line too, however it is written (`>`, `|`):
                // a line break left in it would end the command at the macro.
                Node::Scalar { text: t, at } => Some((k.as_str(), rewrite::scalar(t, text, at.clone()).then(one_line))),
                _ => None,
            })
            .collect();
        for (_, _, model) in doc.get("models").map(Node::entries).unwrap_or_default() {
            let Some(Node::Scalar { text: cmd, at }) = model.get("cmd") else { continue };
            let cmd = rewrite::scalar(cmd, text, at.clone()).then(one_line);
            expand(&cmd, &macros).scan_shell(span, ctx, out);
        }
    }
}

/// A `cmd:` as llama-swap reads it: one command line, whatever its line
/// breaks (a `\` before one is dropped too); lines that start with `#` are
/// comments, left out.
fn one_line(text: &str) -> Rewrite {
    let mut out = Rewrite::default();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        if body.trim_start().starts_with('#') {
            continue;
        }
        let body = body.strip_suffix('\\').unwrap_or(body);
        out.keep(text, start..start + body.len());
        // A line break (or a `\` before it) is a space; the end of the text is not.
        if line.len() > body.len() {
            out.put(" ", start + body.len()..start + line.len());
        }
    }
    out
}

/// `cmd` with each `${name}` of a macro replaced by the macro's text, its
/// places those of the macro's value (a macro may use another, once).
fn expand(cmd: &Rewrite, macros: &HashMap<&str, Rewrite>) -> Rewrite {
    let once = |r: &Rewrite| {
        let t = r.text();
        let mut out = Rewrite::default();
        let mut i = 0;
        let mut from = 0;
        while let Some(s) = t[i..].find("${").map(|s| i + s) {
            let Some(len) = t[s + 2..].find('}') else { break };
            let name = &t[s + 2..s + 2 + len];
            i = s + 3 + len;
            if let Some(m) = macros.get(name) {
                out.append(r, from..s);
                out.append(m, 0..m.text().len());
                from = i;
            }
        }
        out.append(r, from..t.len());
        out
    };
    once(&once(cmd))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macros_stand_where_they_are_set() {
        let file = "macros:\n  server: /opt/llama-server --port ${PORT}\nmodels:\n  a:\n    cmd: ${server} -m a.gguf\n";
        let docs = super::super::yaml::load(file).expect("yaml");
        assert!(is_config(&docs[0]));
        let macros: HashMap<&str, Rewrite> =
            [("server", rewrite::scalar("/opt/llama-server --port ${PORT}", file, 17..50))].into();
        let at = file.find("${server} -m").expect("there");
        let cmd = rewrite::scalar("${server} -m a.gguf", file, at..file.len() - 1);
        let r = expand(&cmd, &macros);
        assert_eq!(r.text(), "/opt/llama-server --port ${PORT} -m a.gguf");
        let p = r.text().find("--port").expect("there");
        assert_eq!(&file[r.source(p, p + 6)], "--port");
        let m = r.text().find("-m").expect("there");
        assert_eq!(&file[r.source(m, m + 2)], "-m");
    }
}
