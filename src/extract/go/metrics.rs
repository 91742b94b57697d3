//! Metrics registered with the Prometheus Go client: a call of a
//! constructor named for a type (`prometheus.NewCounter`, `NewGaugeVec`,
//! `promauto.NewHistogram`, a factory's `f.NewSummaryVec`) given its options
//! as a literal (`prometheus.CounterOpts{Namespace: "x", Name: "y", Help:
//! "…"}`). The name is the client's `BuildFQName`: namespace, subsystem
//! and name joined with `_`, each part a literal; a `…Vec` constructor's
//! labels are its literal `[]string{…}`. The client appends nothing to a
//! counter's name; a histogram is scraped as `_bucket`, `_sum`, `_count`.

use tree_sitter::Node;

use crate::catalog::model::{Metric, MetricType};

use super::tree::{call, children, GoFile};

/// The metrics a file registers whose names start with one of `prefixes`
/// (none: every metric), in source order.
pub fn metrics(file: &GoFile, prefixes: &[String], out: &mut Vec<Metric>) {
    for n in super::tree::descendants(file.root()) {
        let Some((callee, args)) = call(file, n) else { continue };
        let method = callee.rsplit('.').next().unwrap_or(callee);
        let Some((kind, vec)) = constructor(method) else { continue };
        let Some(opts) = args.first().and_then(|a| options(file, *a)) else { continue };
        let const_labels = args.first().is_some_and(|a| file.text_of(*a).contains("ConstLabels"));
        let part = |k: &str| opts.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str()).unwrap_or("");
        let name: Vec<&str> =
            [part("Namespace"), part("Subsystem"), part("Name")].into_iter().filter(|p| !p.is_empty()).collect();
        if part("Name").is_empty() {
            continue;
        }
        let name = name.join("_");
        if !(prefixes.is_empty() || prefixes.iter().any(|p| name.starts_with(p.as_str()))) {
            continue;
        }
        let labels = if vec { args.get(1).map(|a| strings(file, *a)).unwrap_or_default() } else { Vec::new() };
        let samples = match kind {
            MetricType::Histogram => ["_bucket", "_sum", "_count"].iter().map(|s| format!("{name}{s}")).collect(),
            _ => Vec::new(),
        };
        out.push(Metric {
            name,
            kind,
            help: part("Help").to_string(),
            labels,
            location: file.location(n),
            samples,
            shown_by: None,
            deprecated: None,
            successor: None,
            // A constructor without `Vec` and options without `ConstLabels`
            // register a series with no labels.
            unlabelled: !vec && !const_labels,
        });
    }
}

/// The type a constructor makes (`NewCounter`, `NewGaugeVec`,
/// `NewCounterFunc`), and whether it takes labels (`…Vec`).
fn constructor(method: &str) -> Option<(MetricType, bool)> {
    // `NewGaugeFunc(opts, f)` is a gauge whose value a function gives.
    let rest = method.strip_prefix("New")?;
    let rest = rest.strip_suffix("Func").unwrap_or(rest);
    let (ty, vec) = match rest.strip_suffix("Vec") {
        Some(t) => (t, true),
        None => (rest, false),
    };
    let kind = match ty {
        "Counter" => MetricType::Counter,
        "Gauge" => MetricType::Gauge,
        "Histogram" => MetricType::Histogram,
        "Summary" => MetricType::Summary,
        _ => return None,
    };
    Some((kind, vec))
}

/// The literal string fields of an options literal (`XOpts{Name: "y"}`,
/// or `&XOpts{…}`); None when it is not one.
fn options(file: &GoFile, n: Node<'_>) -> Option<Vec<(String, String)>> {
    let n = if n.kind() == "unary_expression" { children(n).first().copied()? } else { n };
    if n.kind() != "composite_literal" || !file.text_of(n.child_by_field_name("type")?).ends_with("Opts") {
        return None;
    }
    let mut out = Vec::new();
    for e in children(n.child_by_field_name("body")?).into_iter().filter(|e| e.kind() == "keyed_element") {
        let parts = children(e);
        let (Some(k), Some(v)) = (parts.first(), parts.get(1)) else { continue };
        let v = children(*v).first().copied().unwrap_or(*v);
        if let Some(text) = file.string(v) {
            out.push((file.text_of(*k).trim().to_string(), text));
        }
    }
    Some(out)
}

/// The literal strings of a `[]string{"a", "b"}`.
fn strings(file: &GoFile, n: Node<'_>) -> Vec<String> {
    let Some(body) = n.child_by_field_name("body").filter(|_| n.kind() == "composite_literal") else {
        return Vec::new();
    };
    children(body).into_iter().filter_map(|e| children(e).first().and_then(|v| file.string(*v))).collect()
}
