//! Dashboards written as JSON — Grafana's (classic and current schema, rows
//! and collapsed rows, library panels, template variables), Perses's and
//! Cloud Monitoring's: every string that stands under a key these schemas
//! give a query (`expr`, `query`, `prometheusQuery`) is read as one,
//! wherever it nests. Grafana's `definition` repeats its variable's `query`
//! and is not read twice. Other strings (titles, descriptions, legends) are
//! not read: they name panels, not series.

use super::{json, queries, Scan, ScanCtx};
use crate::lint::span::Span;

/// The keys whose string values are queries.
const QUERY_KEYS: &[&str] = &["expr", "query", "prometheusQuery"];

/// Reads the queries of the JSON `text`; `span` maps a range of `text`.
pub fn scan(text: &str, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan) {
    // Most JSON files name no metric of the engine: they are not walked.
    if !ctx.metrics.mentions(text) {
        return;
    }
    for s in json::strings(text) {
        if s.key.as_deref().is_some_and(|k| QUERY_KEYS.contains(&k)) {
            queries::read(&s.value, s.at, text, span, ctx, out);
        }
    }
}
