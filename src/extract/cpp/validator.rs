//! Validators: the code that refuses a value. Enum members are read from the
//! message a validator emits when it refuses (`expected one of: a, b, c`) or,
//! when the message lists none, from the literals it compares the value to
//! (`v != "a" && v != "b"`). A set read here is closed: the source refuses
//! every other value.

use std::collections::BTreeMap;

use tree_sitter::Node;

use super::node_kind::KindName;

use super::candidate::Candidate;
use super::cst::{self, line, message_value, string_value, text};
use super::owner::Owners;
use super::parsed::{Parsed, Warning};
use super::reject::Rejects;
use super::text::members_in_message;
use crate::catalog::model::MembersFrom;

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
    let mut rejects = Rejects::new(p.src);
    for node in p.nodes() {
        if !cst::is_string(node) || p.parent(node).is_some_and(|n| n.kind_name() == "concatenated_string") {
            continue;
        }
        let root = message_root(p, node, &mut roots);
        if !seen.insert(root.id()) {
            continue;
        }
        if !rejects.holds(p, root) {
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
    for cmp in comparison_sets(p, flags, &mut owners, &mut rejects) {
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
    rejects: &mut Rejects,
) -> Vec<(String, Vec<String>, MembersFrom)> {
    let mut out = Vec::new();
    // Whether a body refuses, and the first flag its strings name, for
    // every body at once: asked of each `if` of a nested shape, a scan of
    // its body would read every inner `if` again.
    let mut refusing: Option<Vec<Option<usize>>> = None;
    let mut naming: Option<Vec<Option<usize>>> = None;
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
        let refuses = refusing.get_or_insert_with(|| {
            p.first_in_subtrees(|n| {
                matches!(n.kind_name(), "throw_statement" | "return_statement")
                    || ((n.kind_name() == "call_expression" || cst::is_string(n)) && rejects.holds(p, n))
            })
        });
        if p.first_at(refuses, body).is_none() {
            continue;
        }
        // The first string of the body (depth first) that names a flag.
        let names = naming.get_or_insert_with(|| {
            p.first_in_subtrees(|n| string_value(n, p.src).is_some_and(|s| owners.named(&s).is_some()))
        });
        let said = p.first_at(names, body).and_then(|n| string_value(n, p.src)).unwrap_or_default();
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
