//! `path:line:col: CODE message` — one finding per line, for grep and
//! editors; `CODE [*]` when `--fix` rewrites it.

use std::fmt::Write as _;

use super::visible;
use crate::lint::finding::Report;

pub fn render(report: &Report) -> String {
    let mut out = String::new();
    for f in report.findings() {
        let (path, message) = (visible(&f.path), visible(&f.message));
        let mark = if f.fix.is_some() { " [*]" } else { "" };
        let _ = writeln!(out, "{path}:{}:{}: {}{mark} {message}", f.span.line, f.span.column, f.code);
    }
    out
}
