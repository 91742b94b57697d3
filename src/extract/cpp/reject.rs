//! Where a value is refused: a node inside a throw, a return, an
//! error-reporting call or a write to stderr. The answer depends only on
//! the node's ancestors up to the first statement, so each climb is
//! remembered for every node it passed: the literals of a 20,000-deep
//! ternary (`a ? b : c ? d : …`, a long `+` of messages) are climbed
//! once in all, not once each.

use std::sync::LazyLock;

use regex::Regex;
use rustc_hash::FxHashMap;
use tree_sitter::Node;

use super::cst::{call_name, text};
use super::node_kind::KindName;
use super::parsed::Parsed;

/// The climbs made so far in one file.
pub(crate) struct Rejects {
    /// A node id → whether the climb starting at that node (it included)
    /// meets a refusal.
    from: FxHashMap<usize, bool>,
    /// Where `stderr` stands in the source, in order: a call's text is
    /// searched by a lookup, not a scan (nested calls would rescan).
    stderr: Vec<usize>,
}

/// What one node says of the climb: refused, not refused, or ask its parent.
fn decides(n: Node<'_>, src: &str, stderr: &[usize]) -> Option<bool> {
    static REJECT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)err|fail|die|reject|invalid|bad|abort|panic|fatal|raise|throw|exception|refuse|usage_?error|status|bail|complain")
            .expect("valid regex")
    });
    match n.kind_name() {
        "throw_statement" | "return_statement" => Some(true),
        "call_expression" => {
            let name = call_name(n, src).unwrap_or("");
            if REJECT.is_match(name) {
                return Some(true);
            }
            let to_stderr = {
                let at = stderr.partition_point(|&s| s < n.start_byte());
                stderr.get(at).is_some_and(|&s| s + "stderr".len() <= n.end_byte())
            };
            (matches!(name, "fprintf" | "fputs" | "vfprintf" | "fmt::print" | "print") && to_stderr).then_some(true)
        }
        "binary_expression" => {
            let t = text(n, src).trim_start();
            (t.starts_with("std::cerr")
                || t.starts_with("cerr")
                || t.starts_with("LOG(ERROR")
                || t.starts_with("LOG(FATAL"))
            .then_some(true)
        }
        "expression_statement" | "compound_statement" | "function_definition" | "declaration" => Some(false),
        // Past a statement or a clause (`if`, `else`, a condition) no
        // expression holds the node any more: what lies above are
        // statements up to a block, none of them a refusal. Stopping
        // here keeps a 30,000-branch `else if` chain linear.
        k if k.ends_with("_statement") || k.ends_with("_clause") || k == "for_range_loop" => Some(false),
        _ => None,
    }
}

impl Rejects {
    pub(crate) fn new(src: &str) -> Self {
        Rejects { from: FxHashMap::default(), stderr: src.match_indices("stderr").map(|(i, _)| i).collect() }
    }

    /// True when `node` sits where a value is refused (it is not itself
    /// asked: its ancestors are).
    pub(crate) fn holds<'t>(&mut self, p: &Parsed<'t>, node: Node<'t>) -> bool {
        let mut path = Vec::new();
        let mut cur = p.parent(node);
        let found = loop {
            let Some(n) = cur else { break false };
            if let Some(&known) = self.from.get(&n.id()) {
                break known;
            }
            path.push(n.id());
            if let Some(d) = decides(n, p.src, &self.stderr) {
                break d;
            }
            cur = p.parent(n);
        };
        for id in path {
            self.from.insert(id, found);
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::cpp::cst;
    use crate::extract::cpp::parsed::parse;
    use crate::extract::cpp::SourceFile;

    const SHAPES: [&str; 5] = [
        "void f(std::string a, std::string v) {\n if (a == \"--x\") { if (v != \"on\" && v != \"off\") \
         throw std::invalid_argument(\"expected one of: on, off\"); if (a == \"--y\") { x = std::stoi(v); } }\n}\n",
        "void t(std::string a) { x = a == \"--a\" ? 1 : a == \"--b\" ? fail(\"--b: bad\") : 0; }\n",
        "void u(std::string a) { x = (a == \"--a\" ? (a == \"--b\" ? 1 : 0) : 2); return (a == \"c\" ? \"d\" : \"e\"); }\n",
        "void w() { fprintf(stderr, \"bad: %s\", (c ? \"a\" : \"b\")); fprintf(out, \"x\"); std::cerr << \"no\" << 1; }\n",
        "void e() { if (v != \"a\" && v != \"b\") { if (w != \"c\" && w != \"d\") { log(\"--q\"); } return; } }\n",
    ];

    /// The climb as it was: from the node's parent, every ancestor asked.
    fn scan(p: &Parsed<'_>, node: Node<'_>) -> bool {
        let stderr: Vec<usize> = p.src.match_indices("stderr").map(|(i, _)| i).collect();
        let mut cur = p.parent(node);
        while let Some(n) = cur {
            if let Some(d) = decides(n, p.src, &stderr) {
                return d;
            }
            cur = p.parent(n);
        }
        false
    }

    /// Remembered climbs, the subtree slices and the first-in-subtree
    /// answers agree with a fresh climb and a fresh walk at every node, in
    /// whatever order the nodes are asked.
    #[test]
    fn the_remembered_answers_agree_with_a_scan() {
        for shape in SHAPES {
            let file = SourceFile::new("core/config.cpp", shape);
            let tree = parse(&file).expect("parses");
            let p = Parsed::new(&file, &tree);
            let mut forwards = Rejects::new(p.src);
            let mut backwards = Rejects::new(p.src);
            for (n, m) in p.nodes().zip(p.nodes().collect::<Vec<_>>().into_iter().rev()) {
                assert_eq!(forwards.holds(&p, n), scan(&p, n), "{shape}: {}", n.kind_name());
                assert_eq!(backwards.holds(&p, m), scan(&p, m), "{shape}: {}", m.kind_name());
            }
            let strings = p.first_in_subtrees(cst::is_string);
            for n in p.nodes() {
                assert_eq!(p.subtree(n), cst::preorder(n).as_slice(), "{shape}");
                assert_eq!(p.first_at(&strings, n), cst::preorder(n).into_iter().find(|c| cst::is_string(*c)));
            }
        }
    }
}
