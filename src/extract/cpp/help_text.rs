//! The help a declaring call's argument computes rather than states: the
//! general branch of a ternary, or a format string with what stands for
//! each placeholder (filled in later from the settings struct).

use tree_sitter::Node;

use super::candidate::HelpArg;
use super::cst::{self, call_args, call_name, string_value, text};
use super::node_kind::KindName;

/// A help text chosen by a ternary (`ex == X ? "…" : "…"`): the general
/// (else) branch, the one most binaries print.
pub(crate) fn chosen_text(mut n: Node<'_>, src: &str) -> Option<String> {
    loop {
        if n.kind_name() != "conditional_expression" {
            return None;
        }
        let alt = n.child_by_field_name("alternative")?;
        if let Some(s) = string_value(alt, src) {
            return Some(s);
        }
        n = alt;
    }
}

/// The help a format call builds: its format string (`format("… %d", x)`)
/// and what stands for each placeholder.
pub(crate) fn format_help(n: Node<'_>, src: &str) -> Option<(String, Vec<HelpArg>)> {
    if n.kind_name() != "call_expression" {
        return None;
    }
    let name = call_name(n, src)?.to_ascii_lowercase();
    if !(name.contains("format") || name.contains("printf") || name == "str" || name.ends_with("_str")) {
        return None;
    }
    let mut args = call_args(n).into_iter();
    let first = args.next()?;
    let fmt = string_value(first, src)
        .or_else(|| chosen_text(first, src))
        .or_else(|| cst::preorder(first).into_iter().find_map(|c| string_value(c, src)))?;
    Some((fmt, args.map(|a| help_arg(a, src)).collect()))
}

/// What a format argument stands for: a field of the settings (whose
/// initialiser is the default), a literal, or a choice on a field.
fn help_arg(n: Node<'_>, src: &str) -> HelpArg {
    help_arg_within(n, src, 64)
}

/// [`help_arg`], reading at most `depth` nested casts, calls and choices.
fn help_arg_within(n: Node<'_>, src: &str, depth: usize) -> HelpArg {
    let Some(depth) = depth.checked_sub(1) else { return HelpArg::Unknown };
    let help_arg = |n: Node<'_>, src: &str| help_arg_within(n, src, depth);
    if let Some(s) = string_value(n, src) {
        return HelpArg::Text(s);
    }
    match n.kind_name() {
        "number_literal" => HelpArg::Text(text(n, src).to_string()),
        "field_expression" => match n.child_by_field_name("field").map(|f| text(f, src)) {
            // `params.x.c_str()`'s inner field is reached through the call.
            Some(f) => HelpArg::Field(f.to_string()),
            None => HelpArg::Unknown,
        },
        "cast_expression" | "parenthesized_expression" => n
            .child_by_field_name("value")
            .or_else(|| n.named_child(u32::try_from(n.named_child_count().saturating_sub(1)).unwrap_or(0)))
            .map_or(HelpArg::Unknown, |v| help_arg(v, src)),
        "call_expression" => {
            // `params.hostname.c_str()`: the field.
            let object = n
                .child_by_field_name("function")
                .filter(|f| f.kind_name() == "field_expression")
                .and_then(|f| f.child_by_field_name("argument"));
            match object {
                Some(o) if matches!(call_name(n, src), Some("c_str" | "data" | "str")) => help_arg(o, src),
                _ => HelpArg::Unknown,
            }
        }
        "conditional_expression" => {
            let cond = n.child_by_field_name("condition").map(|c| help_arg(c, src));
            let yes = n.child_by_field_name("consequence").and_then(|c| string_value(c, src));
            let no = n.child_by_field_name("alternative").and_then(|c| string_value(c, src));
            match (cond, yes, no) {
                (Some(HelpArg::Field(f)), Some(yes), Some(no)) => HelpArg::Choice { field: f, yes, no },
                _ => HelpArg::Unknown,
            }
        }
        _ => HelpArg::Unknown,
    }
}
