//! Metric registrations in Python: a `Counter`/`Gauge`/`Histogram`/`Summary`/
//! `Info` constructed (directly, `prometheus_client.Gauge(...)`, or through a
//! class held in an attribute, `self._gauge_cls(...)`) with its name as
//! `name=` or the first argument (a literal, or a local name assigned a
//! literal anywhere in the function), its help as `documentation=` and its
//! labels as `labelnames=` or the third argument (a list, or a name traced
//! to one; none named is no labels at all, `unlabelled`, except for an
//! Info, whose keys are given when it is set). A
//! registration under an `if` whose condition names a gate (a profile's
//! word, an env key) is exported only behind it; a help text that says
//! "deprecated" is kept with the name it points to. Names built at run time
//! that cannot be settled are warned about.

use std::sync::LazyLock;

use regex::Regex;
use tree_sitter::Node;

use crate::catalog::model::{Metric, MetricType};

use super::module::Program;
use super::tree::{call_args, children, last_name, statements, PyFile};
use super::value::{Scope, Val};

/// What a file's registrations are read with.
pub struct Reading<'r> {
    pub prefixes: &'r [String],
    /// What the client appends to a counter's name (`_total`).
    pub counter_suffix: Option<&'r str>,
    /// What the client appends to an info metric's name (`_info`).
    pub info_suffix: Option<&'r str>,
    /// A word of an `if` condition → what turns the metric on.
    pub gates: &'r [(String, String)],
}

/// The registrations of `file` under one of the reading's prefixes.
pub fn registrations(
    program: &Program<'_>,
    file: usize,
    reading: &Reading<'_>,
    warnings: &mut Vec<String>,
) -> Vec<Metric> {
    let f = &program.files[file];
    let mut out = Vec::new();
    let mut unlabelled = Vec::new();
    let mut stack = vec![(f.root(), None::<Node<'_>>)];
    while let Some((n, func)) = stack.pop() {
        let func = if n.kind() == "function_definition" { Some(n) } else { func };
        if n.kind() == "call" {
            out.extend(registration(program, file, n, func, reading, warnings, &mut unlabelled));
        }
        stack.extend(children(n).into_iter().rev().map(|c| (c, func)));
    }
    // One note for the file: the labels a caller passes in.
    match unlabelled.as_slice() {
        [] => {}
        [one] => warnings.push(format!("{}: the labels of {one} are known only at run time", f.path)),
        [first, rest @ ..] => warnings.push(format!(
            "{}: the labels of {first} and {} more metrics are known only at run time",
            f.path,
            rest.len()
        )),
    }
    out
}

fn metric_type(callee: &str) -> Option<MetricType> {
    let c = callee.to_ascii_lowercase();
    let c = c.trim_start_matches('_');
    [
        ("counter", MetricType::Counter),
        ("gauge", MetricType::Gauge),
        ("histogram", MetricType::Histogram),
        ("summary", MetricType::Summary),
        ("info", MetricType::Info),
    ]
    .into_iter()
    .find(|(w, _)| c == *w || c == format!("{w}_cls"))
    .map(|(_, t)| t)
}

fn registration(
    program: &Program<'_>,
    file: usize,
    call: Node<'_>,
    func: Option<Node<'_>>,
    reading: &Reading<'_>,
    warnings: &mut Vec<String>,
    unlabelled: &mut Vec<String>,
) -> Vec<Metric> {
    let f = &program.files[file];
    let Some(callee) = call.child_by_field_name("function") else { return Vec::new() };
    let Some(kind) = metric_type(last_name(f, callee)) else { return Vec::new() };
    let args = call_args(f, call);
    let Some(name_node) = args.keyword("name").or_else(|| args.positional.first().copied()) else {
        return Vec::new();
    };
    let mut scope = Scope::new(program, file);
    // The function's own assignments (`labelnames = [...]`) are in scope.
    if let Some(body) = func.and_then(|fun| fun.child_by_field_name("body")) {
        for s in statements(body) {
            for a in children(s).into_iter().filter(|a| a.kind() == "assignment") {
                if let (Some(l), Some(r)) = (a.child_by_field_name("left"), a.child_by_field_name("right")) {
                    if l.kind() == "identifier" {
                        scope.pending.insert(f.text_of(l).to_string(), r);
                    }
                }
            }
        }
    }
    let names = match scope.eval(name_node) {
        Val::Str(s) => vec![s],
        // `name = "vllm:…_info"` in a branch, then `Gauge(name=name, …)`.
        _ => assigned_literals(f, &scope, func, name_node),
    };
    if names.is_empty() {
        let text = f.text_of(name_node);
        if reading.prefixes.iter().any(|p| text.contains(p.as_str())) {
            warnings.push(format!("{}: a metric name built at run time, `{text}`, was passed over", f.location(call)));
        }
        return Vec::new();
    }
    let help = args.keyword("documentation").or_else(|| args.positional.get(1).copied());
    let help = help.map(|h| scope.eval(h).display()).unwrap_or_default();
    // `labelnames=` or the third positional argument (prometheus_client's
    // order: name, documentation, labelnames); none: no labels at all.
    let labelnames = args.keyword("labelnames").or_else(|| args.positional.get(2).copied());
    let labels = match labelnames.map(|l| scope.eval(l)) {
        Some(v) => v.members(),
        None => Some(Vec::new()),
    };
    let shown_by = gate(f, call, func, reading.gates);
    let mut out = Vec::new();
    for name in names.into_iter().filter(|n| reading.prefixes.iter().any(|p| n.starts_with(p.as_str()))) {
        let suffix = match kind {
            MetricType::Counter => reading.counter_suffix,
            MetricType::Info => reading.info_suffix,
            _ => None,
        };
        let name = match suffix {
            Some(s) if !name.ends_with(s) => format!("{name}{s}"),
            _ => name,
        };
        // Read and empty: the metric has no labels (not "not read").
        let bare = labels.as_ref().is_some_and(Vec::is_empty) && kind != MetricType::Info;
        let labels = labels.clone().unwrap_or_else(|| {
            unlabelled.push(name.clone());
            Vec::new()
        });
        let (deprecated, successor) = deprecation(&help, &name, reading.prefixes);
        out.push(Metric {
            name,
            kind,
            help: help.clone(),
            labels,
            unlabelled: bare,
            location: f.location(call),
            shown_by: shown_by.clone(),
            deprecated,
            successor,
            ..Metric::default()
        });
    }
    out
}

/// The literals a local name is assigned anywhere in the function (in
/// branches too): each is a name the call may register.
fn assigned_literals(f: &PyFile, scope: &Scope<'_, '_>, func: Option<Node<'_>>, name: Node<'_>) -> Vec<String> {
    let (Some(func), "identifier") = (func, name.kind()) else { return Vec::new() };
    let wanted = f.text_of(name);
    let mut out = Vec::new();
    let mut stack = vec![func];
    while let Some(n) = stack.pop() {
        if n.kind() == "assignment" {
            let (l, r) = (n.child_by_field_name("left"), n.child_by_field_name("right"));
            if let (Some(l), Some(r)) = (l, r) {
                if l.kind() == "identifier" && f.text_of(l) == wanted {
                    if let Val::Str(s) = scope.eval(r) {
                        if !out.contains(&s) {
                            out.push(s);
                        }
                    }
                }
            }
        }
        stack.extend(children(n).into_iter().rev());
    }
    out
}

/// What turns on a registration made under an `if`: the first gate word
/// that a condition above the call (within its function) names.
fn gate(f: &PyFile, call: Node<'_>, func: Option<Node<'_>>, gates: &[(String, String)]) -> Option<String> {
    static WORD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[A-Za-z_][A-Za-z0-9_]*").expect("valid regex"));
    let mut cur = call.parent();
    while let Some(n) = cur {
        if Some(n) == func {
            break;
        }
        if n.kind() == "if_statement" {
            // Only a call in the branch taken when the condition holds.
            let in_consequence = n.child_by_field_name("consequence").is_some_and(|c| encloses(c, call));
            if let Some(cond) = n.child_by_field_name("condition").filter(|_| in_consequence) {
                let text = f.text_of(cond);
                let negated = text.trim_start().starts_with("not ");
                let words: Vec<&str> = WORD.find_iter(text).map(|m| m.as_str()).collect();
                if !negated {
                    if let Some((_, by)) = gates.iter().find(|(w, _)| words.contains(&w.as_str())) {
                        return Some(by.clone());
                    }
                }
            }
        }
        cur = n.parent();
    }
    None
}

fn encloses(outer: Node<'_>, inner: Node<'_>) -> bool {
    outer.start_byte() <= inner.start_byte() && inner.end_byte() <= outer.end_byte()
}

/// A help text's deprecation (from the word on) and the first other metric
/// name it points to.
fn deprecation(help: &str, name: &str, prefixes: &[String]) -> (Option<String>, Option<String>) {
    static NAME: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[A-Za-z_][A-Za-z0-9_:]*").expect("valid regex"));
    let Some(at) = help.to_ascii_lowercase().find("deprecated") else { return (None, None) };
    let text = help[at..].trim().to_string();
    let successor = NAME
        .find_iter(&text)
        .map(|m| m.as_str().trim_end_matches(':'))
        .find(|w| prefixes.iter().any(|p| w.starts_with(p.as_str()) && w.len() > p.len()) && !name.starts_with(w))
        .map(str::to_string);
    (Some(text), successor)
}

/// The gates a registration may sit under: the profile's words, each with
/// the first of its flags this tag has, and the engine-wide env keys.
pub(super) fn gates(
    spec: &crate::catalog::profile::ExtractSpec,
    read: &crate::extract::lang::Extracted,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (word, flags) in &spec.python.shown_by {
        if let Some(flag) = flags.iter().find(|f| read.flags.iter().any(|g| g.name == **f)) {
            out.push((word.clone(), flag.clone()));
        }
    }
    out.extend(read.env_keys.iter().map(|k| (k.name.clone(), k.name.clone())));
    out
}
