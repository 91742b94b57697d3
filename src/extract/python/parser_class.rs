//! An argparse subclass whose own `parse_args` takes an option out of argv
//! before argparse reads it (vLLM's `FlexibleArgumentParser`, from v0.6.0:
//! `if '--config' in args:`): every binary parsed by it takes that option,
//! whatever its parser declares. The profile names the classes
//! (`[extract.python] argv_parsers`); a tag whose class does not test argv
//! so adds nothing.

use std::collections::BTreeMap;

use tree_sitter::Node;

use super::module::Program;
use super::tree::children;
use crate::catalog::model::{Flag, Kind};

/// Adds each option a named class's `parse_args` tests argv for (`'--x' in
/// args`) to `flags`, in every scope of `scopes`: a new flag taking one
/// value, or one the parsers declare, which every scope then takes.
pub fn add(program: &Program<'_>, classes: &[String], scopes: &[String], flags: &mut BTreeMap<String, Flag>) {
    for class in classes {
        let Some(c) = program.class(class, usize::MAX) else { continue };
        let Some((k, method)) = program.method(c, "parse_args") else { continue };
        let f = &program.files[k.file];
        let mut found = Vec::new();
        tested(method, &|n| f.text_of(n).to_string(), &mut found);
        for (option, at) in found {
            let flag = flags.entry(option.clone()).or_insert_with(|| Flag {
                name: option.clone(),
                aliases: Vec::new(),
                metavar: String::new(),
                kind: Kind::String,
                default: String::new(),
                auto_means: None,
                members: Vec::new(),
                members_from: None,
                help: format!("Read from argv by {class}.parse_args."),
                location: f.location(at),
                negated: Vec::new(),
                env: Vec::new(),
                scopes: Vec::new(),
                excludes: Vec::new(),
                removed: None,
                successors: Vec::new(),
                arity: None,
                nargs: None,
                list: false,
                deprecated: false,
            });
            for s in scopes {
                if !flag.scopes.contains(s) {
                    flag.scopes.push(s.clone());
                }
            }
            flag.scopes.sort();
        }
    }
}

/// The option strings tested for membership (`'--x' in args`) in a tree.
fn tested<'p>(n: Node<'p>, text: &dyn Fn(Node<'p>) -> String, out: &mut Vec<(String, Node<'p>)>) {
    if n.kind() == "comparison_operator" {
        let parts = children(n);
        let op: String = text(n).split_whitespace().collect::<Vec<_>>().join(" ");
        if let [left, _] = parts.as_slice() {
            let word = text(*left);
            let word = word.trim_matches(|c| c == '\'' || c == '"');
            let is_in = op.contains(" in ") && !op.contains(" not in ");
            if left.kind() == "string" && is_in && word.starts_with("--") && !out.iter().any(|(w, _)| w == word) {
                out.push((word.to_string(), *left));
            }
        }
    }
    for c in children(n) {
        tested(c, text, out);
    }
}
