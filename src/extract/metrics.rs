//! Metric registrations: any string literal that is a full `radiance:` or
//! `vllm:` metric name, with its type and help read from the call, builder
//! chain or table row it sits in.
//!
//! Handles `reg.counter("name", "help")`, `add(MetricType::kGauge, "name",
//! "help")`, table rows `{kCounter, "name", "help"}`, and prometheus-cpp's
//! `BuildCounter().Name("name").Help("help")`.

use std::sync::LazyLock;

use regex::Regex;
use tree_sitter::Node;

use super::cst::{self, call_args, call_name, chain_root, chained_calls, line, string_value, text};
use super::roles::{looks, Looks};
use super::Parsed;
use crate::catalog::model::{Metric, MetricType};

/// The metric prefixes knobs catalogues.
pub const PREFIXES: &[&str] = &["radiance:", "vllm:"];

static NAME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(?:radiance|vllm):[A-Za-z_][A-Za-z0-9_:]*$").expect("valid regex"));

/// A cheap test before parsing a file for metrics.
pub fn mentions_metric(text: &str) -> bool {
    PREFIXES.iter().any(|p| text.contains(p))
}

fn type_of_word(word: &str) -> Option<MetricType> {
    let w = word.to_ascii_lowercase();
    if w.contains("counter") {
        Some(MetricType::Counter)
    } else if w.contains("gauge") {
        Some(MetricType::Gauge)
    } else if w.contains("histogram") {
        Some(MetricType::Histogram)
    } else if w.contains("summary") {
        Some(MetricType::Summary)
    } else {
        None
    }
}

pub(crate) fn registrations(p: &Parsed<'_>) -> Vec<Metric> {
    let mut out = Vec::new();
    for node in cst::preorder(p.tree.root_node()) {
        if !cst::is_string(node) || node.parent().is_some_and(|n| n.kind() == "concatenated_string") {
            continue;
        }
        let Some(name) = string_value(node, p.src) else { continue };
        if !NAME.is_match(&name) {
            continue;
        }
        let mut m = Metric {
            name,
            kind: MetricType::Untyped,
            help: String::new(),
            labels: Vec::new(),
            location: p.loc(line(node)),
        };
        match node.parent().map(|n| n.kind()) {
            Some("argument_list") => {
                if let Some(call) = node.parent().and_then(|a| a.parent()) {
                    from_call(p, call, node, &mut m);
                }
            }
            Some("initializer_list") => {
                if let Some(list) = node.parent() {
                    from_siblings(p, list, node, &mut m);
                }
            }
            Some("initializer_pair") => {
                if let Some(list) = node.parent().and_then(|n| n.parent()) {
                    from_siblings(p, list, node, &mut m);
                }
            }
            _ => {}
        }
        out.push(m);
    }
    out
}

fn from_call(p: &Parsed<'_>, call: Node<'_>, name_node: Node<'_>, m: &mut Metric) {
    let root = chain_root(call);
    let mut calls = vec![root];
    calls.extend(chained_calls(root));
    for c in &calls {
        let fname = call_name(*c, p.src).unwrap_or("");
        if m.kind == MetricType::Untyped {
            if let Some(t) = type_of_word(fname) {
                m.kind = t;
            }
        }
        let lower = fname.to_ascii_lowercase();
        if lower == "help" || lower == "sethelp" || lower == "describe" || lower == "description" {
            if let Some(h) = call_args(*c).first().and_then(|a| string_value(*a, p.src)) {
                m.help = h;
            }
        }
        if lower == "labels" || lower == "labelnames" {
            m.labels.extend(label_strings(p, *c));
        }
    }
    from_siblings(p, call.child_by_field_name("arguments").unwrap_or(call), name_node, m);
}

/// Reads type, help and labels from the values beside the name.
fn from_siblings(p: &Parsed<'_>, list: Node<'_>, name_node: Node<'_>, m: &mut Metric) {
    let mut cursor = list.walk();
    for sib in list.named_children(&mut cursor) {
        if sib == name_node {
            continue;
        }
        let value =
            if sib.kind() == "initializer_pair" { sib.child_by_field_name("value").unwrap_or(sib) } else { sib };
        if let Some(s) = string_value(value, p.src) {
            if m.help.is_empty() && matches!(looks(&s), Looks::Prose) {
                m.help = s;
            }
            continue;
        }
        match value.kind() {
            "identifier" | "qualified_identifier" | "field_expression" if m.kind == MetricType::Untyped => {
                if let Some(t) = type_of_word(text(value, p.src)) {
                    m.kind = t;
                }
            }
            "initializer_list" => {
                let mut c = value.walk();
                let labels: Vec<String> = value
                    .named_children(&mut c)
                    .filter_map(|n| string_value(n, p.src))
                    .filter(|s| !s.is_empty() && !s.contains(' '))
                    .collect();
                if m.labels.is_empty() {
                    m.labels = labels;
                }
            }
            _ => {}
        }
    }
}

fn label_strings(p: &Parsed<'_>, call: Node<'_>) -> Vec<String> {
    cst::preorder(call.child_by_field_name("arguments").unwrap_or(call))
        .into_iter()
        .filter_map(|n| string_value(n, p.src))
        .collect()
}
