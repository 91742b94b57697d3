//! `path:line:col: CODE message` — one finding per line, for grep and editors.

use std::fmt::Write as _;

use crate::lint::Report;

pub fn render(report: &Report) -> String {
    let mut out = String::new();
    for f in report.findings() {
        let _ = writeln!(out, "{}:{}:{}: {} {}", f.path, f.span.line, f.span.column, f.code, f.message);
    }
    out
}
