//! Option lists built with call operators, as Boost.Program_options writes
//! them: `desc.add_options()("help,h", "…")("threads,t",
//! value<int>()->default_value(4), "…")`. Each link of the chain declares
//! one option.

use tree_sitter::Node;

use super::candidate::Candidate;
use super::cst::{self, bound_field, call_args, call_name, call_template_args, chained_calls, line, string_value};
use super::node_kind::KindName;
use super::parsed::Parsed;
use super::roles::{kind_of_call_name, kind_of_ident};
use super::setters::apply_setter;
use crate::catalog::model::Kind;

/// One link of an option list built with call operators:
/// `desc.add_options()("help,h", "…")("threads,t", value<int>()->default_value(4), "…")`.
/// Each link names an option without dashes (`long` or `long,s`), then
/// optionally a value semantic, then the help.
pub(crate) fn operator_link(p: &Parsed<'_>, call: Node<'_>) -> Option<Candidate> {
    let function = call.child_by_field_name("function")?;
    if function.kind_name() != "call_expression" {
        return None;
    }
    // The chain must hold at least two named links, or start from a call
    // that says it adds options, so that `f()(x, y)` alone is not a flag.
    let mut links = 0;
    let mut root = call;
    while let Some(f) = root.child_by_field_name("function").filter(|f| f.kind_name() == "call_expression") {
        if call_args(root).first().and_then(|a| string_value(*a, p.src)).is_some_and(|s| option_name(&s).is_some()) {
            links += 1;
        }
        root = f;
    }
    let root_says_options = call_name(root, p.src).is_some_and(|n| n.to_ascii_lowercase().contains("option"));
    let parent_is_link = p.parent(call).is_some_and(|g| {
        g.kind_name() == "call_expression"
            && g.child_by_field_name("function") == Some(call)
            && call_args(g).first().and_then(|a| string_value(*a, p.src)).is_some_and(|s| option_name(&s).is_some())
    });
    if links + usize::from(parent_is_link) < 2 && !root_says_options {
        return None;
    }
    let args = call_args(call);
    let first = args.first()?;
    let (long, short) = option_name(&string_value(*first, p.src)?)?;
    if args.len() < 2 {
        return None;
    }
    let mut c = Candidate { name: format!("--{long}"), line: line(*first), ..Candidate::default() };
    if let Some(s) = short {
        c.aliases.push(format!("-{s}"));
    }
    let mut semantic = false;
    for a in &args[1..] {
        if let Some(s) = string_value(*a, p.src) {
            if c.help.is_none() {
                c.help = Some(s);
            }
            continue;
        }
        if a.kind_name() == "call_expression" {
            semantic = true;
            let root = cst::chain_root(*a);
            if let Some(t) = call_template_args(root, p.src) {
                c.kind = kind_of_ident(t.trim_matches(['<', '>']).trim());
            }
            if let Some(name) = call_name(root, p.src) {
                c.kind = c.kind.or(kind_of_call_name(name));
            }
            if let Some(field) = call_args(root).first().and_then(|b| bound_field(*b, p.src)) {
                c.field = Some(field);
            }
            for setter in chained_calls(p, root) {
                apply_setter(p, setter, &mut c, None);
            }
        }
    }
    c.takes_value = Some(semantic && c.kind != Some(Kind::Switch));
    if !semantic {
        c.kind = Some(Kind::Switch);
    }
    Some(c)
}

/// `threads,t` → (`threads`, `t`); `cache-type` → (`cache-type`, none).
fn option_name(s: &str) -> Option<(String, Option<String>)> {
    let (long, short) = match s.split_once(',') {
        Some((l, sh)) => (l, Some(sh)),
        None => (s, None),
    };
    let word = |w: &str| {
        w.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    if long.len() < 2 || !word(long) || short.is_some_and(|sh| sh.chars().count() != 1 || !word(sh)) {
        return None;
    }
    Some((long.to_string(), short.map(str::to_string)))
}
