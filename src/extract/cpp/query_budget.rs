//! What a user's query may cost to *compile*. tree-sitter analyses every
//! pattern against the grammar's parse table when it builds a query, and
//! some shapes never finish: `(_ ((_)?)+)`, 16 bytes, spins for ever,
//! since a group that may match nothing is repeated one or more times.
//! So a query is first read as text — its length, nesting, quantifiers, and
//! any repeated group that may match nothing are bounded — and then built
//! on a thread of its own within a time budget; one over either is refused
//! before a sync reads anything. The thread left spinning ends with the
//! process, which stops at once with the error.

use std::sync::mpsc;
use std::time::Duration;

/// The longest query text compiled.
pub const MAX_LEN: usize = 4096;
/// The deepest nesting of `(…)` and `[…]`.
pub const MAX_NESTING: usize = 24;
/// The most quantifiers (`?`, `*`, `+`) in one query.
pub const MAX_QUANTIFIERS: usize = 32;
/// How long building one query may take.
pub const COMPILE_BUDGET: Duration = Duration::from_secs(2);

/// Why a query's text is too costly to compile, if it is.
pub fn shape_problem(source: &str) -> Option<String> {
    if source.len() > MAX_LEN {
        return Some(format!("is {} bytes long, over the {MAX_LEN} bytes knobs compiles", source.len()));
    }
    let tokens = tokens(source);
    let mut depth = 0usize;
    let mut quantifiers = 0usize;
    for t in &tokens {
        match t {
            Tok::Open(_) => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(format!("nests patterns more than {MAX_NESTING} deep"));
                }
            }
            Tok::Close => depth = depth.saturating_sub(1),
            Tok::Quant(_) => {
                quantifiers += 1;
                if quantifiers > MAX_QUANTIFIERS {
                    return Some(format!("has more than {MAX_QUANTIFIERS} quantifiers (`?`, `*`, `+`)"));
                }
            }
            Tok::Str | Tok::Other => {}
        }
    }
    let mut at = 0;
    while at < tokens.len() {
        let (_, next, empty_repeat) = element(&tokens, at, 0);
        if empty_repeat {
            return Some("repeats with `+` or `*` a group that may match nothing".to_string());
        }
        at = next.max(at + 1);
    }
    None
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Open {
    /// `(name …)`, `(_ …)`: matches one node, whatever its children.
    Node,
    /// `(…)` of patterns: matches all of them in turn.
    Group,
    /// `[…]`: matches one of them.
    Alternation,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok {
    Open(Open),
    Close,
    /// A string: an anonymous node, which consumes one.
    Str,
    Quant(char),
    Other,
}

/// The query's structure: brackets and quantifiers, strings and comments
/// skipped.
fn tokens(source: &str) -> Vec<Tok> {
    let mut out = Vec::new();
    let mut chars = source.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => {
                let mut escaped = false;
                for (_, d) in chars.by_ref() {
                    if escaped {
                        escaped = false;
                    } else if d == '\\' {
                        escaped = true;
                    } else if d == '"' {
                        break;
                    }
                }
                out.push(Tok::Str);
            }
            ';' => {
                for (_, d) in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
            }
            '(' => {
                let rest = source[i + 1..].trim_start();
                let group = rest.starts_with('(') || rest.starts_with('[') || rest.starts_with('"');
                out.push(Tok::Open(if group { Open::Group } else { Open::Node }));
            }
            '[' => out.push(Tok::Open(Open::Alternation)),
            ')' | ']' => out.push(Tok::Close),
            '?' | '*' | '+' => {
                // `#eq?` and `#match?` are predicate names, not quantifiers.
                if matches!(out.last(), Some(Tok::Other)) && c == '?' {
                    continue;
                }
                out.push(Tok::Quant(c));
            }
            c if c.is_whitespace() => {}
            _ => {
                if !matches!(out.last(), Some(Tok::Other)) {
                    out.push(Tok::Other);
                }
            }
        }
    }
    out
}

/// Reads one element from `at`: whether it may match nothing, where the
/// next begins, and whether a group in it that may match nothing is
/// repeated. Nesting is bounded by `shape_problem` before this is called.
fn element(t: &[Tok], at: usize, depth: usize) -> (bool, usize, bool) {
    let (mut empty, mut next, mut bad) = match t.get(at) {
        Some(Tok::Open(open)) if depth <= MAX_NESTING => {
            let mut i = at + 1;
            let (mut all_empty, mut any_empty, mut members, mut bad) = (true, false, 0, false);
            while i < t.len() && t[i] != Tok::Close {
                let (e, n, b) = element(t, i, depth + 1);
                if t[i] != Tok::Other {
                    members += 1;
                    all_empty &= e;
                    any_empty |= e;
                }
                bad |= b;
                i = n.max(i + 1);
            }
            let empty = match open {
                Open::Node => false,
                Open::Group => all_empty,
                Open::Alternation => any_empty || members == 0,
            };
            (empty, i + 1, bad)
        }
        Some(Tok::Str) => (false, at + 1, false),
        // A name, capture, field or anchor consumes nothing by itself.
        _ => (true, at + 1, false),
    };
    let group = matches!(t.get(at), Some(Tok::Open(Open::Group | Open::Alternation)));
    while let Some(Tok::Quant(q)) = t.get(next) {
        if matches!(q, '+' | '*') && empty && group {
            bad = true;
        }
        if matches!(q, '?' | '*') {
            empty = true;
        }
        next += 1;
    }
    (empty, next, bad)
}

/// Builds the query on a thread of its own, within `budget`: `None` when it
/// did not finish in time (the thread is left to end with the process).
pub fn within<T: Send + 'static>(budget: Duration, build: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new().name("query-compile".into()).spawn(move || {
        let _ = tx.send(build());
    });
    match spawned {
        Ok(_) => rx.recv_timeout(budget).ok(),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_over_the_budget_are_named() {
        for ok in [
            "(call_expression function: (identifier) @kind (#match? @kind \"^DEFINE_\") arguments: (argument_list . (identifier) @flag . (_)? @default))",
            "(_ ((comment)? (identifier))+ @flag)",
            "(_ [(identifier) (field_identifier)]* @flag)",
            "(_ (_)? (_)? (_)? (_)? (_)? (_)?) @flag ; a comment with ((_)?)+",
            "(_ \"((_)?)+\" @flag)",
        ] {
            assert_eq!(shape_problem(ok), None, "{ok}");
        }
        let empty = Some("repeats with `+` or `*` a group that may match nothing".to_string());
        for bad in [
            "(_ ((_)?)+)@flag",
            "(_ ((_)*)+)@flag",
            "(call_expression ((identifier)?)+)@flag",
            "(_ ((_)? (_)?)+)@flag",
            "(((((_)?)?)?)?)+@flag",
            "(_ [(_)? (identifier)]+ @flag)",
            "(_ (((_)?))* @flag)",
        ] {
            assert_eq!(shape_problem(bad), empty, "{bad}");
        }
        let deep = format!("{}(_) @flag{}", "(_ ".repeat(30), ")".repeat(30));
        assert_eq!(shape_problem(&deep), Some("nests patterns more than 24 deep".to_string()));
        let many = format!("(_ {} @flag)", "(_)? ".repeat(40));
        assert_eq!(shape_problem(&many), Some("has more than 32 quantifiers (`?`, `*`, `+`)".to_string()));
        let long = format!("(_) @flag ; {}", "x".repeat(5000));
        assert_eq!(shape_problem(&long), Some("is 5012 bytes long, over the 4096 bytes knobs compiles".to_string()));
    }

    #[test]
    fn a_build_over_its_budget_is_given_up() {
        assert_eq!(within(Duration::from_secs(5), || 7), Some(7));
        let spin = within(Duration::from_millis(50), || std::thread::sleep(Duration::from_secs(2)));
        assert_eq!(spin, None);
    }
}
