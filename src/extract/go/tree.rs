//! The tree-sitter-go seam of the Go reader: a file parsed once, and small
//! readers over its nodes (text, lines, string literals, callees, call
//! arguments). The other files of this folder see nodes only through these.

use tree_sitter::{Node, Parser, Tree};

use crate::extract::ExtractError;

/// One Go file of the pinned tree, parsed.
pub struct GoFile {
    pub path: String,
    pub text: String,
    pub tree: Tree,
}

impl GoFile {
    /// Parses `text`; a file with a few broken regions is read around them.
    pub fn parse(path: &str, text: String) -> Result<GoFile, ExtractError> {
        let mut parser = Parser::new();
        parser.set_language(&tree_sitter_go::LANGUAGE.into()).map_err(|e| ExtractError::Grammar(e.to_string()))?;
        let tree = parser.parse(&text, None).ok_or_else(|| ExtractError::Parse { path: path.to_string() })?;
        Ok(GoFile { path: path.to_string(), text, tree })
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

    /// The value of a string literal (`"a\"b"`, `` `raw` ``), escapes read;
    /// None for anything else.
    pub fn string(&self, n: Node<'_>) -> Option<String> {
        match n.kind() {
            "raw_string_literal" => Some(self.text_of(n).trim_matches('`').to_string()),
            "interpreted_string_literal" => {
                let mut out = String::new();
                for c in children(n) {
                    let t = self.text_of(c);
                    match c.kind() {
                        "escape_sequence" => out.push_str(&unescape(t)),
                        _ => out.push_str(t),
                    }
                }
                Some(out)
            }
            _ => None,
        }
    }
}

/// A call's callee as written (`os.Getenv`, `cmd.Flags().String`) and its
/// arguments, comments left out; None for a node that is not a call.
pub fn call<'t>(file: &'t GoFile, n: Node<'t>) -> Option<(&'t str, Vec<Node<'t>>)> {
    if n.kind() != "call_expression" {
        return None;
    }
    let callee = file.text_of(n.child_by_field_name("function")?);
    Some((callee, children(n.child_by_field_name("arguments")?)))
}

/// The named children of a node, comments left out.
pub fn children(n: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = n.walk();
    n.named_children(&mut cursor).filter(|c| c.kind() != "comment").collect()
}

/// Every node below `n` (itself first), depth first, in source order.
pub fn descendants(n: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        out.push(n);
        let mut kids = children(n);
        kids.reverse();
        stack.extend(kids);
    }
    out
}

/// The nearest ancestor of `n` of one of `kinds`.
pub fn ancestor<'t>(mut n: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    while let Some(p) = n.parent() {
        if kinds.contains(&p.kind()) {
            return Some(p);
        }
        n = p;
    }
    None
}

/// The comment lines right above `n` (a Go doc comment), `//` stripped.
pub fn doc_comment(file: &GoFile, n: Node<'_>) -> String {
    let mut lines = Vec::new();
    let mut at = n.prev_sibling();
    let mut row = n.start_position().row;
    while let Some(c) = at.filter(|c| c.kind() == "comment" && c.end_position().row + 1 == row) {
        lines.push(file.text_of(c).trim_start_matches("//").trim().to_string());
        row = c.start_position().row;
        at = c.prev_sibling();
    }
    lines.reverse();
    lines.join(" ")
}

/// Go's escapes in an interpreted string: the common ones read, others kept.
fn unescape(e: &str) -> String {
    match e {
        "\\\"" => "\"".into(),
        "\\\\" => "\\".into(),
        "\\n" => "\n".into(),
        "\\t" => "\t".into(),
        "\\'" => "'".into(),
        _ => e.to_string(),
    }
}
