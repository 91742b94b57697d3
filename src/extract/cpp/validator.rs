//! Validators: the code that refuses a value. Enum members are read from the
//! message a validator emits when it refuses (`expected one of: a, b, c`) or,
//! when the message lists none, from the literals it compares the value to
//! (`v != "a" && v != "b"`). A set read here is closed: the source refuses
//! every other value.

use std::collections::BTreeMap;

use regex::Regex;
use std::sync::LazyLock;
use tree_sitter::Node;

use super::node_kind::KindName;

use super::candidate::Candidate;
use super::cst::{self, call_name, line, message_value, string_value, text};
use super::owner::Owners;
use super::parsed::{Parsed, Warning};
use super::text::members_in_message;
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
            // Past a statement or a clause (`if`, `else`, a condition) no
            // expression holds the node any more: what lies above are
            // statements up to a block, none of them a refusal. Stopping
            // here keeps a 30,000-branch `else if` chain linear.
            k if k.ends_with("_statement") || k.ends_with("_clause") || k == "for_range_loop" => return false,
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

pub(crate) fn attach_members<'t>(p: &Parsed<'t>, flags: &mut BTreeMap<String, Candidate>, warnings: &mut Vec<Warning>) {
    let mut seen = std::collections::HashSet::new();
    let mut roots = std::collections::HashMap::new();
    let mut found: Vec<(String, Vec<String>, MembersFrom)> = Vec::new();
    let mut owners = Owners::new(flags);
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
        let Some(flag) = owners.owner(p, root, &msg) else {
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
    // A flag's message outranks its comparisons; the first comparison wins.
    let mut taken: rustc_hash::FxHashSet<String> = found.iter().map(|(f, _, _)| f.clone()).collect();
    for cmp in comparison_sets(p, flags, &mut owners) {
        if taken.insert(cmp.0.clone()) {
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
fn comparison_sets<'t>(
    p: &Parsed<'t>,
    flags: &BTreeMap<String, Candidate>,
    owners: &mut Owners<'t>,
) -> Vec<(String, Vec<String>, MembersFrom)> {
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
        let flag = owners.owner(p, node, &said).or_else(|| owners.compared_local(p, cond, flags));
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
