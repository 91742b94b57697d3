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
use super::value::{eval_in, Val};

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
                        let names = compared_names(program, file, cond);
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

/// `name == "x"` or `name in {"x", "y"}`: the names compared.
fn compared_names(program: &Program<'_>, file: usize, cond: Node<'_>) -> Vec<String> {
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
    match (op.map(str::trim), eval_in(program, file, *right, None, 0)) {
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
