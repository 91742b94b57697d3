//! The tree-sitter-python seam of the Python extractor: a file parsed once,
//! and small readers over its nodes (text, lines, string literals, call
//! arguments). The other files of this folder see nodes only through these.

use tree_sitter::{Node, Parser, Tree};

use crate::extract::ExtractError;

/// One Python file of the pinned tree, parsed.
pub struct PyFile {
    pub path: String,
    pub text: String,
    pub tree: Tree,
}

impl PyFile {
    /// Parses `text`; a file the grammar cannot read at all is an error, a
    /// file with a few broken regions is read around them.
    pub fn parse(path: &str, text: String) -> Result<PyFile, ExtractError> {
        let mut parser = Parser::new();
        parser.set_language(&tree_sitter_python::LANGUAGE.into()).map_err(|e| ExtractError::Grammar(e.to_string()))?;
        let tree = parser.parse(&text, None).ok_or_else(|| ExtractError::Parse { path: path.to_string() })?;
        Ok(PyFile { path: path.to_string(), text, tree })
    }

    pub fn root(&self) -> Node<'_> {
        self.tree.root_node()
    }

    /// The source text of a node.
    pub fn text_of(&self, n: Node<'_>) -> &str {
        self.text.get(n.byte_range()).unwrap_or("")
    }

    /// `path:line` of a node, as catalogues write locations.
    pub fn location(&self, n: Node<'_>) -> String {
        format!("{}:{}", self.path, n.start_position().row + 1)
    }
}

/// The named children of a node.
pub fn children(n: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = n.walk();
    n.named_children(&mut cursor).filter(|c| c.kind() != "comment").collect()
}

/// Every child, comments included.
pub fn all_children(n: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = n.walk();
    n.named_children(&mut cursor).collect()
}

/// Strips parentheses around an expression.
pub fn unparen(mut n: Node<'_>) -> Node<'_> {
    while n.kind() == "parenthesized_expression" {
        match children(n).first() {
            Some(c) => n = *c,
            None => break,
        }
    }
    n
}

/// The part of a string literal that does not depend on run time: its
/// content with escapes read, or `None` for an f-string with an
/// interpolation (those are settled by the evaluator).
pub fn literal_string(file: &PyFile, n: Node<'_>) -> Option<String> {
    let n = unparen(n);
    match n.kind() {
        "string" => {
            let mut out = String::new();
            for c in all_children(n) {
                match c.kind() {
                    "string_content" => out.push_str(file.text_of(c)),
                    "escape_sequence" => out.push_str(&unescape(file.text_of(c))),
                    "interpolation" => return None,
                    _ => {}
                }
            }
            Some(out)
        }
        "concatenated_string" => {
            let mut out = String::new();
            for c in children(n) {
                out.push_str(&literal_string(file, c)?);
            }
            Some(out)
        }
        _ => None,
    }
}

/// One escape sequence of a Python string, as the character it stands for.
pub fn unescape(esc: &str) -> String {
    match esc {
        "\\n" => "\n".into(),
        "\\t" => "\t".into(),
        "\\\\" => "\\".into(),
        "\\'" => "'".into(),
        "\\\"" => "\"".into(),
        "\\\n" => String::new(),
        other => other.to_string(),
    }
}

/// A call's arguments: the positional ones, the keyword ones by name, and
/// the `**splat` ones.
#[derive(Default)]
pub struct Args<'t> {
    pub positional: Vec<Node<'t>>,
    /// `*list` arguments.
    pub star: Vec<Node<'t>>,
    pub keywords: Vec<(String, Node<'t>)>,
    pub splats: Vec<Node<'t>>,
}

impl<'t> Args<'t> {
    pub fn keyword(&self, name: &str) -> Option<Node<'t>> {
        self.keywords.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
    }
}

/// The arguments of a `call` node.
pub fn call_args<'t>(file: &PyFile, call: Node<'t>) -> Args<'t> {
    let mut out = Args::default();
    let Some(list) = call.child_by_field_name("arguments") else { return out };
    for a in children(list) {
        match a.kind() {
            "keyword_argument" => {
                if let (Some(k), Some(v)) = (a.child_by_field_name("name"), a.child_by_field_name("value")) {
                    out.keywords.push((file.text_of(k).to_string(), v));
                }
            }
            "dictionary_splat" => out.splats.extend(children(a).first().copied()),
            "list_splat" => out.star.extend(children(a).first().copied()),
            _ => out.positional.push(a),
        }
    }
    out
}

/// The last name of a callee or annotation head: `argparse.Action` →
/// `Action`, `self._gauge_cls` → `_gauge_cls`.
pub fn last_name<'f>(file: &'f PyFile, n: Node<'_>) -> &'f str {
    let text = file.text_of(n);
    text.rsplit('.').next().unwrap_or(text).trim()
}

/// The statements of a block or module, with `decorated_definition`s
/// unwrapped to their definition and their decorators' names.
pub fn statements(n: Node<'_>) -> Vec<Node<'_>> {
    children(n)
}

/// The decorator names of a definition's wrapper (`@dataclass(frozen=True)`
/// → `dataclass`).
pub fn decorators(file: &PyFile, def: Node<'_>) -> Vec<String> {
    let Some(parent) = def.parent().filter(|p| p.kind() == "decorated_definition") else { return Vec::new() };
    children(parent)
        .into_iter()
        .filter(|c| c.kind() == "decorator")
        .map(|d| {
            let t = file.text_of(d).trim_start_matches('@');
            let head = t.split('(').next().unwrap_or(t);
            head.rsplit('.').next().unwrap_or(head).trim().to_string()
        })
        .collect()
}

/// The definition a statement holds (itself, or inside its decorators).
pub fn definition(n: Node<'_>) -> Node<'_> {
    if n.kind() == "decorated_definition" {
        n.child_by_field_name("definition").unwrap_or(n)
    } else {
        n
    }
}
