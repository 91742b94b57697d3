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
    /// Where each node's subtree ends in `nodes` (exclusive): a node and
    /// its descendants are `nodes[i..ends[i]]`.
    ends: Vec<usize>,
    /// A node's index in `nodes`, by its id: made on the first `parent` call.
    index: std::sync::OnceLock<rustc_hash::FxHashMap<usize, usize>>,
    /// Every offset where `++` starts (overlapping ones too), in order.
    increments: Vec<usize>,
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
        // Children come after their parent: read backwards, every subtree
        // is complete before its parent takes its end.
        let mut ends: Vec<usize> = (1..=nodes.len()).collect();
        for i in (1..nodes.len()).rev() {
            ends[parents[i]] = ends[parents[i]].max(ends[i]);
        }
        let b = file.masked.as_bytes();
        let increments = (0..b.len().saturating_sub(1)).filter(|&i| b[i] == b'+' && b[i + 1] == b'+').collect();
        let index = std::sync::OnceLock::new();
        Parsed { path: &file.path, src: &file.masked, tree, nodes, parents, ends, index, increments }
    }

    /// True when the node's text holds `++`: found in the file's list of
    /// them, not by reading the text (`v[v[v[…]]]` nested thousands deep
    /// read every level's text again).
    pub fn holds_increment(&self, n: tree_sitter::Node<'s>) -> bool {
        let at = self.increments.partition_point(|&i| i < n.start_byte());
        self.increments.get(at).is_some_and(|&i| i + 2 <= n.end_byte())
    }

    fn index_of(&self, node: tree_sitter::Node<'s>) -> Option<usize> {
        let index = self.index.get_or_init(|| self.nodes.iter().enumerate().map(|(i, n)| (n.id(), i)).collect());
        index.get(&node.id()).copied()
    }

    /// A node and its descendants, depth first, in source order: a slice of
    /// the file's walk, so a reader that stops early pays only for what it
    /// read (a fresh walk of a deep body costs the whole body every time).
    pub fn subtree(&self, node: tree_sitter::Node<'s>) -> &[tree_sitter::Node<'s>] {
        match self.index_of(node) {
            Some(i) => &self.nodes[i..self.ends[i]],
            None => &[],
        }
    }

    /// For every node (by its place in `nodes`), the first node of its
    /// subtree, depth first, that `own` holds for: one pass over the file,
    /// where asking each node of a nested shape would read its subtree again.
    pub fn first_in_subtrees(&self, mut own: impl FnMut(tree_sitter::Node<'s>) -> bool) -> Vec<Option<usize>> {
        let mut out: Vec<Option<usize>> = vec![None; self.nodes.len()];
        for i in (0..self.nodes.len()).rev() {
            if own(self.nodes[i]) {
                out[i] = Some(i);
                continue;
            }
            let mut child = i + 1;
            while child < self.ends[i] && out[i].is_none() {
                out[i] = out[child];
                child = self.ends[child];
            }
        }
        out
    }

    /// `first_in_subtrees`' answer for one node.
    pub fn first_at(&self, answers: &[Option<usize>], node: tree_sitter::Node<'s>) -> Option<tree_sitter::Node<'s>> {
        let found = self.index_of(node).and_then(|i| answers.get(i).copied().flatten())?;
        self.nodes.get(found).copied()
    }

    /// A node's parent, looked up rather than searched for from the root
    /// (as `Node::parent` does).
    pub fn parent(&self, node: tree_sitter::Node<'s>) -> Option<tree_sitter::Node<'s>> {
        let i = self.index_of(node)?;
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
