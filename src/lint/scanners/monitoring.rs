//! Monitoring objects written in YAML, beside the rule files
//! (`prom_rules`): dashboards and rule files held in a ConfigMap's `data:`
//! or a GrafanaDashboard's `spec.json` (each read as the file it would be,
//! places kept), KEDA's prometheus triggers (`query`), the metrics a
//! HorizontalPodAutoscaler scales on (`External`, `Pods`, `Object`: the
//! name and the labels its selector matches), and prometheus-adapter rules
//! (`seriesQuery` as PromQL, the names of `metricsQuery`), and Perses
//! dashboards (each panel's `query`, each variable's `matchers`). The names an
//! adapter exposes (`name.as`) are its own, not the engine's: not read.

use super::nested::Nested;
use super::yaml::Node;
use super::{dashboards, prom_rules, queries, yaml, Scan, ScanCtx};
use crate::lint::refs::{Ref, Usage};
use crate::lint::span::Span;

/// The kinds of object this reader reads.
const KINDS: &[&str] =
    &["ConfigMap", "GrafanaDashboard", "ScaledObject", "ScaledJob", "HorizontalPodAutoscaler", "PersesDashboard"];

/// True when a document is a monitoring object this reader reads.
pub fn is_monitoring(doc: &Node) -> bool {
    doc.get("kind").and_then(Node::str).is_some_and(|k| KINDS.contains(&k))
}

/// Reads the monitoring objects of `docs` (the documents of `text`).
pub fn scan(docs: &[Node], text: &str, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan) {
    for doc in docs {
        match doc.get("kind").and_then(Node::str).unwrap_or("") {
            "ConfigMap" => {
                for (key, _, value) in doc.get("data").map(Node::entries).unwrap_or_default() {
                    if let Node::Scalar { text: held, at } = value {
                        held_file(key, held, at.clone(), text, span, ctx, out);
                    }
                }
            }
            "GrafanaDashboard" => {
                if let Some(Node::Scalar { text: held, at }) = doc.path("spec.json") {
                    held_file("dashboard.json", held, at.clone(), text, span, ctx, out);
                }
            }
            "ScaledObject" | "ScaledJob" => {
                for t in doc.path("spec.triggers").map(Node::items).unwrap_or_default() {
                    if t.get("type").and_then(Node::str) != Some("prometheus") {
                        continue;
                    }
                    if let Some(Node::Scalar { text: q, at }) = t.path("metadata.query") {
                        queries::read(q, at.clone(), text, span, ctx, out);
                    }
                }
            }
            "HorizontalPodAutoscaler" => autoscaler(doc, span, ctx, out),
            // Perses: a panel's `query`, a variable's `matchers`.
            "PersesDashboard" | "Dashboard" if doc.path("spec.panels").is_some() => perses(doc, text, span, ctx, out),
            _ => {}
        }
    }
    adapter_rules(docs, text, span, ctx, out);
}

/// A file held under `key` (its name in the ConfigMap): JSON is read as a
/// dashboard, YAML as rule files and adapter rules.
fn held_file(
    key: &str,
    held: &str,
    at: std::ops::Range<usize>,
    text: &str,
    span: &dyn Fn(usize, usize) -> Span,
    ctx: &ScanCtx<'_>,
    out: &mut Scan,
) {
    let nested = Nested::new(held, at, text);
    let inner = |s: usize, e: usize| span(nested.place(s), nested.place(e));
    let lower = key.to_ascii_lowercase();
    if lower.ends_with(".json") || held.trim_start().starts_with('{') {
        dashboards::scan(held, &inner, ctx, out);
    } else if [".yaml", ".yml", ".rules"].iter().any(|x| lower.ends_with(x)) {
        // Notes about the held file are not the ConfigMap's to make.
        let (docs, _) = yaml::load_each(held);
        let line_of = |at: usize| inner(at, at).line;
        if docs.iter().any(prom_rules::is_rule_file) {
            prom_rules::scan(&docs, held, &line_of, &inner, ctx, out);
        }
        adapter_rules(&docs, held, &inner, ctx, out);
    }
}

/// The metrics an HPA scales on (autoscaling/v2 and v2beta1's shapes).
fn autoscaler(doc: &Node, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan) {
    for m in doc.path("spec.metrics").map(Node::items).unwrap_or_default() {
        for source in ["external", "pods", "object"] {
            let Some(s) = m.get(source) else { continue };
            let (name, selector) = match s.get("metric") {
                Some(metric) => (metric.get("name"), metric.get("selector")),
                None => (s.get("metricName"), s.get("metricSelector")),
            };
            let Some(Node::Scalar { text: name, at }) = name else { continue };
            if !ctx.metrics.is_metric_name(name) {
                continue;
            }
            let labels = selector
                .and_then(|sel| sel.get("matchLabels"))
                .map(Node::entries)
                .unwrap_or_default()
                .iter()
                .map(|(l, lat, _)| (l.clone(), span(lat.start, lat.end)))
                .collect();
            let usage = Usage { func: None, quantile: false, labels, alternatives: Vec::new(), recordings_seen: false };
            out.refs.push(Ref::Metric {
                name: name.clone(),
                span: span(at.start, at.end),
                pattern: false,
                usage: Some(Box::new(usage)),
            });
        }
    }
}

/// A Perses dashboard's queries, wherever its panels and variables nest them.
fn perses(doc: &Node, text: &str, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan) {
    let mut stack = vec![doc];
    while let Some(n) = stack.pop() {
        for (key, _, value) in n.entries().iter().rev() {
            match (key.as_str(), value) {
                ("query", Node::Scalar { text: q, at }) => queries::read(q, at.clone(), text, span, ctx, out),
                ("matchers", Node::Seq { items, .. }) => {
                    for m in items {
                        if let Node::Scalar { text: q, at } = m {
                            queries::read(q, at.clone(), text, span, ctx, out);
                        }
                    }
                }
                _ => stack.push(value),
            }
        }
        stack.extend(n.items().iter().rev());
    }
}

/// prometheus-adapter rules, wherever a document holds them (its config
/// file, a chart's values): every map with a `seriesQuery`.
fn adapter_rules(docs: &[Node], text: &str, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan) {
    let mut stack: Vec<&Node> = docs.iter().collect();
    while let Some(n) = stack.pop() {
        match n {
            Node::Map { entries, .. } => {
                if let Some(Node::Scalar { text: q, at }) = n.get("seriesQuery") {
                    queries::read(q, at.clone(), text, span, ctx, out);
                    if let Some(Node::Scalar { at, .. }) = n.get("metricsQuery") {
                        let base = at.start;
                        let written = text.get(at.clone()).unwrap_or("");
                        ctx.metrics.scan(written, &|s, e| span(base + s, base + e), &mut out.refs);
                    }
                    continue;
                }
                stack.extend(entries.iter().rev().map(|(_, _, v)| v));
            }
            Node::Seq { items, .. } => stack.extend(items.iter().rev()),
            _ => {}
        }
    }
}
