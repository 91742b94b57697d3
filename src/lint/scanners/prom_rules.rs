//! Prometheus rule files (alerting and recording rules), plain or as a
//! PrometheusRule object (its `spec.groups`): each rule's
//! `expr:` is a PromQL query, read by the PromQL scanner; a query that does
//! not parse is a note naming its line, and its metric names are still
//! checked. A series a `record:` rule of the file records is a known series
//! for the queries that use it: it is not the engine's to know.

use super::promql;
use super::yaml::Node;
use super::{Scan, ScanCtx};
use crate::lint::refs::Ref;
use crate::lint::span::Span;

/// A document's rule groups: a rule file's `groups`, a PrometheusRule's
/// `spec.groups`.
fn groups(doc: &Node) -> Option<&Node> {
    doc.get("groups").or_else(|| doc.path("spec.groups")).filter(|g| matches!(g, Node::Seq { .. }))
}

/// True when a document holds rule groups.
pub fn is_rule_file(doc: &Node) -> bool {
    groups(doc).is_some()
}

pub fn scan(
    docs: &[Node],
    text: &str,
    line_of: &dyn Fn(usize) -> usize,
    span: &dyn Fn(usize, usize) -> Span,
    ctx: &ScanCtx<'_>,
    out: &mut Scan,
) {
    let rules = || {
        docs.iter()
            .flat_map(|d| groups(d).map(Node::items).unwrap_or_default())
            .flat_map(|g| g.get("rules").map(Node::items).unwrap_or_default())
    };
    let recorded: Vec<&str> = rules().filter_map(|r| r.get("record").and_then(Node::str)).collect();
    let first = out.refs.len();
    for doc in docs {
        for group in groups(doc).map(Node::items).unwrap_or_default() {
            for rule in group.get("rules").map(Node::items).unwrap_or_default() {
                let Some(Node::Scalar { text: expr, at }) = rule.get("expr") else { continue };
                if let Err(why) = promql::scan(expr, at.clone(), text, span, ctx, out) {
                    out.notes.push(format!("line {}: this PromQL query does not parse ({why})", line_of(at.start)));
                    let base = at.start;
                    ctx.metrics.scan(
                        text.get(at.clone()).unwrap_or(""),
                        &|s, e| span(base + s, base + e),
                        &mut out.refs,
                    );
                }
            }
        }
    }
    // The file's own recorded series are known to the alerts that use them.
    let found = out.refs.split_off(first);
    let known = |r: &Ref| matches!(r, Ref::Metric { name, .. } if recorded.contains(&name.as_str()));
    out.refs.extend(found.into_iter().filter(|r| !known(r)).map(|mut r| {
        if let Ref::Metric { usage: Some(u), .. } = &mut r {
            u.recordings_seen = !recorded.is_empty();
        }
        r
    }));
}
