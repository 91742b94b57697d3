//! Option handlers: the lambda an option table runs with the value. Its
//! parameters say how many argv words the option takes and of what type;
//! its body says which words it accepts — comparisons (`value == "row"`),
//! predicates (`is_truthy(value)`), or a validator it calls, in this file or
//! another (`format_from_name(value)`) that compares, looks the word up in a
//! table or a map, and throws on anything else — and whether it always
//! refuses (a removed option).

use std::collections::HashMap;

use tree_sitter::Node;

use super::cst::KindName;

use super::cst::{self, call_args, call_name, declarator_name, line, message_value, string_value, text};
use super::parsed::Parsed;
use super::roles::kind_of_ident;
use crate::catalog::model::{Kind, MembersFrom};

/// How deep validators calling validators are followed.
const MAX_DEPTH: usize = 3;

/// The functions and file-scope tables of the files read, by name.
pub(crate) struct Code<'t> {
    files: &'t [Parsed<'t>],
    functions: HashMap<String, (usize, Node<'t>)>,
    tables: HashMap<String, (usize, Node<'t>)>,
}

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

/// The plain name of the function `def` defines (not a destructor or an
/// operator).
fn function_name<'a>(def: Node<'_>, src: &'a str) -> Option<&'a str> {
    let d = cst::function_name_node(def)?;
    matches!(d.kind_name(), "identifier" | "field_identifier").then(|| text(d, src))
}

impl<'t> Code<'t> {
    pub fn new(files: &'t [Parsed<'t>]) -> Code<'t> {
        let mut functions = HashMap::new();
        let mut tables = HashMap::new();
        for (i, p) in files.iter().enumerate() {
            for n in p.nodes() {
                match n.kind_name() {
                    "function_definition" => {
                        if let Some(name) = function_name(n, p.src) {
                            functions.entry(name.to_string()).or_insert((i, n));
                        }
                    }
                    "init_declarator" => {
                        let (Some(d), Some(v)) = (n.child_by_field_name("declarator"), n.child_by_field_name("value"))
                        else {
                            continue;
                        };
                        if v.kind_name() == "initializer_list" {
                            if let Some(name) = declarator_name(d, p.src) {
                                tables.entry(name.to_string()).or_insert((i, v));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        Code { files, functions, tables }
    }

    /// The identifiers a file-scope list holds (`{LLAMA_EXAMPLE_MTMD, …}`).
    pub fn table_identifiers(&self, name: &str) -> Option<Vec<String>> {
        let (f, table) = self.tables.get(name)?;
        let src = self.src(*f);
        let mut cursor = table.walk();
        let ids: Vec<String> = table
            .named_children(&mut cursor)
            .filter(|e| matches!(e.kind_name(), "identifier" | "qualified_identifier"))
            .map(|e| text(e, src).to_string())
            .collect();
        (!ids.is_empty()).then_some(ids)
    }

    fn src(&self, file: usize) -> &'t str {
        self.files[file].src
    }

    fn loc(&self, file: usize, node: Node<'_>) -> String {
        self.files[file].loc(line(node))
    }
}

/// The parameters of a lambda or function: (name, type text) each.
fn parameters<'a>(n: Node<'_>, src: &'a str) -> Vec<(Option<&'a str>, &'a str)> {
    let Some(decl) = n.child_by_field_name("declarator") else { return Vec::new() };
    let Some(list) = cst::preorder(decl).into_iter().find(|c| c.kind_name() == "parameter_list") else {
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

fn unparen(n: Node<'_>) -> Node<'_> {
    let mut n = n;
    while matches!(n.kind_name(), "parenthesized_expression" | "condition_clause") {
        match n.named_child(0) {
            Some(c) => n = c,
            None => break,
        }
    }
    n
}

/// True when `n` is the variable `v` (or `v.c_str()`).
fn is_var(n: Node<'_>, v: &str, src: &str) -> bool {
    // `v`, `(v)`, `v.c_str()`, `v.str().c_str()`: followed with a loop.
    let mut n = unparen(n);
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
                n = unparen(a);
            }
            _ => return false,
        }
    }
}

/// The words a test on `v` accepts: `v == "a" || v == "b"`, or a predicate
/// call `is_truthy(v)` whose function compares its parameter the same way.
fn words_of_test(cond: Node<'_>, v: &str, file: usize, code: &Code<'_>, depth: usize) -> Option<Vec<String>> {
    let src = code.src(file);
    let mut words = Vec::new();
    // `a || b || c` is read as its operands, with a stack (a long chain
    // nests to the left, one level per operand).
    let mut operands = vec![unparen(cond)];
    while let Some(n) = operands.pop() {
        match n.kind_name() {
            "binary_expression" => {
                let op = n.child_by_field_name("operator").map(|o| text(o, src))?;
                let (l, r) = (n.child_by_field_name("left")?, n.child_by_field_name("right")?);
                match op {
                    "||" => {
                        operands.push(unparen(r));
                        operands.push(unparen(l));
                    }
                    "==" => {
                        let lit = if is_var(l, v, src) { string_value(r, src) } else { None };
                        let lit = lit.or_else(|| if is_var(r, v, src) { string_value(l, src) } else { None })?;
                        words.push(lit);
                    }
                    _ => return None,
                }
            }
            "call_expression" if depth < MAX_DEPTH => {
                let args = call_args(n);
                if args.len() != 1 || !is_var(args[0], v, src) {
                    return None;
                }
                let (f, def) = code.functions.get(call_name(n, src)?)?;
                let param = parameters(*def, code.src(*f)).first().and_then(|(name, _)| *name)?;
                let body = def.child_by_field_name("body")?;
                let mut cursor = body.walk();
                let stmts: Vec<Node<'_>> =
                    body.named_children(&mut cursor).filter(|s| s.kind_name() != "comment").collect();
                match stmts.as_slice() {
                    [ret] if ret.kind_name() == "return_statement" => {
                        words.extend(words_of_test(ret.named_child(0)?, param, *f, code, depth + 1)?)
                    }
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
    Some(words)
}

/// True when a node throws (or calls something that only throws) at its top level.
fn throws(n: Node<'_>, src: &str) -> bool {
    cst::preorder(n).into_iter().any(|c| c.kind_name() == "throw_statement")
        || cst::preorder(n).into_iter().any(|c| {
            c.kind_name() == "call_expression"
                && call_name(c, src).is_some_and(|name| {
                    let l = name.to_ascii_lowercase();
                    l.contains("throw") || l.contains("fail") || l.contains("die") || l == "exit" || l == "abort"
                })
        })
}

/// An if / else-if chain testing `v`: the words of every branch, and
/// whether whatever the chain does not match is refused (`else { throw … }`,
/// or a throw right after a chain whose branches return).
fn chain(first: Node<'_>, v: &str, file: usize, code: &Code<'_>, depth: usize) -> Option<(Vec<String>, bool)> {
    let src = code.src(file);
    let mut words = Vec::new();
    let mut cur = first;
    loop {
        let cond = cur.child_by_field_name("condition")?;
        words.extend(words_of_test(cond, v, file, code, depth)?);
        match cur.child_by_field_name("alternative") {
            None => break,
            Some(alt) => {
                let inner = if alt.kind_name() == "else_clause" { alt.named_child(0) } else { Some(alt) };
                match inner {
                    Some(i) if i.kind_name() == "if_statement" => cur = i,
                    Some(i) => {
                        let closed = throws(i, src);
                        return (words.len() >= 2 || closed).then_some((words, closed));
                    }
                    None => break,
                }
            }
        }
    }
    // No else: refused when what follows the chain throws.
    let mut next = first.next_named_sibling();
    while let Some(n) = next.filter(|n| n.kind_name() == "comment") {
        next = n.next_named_sibling();
    }
    let closed =
        next.is_some_and(|n| n.kind_name() == "throw_statement" || throws(n, src) && n.kind_name() != "if_statement");
    (words.len() >= 2 || closed).then_some((words, closed))
}

/// Consecutive `if (v == "a") return …;` statements followed by a throw.
fn sequence(body: Node<'_>, v: &str, file: usize, code: &Code<'_>, depth: usize) -> Option<(Vec<String>, bool, usize)> {
    let src = code.src(file);
    let mut cursor = body.walk();
    let stmts: Vec<Node<'_>> = body.named_children(&mut cursor).filter(|s| s.kind_name() != "comment").collect();
    let mut words = Vec::new();
    let mut at = None;
    for s in &stmts {
        if s.kind_name() == "if_statement" && s.child_by_field_name("alternative").is_none() {
            if let Some(w) = s.child_by_field_name("condition").and_then(|c| words_of_test(c, v, file, code, depth)) {
                at.get_or_insert(line(*s));
                words.extend(w);
                continue;
            }
        }
        if !words.is_empty() {
            let closed = s.kind_name() == "throw_statement" || throws(*s, src);
            return (words.len() >= 2).then_some((words, closed, at.unwrap_or(0)));
        }
    }
    None
}

/// The member set the body gives `v`, if any.
fn members(body: Node<'_>, v: &str, file: usize, code: &Code<'_>, depth: usize) -> Option<(Vec<String>, MembersFrom)> {
    let src = code.src(file);
    let from = |origin: &str, file: usize, node_line: usize, closed: bool| MembersFrom {
        origin: origin.into(),
        location: code.files[file].loc(node_line),
        closed,
    };
    // `if (v == "a") return …; if (v == "b") return …; throw …;`
    if let Some((words, closed, at)) = sequence(body, v, file, code, depth) {
        return Some((dedup(words), from("validator-comparisons", file, at, closed)));
    }
    // An if-chain over the value, at any depth of the body.
    for n in cst::preorder(body) {
        if n.kind_name() != "if_statement"
            || code.files[file].parent(n).is_some_and(|up| up.kind_name() == "else_clause")
        {
            continue;
        }
        let Some(cond) = n.child_by_field_name("condition") else { continue };
        if words_of_test(cond, v, file, code, depth).is_none() {
            continue;
        }
        if let Some((words, closed)) = chain(n, v, file, code, depth) {
            return Some((dedup(words), from("validator-comparisons", file, line(n), closed)));
        }
    }
    if depth >= MAX_DEPTH {
        return None;
    }
    // The value, and locals that hold it split into a list (`split(v, ',')`).
    let mut names = vec![v];
    for n in cst::preorder(body) {
        if n.kind_name() != "init_declarator" {
            continue;
        }
        let (Some(d), Some(init)) = (n.child_by_field_name("declarator"), n.child_by_field_name("value")) else {
            continue;
        };
        if is_split_of(init, v, src) {
            names.extend(declarator_name(d, src));
        }
    }
    let is_value = |a: Node<'_>| names.iter().any(|name| is_var(a, name, src));
    for n in cst::preorder(body) {
        if n.kind_name() != "call_expression" {
            continue;
        }
        let args = call_args(n);
        let Some(name) = call_name(n, src) else { continue };
        // A table or map looked up with the value: `m.find(v)`, `m.at(v)`.
        if matches!(name, "find" | "at" | "count" | "contains") && args.len() == 1 && is_value(args[0]) {
            let object =
                n.child_by_field_name("function").and_then(|f| f.child_by_field_name("argument")).map(|o| text(o, src));
            if let Some((tf, table)) = object.and_then(|o| code.tables.get(o)) {
                if let Some(keys) = table_words(*table, code.src(*tf)) {
                    return Some((keys, from("validator-table", *tf, line(*table), throws(body, src) || name == "at")));
                }
            }
        }
        // A validator function called with the value.
        if args.len() == 1 && is_value(args[0]) {
            let Some((f, def)) = code.functions.get(name) else { continue };
            let Some(param) = parameters(*def, code.src(*f)).first().and_then(|(p, _)| *p) else { continue };
            let Some(fbody) = def.child_by_field_name("body") else { continue };
            if let Some(m) = function_members(fbody, param, *f, code, depth + 1) {
                return Some(m);
            }
        }
    }
    None
}

/// The members a validator function accepts for its parameter `v`.
fn function_members(
    body: Node<'_>,
    v: &str,
    file: usize,
    code: &Code<'_>,
    depth: usize,
) -> Option<(Vec<String>, MembersFrom)> {
    let src = code.src(file);
    // `for (const auto & t : table) { if (name_of(t) == v) return t; } throw …`
    for n in cst::preorder(body) {
        if n.kind_name() != "for_range_loop" {
            continue;
        }
        let (Some(right), Some(loop_body)) = (n.child_by_field_name("right"), n.child_by_field_name("body")) else {
            continue;
        };
        let compares = cst::preorder(loop_body).into_iter().any(|c| {
            c.kind_name() == "binary_expression"
                && c.child_by_field_name("operator").is_some_and(|o| text(o, src) == "==")
                && (c.child_by_field_name("left").is_some_and(|l| is_var(l, v, src))
                    || c.child_by_field_name("right").is_some_and(|r| is_var(r, v, src)))
        });
        // A list split from the value, or the value itself a list: each
        // piece is checked.
        let splits = is_split_of(right, v, src) || is_var(right, v, src);
        if compares {
            let Some((tf, table)) = code.tables.get(text(right, src)) else { continue };
            let closed = throws(body, src);
            if let Some(words) = table_words(*table, code.src(*tf)) {
                let from = MembersFrom { origin: "validator-table".into(), location: code.loc(*tf, *table), closed };
                return Some((words, from));
            }
        }
        if let Some(piece) = splits.then(|| n.child_by_field_name("declarator")).flatten() {
            let piece = declarator_name(piece, src)?;
            if let Some(m) = members(loop_body, piece, file, code, depth) {
                return Some(m);
            }
        }
    }
    members(body, v, file, code, depth)
}

/// `string_split(v, ',')` and the like.
fn is_split_of(n: Node<'_>, v: &str, src: &str) -> bool {
    n.kind_name() == "call_expression"
        && call_name(n, src).is_some_and(|c| c.to_ascii_lowercase().contains("split"))
        && call_args(n).first().is_some_and(|a| is_var(*a, v, src))
}

/// The words a table lists: its string literals (a map's keys), or enum
/// constants sharing a prefix, lower-cased without it (`GGML_TYPE_Q8_0` → `q8_0`).
fn table_words(table: Node<'_>, src: &str) -> Option<Vec<String>> {
    let mut cursor = table.walk();
    let elems: Vec<Node<'_>> = table.named_children(&mut cursor).filter(|e| e.kind_name() != "comment").collect();
    let mut strings = Vec::new();
    let mut idents = Vec::new();
    for e in &elems {
        match e.kind_name() {
            "initializer_list" => {
                // `{"key", value}`: the key.
                if let Some(k) = e.named_child(0).and_then(|k| string_value(k, src)) {
                    strings.push(k);
                }
            }
            "identifier" | "qualified_identifier" => idents.push(text(*e, src).rsplit("::").next().unwrap_or("")),
            _ => {
                if let Some(s) = string_value(*e, src) {
                    strings.push(s);
                }
            }
        }
    }
    if strings.len() >= 2 {
        return Some(dedup(strings));
    }
    if idents.len() < 2 {
        return None;
    }
    // The longest common prefix ending with `_`.
    let first = idents[0];
    let mut cut = first.len();
    for id in &idents[1..] {
        cut = cut.min(first.bytes().zip(id.bytes()).take_while(|(a, b)| a == b).count());
    }
    let cut = first[..cut].rfind('_').map_or(0, |i| i + 1);
    let words: Vec<String> = idents.iter().map(|i| i[cut..].to_ascii_lowercase()).filter(|w| !w.is_empty()).collect();
    (words.len() == idents.len()).then(|| dedup(words))
}

fn dedup(words: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in words {
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}
