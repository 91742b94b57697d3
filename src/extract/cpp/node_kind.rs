//! Node kinds as names, read once from the C++ grammar: every strategy asks
//! each node its kind many times, and this is the cheap way to answer.

use tree_sitter::Node;

/// Node kinds by id, read from the C++ grammar once. `Node::kind` measures
/// and checks its C string on every call, and the extractors ask it of
/// every node many times.
static KINDS: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
    let language: tree_sitter::Language = tree_sitter_cpp::LANGUAGE.into();
    (0..language.node_kind_count())
        .map(|id| u16::try_from(id).ok().and_then(|id| language.node_kind_for_id(id)).unwrap_or("").to_string())
        .collect()
});

/// A node's kind, from the table above.
pub trait KindName {
    fn kind_name(&self) -> &'static str;
}

impl KindName for Node<'_> {
    fn kind_name(&self) -> &'static str {
        KINDS.get(usize::from(self.kind_id())).map_or("", String::as_str)
    }
}
