//! Field-name special cases of the engine's kwargs builder, read from its
//! own code: inside the functions that turn a dataclass into argparse
//! kwargs, an `if name == "x":` (or `name in {...}`) whose body sets
//! `kwargs[name]["type"] = parse_fn` gives field `x` that parser instead of
//! `int` (vLLM's `max_model_len` takes `auto` or `8k`, from the tag whose
//! builder says so). Found per tag, so a special case comes and goes with
//! the source.

use rustc_hash::FxHashMap;
use tree_sitter::Node;

use crate::catalog::model::Kind;

use super::module::Program;
use super::tree::{children, last_name};
use super::value::{eval_in, Scope, Val};

/// Field name → the kind its special parser gives.
pub fn special_types(program: &Program<'_>, kwargs_functions: &[String]) -> FxHashMap<String, Kind> {
    let mut out = FxHashMap::default();
    let mut todo: Vec<(usize, Node<'_>)> = Vec::new();
    for name in kwargs_functions {
        for (i, _) in program.files.iter().enumerate() {
            if let Some(f) = program.function_in(name, i) {
                todo.push((i, f));
            }
        }
    }
    // The builder may do its work in a helper it calls (`_compute_kwargs`).
    let mut seen = rustc_hash::FxHashSet::default();
    while let Some((file, func)) = todo.pop() {
        if !seen.insert(func.id()) || seen.len() > 16 {
            continue;
        }
        let f = &program.files[file];
        // `readable = {"max_model_len", …}` then `if name in readable:`
        // (vLLM v0.10.2–v0.13.0): the function's own names, as assigned.
        let scope = locals(program, file, func);
        let mut stack = vec![func];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "call" => {
                    if let Some(callee) = n.child_by_field_name("function").filter(|c| c.kind() == "identifier") {
                        if let Some(helper) = program.function_in(f.text_of(callee), file) {
                            todo.push((file, helper));
                        }
                    }
                }
                "if_statement" | "elif_clause" => {
                    if let (Some(cond), Some(body)) =
                        (n.child_by_field_name("condition"), n.child_by_field_name("consequence"))
                    {
                        let names = compared_names(program, file, cond, &scope);
                        if let Some(kind) = type_set(program, file, body) {
                            for name in names {
                                out.insert(name, kind);
                            }
                        }
                    }
                }
                _ => {}
            }
            stack.extend(children(n));
        }
    }
    out
}

/// A function's plain assignments (`x = …`), read when a name is used; a
/// name assigned twice keeps its last value.
fn locals<'a, 'p>(program: &'a Program<'p>, file: usize, func: Node<'p>) -> Scope<'a, 'p> {
    let f = &program.files[file];
    let mut scope = Scope::new(program, file);
    let mut stack = vec![func];
    let mut found: Vec<(usize, String, Node<'p>)> = Vec::new();
    while let Some(n) = stack.pop() {
        if n.kind() == "assignment" {
            if let (Some(l), Some(r)) = (n.child_by_field_name("left"), n.child_by_field_name("right")) {
                if l.kind() == "identifier" {
                    found.push((n.start_byte(), f.text_of(l).to_string(), r));
                }
            }
        }
        // A nested function's names are its own.
        if n.kind() != "function_definition" || n.id() == func.id() {
            stack.extend(children(n));
        }
    }
    found.sort_by_key(|(at, _, _)| *at);
    scope.pending.extend(found.into_iter().map(|(_, name, value)| (name, value)));
    scope
}

/// `name == "x"` or `name in {"x", "y"}` (or a name bound to such a set):
/// the names compared.
fn compared_names<'p>(program: &Program<'p>, file: usize, cond: Node<'p>, scope: &Scope<'_, 'p>) -> Vec<String> {
    let f = &program.files[file];
    if cond.kind() != "comparison_operator" {
        return Vec::new();
    }
    let parts = children(cond);
    let (Some(left), Some(right)) = (parts.first(), parts.get(1)) else { return Vec::new() };
    if left.kind() != "identifier" || parts.len() != 2 {
        return Vec::new();
    }
    let op = f.text_of(cond).get(left.end_byte() - cond.start_byte()..right.start_byte() - cond.start_byte());
    match (op.map(str::trim), eval_in(program, file, *right, Some(scope), 0)) {
        (Some("=="), Val::Str(s)) => vec![s],
        (Some("in"), v) => v.members().unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The kind of the last `X[...]["type"] = parser` in a block.
fn type_set(program: &Program<'_>, file: usize, body: Node<'_>) -> Option<Kind> {
    let f = &program.files[file];
    let mut kind = None;
    for s in children(body) {
        for a in children(s).into_iter().filter(|a| a.kind() == "assignment") {
            let (Some(l), Some(r)) = (a.child_by_field_name("left"), a.child_by_field_name("right")) else { continue };
            let key = l.child_by_field_name("subscript").map(|k| eval_in(program, file, k, None, 0));
            if l.kind() == "subscript" && key.as_ref().and_then(Val::as_str) == Some("type") {
                kind = Some(match last_name(f, r) {
                    "int" => Kind::Int,
                    "float" => Kind::Float,
                    _ => Kind::String,
                });
            }
        }
    }
    kind
}
