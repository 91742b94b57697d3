//! One query written in a monitoring file (a dashboard panel's, a template
//! variable's, an autoscaler trigger's), read as PromQL after Grafana's
//! syntax is made PromQL (`grafana`). A query that names none of the
//! engine's metrics is not read at all; one that does not parse is a note
//! naming its line, and its metric names are still found as text.

use std::ops::Range;

use super::{grafana, promql, Scan, ScanCtx};
use crate::lint::refs::Ref;
use crate::lint::span::Span;

/// Reads `query`, written at `raw` in `file` (its escapes as written).
pub fn read(
    query: &str,
    raw: Range<usize>,
    file: &str,
    span: &dyn Fn(usize, usize) -> Span,
    ctx: &ScanCtx<'_>,
    out: &mut Scan,
) {
    if !ctx.metrics.mentions(query) {
        return;
    }
    let Some(promql) = grafana::to_promql(query) else { return };
    let first = out.refs.len();
    let read = promql::scan(&promql, raw.clone(), file, span, ctx, out);
    // `label_values(m, label)`: the label's place is where it is listed.
    if let Some(label) = grafana::listed_label(query) {
        let written = file.get(raw.clone()).unwrap_or("");
        if let Some(at) = written.rfind(label).map(|i| raw.start + i) {
            for r in &mut out.refs[first..] {
                if let Ref::Metric { usage: Some(u), .. } = r {
                    for (l, place) in u.labels.iter_mut().filter(|(l, _)| l == label) {
                        *place = span(at, at + l.len());
                    }
                }
            }
        }
    }
    if let Err(why) = read {
        out.notes.push(format!("line {}: this PromQL query does not parse ({why})", span(raw.start, raw.start).line));
        let base = raw.start;
        ctx.metrics.scan(file.get(raw).unwrap_or(""), &|s, e| span(base + s, base + e), &mut out.refs);
    }
}
