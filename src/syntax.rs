//! The tree-sitter seam shared by the two readers that need a grammar: the
//! C++ extractor and the shell scanner. Domain code never sees a node.

use tree_sitter::Node;

/// Every node of a tree, depth first, in source order.
pub(crate) fn preorder(root: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut cursor = root.walk();
    'outer: loop {
        out.push(cursor.node());
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'outer;
            }
            if !cursor.goto_parent() {
                break 'outer;
            }
        }
    }
    out
}
