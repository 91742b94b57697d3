//! GitHub Actions workflows (`.github/workflows/*.yml`): each step's `run:`
//! is a script, read in place as the shell its `shell:` names (the step's,
//! else the job's or the workflow's `defaults.run.shell`, else bash):
//! `pwsh` and `powershell` as PowerShell, `cmd` as batch. A `${{ … }}`
//! expression is a value known only when the workflow runs.

use super::rewrite::{self, Rewrite};
use super::yaml::Node;
use super::{batch, powershell, Scan, ScanCtx};
use crate::lint::span::Span;

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
