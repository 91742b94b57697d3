//! A custom `argparse.Action` named by `action=`: read for what argparse
//! would do with it. One whose `nargs` is 0 (`def __init__(..., nargs=0,
//! ...)`, or `super().__init__(..., nargs=0)`) takes no value word, a
//! switch; one whose strings say `deprecated` marks the option deprecated;
//! one whose `__call__` raises whatever it is given refuses the option.

use tree_sitter::Node;

use super::kwargs::Kw;
use super::module::{ClassDef, Program};
use super::parser_walk::Walker;
use super::tree::{all_children, call_args, children, last_name, literal_string};

/// argparse's own actions, by name: nothing to read.
const ARGPARSE: [&str; 11] = [
    "store",
    "store_const",
    "store_true",
    "store_false",
    "append",
    "append_const",
    "extend",
    "count",
    "help",
    "version",
    "BooleanOptionalAction",
];

impl Walker<'_, '_> {
    /// Settles `kw` for a custom action class the program defines.
    pub(super) fn settle_action(&self, kw: &mut Kw, file: usize) {
        let Some(name) = kw.action.as_deref() else { return };
        if ARGPARSE.contains(&name) || self.names.bool_actions.iter().any(|b| b == name) {
            return;
        }
        let Some(class) = self.program.class(name, file) else { return };
        if kw.nargs.is_none() && takes_no_value(self.program, class) {
            kw.no_value = true;
        }
        kw.deprecated |= says_deprecated(self.program, class);
        kw.refused |= always_refuses(self.program, class);
    }
}

/// The action's `__call__` raises, or calls `parser.error(...)`, whatever
/// it is given: the option parses but is always refused.
fn always_refuses(program: &Program<'_>, class: ClassDef<'_>) -> bool {
    let Some((owner, call)) = program.method(class, "__call__") else { return false };
    let f = &program.files[owner.file];
    let Some(body) = call.child_by_field_name("body") else { return false };
    children(body).into_iter().any(|s| match s.kind() {
        "raise_statement" => true,
        "expression_statement" => children(s).into_iter().any(|c| {
            c.kind() == "call" && c.child_by_field_name("function").is_some_and(|n| f.text_of(n) == "parser.error")
        }),
        _ => false,
    })
}

/// The action's `nargs` is 0 unless the call says otherwise.
fn takes_no_value(program: &Program<'_>, class: ClassDef<'_>) -> bool {
    let Some((owner, init)) = program.method(class, "__init__") else { return false };
    let f = &program.files[owner.file];
    let zero = |v: Option<Node<'_>>| v.is_some_and(|v| f.text_of(v).trim() == "0");
    if let Some(params) = init.child_by_field_name("parameters") {
        for p in children(params) {
            if matches!(p.kind(), "default_parameter" | "typed_default_parameter")
                && p.child_by_field_name("name").is_some_and(|n| f.text_of(n) == "nargs")
            {
                return zero(p.child_by_field_name("value"));
            }
        }
    }
    // `super().__init__(option_strings, dest, nargs=0, **kwargs)`.
    let mut stack = vec![init];
    while let Some(n) = stack.pop() {
        if n.kind() == "call" && n.child_by_field_name("function").is_some_and(|c| last_name(f, c) == "__init__") {
            return zero(call_args(f, n).keyword("nargs"));
        }
        stack.extend(children(n));
    }
    false
}

/// A string of the class (its docstring, its warning) says `deprecated`.
fn says_deprecated(program: &Program<'_>, class: ClassDef<'_>) -> bool {
    let f = &program.files[class.file];
    let mut stack = vec![class.node];
    while let Some(n) = stack.pop() {
        if n.kind() == "string" {
            let text = literal_string(f, n).unwrap_or_else(|| f.text_of(n).to_string());
            if text.to_ascii_lowercase().contains("deprecated") {
                return true;
            }
            continue;
        }
        stack.extend(all_children(n));
    }
    false
}
