//! GitHub Actions workflows (`.github/workflows/*.yml`): each step's `run:`
//! is a script, read in place as the shell its `shell:` names (the step's,
//! else the job's or the workflow's `defaults.run.shell`, else bash):
//! `pwsh` and `powershell` as PowerShell, `cmd` as batch. A `${{ … }}`
//! expression is a value known only when the workflow runs. The triggers
//! (`on:`) hold no command and are not parsed (a flow list closed at its
//! key's indent, as GitHub accepts it, is one the YAML reader refuses).

use super::rewrite::{self, Rewrite};
use super::yaml::Node;
use super::{batch, powershell, Scan, ScanCtx};
use crate::lint::span::Span;

/// The workflow with its top-level `on:` block blanked (spaces, line breaks
/// kept), so every place in the rest is where it is in the file.
pub fn without_triggers(text: &str) -> std::borrow::Cow<'_, str> {
    let mut out: Option<String> = None;
    let mut offset = 0;
    let mut blanking = false;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        // A key at column 0 starts a block (a `- item` there is the key's list).
        let top = line.starts_with(|c: char| !c.is_whitespace() && c != '#' && c != '-');
        if top {
            blanking = ["on:", "\"on\":", "'on':"].iter().any(|k| line.starts_with(k));
        }
        if blanking {
            let o = out.get_or_insert_with(|| text.to_string());
            // Each byte a space (line breaks kept): the same length, so the
            // same places.
            let blank: String = line.bytes().map(|b| if b == b'\n' || b == b'\r' { b as char } else { ' ' }).collect();
            o.replace_range(start..offset, &blank);
        }
    }
    out.map_or(std::borrow::Cow::Borrowed(text), std::borrow::Cow::Owned)
}

/// The shell `defaults.run.shell` names under `node`, if any.
fn default_shell(node: &Node) -> Option<&str> {
    node.path("defaults.run.shell").and_then(Node::str)
}

pub fn scan(docs: &[Node], text: &str, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan) {
    for doc in docs {
        let top = default_shell(doc);
        for (_, _, job) in doc.get("jobs").map(Node::entries).unwrap_or_default() {
            let in_job = default_shell(job).or(top);
            for step in job.get("steps").map(Node::items).unwrap_or_default() {
                let Some(Node::Scalar { text: script, at }) = step.get("run") else { continue };
                let shell = step.get("shell").and_then(Node::str).or(in_job).unwrap_or("bash");
                let raw = rewrite::scalar(script, text, at.clone()).then(rewrite::expressions);
                as_shell(&raw, shell).scan_shell(span, ctx, out);
            }
        }
    }
}

/// A step's script as shell text, by the shell that runs it.
fn as_shell(script: &Rewrite, shell: &str) -> Rewrite {
    match shell.split_whitespace().next().unwrap_or("") {
        "pwsh" | "powershell" => script.then(powershell::to_shell),
        "cmd" => script.then(batch::to_shell),
        _ => script.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triggers_are_blanked_in_place() {
        let w = "name: ci\non:\n  push:\n    paths: [\n      'a',\n    ]\njobs:\n  a:\n    steps:\n      - run: x\n";
        // The reader refuses the list closed at its key's indent…
        assert!(super::super::yaml::load(w).is_err());
        let b = without_triggers(w);
        assert_eq!(b.len(), w.len());
        assert_eq!(b.find("jobs:"), w.find("jobs:"));
        assert!(!b.contains("paths"));
        assert!(super::super::yaml::load(&b).is_ok());
    }
}
