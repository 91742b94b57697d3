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

thread_local! {
    /// One bash parser per thread, built on first use and reused.
    static BASH: std::cell::RefCell<Option<tree_sitter::Parser>> = const { std::cell::RefCell::new(None) };
}

/// Parses shell code with tree-sitter-bash (a parser reused per thread).
pub(crate) fn parse_bash(src: &str) -> Option<tree_sitter::Tree> {
    BASH.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let mut p = tree_sitter::Parser::new();
            p.set_language(&tree_sitter_bash::LANGUAGE.into()).ok()?;
            *slot = Some(p);
        }
        let parser = slot.as_mut()?;
        // A parser left mid-parse (it never is here) would resume; start afresh.
        parser.reset();
        parser.parse(src, None)
    })
}
