//! Small readers over tree-sitter-cpp's syntax tree: string values, call
//! names, enclosing constructs. The extractors use these instead of poking
//! at node kinds themselves.

use tree_sitter::Node;

use super::node_kind::KindName;
use super::parsed::Parsed;
use super::text::unescape;

/// The source text of a node.
pub fn text<'a>(node: Node<'_>, src: &'a str) -> &'a str {
    src.get(node.byte_range()).unwrap_or("")
}

/// 1-based line of a node's start.
pub fn line(node: Node<'_>) -> usize {
    node.start_position().row + 1
}

/// The value of a string literal, a run of adjacent literals, or a raw string.
/// `None` for anything else (a macro inside a concatenation counts as nothing).
/// Parentheses around it are looked through, however deep (no recursion).
pub fn string_value(node: Node<'_>, src: &str) -> Option<String> {
    let node = unparen(node);
    match node.kind_name() {
        "concatenated_string" => {
            let mut out = String::new();
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                if let Some(s) = literal_value(unparen(child), src) {
                    out.push_str(&s);
                }
            }
            Some(out)
        }
        _ => literal_value(node, src),
    }
}

/// One string literal's value (plain or raw).
fn literal_value(node: Node<'_>, src: &str) -> Option<String> {
    match node.kind_name() {
        "string_literal" => {
            let t = text(node, src);
            let start = t.find('"')?;
            let body = t.get(start + 1..t.len().checked_sub(1)?)?;
            Some(unescape(body))
        }
        "raw_string_literal" => {
            let t = text(node, src);
            let open = t.find('(')?;
            let close = t.rfind(')')?;
            t.get(open + 1..close).map(str::to_string)
        }
        _ => None,
    }
}

/// The expression inside any number of parentheses.
pub fn unparen(node: Node<'_>) -> Node<'_> {
    inside(node, &["parenthesized_expression"])
}

/// The expression a condition tests: inside its clause and parentheses.
pub fn unparen_condition(node: Node<'_>) -> Node<'_> {
    inside(node, &["parenthesized_expression", "condition_clause"])
}

/// What `node` holds, through any number of wrappers of these kinds.
fn inside<'t>(mut node: Node<'t>, wrappers: &[&str]) -> Node<'t> {
    while wrappers.contains(&node.kind_name()) {
        match node.named_child(0) {
            Some(inner) => node = inner,
            None => break,
        }
    }
    node
}

/// True when the node is a string literal of any form.
pub fn is_string(node: Node<'_>) -> bool {
    matches!(node.kind_name(), "string_literal" | "raw_string_literal" | "concatenated_string")
}

/// Joins every string piece of an expression such as `"a '" + v + "' b"`,
/// writing `%s` where a non-literal stands. Read with a stack of its own,
/// not by recursion, however long the chain of `+` or deep the calls.
pub fn message_value(node: Node<'_>, src: &str) -> String {
    enum Step<'n> {
        Visit(Node<'n>),
        /// A call's arguments end here: `%s` if they wrote nothing since `from`.
        CallEnd(usize),
    }
    let mut out = String::new();
    let mut stack = vec![Step::Visit(node)];
    while let Some(step) = stack.pop() {
        let n = match step {
            Step::CallEnd(from) => {
                if out.len() == from {
                    out.push_str("%s");
                }
                continue;
            }
            Step::Visit(n) => n,
        };
        if let Some(s) = string_value(n, src) {
            out.push_str(&s);
            continue;
        }
        match n.kind_name() {
            "binary_expression" => {
                let mut cursor = n.walk();
                let children: Vec<Node<'_>> = n.named_children(&mut cursor).collect();
                stack.extend(children.into_iter().rev().map(Step::Visit));
            }
            "call_expression" => {
                // std::string("a") + ..., or a nested format call: keep its
                // strings; a call that yields none stands for a value.
                stack.push(Step::CallEnd(out.len()));
                if let Some(args) = n.child_by_field_name("arguments") {
                    let mut cursor = args.walk();
                    let children: Vec<Node<'_>> = args.named_children(&mut cursor).collect();
                    stack.extend(children.into_iter().rev().map(Step::Visit));
                }
            }
            _ => out.push_str("%s"),
        }
    }
    out
}

/// The last identifier of a call's function: `reg.counter(...)` → `counter`,
/// `prometheus::BuildCounter()` → `BuildCounter`, `add<int>(...)` → `add`.
pub fn call_name<'a>(call: Node<'_>, src: &'a str) -> Option<&'a str> {
    let f = call.child_by_field_name("function")?;
    callee_name(f, src)
}

fn callee_name<'a>(mut f: Node<'_>, src: &'a str) -> Option<&'a str> {
    loop {
        f = match f.kind_name() {
            "identifier" | "field_identifier" => return Some(text(f, src)),
            "field_expression" => f.child_by_field_name("field")?,
            "qualified_identifier" | "template_function" | "template_method" => f.child_by_field_name("name")?,
            _ => return None,
        };
    }
}

/// The template arguments of a call such as `add<int>(...)`, as text.
pub fn call_template_args(call: Node<'_>, src: &str) -> Option<String> {
    let mut f = call.child_by_field_name("function")?;
    loop {
        match f.kind_name() {
            "field_expression" => f = f.child_by_field_name("field")?,
            "qualified_identifier" => f = f.child_by_field_name("name")?,
            "template_function" | "template_method" => {
                return f.child_by_field_name("arguments").map(|a| text(a, src).to_string())
            }
            _ => return None,
        }
    }
}

/// The argument nodes of a call.
pub fn call_args(call: Node<'_>) -> Vec<Node<'_>> {
    let Some(args) = call.child_by_field_name("arguments") else {
        return Vec::new();
    };
    let mut cursor = args.walk();
    args.named_children(&mut cursor).filter(|n| n.kind_name() != "comment").collect()
}

/// Climbs a method chain: for the call `a(...)` in `a(...).b(...).c(...)`,
/// returns the calls `b(...)` and `c(...)` in order.
pub fn chained_calls<'t>(p: &Parsed<'t>, call: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut cur = call;
    while let Some(parent) = p.parent(cur) {
        if parent.kind_name() != "field_expression" || parent.child_by_field_name("argument") != Some(cur) {
            break;
        }
        let Some(grand) = p.parent(parent) else { break };
        if grand.kind_name() != "call_expression" || grand.child_by_field_name("function") != Some(parent) {
            break;
        }
        out.push(grand);
        cur = grand;
    }
    out
}

/// The first call of the chain a call belongs to: for `c(...)` in
/// `a(...).b(...).c(...)` returns `a(...)`.
pub fn chain_root(call: Node<'_>) -> Node<'_> {
    let mut cur = call;
    loop {
        let inner = cur
            .child_by_field_name("function")
            .filter(|f| f.kind_name() == "field_expression")
            .and_then(|f| f.child_by_field_name("argument"))
            .filter(|a| a.kind_name() == "call_expression");
        match inner {
            Some(i) => cur = i,
            None => return cur,
        }
    }
}

/// The node naming the function `def` defines, through its pointer,
/// reference and qualified declarators: an `identifier`, a
/// `field_identifier`, a `destructor_name` or an `operator_name`.
pub fn function_name_node(def: Node<'_>) -> Option<Node<'_>> {
    let mut d = def.child_by_field_name("declarator")?;
    loop {
        match d.kind_name() {
            "function_declarator" | "pointer_declarator" | "reference_declarator" => {
                d = d.child_by_field_name("declarator").or_else(|| d.named_child(0))?
            }
            "qualified_identifier" => d = d.child_by_field_name("name")?,
            "identifier" | "field_identifier" | "destructor_name" | "operator_name" => return Some(d),
            _ => return None,
        }
    }
}

/// The name a declarator declares (`*p`, `&r`, `a[4]`, `x = 1` → the
/// identifier inside).
pub fn declarator_name<'a>(mut d: Node<'_>, src: &'a str) -> Option<&'a str> {
    loop {
        match d.kind_name() {
            "identifier" | "field_identifier" => return Some(text(d, src)),
            _ => d = d.child_by_field_name("declarator").or_else(|| d.named_child(0))?,
        }
    }
}

/// The struct field a bound argument names: `o.port`, `&c.threads`, `cfg->x`.
pub fn bound_field(mut n: Node<'_>, src: &str) -> Option<String> {
    loop {
        match n.kind_name() {
            "field_expression" => return n.child_by_field_name("field").map(|f| text(f, src).to_string()),
            "pointer_expression" => n = n.child_by_field_name("argument")?,
            _ => return None,
        }
    }
}

/// The parameters of a lambda or function: (name, type text) each.
pub fn parameters<'a>(n: Node<'_>, src: &'a str) -> Vec<(Option<&'a str>, &'a str)> {
    let Some(decl) = n.child_by_field_name("declarator") else { return Vec::new() };
    let Some(list) = preorder(decl).into_iter().find(|c| c.kind_name() == "parameter_list") else {
        return Vec::new();
    };
    let mut cursor = list.walk();
    list.named_children(&mut cursor)
        .filter(|c| c.kind_name() == "parameter_declaration")
        .map(|p| {
            let ty = p.child_by_field_name("type").map_or("", |t| text(t, src));
            let name = p.child_by_field_name("declarator").and_then(|d| declarator_name(d, src));
            (name, ty)
        })
        .collect()
}

/// True when `n` is the variable `v` (or `v.c_str()`).
pub fn is_var(n: Node<'_>, v: &str, src: &str) -> bool {
    // `v`, `(v)`, `v.c_str()`, `v.str().c_str()`: followed with a loop.
    let mut n = unparen_condition(n);
    loop {
        match n.kind_name() {
            "identifier" => return text(n, src) == v,
            "call_expression" => {
                let Some(a) = n
                    .child_by_field_name("function")
                    .filter(|f| f.kind_name() == "field_expression")
                    .and_then(|f| f.child_by_field_name("argument"))
                else {
                    return false;
                };
                n = unparen_condition(a);
            }
            _ => return false,
        }
    }
}

pub(crate) use crate::syntax::preorder;
