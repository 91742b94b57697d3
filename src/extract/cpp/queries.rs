//! Shapes beyond the built-in ones, described by the user in `knobs.toml` as
//! tree-sitter queries over C++. Captures name the parts of a flag:
//! `@flag` (required), `@metavar`, `@default`, `@help`, `@alias`, `@kind`.
//! A `@flag` capture without dashes (`prefill_interleave`, as gflags spells
//! it) becomes `--prefill-interleave`.
//!
//! A query is the user's, and its cost is not bounded by the file's size:
//! each `(_)*` multiplies the ways a match may go on. So every query runs
//! with a ceiling on the matches it keeps in progress and a time budget per
//! file; one that reaches either fails the sync, naming the query, rather
//! than stall it or write a catalogue that lacks what it would have found.

use std::cell::Cell;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{Query, QueryCursor, QueryCursorOptions, StreamingIterator};

use super::candidate::Candidate;
use super::cst::{line, string_value, text};
use super::parsed::Parsed;
use super::query_budget;
use super::roles::{kind_of_call_name, kind_of_ident};
use crate::extract::ExtractError;

/// Capture names a query may use; others must start with `_`.
pub const CAPTURES: &[&str] = &["flag", "metavar", "default", "help", "alias", "kind"];

/// Why a user query was refused: a message and a byte offset into the query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryProblem {
    pub offset: usize,
    pub message: String,
    /// Refused for what compiling it would cost (`message` then reads on
    /// from "the query"), not for what it says.
    pub costly: bool,
}

impl QueryProblem {
    fn said(offset: usize, message: String) -> Self {
        QueryProblem { offset, message, costly: false }
    }
}

fn compile(source: &str) -> Result<Query, QueryProblem> {
    if let Some(why) = query_budget::shape_problem(source) {
        return Err(QueryProblem { offset: 0, message: why, costly: true });
    }
    let text = source.to_string();
    let built = query_budget::within(query_budget::COMPILE_BUDGET, move || {
        let lang: tree_sitter::Language = tree_sitter_cpp::LANGUAGE.into();
        Query::new(&lang, &text)
    });
    let Some(built) = built else {
        let secs = query_budget::COMPILE_BUDGET.as_secs();
        return Err(QueryProblem { offset: 0, message: format!("did not compile within {secs} s"), costly: true });
    };
    let q = built.map_err(|e| {
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
        QueryProblem::said(e.offset, message)
    })?;
    if !q.capture_names().contains(&"flag") {
        return Err(QueryProblem::said(0, "the query captures no `@flag`".into()));
    }
    if let Some(bad) = q.capture_names().iter().find(|n| !n.starts_with('_') && !CAPTURES.contains(n)) {
        let offset = source.find(&format!("@{bad}")).unwrap_or(0);
        let message = format!("unknown capture `@{bad}`; use {} (or a name starting with `_`)", CAPTURES.join(", "));
        return Err(QueryProblem::said(offset, message));
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

/// Matches a query may keep in progress at once (tree-sitter's own ceiling
/// is 65,536); a query that needs more is too costly to run.
pub const MATCH_LIMIT: u32 = 4096;

/// How long one query may run over one file.
pub const BUDGET: Duration = Duration::from_secs(5);

pub(crate) fn candidates(p: &Parsed<'_>, queries: &[String]) -> Result<Vec<Candidate>, ExtractError> {
    candidates_within(p, queries, MATCH_LIMIT, BUDGET)
}

/// The query as the user may recognise it: its first line, shortened, with
/// nothing that could steer a terminal.
fn label(source: &str) -> String {
    let first = source.trim().lines().next().unwrap_or("");
    let shown = first.chars().filter(|c| !c.is_control());
    let mut out: String = shown.clone().take(60).collect();
    if shown.count() > 60 || source.trim().lines().nth(1).is_some() {
        out.push('…');
    }
    out
}

fn candidates_within(
    p: &Parsed<'_>,
    queries: &[String],
    limit: u32,
    budget: Duration,
) -> Result<Vec<Candidate>, ExtractError> {
    let mut out = Vec::new();
    for (i, source) in queries.iter().enumerate() {
        let Ok(query) = compile(source) else { continue };
        let names = query.capture_names();
        let mut cursor = QueryCursor::new();
        cursor.set_match_limit(limit);
        let start = Instant::now();
        let over = Cell::new(false);
        let mut stop = |_: &tree_sitter::QueryCursorState| {
            if start.elapsed() > budget {
                over.set(true);
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let options = QueryCursorOptions::new().progress_callback(&mut stop);
        let mut matches = cursor.matches_with_options(&query, p.tree.root_node(), p.src.as_bytes(), options);
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
        drop(matches);
        let why = if over.get() {
            format!("ran over its budget of {} s", budget.as_secs_f64())
        } else if cursor.did_exceed_match_limit() {
            format!("kept more than {limit} matches in progress at once")
        } else {
            continue;
        };
        return Err(ExtractError::QueryTooCostly {
            number: i + 1,
            query: label(source),
            path: p.path.to_string(),
            why,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(_ ((_)?)+)`, 16 bytes, spun for ever inside tree-sitter's
    /// `Query::new`; it is refused, with every other shape that repeats a
    /// group that may match nothing, before it is compiled.
    #[test]
    fn a_query_that_never_compiles_is_refused_in_time() {
        for q in ["(_ ((_)?)+)@flag", "(call_expression ((identifier)?)+)@flag"] {
            let text = q.to_string();
            let checked = query_budget::within(std::time::Duration::from_secs(20), move || check(&text));
            let problem = checked.expect("checked within 20 s").expect_err("refused");
            assert!(problem.costly, "{problem:?}");
            assert_eq!(problem.message, "repeats with `+` or `*` a group that may match nothing");
        }
    }

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

    fn parsed_branches(n: usize) -> (crate::extract::cpp::SourceFile, tree_sitter::Tree) {
        let body: String = (0..n).map(|i| format!("  if (a == \"--f{i}\") {{ x = {i}; }}\n")).collect();
        let file =
            crate::extract::cpp::SourceFile::new("core/config.cpp".to_string(), format!("void f() {{\n{body}}}\n"));
        let tree = crate::extract::cpp::parsed::parse(&file).expect("parses");
        (file, tree)
    }

    const QUERY: &str = "(if_statement\n  condition: (_ (_ (string_literal) @flag)))";

    /// Within the limits a query finds what it describes; past the time
    /// budget (here none at all) it is an error naming the query by its
    /// place in knobs.toml and its first line, not a partial result.
    #[test]
    fn a_query_over_its_budget_is_an_error_naming_it() {
        let (file, tree) = parsed_branches(2000);
        let p = Parsed::new(&file, &tree);
        let queries = vec!["(identifier) @_x @flag".to_string(), QUERY.to_string()];
        let found = candidates_within(&p, &queries[1..], MATCH_LIMIT, BUDGET).expect("within the budget");
        assert_eq!(found.len(), 2000);
        let e = candidates_within(&p, &queries, MATCH_LIMIT, Duration::ZERO).expect_err("over the budget");
        assert_eq!(
            e.to_string(),
            "[[extract.query]] number 1 in knobs.toml (`(identifier) @_x @flag`) ran over its budget of 0 s \
             on core/config.cpp; nothing was written"
        );
    }

    /// A query that keeps more matches in progress than the ceiling allows
    /// is refused the same way (a ceiling of 1 here: two `if`s are open at
    /// once while tree-sitter walks the block).
    #[test]
    fn a_query_over_the_match_limit_is_an_error() {
        let (file, tree) = parsed_branches(50);
        let p = Parsed::new(&file, &tree);
        let wide = "(compound_statement (_)* @_a (if_statement) @_b (_)* @_c (expression_statement) @flag)".to_string();
        let e = candidates_within(&p, &[QUERY.to_string(), wide], 1, BUDGET).expect_err("over the limit");
        let text = e.to_string();
        assert!(text.starts_with("[[extract.query]] number 2 in knobs.toml (`(compound_statement"), "{text}");
        assert!(text.contains("kept more than 1 matches in progress at once on core/config.cpp"), "{text}");
        assert_eq!(label("(a\n b)"), "(a…");
        assert_eq!(label("(a \u{1b}[31m b)"), "(a [31m b)");
    }
}
