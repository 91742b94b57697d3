//! GitHub Actions workflow commands: `::error file=…,line=…::message`, escaped
//! as the workflow-command format requires.

use std::fmt::Write as _;

use super::{pictures_only, visible_lines};
use crate::lint::finding::Report;
use crate::lint::rules::Severity;

/// Escapes a message: `%`, `\r`, `\n`.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a property value: as data, plus `:` and `,`.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

pub fn render(report: &Report) -> String {
    let mut out = String::new();
    for f in report.findings() {
        let level = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut message = f.message.clone();
        if let Some(h) = &f.help {
            message.push('\n');
            message.push_str(h);
        }
        let _ = writeln!(
            out,
            "::{level} file={},line={},col={},endLine={},endColumn={},title={}::{}",
            escape_property(&pictures_only(&f.path)),
            f.span.line,
            f.span.column,
            f.span.end_line,
            f.span.end_column,
            escape_property(&format!("{} {}", f.code, f.rule)),
            escape_data(&visible_lines(&message))
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping() {
        assert_eq!(escape_data("50% off\r\nnext"), "50%25 off%0D%0Anext");
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }
}
