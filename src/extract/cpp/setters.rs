//! Chained setters after a declaring call (`.set_default("0")`,
//! `->check(IsMember({"a", "b"}))`, `.set_examples({…})`): each one says one
//! thing about the flag, by the role its name reads as.

use tree_sitter::Node;

use super::candidate::Candidate;
use super::code::Code;
use super::cst::{self, call_args, call_name, line, string_value, text};
use super::node_kind::KindName;
use super::parsed::Parsed;
use super::roles::{kind_of_call_name, kind_of_ident, role_of_name, Role};
use crate::catalog::model::{Kind, MembersFrom};

/// Applies one chained setter; returns whether it said anything.
pub(crate) fn apply_setter(p: &Parsed<'_>, setter: Node<'_>, c: &mut Candidate, code: Option<&Code<'_>>) -> bool {
    let Some(name) = call_name(setter, p.src) else { return false };
    let args = call_args(setter);
    let strings: Vec<String> = args.iter().filter_map(|a| string_value(*a, p.src)).collect();
    let first_value = args.first().map(|a| {
        string_value(*a, p.src).unwrap_or_else(|| {
            let t = text(*a, p.src);
            // `1.0f`, `4u`: the number, not its C++ suffix.
            if a.kind_name() == "number_literal" { t.trim_end_matches(['f', 'F', 'u', 'U', 'l', 'L']) } else { t }
                .to_string()
        })
    });
    match role_of_name(name) {
        Some(Role::Metavar) => c.metavar = first_value,
        Some(Role::Default) => {
            c.default = first_value;
            if args.first().is_some_and(|a| matches!(a.kind_name(), "true" | "false")) {
                c.kind = c.kind.or(Some(Kind::Switch));
            }
        }
        Some(Role::Help) => c.help = strings.first().cloned(),
        Some(Role::Alias) => c.aliases.extend(strings),
        Some(Role::Kind) => c.kind = first_value.as_deref().and_then(kind_of_ident),
        Some(Role::Members) => {
            let mut members = strings;
            if members.is_empty() {
                // choices({"a", "b"})
                for a in &args {
                    let mut cursor = a.walk();
                    members.extend(a.named_children(&mut cursor).filter_map(|n| string_value(n, p.src)));
                }
            }
            if members.len() >= 2 {
                c.members = Some((
                    members,
                    MembersFrom { origin: "declared-choices".into(), location: p.loc(line(setter)), closed: true },
                ));
            }
        }
        Some(Role::Env) => c.env.extend(strings),
        Some(Role::Scopes) => c.scopes.extend(identifiers(p, setter, code)),
        Some(Role::Excludes) => c.excludes.extend(identifiers(p, setter, code)),
        Some(Role::Name) => {}
        None => match kind_of_call_name(name) {
            Some(k) => c.kind = Some(k),
            None => match member_check(p, setter) {
                // `->check(IsMember({"a", "b"}))`: a check that refuses other words.
                Some(members) => {
                    c.members = Some((
                        members,
                        MembersFrom { origin: "declared-choices".into(), location: p.loc(line(setter)), closed: true },
                    ))
                }
                None => return false,
            },
        },
    }
    true
}

/// The words a check call admits: a nested call named like a membership test
/// (`IsMember`, `one_of`, `choices`, `in_set`) over a list of string literals.
fn member_check(p: &Parsed<'_>, setter: Node<'_>) -> Option<Vec<String>> {
    for n in cst::preorder(setter) {
        if n == setter || n.kind_name() != "call_expression" {
            continue;
        }
        let name = call_name(n, p.src)?.to_ascii_lowercase().replace('_', "");
        if !["ismember", "oneof", "choices", "inset", "member", "allowed"].iter().any(|w| name.contains(w)) {
            continue;
        }
        let words: Vec<String> = cst::preorder(n).into_iter().filter_map(|s| string_value(s, p.src)).collect();
        if words.len() >= 2 {
            return Some(words);
        }
    }
    None
}

/// The identifiers a setter lists: `set_examples({LLAMA_EXAMPLE_SERVER, …})`,
/// or those of a list it names (`set_examples(mmproj_examples)`).
fn identifiers(p: &Parsed<'_>, setter: Node<'_>, code: Option<&Code<'_>>) -> Vec<String> {
    let Some(args) = setter.child_by_field_name("arguments") else { return Vec::new() };
    let mut out = Vec::new();
    for n in cst::preorder(args) {
        if !matches!(n.kind_name(), "identifier" | "qualified_identifier")
            || p.parent(n).is_some_and(|up| up.kind_name() == "qualified_identifier")
        {
            continue;
        }
        let name = text(n, p.src);
        let listed = (p.parent(n) == Some(args)).then(|| code.and_then(|c| c.table_identifiers(name))).flatten();
        match listed {
            Some(list) => out.extend(list),
            None => out.push(name.to_string()),
        }
    }
    out
}
