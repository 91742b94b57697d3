//! Metric registrations in Python: a `Counter`/`Gauge`/`Histogram`/`Summary`
//! constructed (directly, `prometheus_client.Gauge(...)`, or through a
//! class held in an attribute, `self._gauge_cls(...)`) with its name as
//! `name=` or the first argument, its help as `documentation=` and its
//! labels as `labelnames=` (a list, or a name traced to one). Names built
//! at run time that cannot be settled are warned about.

use tree_sitter::Node;

use crate::catalog::model::{Metric, MetricType};

use super::module::Program;
use super::tree::{call_args, children, last_name, statements};
use super::value::{Scope, Val};

/// The registrations of `file` under one of `prefixes`; a counter's name
/// takes `counter_suffix` (the client appends it on export).
pub fn registrations(
    program: &Program<'_>,
    file: usize,
    prefixes: &[String],
    counter_suffix: Option<&str>,
    warnings: &mut Vec<String>,
) -> Vec<Metric> {
    let f = &program.files[file];
    let mut out = Vec::new();
    let mut unlabelled = Vec::new();
    let mut stack = vec![(f.root(), None::<Node<'_>>)];
    while let Some((n, func)) = stack.pop() {
        let func = if n.kind() == "function_definition" { Some(n) } else { func };
        if n.kind() == "call" {
            if let Some(m) = registration(program, file, n, func, prefixes, counter_suffix, warnings, &mut unlabelled) {
                out.push(m);
            }
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
    ]
    .into_iter()
    .find(|(w, _)| c == *w || c == format!("{w}_cls"))
    .map(|(_, t)| t)
}

#[allow(clippy::too_many_arguments)]
fn registration(
    program: &Program<'_>,
    file: usize,
    call: Node<'_>,
    func: Option<Node<'_>>,
    prefixes: &[String],
    counter_suffix: Option<&str>,
    warnings: &mut Vec<String>,
    unlabelled: &mut Vec<String>,
) -> Option<Metric> {
    let f = &program.files[file];
    let callee = call.child_by_field_name("function")?;
    let kind = metric_type(last_name(f, callee))?;
    let args = call_args(f, call);
    let name_node = args.keyword("name").or_else(|| args.positional.first().copied())?;
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
    let name = match scope.eval(name_node) {
        Val::Str(s) => s,
        _ => {
            let text = f.text_of(name_node);
            if prefixes.iter().any(|p| text.contains(p.as_str())) {
                warnings
                    .push(format!("{}: a metric name built at run time, `{text}`, was passed over", f.location(call)));
            }
            return None;
        }
    };
    if !prefixes.iter().any(|p| name.starts_with(p.as_str())) {
        return None;
    }
    let name = match (kind, counter_suffix) {
        (MetricType::Counter, Some(s)) if !name.ends_with(s) => format!("{name}{s}"),
        _ => name,
    };
    let help = args.keyword("documentation").or_else(|| args.positional.get(1).copied());
    let help = help.map(|h| scope.eval(h).display()).unwrap_or_default();
    let labels = match args.keyword("labelnames").map(|l| scope.eval(l)) {
        Some(v) => match v.members() {
            Some(m) => m,
            None => {
                unlabelled.push(name.clone());
                Vec::new()
            }
        },
        None => Vec::new(),
    };
    Some(Metric { name, kind, help, labels, location: f.location(call) })
}
