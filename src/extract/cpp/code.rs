//! The code the option handlers may call into: every function and every
//! file-scope table (`static const … = {…}`) of the files read, by name, so a
//! validator in another file is found as easily as one beside the table.

use std::collections::HashMap;

use tree_sitter::Node;

use super::cst::{self, declarator_name, line, text};
use super::node_kind::KindName;
use super::parsed::Parsed;

/// The functions and file-scope tables of the files read, by name.
pub(crate) struct Code<'t> {
    pub(super) files: &'t [Parsed<'t>],
    pub(super) functions: HashMap<String, (usize, Node<'t>)>,
    pub(super) tables: HashMap<String, (usize, Node<'t>)>,
}

/// The plain name of the function `def` defines (not a destructor or an
/// operator).
fn function_name<'a>(def: Node<'_>, src: &'a str) -> Option<&'a str> {
    let d = cst::function_name_node(def)?;
    matches!(d.kind_name(), "identifier" | "field_identifier").then(|| text(d, src))
}

impl<'t> Code<'t> {
    pub fn new(files: &'t [Parsed<'t>]) -> Code<'t> {
        let mut functions = HashMap::new();
        let mut tables = HashMap::new();
        for (i, p) in files.iter().enumerate() {
            for n in p.nodes() {
                match n.kind_name() {
                    "function_definition" => {
                        if let Some(name) = function_name(n, p.src) {
                            functions.entry(name.to_string()).or_insert((i, n));
                        }
                    }
                    "init_declarator" => {
                        let (Some(d), Some(v)) = (n.child_by_field_name("declarator"), n.child_by_field_name("value"))
                        else {
                            continue;
                        };
                        if v.kind_name() == "initializer_list" {
                            if let Some(name) = declarator_name(d, p.src) {
                                tables.entry(name.to_string()).or_insert((i, v));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        Code { files, functions, tables }
    }

    /// The identifiers a file-scope list holds (`{LLAMA_EXAMPLE_MTMD, …}`).
    pub fn table_identifiers(&self, name: &str) -> Option<Vec<String>> {
        let (f, table) = self.tables.get(name)?;
        let src = self.src(*f);
        let mut cursor = table.walk();
        let ids: Vec<String> = table
            .named_children(&mut cursor)
            .filter(|e| matches!(e.kind_name(), "identifier" | "qualified_identifier"))
            .map(|e| text(e, src).to_string())
            .collect();
        (!ids.is_empty()).then_some(ids)
    }

    pub(super) fn src(&self, file: usize) -> &'t str {
        self.files[file].src
    }

    pub(super) fn loc(&self, file: usize, node: Node<'_>) -> String {
        self.files[file].loc(line(node))
    }
}
