//! Which words a handler accepts for its value: the comparisons of an
//! if-chain or a run of `if … return`, a predicate that compares, a table
//! or map the value is looked up in, or a validator function that does one
//! of these — and whether anything else is refused (a throw).

use tree_sitter::Node;

use super::code::Code;
use super::cst::{
    self, call_args, call_name, declarator_name, is_var, line, parameters, string_value, text, unparen_condition,
};
use super::node_kind::KindName;
use crate::catalog::model::MembersFrom;

/// How deep validators calling validators are followed.
const MAX_DEPTH: usize = 3;

/// The words a test on `v` accepts: `v == "a" || v == "b"`, or a predicate
/// call `is_truthy(v)` whose function compares its parameter the same way.
fn words_of_test(cond: Node<'_>, v: &str, file: usize, code: &Code<'_>, depth: usize) -> Option<Vec<String>> {
    let src = code.src(file);
    let mut words = Vec::new();
    // `a || b || c` is read as its operands, with a stack (a long chain
    // nests to the left, one level per operand).
    let mut operands = vec![unparen_condition(cond)];
    while let Some(n) = operands.pop() {
        match n.kind_name() {
            "binary_expression" => {
                let op = n.child_by_field_name("operator").map(|o| text(o, src))?;
                let (l, r) = (n.child_by_field_name("left")?, n.child_by_field_name("right")?);
                match op {
                    "||" => {
                        operands.push(unparen_condition(r));
                        operands.push(unparen_condition(l));
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
pub(crate) fn members(
    body: Node<'_>,
    v: &str,
    file: usize,
    code: &Code<'_>,
    depth: usize,
) -> Option<(Vec<String>, MembersFrom)> {
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
    // An if-chain over the value, or over a local copy of it
    // (`std::string arg_next = value;`), at any depth of the body.
    let copies: Vec<&str> = cst::preorder(body)
        .into_iter()
        .filter(|n| n.kind_name() == "init_declarator")
        .filter(|n| n.child_by_field_name("value").is_some_and(|init| is_var(init, v, src)))
        .filter_map(|n| n.child_by_field_name("declarator").and_then(|d| declarator_name(d, src)))
        .collect();
    for n in cst::preorder(body) {
        if n.kind_name() != "if_statement"
            || code.files[file].parent(n).is_some_and(|up| up.kind_name() == "else_clause")
        {
            continue;
        }
        let Some(cond) = n.child_by_field_name("condition") else { continue };
        let Some(subject) = std::iter::once(v)
            .chain(copies.iter().copied())
            .find(|s| words_of_test(cond, s, file, code, depth).is_some())
        else {
            continue;
        };
        if let Some((words, closed)) = chain(n, subject, file, code, depth) {
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
pub(crate) fn is_split_of(n: Node<'_>, v: &str, src: &str) -> bool {
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
