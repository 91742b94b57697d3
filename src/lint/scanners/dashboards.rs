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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::refs::Ref;

    fn names(text: &str) -> Vec<(String, usize)> {
        let mut out = Scan::default();
        crate::lint::scanners::test_ctx(|ctx| scan(text, &|s, _| Span { col: s, ..Span::default() }, ctx, &mut out));
        out.refs
            .into_iter()
            .filter_map(|r| match r {
                Ref::Metric { name, span, .. } => Some((name, span.col)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn queries_are_read_under_their_keys_and_nothing_else() {
        // Cloud Monitoring's key; a variable's `definition` beside its `query`
        // is read once; titles and legends are not queries.
        let text = r#"{"title": "radiance:engine_steps_total", "widgets": [
            {"prometheusQuery": "rate(radiance:engine_steps_held_total[5m])", "legendFormat": "radiance:x_total"},
            {"query": "label_values(radiance:engine_steps_total, job)", "definition": "label_values(radiance:engine_steps_total, job)"}]}"#;
        let at = |needle: &str| text.find(needle).unwrap_or(0);
        assert_eq!(
            names(text),
            [
                ("radiance:engine_steps_held_total".to_string(), at("radiance:engine_steps_held_total")),
                ("radiance:engine_steps_total".to_string(), at("label_values(radiance") + "label_values(".len()),
            ]
        );
        // A JSON file naming no prefix is not walked.
        assert!(names(r#"{"expr": "rate(up[5m])"}"#).is_empty());
    }
}
