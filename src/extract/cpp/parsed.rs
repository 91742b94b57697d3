//! A parsed file: tree-sitter's tree of the masked text, with every node in
//! source order and its parent, walked once for all the strategies; and the
//! regions the parser could not read, as warnings.

use tree_sitter::{Parser, Tree};

use super::node_kind::KindName;
use super::preprocess::SourceFile;
use crate::extract::ExtractError;

/// Something the extractor could not read cleanly, pointing into the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}: {}", self.path, self.line, self.column, self.message)
    }
}

/// A parsed file with what the strategies share: its tree and every node of
/// it in source order, walked once for all of them.
pub(crate) struct Parsed<'s> {
    pub path: &'s str,
    pub src: &'s str,
    pub tree: &'s Tree,
    pub nodes: Vec<tree_sitter::Node<'s>>,
    /// Each node's parent as an index into `nodes` (the root's is itself).
    parents: Vec<usize>,
    /// A node's index in `nodes`, by its id: made on the first `parent` call.
    index: std::sync::OnceLock<rustc_hash::FxHashMap<usize, usize>>,
}

impl<'s> Parsed<'s> {
    pub(crate) fn new(file: &'s SourceFile, tree: &'s Tree) -> Self {
        // One walk: every node in source order, with its parent.
        let mut nodes = Vec::new();
        let mut parents = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        let mut cursor = tree.root_node().walk();
        'outer: loop {
            parents.push(stack.last().copied().unwrap_or(0));
            nodes.push(cursor.node());
            if cursor.goto_first_child() {
                stack.push(nodes.len() - 1);
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    continue 'outer;
                }
                if !cursor.goto_parent() {
                    break 'outer;
                }
                stack.pop();
            }
        }
        Parsed { path: &file.path, src: &file.masked, tree, nodes, parents, index: std::sync::OnceLock::new() }
    }

    /// A node's parent, looked up rather than searched for from the root
    /// (as `Node::parent` does).
    pub fn parent(&self, node: tree_sitter::Node<'s>) -> Option<tree_sitter::Node<'s>> {
        let index = self.index.get_or_init(|| self.nodes.iter().enumerate().map(|(i, n)| (n.id(), i)).collect());
        let i = *index.get(&node.id())?;
        (i != 0).then(|| self.nodes[self.parents[i]])
    }

    pub fn loc(&self, line: usize) -> String {
        format!("{}:{}", self.path, line)
    }

    /// Every node, depth first, in source order.
    pub fn nodes(&self) -> impl Iterator<Item = tree_sitter::Node<'s>> + '_ {
        self.nodes.iter().copied()
    }
}

pub(crate) fn parse(file: &SourceFile) -> Result<Tree, ExtractError> {
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_cpp::LANGUAGE.into()).map_err(|e| ExtractError::Grammar(e.to_string()))?;
    parser.parse(&file.masked, None).ok_or_else(|| ExtractError::Parse { path: file.path.clone() })
}

/// Parses files on every core (the largest first, so that no core is left
/// with a big one at the end); results in the order given.
pub(crate) fn parse_all(files: &[&SourceFile]) -> Vec<Result<Tree, ExtractError>> {
    use rayon::prelude::*;
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(files[i].text.len()));
    let mut trees: Vec<(usize, Result<Tree, ExtractError>)> =
        order.par_iter().with_max_len(1).map(|&i| (i, parse(files[i]))).collect();
    trees.sort_by_key(|(i, _)| *i);
    trees.into_iter().map(|(_, t)| t).collect()
}

/// Regions tree-sitter could not parse, as warnings (one per outermost region).
pub(crate) fn parse_warnings(p: &Parsed<'_>) -> Vec<Warning> {
    let mut out = Vec::new();
    let mut stack = vec![p.tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            let pos = node.start_position();
            out.push(Warning {
                path: p.path.to_string(),
                line: pos.row + 1,
                column: pos.column + 1,
                message: if node.is_missing() {
                    format!("parse error: expected `{}` here", node.kind_name())
                } else {
                    "parse error: this region is not C++ that tree-sitter understands; flags in it may be missed"
                        .to_string()
                },
            });
            continue;
        }
        if node.has_error() {
            let mut cursor = node.walk();
            let children: Vec<_> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    out.sort_by_key(|w| (w.line, w.column));
    out
}
