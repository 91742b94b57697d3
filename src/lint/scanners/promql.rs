//! PromQL: a query read with a PromQL parser (promql-parser), each metric
//! selector reported with how the query uses it — the function it is handed
//! to, whether `histogram_quantile` reads it, the labels it matches on — so
//! that the rules can judge it against the metric's type and labels. The
//! parser keeps no places, so each name is found in the query's text in
//! order.

use promql_parser::label::MatchOp;
use promql_parser::parser::{self, Expr};

use super::{Scan, ScanCtx};
use crate::lint::refs::{Ref, Usage};
use crate::lint::span::Span;

/// Deepest nesting read; the parser and its tree recurse per level.
const MAX_DEPTH: usize = 128;

/// Most operators read in one query. The parser checks each operator's
/// operands all the way down as it builds the tree, so its time grows with
/// the square of a chain's length (`a + 1 + 1 …`: 20,000 terms took 2.6 s);
/// past this bound a query is refused with a note, which keeps the cost per
/// byte of a file bounded. Real queries hold tens of operators.
const MAX_OPERATORS: usize = 500;

/// Most regex matchers (`=~`, `!~`) read in one file. Each is compiled
/// (by knobs's check, then by the parser): one just under the size bound
/// costs about 10 ms, so a file of thousands of them stalled the run; past
/// this budget each later query holding one is passed over, with one note
/// for the file. Real runbooks hold a handful.
pub const MAX_REGEX_MATCHERS: usize = 40;

/// Functions over a range vector that a histogram quantile reads through.
const RANGE_FUNCTIONS: &[&str] =
    &["rate", "irate", "increase", "delta", "idelta", "deriv", "sum_over_time", "avg_over_time", "max_over_time"];

/// Why a query could not be read, for a note.
pub type QueryError = String;

/// Reads one query; `at` is where its text starts in the file (its places
/// are searched in `file[at..at + query.len()]` when the file holds it as
/// written, else in `raw`, the file's text of the value holding the query).
pub fn scan(
    query: &str,
    raw: std::ops::Range<usize>,
    file: &str,
    span: &dyn Fn(usize, usize) -> Span,
    ctx: &ScanCtx<'_>,
    out: &mut Scan,
) -> Result<(), QueryError> {
    // A text read before passed the bounds below (they depend on the text
    // alone) and was parsed: only the file's regex budget is asked again.
    let known = cached(query);
    if known.is_none() {
        let depth = query.bytes().fold((0usize, 0usize), |(d, max), b| match b {
            b'(' | b'{' | b'[' => (d + 1, max.max(d + 1)),
            b')' | b'}' | b']' => (d.saturating_sub(1), max),
            _ => (d, max),
        });
        if depth.1 > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH} levels"));
        }
        if operators(query) > MAX_OPERATORS {
            return Err(format!("more than {MAX_OPERATORS} operators"));
        }
    }
    // The parser compiles each regex matcher with the regex crate's own,
    // far larger bound: one over knobs's is refused before it gets there.
    // A matcher met again (a block read whole, then line by line) is not
    // compiled again: only the file's distinct ones count.
    let matchers = regex_matchers(query);
    let mut new: Vec<&String> = matchers.iter().filter(|m| !out.regex_matchers.contains(m)).collect();
    new.sort();
    new.dedup();
    if out.regex_matchers.len() + new.len() > MAX_REGEX_MATCHERS {
        // Passed over; said once, at the first query over the budget.
        if !out.regex_budget_spent {
            out.regex_budget_spent = true;
            out.notes.push(format!(
                "line {}: this and later PromQL queries with a regex matcher are not read: the file holds more than {MAX_REGEX_MATCHERS}, the most knobs compiles in one file",
                span(raw.start, raw.start).line
            ));
        }
        return Ok(());
    }
    out.regex_matchers.extend(new.into_iter().cloned());
    for re in matchers.iter().filter(|_| known.is_none()) {
        if let Err(why) = crate::catalog::query::pattern_regex(re) {
            if why.starts_with("compiles to more than") {
                return Err(format!("the regex `{re}` {why}"));
            }
        }
    }
    let found = match known {
        Some(read) => read?,
        None => read_cached(query)?,
    };
    let raw_text = file.get(raw.clone()).unwrap_or("");
    let mut cursor = 0;
    for sel in found {
        if !ctx.metrics.is_selector_name(&sel.name) {
            continue;
        }
        // The name's place: next in the raw text, else its first occurrence.
        let find = |t: &str| find_str(t, &sel.name);
        let rel = find(&raw_text[cursor.min(raw_text.len())..]).map(|i| i + cursor).or_else(|| find(raw_text));
        let start = rel.map_or(raw.start, |r| raw.start + r);
        let end = rel.map_or(raw.start, |r| raw.start + r + sel.name.len());
        if let Some(r) = rel {
            cursor = r + sel.name.len();
        }
        // Each label matcher's place: after the name, in its braces.
        let labels = sel
            .labels
            .iter()
            .map(|l| {
                let from = end - raw.start;
                let rel = raw_text.get(from..).and_then(|t| find_label(t, l)).map(|i| i + from);
                let s = rel.map_or(start, |r| raw.start + r);
                (l.clone(), span(s, s + l.len()))
            })
            .collect();
        // A grouping label's place: in a `by (…)`/`without (…)` list.
        let mut labels: Vec<(String, Span)> = labels;
        let listed = if sel.grouping.is_empty() { Default::default() } else { grouping_places(raw_text) };
        for g in &sel.grouping {
            let s = listed.get(g.as_str()).map_or(start, |r| raw.start + r);
            labels.push((g.clone(), span(s, s + g.len())));
        }
        let usage = Usage {
            func: sel.func,
            quantile: sel.quantile,
            labels,
            alternatives: sel.alternatives,
            recordings_seen: false,
        };
        out.refs.push(Ref::Metric {
            name: sel.name,
            span: span(start, end),
            pattern: sel.pattern,
            usage: Some(Box::new(usage)),
        });
    }
    Ok(())
}

/// Where `needle` first stands in `text`, as `str::find` says, found from
/// the places of its first byte (a short name in a short query: cheaper
/// than building a searcher for each).
fn find_str(text: &str, needle: &str) -> Option<usize> {
    let (t, n) = (text.as_bytes(), needle.as_bytes());
    let Some(&first) = n.first() else { return Some(0) };
    memchr::memchr_iter(first, t).find(|&i| t[i..].starts_with(n))
}

/// How many operators `query` may hold, counted from above: every arithmetic
/// or comparison sign and every `and`, `or` and `unless` word (label
/// matchers and strings may add a few; the bound is far above real queries).
fn operators(query: &str) -> usize {
    let signs =
        query.bytes().filter(|b| matches!(b, b'+' | b'-' | b'*' | b'/' | b'%' | b'^' | b'<' | b'>' | b'=')).count();
    let words = query
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
        .filter(|w| ["and", "or", "unless"].iter().any(|k| w.eq_ignore_ascii_case(k)))
        .count();
    signs + words
}

/// Where a label name stands as a matcher (`name=`, `name!=`, `name=~`) in `text`.
fn find_label(text: &str, label: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find(label) {
        let at = from + i;
        let before = text[..at].chars().next_back();
        let after = text[at + label.len()..].trim_start();
        if before.is_none_or(|c| c == '{' || c == ',' || c.is_whitespace())
            && (after.starts_with('=') || after.starts_with("!="))
        {
            return Some(at);
        }
        from = at + label.len();
    }
    None
}

/// Where each label first stands in a `by (…)` or `without (…)` list of
/// `text`, found in one pass (a search per label was quadratic in a list of
/// 100,000).
fn grouping_places(text: &str) -> rustc_hash::FxHashMap<&str, usize> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut places = rustc_hash::FxHashMap::default();
    let mut from = 0;
    while let Some(i) = text[from..].find('(') {
        let open = from + i;
        from = open + 1;
        let head = text[..open].trim_end();
        if !(head.ends_with("by") || head.ends_with("without")) {
            continue;
        }
        let close = text[open..].find(')').map_or(text.len(), |c| open + c);
        let list = &text[open + 1..close];
        let mut start = None;
        for (i, c) in list.char_indices().chain(std::iter::once((list.len(), ' '))) {
            if word(c) {
                start.get_or_insert(i);
            } else if let Some(s) = start.take() {
                places.entry(&list[s..i]).or_insert(open + 1 + s);
            }
        }
        from = close.max(from);
    }
    places
}

/// The strings of `query`'s regex matchers (`=~"…"`, `!~'…'`), unescaped
/// as PromQL reads them (a backslash keeps the next character, `\\\\` is
/// one backslash).
fn regex_matchers(query: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(i) = query[from..].find('~') {
        let at = from + i;
        from = at + 1;
        if !(query[..at].ends_with('=') || query[..at].ends_with('!')) {
            continue;
        }
        let rest = query[from..].trim_start();
        let Some(quote) = rest.chars().next().filter(|c| matches!(c, '"' | '\'' | '`')) else { continue };
        let mut text = String::new();
        let mut chars = rest[1..].chars();
        while let Some(c) = chars.next() {
            match c {
                c if c == quote => break,
                '\\' if quote != '`' => text.extend(chars.next()),
                c => text.push(c),
            }
        }
        found.push(text);
    }
    found
}

/// Distinct queries remembered per thread before the memory is cleared.
const CACHE_ENTRIES: usize = 4096;

/// Longest query text remembered.
const CACHED_LEN: usize = 4096;

thread_local! {
    /// What each query text read as. Runbooks repeat the same panels' queries
    /// from file to file, and one parse costs about 20 µs (promql-parser's LR
    /// parser: 10,500 blocks were a third of a 6,000-file vault's lint time).
    static READ: std::cell::RefCell<rustc_hash::FxHashMap<String, Result<Vec<Selector>, QueryError>>> =
        std::cell::RefCell::new(rustc_hash::FxHashMap::default());
}

/// True when `query` parses as PromQL (read once per thread, as `scan` reads it).
pub fn parses(query: &str) -> bool {
    query.len() <= CACHED_LEN && read_cached(query).is_ok()
}

/// What `query` read as, when this thread has read that text before.
fn cached(query: &str) -> Option<Result<Vec<Selector>, QueryError>> {
    READ.with(|c| c.borrow().get(query).cloned())
}

/// The selectors of `query`, parsed once per thread for each distinct text.
fn read_cached(query: &str) -> Result<Vec<Selector>, QueryError> {
    if let Some(known) = cached(query) {
        return known;
    }
    // The parser is another crate's: a panic in it is a refusal here.
    let read = std::panic::catch_unwind(|| parser::parse(query))
        .map_err(|_| "the PromQL parser failed on this query".to_string())
        .and_then(|parsed| parsed.map_err(|e| e.to_string()))
        .map(|expr| {
            let mut found = Vec::new();
            selectors(&expr, &mut found);
            found
        });
    // Only short texts are kept: the memory stays bounded (4096 × 4 KiB).
    if query.len() > CACHED_LEN {
        return read;
    }
    READ.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_ENTRIES {
            c.clear();
        }
        c.insert(query.to_string(), read.clone());
    });
    read
}

/// A selector and how the query uses it.
#[derive(Debug, Clone)]
struct Selector {
    name: String,
    pattern: bool,
    func: Option<String>,
    quantile: bool,
    labels: Vec<String>,
    /// Labels an aggregation above it groups by (`by`/`without`).
    grouping: Vec<String>,
    /// The names on the other side of each `or` above it.
    alternatives: Vec<String>,
}

/// Every selector of `expr`, in the order they are written, walked with a
/// stack of its own. `func` is the call a node is a direct argument of;
/// `quantile` whether a `histogram_quantile` reads through to it.
fn selectors(expr: &Expr, out: &mut Vec<Selector>) {
    type Frame<'e> = (&'e Expr, Option<String>, bool, Vec<String>, Vec<String>);
    let mut stack: Vec<Frame<'_>> = vec![(expr, None, false, Vec::new(), Vec::new())];
    while let Some((e, func, quantile, group, alts)) = stack.pop() {
        match e {
            Expr::VectorSelector(vs) => out.push(selector(vs, func, quantile, group, alts)),
            Expr::MatrixSelector(ms) => out.push(selector(&ms.vs, func, quantile, group, alts)),
            Expr::Call(call) => {
                let name = call.func.name.to_string();
                let reads_quantile = name == "histogram_quantile";
                let through = quantile && RANGE_FUNCTIONS.contains(&name.as_str());
                // These make labels of their own: grouping by them says nothing of the series.
                let group = if LABEL_MAKERS.contains(&name.as_str()) { Vec::new() } else { group };
                for (i, arg) in call.args.args.iter().enumerate().rev() {
                    // histogram_quantile(φ, v): v is what it reads.
                    let q = (reads_quantile && i == 1) || through;
                    stack.push((arg, Some(name.clone()), q, group.clone(), alts.clone()));
                }
            }
            Expr::Aggregate(a) => {
                // `sum by (reason) (…)`: the series under it must carry `reason`.
                // (A set beside the list: a `by` of 100,000 labels stays linear.)
                let mut inner = group;
                let mut seen: std::collections::HashSet<String> = inner.iter().cloned().collect();
                for l in a.modifier.iter().flat_map(|m| m.labels().labels.iter()) {
                    if seen.insert(l.clone()) {
                        inner.push(l.clone());
                    }
                }
                // sum by (le) (rate(x_bucket[5m])) still feeds a quantile.
                stack.push((&a.expr, None, quantile, inner, alts.clone()));
                if let Some(p) = &a.param {
                    stack.push((p, None, false, Vec::new(), alts));
                }
            }
            // Either side may bring labels the other lacks (`group_left`): no grouping passes.
            // Each side of an `or` knows the names of the other.
            Expr::Binary(b) => {
                let (mut left, mut right) = (alts.clone(), alts);
                if b.op.to_string() == "or" {
                    left.extend(names(&b.rhs));
                    right.extend(names(&b.lhs));
                }
                stack.push((&b.rhs, None, false, Vec::new(), right));
                stack.push((&b.lhs, None, false, Vec::new(), left));
            }
            Expr::Paren(p) => stack.push((&p.expr, func, quantile, group, alts)),
            Expr::Unary(u) => stack.push((&u.expr, None, false, group, alts)),
            Expr::Subquery(s) => stack.push((&s.expr, func, quantile, group, alts)),
            Expr::NumberLiteral(_) | Expr::StringLiteral(_) | Expr::Extension(_) => {}
        }
    }
}

/// The metric names `expr` selects (by name, not by a `__name__` matcher).
fn names(expr: &Expr) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![expr];
    while let Some(e) = stack.pop() {
        match e {
            Expr::VectorSelector(vs) => found.extend(vs.name.clone()),
            Expr::MatrixSelector(ms) => found.extend(ms.vs.name.clone()),
            Expr::Call(call) => stack.extend(call.args.args.iter().map(|a| &**a)),
            Expr::Aggregate(a) => stack.extend(std::iter::once(&*a.expr).chain(a.param.as_deref())),
            Expr::Binary(b) => stack.extend([&*b.lhs, &*b.rhs]),
            Expr::Paren(p) => stack.push(&p.expr),
            Expr::Unary(u) => stack.push(&u.expr),
            Expr::Subquery(s) => stack.push(&s.expr),
            Expr::NumberLiteral(_) | Expr::StringLiteral(_) | Expr::Extension(_) => {}
        }
    }
    found
}

/// Functions that add or rewrite labels.
const LABEL_MAKERS: &[&str] = &["label_replace", "label_join"];

fn selector(
    vs: &parser::VectorSelector,
    func: Option<String>,
    quantile: bool,
    grouping: Vec<String>,
    alternatives: Vec<String>,
) -> Selector {
    let mut name = vs.name.clone().unwrap_or_default();
    let mut pattern = false;
    let mut labels = Vec::new();
    for m in &vs.matchers.matchers {
        if m.name == "__name__" {
            match &m.op {
                MatchOp::Equal => name = m.value.clone(),
                MatchOp::Re(_) => {
                    name = m.value.clone();
                    pattern = true;
                }
                _ => {}
            }
            continue;
        }
        if !labels.contains(&m.name) {
            labels.push(m.name.clone());
        }
    }
    let grouping = grouping.into_iter().filter(|g| !labels.contains(g)).collect();
    Selector { name, pattern, func, quantile, labels, grouping, alternatives }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_str_finds_what_str_find_finds() {
        let texts = ["", "a", "rate(vllm:x[5m]) / vllm:x_total", "vllm:xvllm:x", "éévllm:x", "vvvllm:"];
        let needles = ["", "v", "vllm:x", "vllm:x_total", "é", "vllm:", "zz", "vllm:xvllm:x!"];
        for t in texts {
            for n in needles {
                assert_eq!(find_str(t, n), t.find(n), "{n:?} in {t:?}");
            }
        }
    }

    /// name, function, under a quantile, labels, column.
    type Seen = (String, Option<String>, bool, Vec<String>, usize);

    fn read(q: &str) -> Vec<Seen> {
        let mut out = Scan::default();
        crate::lint::scanners::test_ctx(|ctx| {
            scan(q, 0..q.len(), q, &|s, _| Span { col: s, ..Span::default() }, ctx, &mut out)
        })
        .expect("parses");
        out.refs
            .into_iter()
            .filter_map(|r| match r {
                Ref::Metric { name, usage: Some(u), span, .. } => {
                    Some((name, u.func, u.quantile, u.labels.into_iter().map(|l| l.0).collect(), span.col))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn selectors_with_their_use_and_place() {
        let q = "histogram_quantile(0.9, sum by (le) (rate(vllm:time_to_first_token_seconds_bucket{job=\"a\"}[5m]))) / rate(radiance:engine_steps_total[1m]) + up";
        let found = read(q);
        assert_eq!(
            found,
            [
                // `job` from its matcher, `le` from the `by (le)` above it.
                (
                    "vllm:time_to_first_token_seconds_bucket".into(),
                    Some("rate".into()),
                    true,
                    vec!["job".into(), "le".into()],
                    42,
                ),
                (
                    "radiance:engine_steps_total".into(),
                    Some("rate".into()),
                    false,
                    vec![],
                    q.find("radiance:").unwrap_or(0)
                ),
            ]
        );
        let gauge = read("increase(vllm:num_requests_running[5m]) + vllm:num_requests_running");
        assert_eq!(gauge[0].1.as_deref(), Some("increase"));
        assert_eq!((gauge[1].1.as_deref(), gauge[1].4), (None, 42), "the second occurrence is found in order");
    }

    #[test]
    fn a_query_read_again_reads_the_same_and_long_ones_are_not_kept() {
        let q = "sum by (job) (rate(radiance:engine_steps_total{job=\"a\"}[5m]))";
        type Read = Result<Vec<(String, Option<String>, Vec<String>)>, QueryError>;
        let names = |r: &Result<Vec<Selector>, QueryError>| -> Read {
            r.clone().map(|v| v.iter().map(|s| (s.name.clone(), s.func.clone(), s.labels.clone())).collect::<Vec<_>>())
        };
        let first = read_cached(q);
        assert_eq!(
            names(&first),
            Ok(vec![("radiance:engine_steps_total".to_string(), Some("rate".to_string()), vec!["job".to_string()])])
        );
        assert_eq!(names(&read_cached(q)), names(&first));
        assert!(READ.with(|c| c.borrow().contains_key(q)));
        // A refusal is remembered as one.
        assert!(read_cached("rate(x[5m]").is_err() && read_cached("rate(x[5m]").is_err());
        let long = format!("up{{a=\"{}\"}}", "x".repeat(CACHED_LEN));
        assert!(read_cached(&long).is_ok());
        assert!(!READ.with(|c| c.borrow().contains_key(&long)), "a long text is not kept");
    }

    #[test]
    fn unreadable_queries_are_refused_not_panics() {
        crate::lint::scanners::test_ctx(|ctx| {
            let chain = format!("up{}", " + 1".repeat(20_000));
            let ors = format!("up{}", " or up".repeat(2_000));
            for q in ["rate(x[5m]", "sum(", &format!("{}1{}", "(".repeat(500), ")".repeat(500)), "", "{}", &chain, &ors]
            {
                let mut out = Scan::default();
                assert!(scan(q, 0..q.len(), q, &|_, _| Span::default(), ctx, &mut out).is_err(), "{q:.40}");
            }
            let mut out = Scan::default();
            let e = scan(&chain, 0..chain.len(), &chain, &|_, _| Span::default(), ctx, &mut out).expect_err("long");
            assert_eq!(e, "more than 500 operators");
            // Below the bound: read.
            let q = format!("radiance:engine_steps_total{}", " + 1".repeat(450));
            assert!(scan(&q, 0..q.len(), &q, &|_, _| Span::default(), ctx, &mut out).is_ok());
            assert_eq!(operators("a and b OR c unless d{x=\"y\"} - -1"), 6);
        });
    }

    /// A file's regex matchers are compiled up to the budget: a query that
    /// would pass it is not read, one note says so for the file, and a
    /// matcher met again costs nothing more.
    #[test]
    fn regex_matchers_past_the_file_budget_are_passed_over() {
        crate::lint::scanners::test_ctx(|ctx| {
            let mut out = Scan::default();
            let mut read = 0;
            for i in 0..MAX_REGEX_MATCHERS + 60 {
                let q = format!("rate({{__name__=~\"radiance:x{i}\\\\w{{5}}\"}}[5m])");
                let before = out.regex_matchers.len();
                assert!(scan(&q, 0..q.len(), &q, &|_, _| Span::default(), ctx, &mut out).is_ok(), "{q}");
                read += usize::from(out.regex_matchers.len() > before);
                // Read again (a block, then its lines): no more counted.
                let again = out.regex_matchers.len();
                let _ = scan(&q, 0..q.len(), &q, &|_, _| Span::default(), ctx, &mut out);
                assert_eq!(out.regex_matchers.len(), again);
            }
            assert_eq!(read, MAX_REGEX_MATCHERS);
            assert_eq!(out.notes.len(), 1, "{:?}", out.notes);
            assert!(
                out.notes[0].contains("this and later PromQL queries with a regex matcher are not read"),
                "{:?}",
                out.notes
            );
            // A query with no regex matcher is still read.
            let q = "rate(radiance:engine_steps_total[5m])";
            let refs = out.refs.len();
            assert!(scan(q, 0..q.len(), q, &|_, _| Span::default(), ctx, &mut out).is_ok());
            assert_eq!(out.refs.len(), refs + 1);
        });
    }

    #[test]
    fn grouping_places_are_first_in_a_list() {
        let q = "sum by (job, é_x) (rate(x{job=\"a\"}[5m])) / ignoring (le) max without (le, job) (y)";
        let p = grouping_places(q);
        assert_eq!(p.get("job"), Some(&8));
        assert_eq!(p.get("_x"), Some(&15), "a word starts after a non-ASCII letter");
        assert_eq!(p.get("le"), Some(&q.find("(le,").map_or(0, |i| i + 1)));
        assert_eq!(p.get("a"), None, "a matcher's value is no grouping label");
    }

    #[test]
    fn regex_matchers_are_read_unescaped() {
        let q = r#"rate({__name__=~"radiance:\\w{5}", a!~'x\'y', b="c", d=~`e\f`}[5m])"#;
        assert_eq!(regex_matchers(q), vec![r"radiance:\w{5}", "x'y", r"e\f"]);
    }
}
