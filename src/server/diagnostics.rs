//! Findings as LSP diagnostics: the same code, severity and message as
//! `knobs lint`, `source: "knobs"`, the did-you-mean as related
//! information, and the help and fix kept in `data` for code actions.

use lsp_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString, Position, Range, Url,
};

use super::positions::{self, Encoding};
use crate::lint::finding::Finding;
use crate::lint::rules::Severity;

/// What every diagnostic of knobs names as its source.
pub const SOURCE: &str = "knobs";

/// One finding of the text `text` (of the document `uri`) as a diagnostic.
pub fn of(f: &Finding, text: &str, uri: &Url, enc: Encoding) -> Diagnostic {
    let range = positions::range(text, &f.span, enc);
    let related = f.help.as_ref().filter(|h| h.contains("did you mean")).map(|h| {
        vec![DiagnosticRelatedInformation { location: Location { uri: uri.clone(), range }, message: h.clone() }]
    });
    Diagnostic {
        range,
        severity: Some(match f.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(f.code.to_string())),
        source: Some(SOURCE.to_string()),
        message: f.message.clone(),
        related_information: related,
        data: Some(serde_json::json!({ "rule": f.rule, "help": f.help, "fix": f.fix })),
        ..Diagnostic::default()
    }
}

/// What knobs could not do with a document (its knobs.toml does not parse,
/// a bug met on it), as one diagnostic on its first line.
pub fn trouble(message: &str) -> Diagnostic {
    Diagnostic {
        range: Range { start: Position::new(0, 0), end: Position::new(0, 0) },
        severity: Some(DiagnosticSeverity::ERROR),
        source: Some(SOURCE.to_string()),
        message: message.to_string(),
        ..Diagnostic::default()
    }
}
