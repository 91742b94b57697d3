//! Metric registrations, for the engine's metric prefixes (from its
//! profile): any string literal that is a full metric name, with its type
//! and help read from the call, builder chain or table row it sits in;
//! exposition text written by hand (`"# TYPE llamacpp:x counter\n"`); and
//! tables of bare names that are printed behind a prefix literal, typed by
//! the table's name (`counters = {{"prompt_tokens_total", "…"}, …}`) or by
//! the key they sit under (`{"counter", {{{"name", "…"}, {"help", "…"}}}}`).
//!
//! Handles `reg.counter("name", "help")`, `add(MetricType::kGauge, "name",
//! "help")`, table rows `{kCounter, "name", "help"}`, and prometheus-cpp's
//! `BuildCounter().Name("name").Help("help")`.

use std::sync::LazyLock;

use regex::Regex;
use tree_sitter::Node;

use super::node_kind::KindName;

use super::cst::{self, call_args, call_name, chain_root, chained_calls, line, string_value, text};
use super::parsed::Parsed;
use super::roles::{looks, Looks};
use crate::catalog::model::{Metric, MetricType};

/// A cheap test before parsing a file for metrics.
pub fn mentions_metric(text: &str, prefixes: &[String]) -> bool {
    prefixes.iter().any(|p| text.contains(p.as_str()))
}

fn is_name(s: &str, prefixes: &[String]) -> bool {
    static REST: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[A-Za-z_][A-Za-z0-9_:]*$").expect("valid regex"));
    prefixes.iter().any(|p| s.strip_prefix(p.as_str()).is_some_and(|r| REST.is_match(r)))
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

pub(crate) fn registrations(p: &Parsed<'_>, prefixes: &[String]) -> Vec<Metric> {
    static TYPE_LINE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"# TYPE (\S+) (counter|gauge|histogram|summary|untyped)").expect("valid regex"));
    static LABELS: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^([A-Za-z_][A-Za-z0-9_:]*)\{([A-Za-z_][A-Za-z0-9_]*)=").expect("valid regex"));
    let mut out = Vec::new();
    // A prefix literal that a bare name is printed behind.
    let mut behind_prefix: Option<String> = None;
    for node in p.nodes() {
        if !cst::is_string(node) || p.parent(node).is_some_and(|n| n.kind_name() == "concatenated_string") {
            continue;
        }
        let Some(name) = string_value(node, p.src) else { continue };
        if let Some(pre) = prefixes.iter().find(|pre| name.ends_with(pre.as_str())) {
            behind_prefix = Some(pre.clone());
        }
        // Exposition written by hand: `# TYPE name counter`, `name{label="`.
        for c in TYPE_LINE.captures_iter(&name) {
            if is_name(&c[1], prefixes) {
                let kind = type_of_word(&c[2]).unwrap_or(MetricType::Untyped);
                out.push(Metric {
                    name: c[1].to_string(),
                    kind,
                    help: String::new(),
                    labels: Vec::new(),
                    location: p.loc(line(node)),
                    ..Metric::default()
                });
            }
        }
        if let Some(c) = LABELS.captures(&name) {
            if is_name(&c[1], prefixes) {
                out.push(Metric {
                    name: c[1].to_string(),
                    kind: MetricType::Untyped,
                    help: String::new(),
                    labels: vec![c[2].to_string()],
                    location: p.loc(line(node)),
                    ..Metric::default()
                });
            }
        }
        if !is_name(&name, prefixes) {
            continue;
        }
        let mut m = Metric {
            name,
            kind: MetricType::Untyped,
            help: String::new(),
            labels: Vec::new(),
            location: p.loc(line(node)),
            ..Metric::default()
        };
        match p.parent(node).map(|n| n.kind_name()) {
            Some("argument_list") => {
                if let Some(call) = p.parent(node).and_then(|a| p.parent(a)) {
                    from_call(p, call, node, &mut m);
                }
            }
            Some("initializer_list") => {
                if let Some(list) = p.parent(node) {
                    from_siblings(p, list, node, &mut m);
                }
            }
            Some("initializer_pair") => {
                if let Some(list) = p.parent(node).and_then(|n| p.parent(n)) {
                    from_siblings(p, list, node, &mut m);
                }
            }
            _ => {}
        }
        out.push(m);
    }
    if let Some(prefix) = behind_prefix {
        out.extend(bare_tables(p, &prefix));
        out.extend(keyed_tables(p, &prefix));
    }
    out
}

/// `{"counter", {{{"name", "prompt_tokens_total"}, {"help", "…"}}, …}}`: a
/// JSON-like table of key/value rows under a key that says their type; the
/// `"name"` value is a bare name printed behind the prefix literal.
fn keyed_tables(p: &Parsed<'_>, prefix: &str) -> Vec<Metric> {
    static BARE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[a-z_][a-z0-9_]*$").expect("valid regex"));
    let pair = |n: Node<'_>| -> Option<(String, String)> {
        let mut c = n.walk();
        let cells: Vec<Node<'_>> = n.named_children(&mut c).collect();
        match cells[..] {
            [k, v] if n.kind_name() == "initializer_list" => Some((string_value(k, p.src)?, string_value(v, p.src)?)),
            _ => None,
        }
    };
    // The type a row's enclosing table is keyed by: `{"gauge", {…}}`.
    let kind_above = |row: Node<'_>| -> Option<MetricType> {
        let mut cur = p.parent(row);
        for _ in 0..4 {
            let n = cur?;
            if n.kind_name() == "initializer_list" {
                let first = n.named_child(0).and_then(|f| string_value(f, p.src));
                if let Some(t) = first.as_deref().and_then(type_of_word) {
                    return Some(t);
                }
            }
            cur = p.parent(n);
        }
        None
    };
    let mut out = Vec::new();
    for node in p.nodes() {
        let Some((key, bare)) = pair(node) else { continue };
        if !key.eq_ignore_ascii_case("name") || !BARE.is_match(&bare) {
            continue;
        }
        let Some(row) = p.parent(node) else { continue };
        let Some(kind) = kind_above(row) else { continue };
        let mut c = row.walk();
        let help = row
            .named_children(&mut c)
            .filter_map(pair)
            .find_map(|(k, v)| k.eq_ignore_ascii_case("help").then_some(v))
            .unwrap_or_default();
        out.push(Metric {
            name: format!("{prefix}{bare}"),
            kind,
            help,
            labels: Vec::new(),
            location: p.loc(line(node)),
            ..Metric::default()
        });
    }
    out
}

/// `std::vector<item> counters = {{"prompt_tokens_total", "help", …}, …}`:
/// bare names in a table whose name says their type.
fn bare_tables(p: &Parsed<'_>, prefix: &str) -> Vec<Metric> {
    static BARE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[a-z_][a-z0-9_]*$").expect("valid regex"));
    let mut out = Vec::new();
    for decl in p.nodes() {
        if decl.kind_name() != "init_declarator" {
            continue;
        }
        let (Some(d), Some(v)) = (decl.child_by_field_name("declarator"), decl.child_by_field_name("value")) else {
            continue;
        };
        if v.kind_name() != "initializer_list" {
            continue;
        }
        let Some(kind) = type_of_word(text(d, p.src)) else { continue };
        let mut cursor = v.walk();
        for row in v.named_children(&mut cursor).filter(|r| r.kind_name() == "initializer_list") {
            let mut rc = row.walk();
            let cells: Vec<Node<'_>> = row.named_children(&mut rc).collect();
            let Some(bare) = cells.first().and_then(|c| string_value(*c, p.src)) else { continue };
            if !BARE.is_match(&bare) {
                continue;
            }
            let help = cells.get(1).and_then(|c| string_value(*c, p.src)).unwrap_or_default();
            out.push(Metric {
                name: format!("{prefix}{bare}"),
                kind,
                help,
                labels: Vec::new(),
                location: p.loc(line(row)),
                ..Metric::default()
            });
        }
    }
    out
}

fn from_call(p: &Parsed<'_>, call: Node<'_>, name_node: Node<'_>, m: &mut Metric) {
    let root = chain_root(call);
    let mut calls = vec![root];
    calls.extend(chained_calls(p, root));
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
            if sib.kind_name() == "initializer_pair" { sib.child_by_field_name("value").unwrap_or(sib) } else { sib };
        if let Some(s) = string_value(value, p.src) {
            if m.help.is_empty() && matches!(looks(&s), Looks::Prose) {
                m.help = s;
            }
            continue;
        }
        match value.kind_name() {
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
