//! One JSON document: `{"findings": [...], "summary": {...}}`.

use serde_json::json;

use super::{counts, Context};
use crate::lint::finding::Report;

pub fn render(report: &Report, ctx: &Context<'_>) -> String {
    let findings: Vec<_> = report.findings().collect();
    let c = counts(report);
    let skipped: Vec<_> =
        report.skipped.iter().map(|s| json!({"path": s.path.display().to_string(), "reason": s.reason})).collect();
    let doc = json!({
        "findings": findings,
        "summary": {
            "files": c.files,
            "findings": findings.len(),
            "errors": c.errors,
            "warnings": c.warnings,
            "catalog": ctx.build,
            "skipped": skipped,
            "excluded": report.excluded,
            // Files a folder's image pin judged against another version.
            "pinned": report
                .files
                .iter()
                .filter(|f| !ctx.build.strip_suffix(f.tag.as_str()).is_some_and(|b| b.ends_with(' ')))
                .map(|f| json!({"path": f.path, "tag": f.tag}))
                .collect::<Vec<_>>(),
        },
    });
    serde_json::to_string_pretty(&doc).map(|s| s + "\n").unwrap_or_default()
}
