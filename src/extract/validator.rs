//! Validators: the code that refuses a value. Enum members are read from the
//! message a validator emits when it refuses (`expected one of: a, b, c`) or,
//! when the message lists none, from the literals it compares the value to
//! (`v != "a" && v != "b"`). A set read here is closed: the source refuses
//! every other value.

use std::collections::BTreeMap;

use regex::Regex;
use std::sync::LazyLock;
use tree_sitter::Node;

use super::kind::KindName;

use super::candidate::Candidate;
use super::cst::{self, call_name, enclosing_function_name, line, message_value, string_value, text};
use super::parsed::{Parsed, Warning};
use super::text::{flag_ident, members_in_message};
use crate::catalog::model::MembersFrom;

/// True when a node sits where a value is refused: a throw, a return, an
/// error-reporting call, or a write to stderr.
fn in_reject_context(p: &Parsed<'_>, node: Node<'_>) -> bool {
    let src = p.src;
    static REJECT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)err|fail|die|reject|invalid|bad|abort|panic|fatal|raise|throw|exception|refuse|usage_?error|status|bail|complain")
            .expect("valid regex")
    });
    let mut cur = p.parent(node);
    while let Some(n) = cur {
        match n.kind_name() {
            "throw_statement" | "return_statement" => return true,
            "call_expression" => {
                let name = call_name(n, src).unwrap_or("");
                if REJECT.is_match(name) {
                    return true;
                }
                if matches!(name, "fprintf" | "fputs" | "vfprintf" | "fmt::print" | "print")
                    && text(n, src).contains("stderr")
                {
                    return true;
                }
            }
            "binary_expression" => {
                let t = text(n, src).trim_start();
                if t.starts_with("std::cerr")
                    || t.starts_with("cerr")
                    || t.starts_with("LOG(ERROR")
                    || t.starts_with("LOG(FATAL")
                {
                    return true;
                }
            }
            "expression_statement" | "compound_statement" | "function_definition" | "declaration" => return false,
            _ => {}
        }
        cur = p.parent(n);
    }
    false
}

/// The whole message expression a string piece belongs to.
/// The outermost expression a string piece is part of (through `+`,
/// parentheses and adjacent literals). `roots` remembers each climb, so the
/// pieces of one long `"a" + b + "c" + …` chain are climbed once in all.
fn message_root<'t>(
    p: &Parsed<'t>,
    node: Node<'t>,
    roots: &mut std::collections::HashMap<usize, Node<'t>>,
) -> Node<'t> {
    let mut path = Vec::new();
    let mut cur = node;
    let root = loop {
        if let Some(known) = roots.get(&cur.id()) {
            break *known;
        }
        path.push(cur.id());
        match p.parent(cur) {
            Some(parent)
                if matches!(
                    parent.kind_name(),
                    "concatenated_string" | "parenthesized_expression" | "binary_expression"
                ) =>
            {
                cur = parent
            }
            _ => break cur,
        }
    };
    for id in path {
        roots.insert(id, root);
    }
    root
}

/// The flag a validator belongs to: named in the message, the branch of a
/// parse chain it sits in, or the variable or function it checks.
fn owner(p: &Parsed<'_>, node: Node<'_>, msg: &str, flags: &BTreeMap<String, Candidate>) -> Option<String> {
    static FLAG: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"--[A-Za-z0-9][A-Za-z0-9_.-]*").expect("valid regex"));
    // `--checkpoint_policy` names `--checkpoint-policy` (gflags accepts both).
    let same = |a: &str, b: &str| {
        a.len() == b.len()
            && a.bytes().zip(b.bytes()).all(|(x, y)| x == y || (x == b'_' && y == b'-') || (x == b'-' && y == b'_'))
    };
    let by_alias = |name: &str| {
        flags.iter().find(|(k, c)| same(k, name) || c.aliases.iter().any(|a| same(a, name))).map(|(k, _)| k.clone())
    };
    if let Some(found) = FLAG.find_iter(msg).find_map(|m| by_alias(m.as_str())) {
        return Some(found);
    }
    // Enclosing if-chain branches, innermost first.
    let mut cur = p.parent(node);
    while let Some(n) = cur {
        if n.kind_name() == "if_statement" {
            if let Some(cond) = n.child_by_field_name("condition") {
                for lit in cst::preorder(cond) {
                    if let Some(s) = string_value(lit, p.src) {
                        if let Some(f) = by_alias(&s) {
                            return Some(f);
                        }
                    }
                }
                let cond_text = text(cond, p.src).to_ascii_lowercase();
                if let Some(f) = flags.keys().find(|k| mentions_ident(&cond_text, &flag_ident(k))) {
                    return Some(f.clone());
                }
            }
        }
        if n.kind_name() == "function_definition" {
            break;
        }
        cur = p.parent(n);
    }
    let func = enclosing_function_name(p, node)?.to_ascii_lowercase();
    flags.keys().find(|k| mentions_ident(&func, &flag_ident(k))).cloned()
}

/// True when `ident` stands in `text` as a whole identifier or its tail,
/// allowing member decorations (`m_ident`, `ident_`, `cfg.ident`).
fn mentions_ident(text: &str, ident: &str) -> bool {
    let bytes = text.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    text.match_indices(ident).any(|(i, m)| {
        let before = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        let mut end = i + m.len();
        while end < bytes.len() && bytes[end] == b'_' {
            end += 1;
        }
        let after = end >= bytes.len() || !word(bytes[end]);
        before && after
    })
}

/// A flag literal in the initializer of a local the condition compares:
/// `const auto& m = fs.get("--mode"); if (m != "a" && ...)`.
fn flag_of_compared_local(p: &Parsed<'_>, cond: Node<'_>, flags: &BTreeMap<String, Candidate>) -> Option<String> {
    let idents: Vec<&str> =
        cst::preorder(cond).into_iter().filter(|n| n.kind_name() == "identifier").map(|n| text(n, p.src)).collect();
    let mut scope = p.parent(cond);
    while let Some(s) = scope {
        if s.kind_name() == "function_definition" {
            break;
        }
        scope = p.parent(s);
    }
    for decl in cst::preorder(scope?) {
        if decl.kind_name() != "init_declarator" || decl.start_byte() > cond.start_byte() {
            continue;
        }
        let name = decl.child_by_field_name("declarator").map(|d| text(d, p.src).trim_start_matches(['&', '*', ' ']));
        if !name.is_some_and(|n| idents.contains(&n)) {
            continue;
        }
        let value = decl.child_by_field_name("value")?;
        for lit in cst::preorder(value) {
            if let Some(s) = string_value(lit, p.src) {
                if flags.contains_key(&s) {
                    return Some(s);
                }
            }
        }
    }
    None
}

pub(crate) fn attach_members(p: &Parsed<'_>, flags: &mut BTreeMap<String, Candidate>, warnings: &mut Vec<Warning>) {
    let mut seen = std::collections::HashSet::new();
    let mut roots = std::collections::HashMap::new();
    let mut found: Vec<(String, Vec<String>, MembersFrom)> = Vec::new();
    for node in p.nodes() {
        if !cst::is_string(node) || p.parent(node).is_some_and(|n| n.kind_name() == "concatenated_string") {
            continue;
        }
        let root = message_root(p, node, &mut roots);
        if !seen.insert(root.id()) {
            continue;
        }
        if !in_reject_context(p, root) {
            continue;
        }
        let msg = message_value(root, p.src);
        let Some(mut members) = members_in_message(&msg) else { continue };
        let Some(flag) = owner(p, root, &msg, flags) else {
            warnings.push(Warning {
                path: p.path.to_string(),
                line: line(root),
                column: root.start_position().column + 1,
                message: format!("validator lists members ({}) but names no flag knobs can match", members.join(", ")),
            });
            continue;
        };
        members.retain(|m| !m.starts_with('-'));
        found.push((
            flag,
            members,
            MembersFrom { origin: "validator-message".into(), location: p.loc(line(root)), closed: true },
        ));
    }
    for cmp in comparison_sets(p, flags) {
        if !found.iter().any(|(f, _, _)| *f == cmp.0) {
            found.push(cmp);
        }
    }
    for (flag, members, from) in found {
        if let Some(c) = flags.get_mut(&flag) {
            // A validator outranks declared choices and help text.
            let replace = c.members.as_ref().is_none_or(|(_, f)| f.origin != "validator-message");
            if replace {
                c.members = Some((members, from));
            }
        }
    }
}

/// `if (v != "a" && v != "b") reject(...)`: the compared literals, when the
/// branch refuses.
fn comparison_sets(p: &Parsed<'_>, flags: &BTreeMap<String, Candidate>) -> Vec<(String, Vec<String>, MembersFrom)> {
    let mut out = Vec::new();
    for node in p.nodes() {
        if node.kind_name() != "if_statement" {
            continue;
        }
        let (Some(cond), Some(body)) = (node.child_by_field_name("condition"), node.child_by_field_name("consequence"))
        else {
            continue;
        };
        let mut members = Vec::new();
        for n in cst::preorder(cond) {
            if n.kind_name() != "binary_expression" {
                continue;
            }
            let is_ne = n.child_by_field_name("operator").is_some_and(|o| text(o, p.src) == "!=");
            if !is_ne {
                continue;
            }
            for side in ["left", "right"] {
                if let Some(s) = n.child_by_field_name(side).and_then(|s| string_value(s, p.src)) {
                    if !s.starts_with('-') && !s.is_empty() && !members.contains(&s) {
                        members.push(s);
                    }
                }
            }
        }
        if members.len() < 2 {
            continue;
        }
        let refuses = cst::preorder(body).into_iter().any(|n| {
            matches!(n.kind_name(), "throw_statement" | "return_statement")
                || (n.kind_name() == "call_expression" && in_reject_context(p, n))
                || (cst::is_string(n) && in_reject_context(p, n))
        });
        if !refuses {
            continue;
        }
        let said: String =
            cst::preorder(body).into_iter().filter_map(|n| string_value(n, p.src)).collect::<Vec<_>>().join(" ");
        let flag = owner(p, node, &said, flags).or_else(|| flag_of_compared_local(p, cond, flags));
        if let Some(flag) = flag {
            out.push((
                flag,
                members,
                MembersFrom { origin: "validator-comparisons".into(), location: p.loc(line(node)), closed: true },
            ));
        }
    }
    out
}
