//! The full reading of shell with tree-sitter-bash: every command and array
//! assignment of a script, whatever constructs hold them. The fast reader
//! (`simple`) leaves to it what it does not read.

use tree_sitter::Node;

use crate::lint::pairing::Word;
use crate::lint::scanners::words::{array_name, unquote, Arrays, Command, Part, Script, Var};
use crate::syntax::preorder;

fn text<'a>(n: Node<'_>, src: &'a str) -> &'a str {
    src.get(n.byte_range()).unwrap_or("")
}

/// Reads one argument node as a word.
fn word<'s>(n: Node<'_>, src: &'s str) -> Word<'s> {
    if n.kind() == "command_name" {
        if let Some(inner) = n.named_child(0) {
            return word(inner, src);
        }
    }
    let raw = text(n, src);
    let mut w = Word { text: None, var: None, default: None, start: n.start_byte(), end: n.end_byte() };
    match n.kind() {
        "word" | "number" => w.text = Some(unescape(raw).into()),
        "raw_string" => w.text = Some(raw.trim_matches('\'').into()),
        "string" | "concatenation" | "simple_expansion" | "expansion" => {
            let mut dynamic = false;
            let mut stack = vec![n];
            while let Some(c) = stack.pop() {
                match c.kind() {
                    "simple_expansion" | "expansion" => {
                        dynamic = true;
                        if w.var.is_none() {
                            let mut cur = c.walk();
                            for ch in c.named_children(&mut cur) {
                                match ch.kind() {
                                    "variable_name" if w.var.is_none() => w.var = Some(text(ch, src).to_string()),
                                    "word" | "string" | "raw_string" if w.default.is_none() => {
                                        w.default = Some(text(ch, src).trim_matches(['"', '\'']).to_string())
                                    }
                                    _ => {}
                                }
                            }
                        }
                    }
                    "command_substitution" | "arithmetic_expansion" | "process_substitution" => dynamic = true,
                    _ => {
                        let mut cur = c.walk();
                        let children: Vec<Node<'_>> = c.named_children(&mut cur).collect();
                        stack.extend(children.into_iter().rev());
                    }
                }
            }
            if !dynamic {
                w.text = Some(unquote(raw).into());
            } else if raw.starts_with("--") || raw.starts_with("\"--") {
                // `--x=$V`: keep the static name for pairing; the value is dynamic.
                w.text = Some(unquote(raw).into());
            }
        }
        _ => {}
    }
    w
}

fn unescape(raw: &str) -> String {
    unquote(raw)
}

/// The innermost function (of `functions`: name, byte range) whose body
/// holds a node, if any. A walk up the parents would cost the tree's depth
/// for each command; functions are few.
fn enclosing_function(n: Node<'_>, functions: &[(String, std::ops::Range<usize>)]) -> Option<String> {
    (functions.iter())
        .filter(|(_, r)| r.start <= n.start_byte() && n.end_byte() <= r.end)
        .min_by_key(|(_, r)| r.len())
        .map(|(name, _)| name.clone())
}

/// Reads a script's commands, arrays and variables with tree-sitter-bash.
pub(crate) fn full_commands(src: &str) -> Option<Script<'_>> {
    let tree = crate::syntax::parse_bash(src)?;
    let nodes = preorder(tree.root_node());
    let mut arrays = Arrays::default();
    let mut commands = Vec::new();
    let mut vars = Vec::new();
    let functions: Vec<(String, std::ops::Range<usize>)> = (nodes.iter())
        .filter(|n| n.kind() == "function_definition")
        .filter_map(|n| Some((text(n.child_by_field_name("name")?, src).to_string(), n.byte_range())))
        .collect();
    // Assignments before a command's name are that command's (its env).
    let mut of_command = std::collections::HashSet::new();
    for n in &nodes {
        match n.kind() {
            "variable_assignment" => {
                let Some(name) = n.child_by_field_name("name") else { continue };
                let value = n.child_by_field_name("value");
                if value.is_none_or(|v| v.kind() != "array") {
                    // A variable of the script; one before a command is that command's.
                    if !of_command.contains(&n.start_byte()) {
                        let at = value.map_or(n.end_byte()..n.end_byte(), |v| v.byte_range());
                        let exported = n.parent().is_some_and(|d| {
                            d.kind() == "declaration_command" && d.child(0).is_some_and(|k| text(k, src) == "export")
                        });
                        vars.push(Var { name: text(name, src).to_string(), value: at, exported });
                    }
                    continue;
                }
                let Some(value) = value else { continue };
                let mut cur = value.walk();
                let words: Vec<Word<'_>> =
                    value.named_children(&mut cur).filter(|c| c.kind() != "comment").map(|c| word(c, src)).collect();
                arrays.entry(text(name, src).to_string()).or_default().push(words);
            }
            "command" => {
                let mut cur = n.walk();
                let assigns: Vec<std::ops::Range<usize>> = (n.named_children(&mut cur))
                    .filter(|c| c.kind() == "variable_assignment")
                    .map(|c| c.byte_range())
                    .collect();
                of_command.extend(assigns.iter().map(|a| a.start));
                let mut cur = n.walk();
                let parts: Vec<Part<'_>> = n
                    .named_children(&mut cur)
                    .filter(|c| {
                        !matches!(c.kind(), "comment" | "variable_assignment" | "file_redirect" | "herestring_redirect")
                    })
                    .map(|c| Part {
                        word: word(c, src),
                        named: match c.kind() {
                            "command_name" => c.named_child(0).is_some(),
                            "word" | "raw_string" | "string" | "number" => true,
                            _ => false,
                        },
                        array: array_name(text(c, src)),
                    })
                    .collect();
                commands.push(Command { parts, assigns, func: enclosing_function(*n, &functions) });
            }
            _ => {}
        }
    }
    Some(Script { commands, arrays, vars })
}
