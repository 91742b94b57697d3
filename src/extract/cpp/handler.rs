//! Option handlers: the lambda an option table runs with the value. Its
//! parameters say how many argv words the option takes and of what type;
//! its body says which words it accepts — comparisons (`value == "row"`),
//! predicates (`is_truthy(value)`), or a validator it calls, in this file or
//! another (`format_from_name(value)`) that compares, looks the word up in a
//! table or a map, and throws on anything else (read by `accepts.rs`) — and
//! whether it always refuses (a removed option).

use tree_sitter::Node;

use super::accepts::{is_split_of, members};
use super::code::Code;
use super::cst::{self, call_args, call_name, is_var, message_value, parameters, string_value};
use super::node_kind::KindName;
use super::parsed::Parsed;
use super::roles::kind_of_ident;
use crate::catalog::model::{Kind, MembersFrom};

/// What a handler says about its option.
#[derive(Debug, Clone, Default)]
pub(crate) struct Handler {
    /// Stated by the value parameter's type (none or `bool`: a switch).
    pub kind: Option<Kind>,
    /// Suggested by the body (`std::stoi(value)`).
    pub evidence: Option<Kind>,
    /// Value parameters: the argv words the option consumes.
    pub values: usize,
    pub members: Option<(Vec<String>, MembersFrom)>,
    /// The message of a handler that always throws.
    pub removed: Option<String>,
    /// The value is split into a list (`split(value, ',')`).
    pub list: bool,
}

/// Reads a handler lambda (`[](params & p, const std::string & value) {…}`).
pub(crate) fn read(p: &Parsed<'_>, file: usize, lambda: Node<'_>, code: &Code<'_>) -> Handler {
    let params = parameters(lambda, p.src);
    let mut h = Handler::default();
    // The first parameter is the settings struct; the rest are values.
    let values: Vec<(Option<&str>, &str)> = params.iter().skip(1).copied().collect();
    h.values = values.len();
    match values.as_slice() {
        [] => h.kind = Some(Kind::Switch),
        [(_, ty)] if kind_of_ident(ty) == Some(Kind::Switch) => h.kind = Some(Kind::Switch),
        [(_, ty), ..] => h.kind = kind_of_ident(ty).filter(|k| *k != Kind::String),
    }
    let Some(body) = lambda.child_by_field_name("body") else { return h };
    let names: Vec<&str> = values.iter().filter_map(|(n, _)| *n).collect();
    h.evidence = body_evidence(body, p.src, &names);
    h.removed = always_refuses(body, file, code);
    if let Some(v) = names.first() {
        h.members = members(body, v, file, code, 0);
        h.list = cst::preorder(body).into_iter().any(|n| is_split_of(n, v, p.src));
    }
    h
}

/// `std::stoi(value)` → int, `std::stof(value)` → float: only a conversion
/// of the value itself (a part of it converted says nothing of the whole).
fn body_evidence(body: Node<'_>, src: &str, values: &[&str]) -> Option<Kind> {
    let mut int = false;
    let mut float = false;
    for n in cst::preorder(body) {
        if n.kind_name() != "call_expression" {
            continue;
        }
        let direct = call_args(n).first().is_some_and(|a| values.iter().any(|v| is_var(*a, v, src)));
        if !direct {
            continue;
        }
        match call_name(n, src).unwrap_or("") {
            "stoi" | "stol" | "stoll" | "stoul" | "stoull" | "atoi" | "atol" | "strtol" | "strtoul" => int = true,
            "stof" | "stod" | "stold" | "atof" | "strtod" | "strtof" => float = true,
            _ => {}
        }
    }
    if float {
        Some(Kind::Float)
    } else if int {
        Some(Kind::Int)
    } else {
        None
    }
}

/// The message when every path through the body throws at once: a throw
/// statement, or a call to a function whose body is one.
fn always_refuses(body: Node<'_>, file: usize, code: &Code<'_>) -> Option<String> {
    let src = code.src(file);
    let mut cursor = body.walk();
    for stmt in body.named_children(&mut cursor) {
        match stmt.kind_name() {
            "throw_statement" => return Some(thrown(stmt, src)),
            "expression_statement" => {
                let Some(call) = stmt.named_child(0).filter(|c| c.kind_name() == "call_expression") else { continue };
                let Some((f, def)) = call_name(call, src).and_then(|n| code.functions.get(n)) else { continue };
                let Some(fbody) = def.child_by_field_name("body") else { continue };
                let mut c2 = fbody.walk();
                let stmts: Vec<Node<'_>> =
                    fbody.named_children(&mut c2).filter(|s| s.kind_name() != "comment").collect();
                if let [t] = stmts.as_slice() {
                    if t.kind_name() == "throw_statement" {
                        let mut msg = thrown(*t, code.src(*f));
                        let arg = call_args(call).first().and_then(|a| string_value(*a, src));
                        if let (Some(arg), Some(i)) = (arg, msg.find("%s")) {
                            msg.replace_range(i..i + 2, &arg);
                        }
                        return Some(msg);
                    }
                }
            }
            _ => {}
        }
    }
    None
}

/// The message a throw statement carries.
fn thrown(stmt: Node<'_>, src: &str) -> String {
    let expr = stmt.named_child(0);
    let arg = expr.filter(|e| e.kind_name() == "call_expression").and_then(|e| call_args(e).into_iter().next());
    arg.or(expr).map(|a| message_value(a, src)).unwrap_or_default().trim().to_string()
}
