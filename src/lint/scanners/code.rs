//! Queries in code: the string literals of Python, Go, Rust, Java,
//! JavaScript/TypeScript, Terraform and HTML (Prometheus console templates)
//! that are a query or a metric name being read. A literal is read when it
//! is the value of a query parameter or key (`query=`, `expr:`,
//! `"query": `, `.Query(ctx, …)`), or when the whole literal parses as
//! PromQL and names one of the engine's metrics (`'vllm:num_requests_running'`
//! handed to a scrape parser, `"sum(rate(vllm:…[5m]))"`). Comments are not
//! read, nor is a literal that a registration call names: a file that
//! registers a metric under the engine's prefix (`Gauge("vllm:x", …)`,
//! `GaugeOpts{Name: "vllm:x"}`, `register_gauge!("vllm:x", …)`) owns that
//! name, and its own names are no defect anywhere in it. Placeholders of
//! the language's formatting (`{model}` in an f-string, `%s`) read as
//! Grafana variables do.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

use super::{promql, queries, Scan, ScanCtx};
use crate::kinds::CodeLang as Lang;
use crate::lint::refs::Ref;
use crate::lint::span::Span;

/// One string literal: its text (escapes read unless raw), its place inside
/// the quotes, and the text of its line before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lit {
    pub value: String,
    pub at: Range<usize>,
    pub before: Range<usize>,
    /// A Python f-string: `{…}` are placeholders, `{{` a brace.
    pub formatted: bool,
}

/// A literal handed to a query parameter or key.
static QUERY_PARAM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i)(?:^|[^A-Za-z0-9_])(?:query|expr|expression|promql|metrics_?query|series_?query)[A-Za-z0-9_]*["'`]?\s*(?:=|:=|:|=>|\([^()"'`]*)\s*$"#,
    )
    .expect("a valid regex")
});

/// A literal a registration call names; `type` is the type the call
/// names, when it names one.
static REGISTRATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?:(?P<type>Counter|Gauge|Histogram|Summary|Info|Enum)(?:Vec|Func|Opts)?\s*\(\s*(?:name\s*=\s*)?|\bName\s*:\s*|register_\w+!?\s*\(\s*|\bcreate_?(?:counter|gauge|histogram|up_?down_?counter)\s*\(\s*|\.(?:name|builder)\s*\(\s*)$"#,
    )
    .expect("a valid regex")
});

/// The series names the code registers under the engine's prefixes (with
/// the series a histogram or summary shows, and the `_total` Python's
/// client adds to a counter): names that are the code's own, known to the
/// monitoring files around it.
pub fn registered(text: &str, lang: Lang, metrics: &super::metrics::Matcher) -> Vec<String> {
    if !metrics.mentions(text) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for l in literals(text, lang) {
        let Some(c) = REGISTRATION.captures(&text[l.before.clone()]) else { continue };
        if !metrics.is_metric_name(&l.value) {
            continue;
        }
        let name = l.value;
        match c.name("type").map(|t| t.as_str()) {
            Some("Histogram") => out.extend(["_bucket", "_sum", "_count"].iter().map(|s| format!("{name}{s}"))),
            Some("Summary") => out.extend(["_sum", "_count"].iter().map(|s| format!("{name}{s}"))),
            // Python's client exports a counter `x` as `x_total` only.
            Some("Counter") if lang == Lang::Python => {
                out.push(if name.ends_with("_total") { name } else { format!("{name}_total") })
            }
            _ => out.push(name),
        }
    }
    out
}

/// A formatting placeholder: `%s`, `%d`, `%v`, `%q`.
static PRINTF: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"%[sdvqf]").expect("a valid regex"));

/// Reads the queries of a source file in `lang`.
pub fn scan(text: &str, lang: Lang, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan) {
    if !ctx.metrics.mentions(text) {
        return;
    }
    let lits = literals(text, lang);
    // Names the file registers: its own.
    let owned: Vec<&str> = lits
        .iter()
        .filter(|l| REGISTRATION.is_match(&text[l.before.clone()]) && ctx.metrics.is_metric_name(&l.value))
        .map(|l| l.value.as_str())
        .collect();
    let first = out.refs.len();
    for l in &lits {
        if !ctx.metrics.mentions(&l.value) || owned.contains(&l.value.as_str()) {
            continue;
        }
        if REGISTRATION.is_match(&text[l.before.clone()]) {
            continue;
        }
        // A bare name (a constant, a key of a scrape's samples) names a
        // family as prose does: a histogram's name is no wrong series there.
        let bare = l.value.trim();
        if ctx.metrics.is_metric_name(bare) && bare.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':')
        {
            let base = l.at.start;
            ctx.metrics.scan(&text[l.at.clone()], &|s, e| span(base + s, base + e), &mut out.refs);
            continue;
        }
        let query = placeholders(&l.value, l.formatted);
        let param = QUERY_PARAM.is_match(&text[l.before.clone()]);
        if param || promql::parses(query.trim()) {
            queries::read(&query, l.at.clone(), text, span, ctx, out);
        }
    }
    // A series the file registers is known here, whatever suffix it is read with.
    let own = |name: &str| {
        owned.iter().any(|o| {
            name.strip_prefix(o).is_some_and(|rest| {
                matches!(rest, "" | "_total" | "_bucket" | "_sum" | "_count" | "_created" | "_info")
            })
        })
    };
    let mut i = first;
    while i < out.refs.len() {
        if matches!(&out.refs[i], Ref::Metric { name, .. } if own(name)) {
            out.refs.remove(i);
        } else {
            i += 1;
        }
    }
}

/// A literal's text with the language's placeholders read as Grafana
/// variables (`$v`), so the query around them parses.
fn placeholders(value: &str, formatted: bool) -> String {
    let mut v = value.to_string();
    if formatted {
        let mut out = String::with_capacity(v.len());
        let mut chars = v.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '{' if chars.peek() == Some(&'{') => {
                    chars.next();
                    out.push('{');
                }
                '}' if chars.peek() == Some(&'}') => {
                    chars.next();
                    out.push('}');
                }
                '{' => {
                    for d in chars.by_ref() {
                        if d == '}' {
                            break;
                        }
                    }
                    out.push_str("$v");
                }
                _ => out.push(c),
            }
        }
        v = out;
    }
    if v.contains('%') {
        v = PRINTF.replace_all(&v, "$$v").into_owned();
    }
    v
}

/// The string literals of `text` outside comments, in order.
pub fn literals(text: &str, lang: Lang) -> Vec<Lit> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line_start = 0;
    let hash_comments = matches!(lang, Lang::Python | Lang::Terraform);
    let slash_comments = !matches!(lang, Lang::Python | Lang::Html);
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            line_start = i + 1;
            i += 1;
            continue;
        }
        if hash_comments && c == b'#' {
            i = end_of_line(b, i);
            continue;
        }
        if slash_comments && c == b'/' && b.get(i + 1) == Some(&b'/') {
            i = end_of_line(b, i);
            continue;
        }
        if slash_comments && c == b'/' && b.get(i + 1) == Some(&b'*') {
            i = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            continue;
        }
        if lang == Lang::Terraform && c == b'<' && text[i..].starts_with("<<") {
            if let Some((lit, next)) = heredoc(text, i) {
                out.push(Lit { before: line_start..i, ..lit });
                i = next;
                continue;
            }
        }
        let quote = match c {
            b'"' => Some(b'"'),
            b'\'' if matches!(lang, Lang::Python | Lang::CLike | Lang::Html) => Some(b'\''),
            b'`' if matches!(lang, Lang::Go | Lang::CLike) => Some(b'`'),
            _ => None,
        };
        let Some(q) = quote else {
            i += 1;
            continue;
        };
        // Prefixes written before the quote: Python's `r`/`f`/`b`, Rust's `r#`.
        let prefix = prefix_of(b, line_start, i, lang);
        let raw = prefix.raw || q == b'`';
        let formatted = prefix.formatted;
        let hashes = prefix.hashes;
        let triple = matches!(lang, Lang::Python | Lang::CLike) && b.get(i..i + 3) == Some(&[q, q, q][..]);
        let open = if triple { 3 } else { 1 };
        let start = i + open;
        let mut j = start;
        let mut end = None;
        while j < b.len() {
            let d = b[j];
            if d == b'\\' && !raw {
                j += 2;
                continue;
            }
            if d == b'\n' && !triple && q != b'`' && lang != Lang::Rust {
                break;
            }
            if d == q {
                let closes = if triple {
                    b.get(j..j + 3) == Some(&[q, q, q][..])
                } else {
                    b.get(j + 1..j + 1 + hashes).is_some_and(|h| h.iter().all(|x| *x == b'#'))
                };
                if closes {
                    end = Some(j);
                    break;
                }
            }
            j += 1;
        }
        let Some(e) = end else {
            // Not closed on its line: not a string (an apostrophe in text).
            i += 1;
            continue;
        };
        let written = &text[start..e];
        let value = if raw { written.to_string() } else { unescape(written) };
        // A literal first on its line (a call's arguments one a line) is
        // read with the line before it: `Gauge(` then `"vllm:x",`.
        let mut from = line_start;
        if line_start > 0 && text[line_start..prefix.start].trim().is_empty() {
            from = text[..line_start - 1].rfind('\n').map_or(0, |n| n + 1);
        }
        out.push(Lit { value, at: start..e, before: from..prefix.start, formatted });
        i = e + if triple { 3 } else { 1 + hashes };
    }
    out
}

struct Prefix {
    start: usize,
    raw: bool,
    formatted: bool,
    hashes: usize,
}

/// What is written just before a quote at `at`.
fn prefix_of(b: &[u8], line_start: usize, at: usize, lang: Lang) -> Prefix {
    let mut p = Prefix { start: at, raw: false, formatted: false, hashes: 0 };
    match lang {
        Lang::Python => {
            let mut k = at;
            while k > line_start && k + 2 > at && b[k - 1].is_ascii_alphabetic() {
                k -= 1;
            }
            let word = &b[k..at];
            let boundary = k == line_start || !(b[k - 1].is_ascii_alphanumeric() || b[k - 1] == b'_');
            if boundary && !word.is_empty() && word.iter().all(|c| b"rRbBfFuU".contains(c)) {
                p.start = k;
                p.raw = word.iter().any(|c| *c == b'r' || *c == b'R');
                p.formatted = word.iter().any(|c| *c == b'f' || *c == b'F');
            }
        }
        Lang::Rust => {
            let mut k = at;
            while k > line_start && b[k - 1] == b'#' {
                k -= 1;
            }
            if k > line_start && b[k - 1] == b'r' {
                p.hashes = at - k;
                p.start = k - 1;
                p.raw = true;
            }
        }
        _ => {}
    }
    p
}

/// A Terraform heredoc at `at` (`<<EOT` or `<<-EOT`): its body and where
/// reading goes on.
fn heredoc(text: &str, at: usize) -> Option<(Lit, usize)> {
    let rest = &text[at + 2..];
    let rest = rest.strip_prefix('-').unwrap_or(rest);
    let marker: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    if marker.is_empty() {
        return None;
    }
    let body_start = text[at..].find('\n').map(|n| at + n + 1)?;
    let mut pos = body_start;
    for line in text[body_start..].split_inclusive('\n') {
        if line.trim() == marker {
            let lit =
                Lit { value: text[body_start..pos].to_string(), at: body_start..pos, before: at..at, formatted: false };
            return Some((lit, pos + line.len()));
        }
        pos += line.len();
    }
    None
}

fn end_of_line(b: &[u8], from: usize) -> usize {
    b[from..].iter().position(|c| *c == b'\n').map_or(b.len(), |n| from + n)
}

/// The common escapes read: `\"`, `\'`, `\\`, `\n`, `\t`.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(o) => out.push(o),
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(text: &str, lang: Lang) -> Vec<String> {
        literals(text, lang).into_iter().map(|l| l.value).collect()
    }

    #[test]
    fn literals_are_read_outside_comments_with_their_escapes() {
        let py = "# \"not\" read\nq = f'rate({m}[5m])'  # 'no'\nr = r\"a\\\"\"\ns = \"\"\"x\ny\"\"\"\n";
        assert_eq!(values(py, Lang::Python), ["rate({m}[5m])", "a\\", "x\ny"]);
        let go = "// \"no\"\nq := `sum(x)` /* \"no\" */\nn := \"a\\\"b\"\nc := 'x'\n";
        assert_eq!(values(go, Lang::Go), ["sum(x)", "a\"b"]);
        let rs = "let q = r#\"up{a=\"b\"}\"#; // \"no\"\nfn f<'a>(x: &'a str) {}\n";
        assert_eq!(values(rs, Lang::Rust), ["up{a=\"b\"}"]);
        let tf = "query = <<EOT\nsum(x)\nEOT\n# \"no\"\nname = \"n\"\n";
        assert_eq!(values(tf, Lang::Terraform), ["sum(x)\n", "n"]);
        let ts = "const a = `t ${x}`; // 'no'\nconst b = 'it''s';\n";
        assert_eq!(values(ts, Lang::CLike), ["t ${x}", "it", "s"]);
    }

    #[test]
    fn a_literal_s_line_before_it_is_kept() {
        let text = "a = 1\nx = Gauge(r\"radiance:q\", \"h\")\n";
        let lits = literals(text, Lang::Python);
        assert_eq!(&text[lits[0].before.clone()], "x = Gauge(");
        assert_eq!(&text[lits[1].before.clone()], "x = Gauge(r\"radiance:q\", ");
        let text = "x = Gauge(\n    \"radiance:q\",\n    \"h\")\n";
        let lits = literals(text, Lang::Python);
        assert!(REGISTRATION.is_match(&text[lits[0].before.clone()]), "{:?}", &text[lits[0].before.clone()]);
        assert!(!REGISTRATION.is_match(&text[lits[1].before.clone()]));
    }

    #[test]
    fn placeholders_read_as_variables() {
        assert_eq!(placeholders("x{{a=\"{m}\"}}[{w}]", true), "x{a=\"$v\"}[$v]");
        assert_eq!(placeholders("rate(x[%s])", false), "rate(x[$v])");
    }

    #[test]
    fn registrations_and_query_parameters_are_told_by_what_precedes_them() {
        for before in ["Gauge(", "prometheus.Counter(name=", "GaugeOpts{Name: ", "register_int_gauge!(", ".name("] {
            assert!(REGISTRATION.is_match(before), "{before}");
        }
        for before in ["query=", "\"expr\": ", "api.Query(ctx, ", "params = {'query': ", "expr = "] {
            assert!(QUERY_PARAM.is_match(before), "{before}");
        }
        for before in ["print(", "log.info(", "name = "] {
            assert!(!QUERY_PARAM.is_match(before) && !REGISTRATION.is_match(before), "{before}");
        }
    }
}
