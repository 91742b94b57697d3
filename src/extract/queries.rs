//! Shapes beyond the built-in ones, described by the user in `knobs.toml` as
//! tree-sitter queries over C++. Captures name the parts of a flag:
//! `@flag` (required), `@metavar`, `@default`, `@help`, `@alias`, `@kind`.
//! A `@flag` capture without dashes (`prefill_interleave`, as gflags spells
//! it) becomes `--prefill-interleave`.

use tree_sitter::{Query, QueryCursor, StreamingIterator};

use super::candidate::Candidate;
use super::cst::{line, string_value, text};
use super::parsed::Parsed;
use super::roles::{kind_of_call_name, kind_of_ident};

/// Capture names a query may use; others must start with `_`.
pub const CAPTURES: &[&str] = &["flag", "metavar", "default", "help", "alias", "kind"];

/// Why a user query was refused: a message and a byte offset into the query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryProblem {
    pub offset: usize,
    pub message: String,
}

fn compile(source: &str) -> Result<Query, QueryProblem> {
    let lang: tree_sitter::Language = tree_sitter_cpp::LANGUAGE.into();
    let q = Query::new(&lang, source).map_err(|e| {
        use tree_sitter::QueryErrorKind as K;
        // tree-sitter 0.27 quotes the name it refuses; older releases did not.
        let name = e.message.trim().trim_matches('"');
        let message = match e.kind {
            K::NodeType => format!("unknown node type `{name}` in the C++ grammar"),
            K::Field => format!("unknown field `{name}` in the C++ grammar"),
            K::Capture => format!("unknown capture `{name}`"),
            K::Predicate => format!("bad predicate: {}", e.message),
            K::Structure => format!("impossible pattern structure: {}", e.message),
            _ => format!("syntax error: {}", e.message.lines().next().unwrap_or("")),
        };
        QueryProblem { offset: e.offset, message }
    })?;
    if !q.capture_names().contains(&"flag") {
        return Err(QueryProblem { offset: 0, message: "the query captures no `@flag`".into() });
    }
    if let Some(bad) = q.capture_names().iter().find(|n| !n.starts_with('_') && !CAPTURES.contains(n)) {
        let offset = source.find(&format!("@{bad}")).unwrap_or(0);
        return Err(QueryProblem {
            offset,
            message: format!("unknown capture `@{bad}`; use {} (or a name starting with `_`)", CAPTURES.join(", ")),
        });
    }
    Ok(q)
}

/// Checks a query without running it (for `knobs.toml` validation).
pub fn check(source: &str) -> Result<(), QueryProblem> {
    compile(source).map(|_| ())
}

fn flag_name(raw: &str) -> String {
    if raw.starts_with('-') {
        raw.trim_end_matches('=').to_string()
    } else {
        format!("--{}", raw.replace('_', "-"))
    }
}

pub(crate) fn candidates(p: &Parsed<'_>, queries: &[String]) -> Vec<Candidate> {
    let mut out = Vec::new();
    for source in queries {
        let Ok(query) = compile(source) else { continue };
        let names = query.capture_names();
        let mut cursor = QueryCursor::new();
        let mut matches = cursor.matches(&query, p.tree.root_node(), p.src.as_bytes());
        while let Some(m) = matches.next() {
            let mut c = Candidate::default();
            for cap in m.captures() {
                let value = string_value(cap.node, p.src).unwrap_or_else(|| text(cap.node, p.src).to_string());
                match names[cap.index as usize] {
                    "flag" => {
                        c.name = flag_name(&value);
                        c.line = line(cap.node);
                    }
                    "metavar" => c.metavar = Some(value),
                    "default" => c.default = Some(value),
                    "help" => c.help = Some(value),
                    "alias" => c.aliases.push(value),
                    "kind" => c.kind = kind_of_call_name(&value).or_else(|| kind_of_ident(&value)),
                    _ => {}
                }
            }
            if !c.name.is_empty() {
                c.takes_value = c.metavar.as_ref().map(|m| !m.is_empty());
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_problems_have_offsets() {
        assert!(check("(call_expression arguments: (argument_list (string_literal) @flag))").is_ok());
        let e = check("(call_expression (nonsense_node) @flag)").expect_err("bad node");
        assert!(e.offset > 0, "{e:?}");
        let e = check("(string_literal) @name").expect_err("no flag");
        assert!(e.message.contains("no `@flag`"));
        let e = check("(string_literal) @flag (identifier) @kinds").expect_err("unknown capture");
        assert!(e.message.contains("unknown capture `@kinds`"), "{e:?}");
    }
}
