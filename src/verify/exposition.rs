//! The Prometheus text exposition format (0.0.4, and the OpenMetrics lines
//! an endpoint may mix in), read into samples.
//!
//! A small parser of our own rather than a crate: the maintained crate for
//! this (`prometheus-parse`) passes over any line it cannot read, so a
//! truncated or corrupted scrape would read as a smaller, valid one — and
//! a verifier must say "line 7 is not a sample", never quietly judge what
//! is left. Every line is either understood or refused with its number.

use std::collections::BTreeMap;

/// One sample line: `name{labels} value [timestamp]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: Labels,
    pub value: f64,
    /// 1-based line number in the exposition.
    pub line: usize,
}

/// A parsed exposition: its samples and what its `# TYPE` lines declare.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Exposition {
    pub samples: Vec<Sample>,
    /// Family name → declared type (`counter`, `histogram`, …).
    pub types: BTreeMap<String, String>,
}

/// A line that is not valid exposition text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    /// 1-based.
    pub line: usize,
    /// Byte range of the line in the text.
    pub range: std::ops::Range<usize>,
    pub message: String,
}

const TYPES: &[&str] =
    &["counter", "gauge", "histogram", "summary", "untyped", "unknown", "info", "stateset", "gaugehistogram"];

impl Exposition {
    /// The family a series name belongs to: `x_bucket`, `x_sum` and
    /// `x_count` are `x` when `x` is declared a histogram or summary;
    /// otherwise the name itself.
    pub fn family<'a>(&self, series: &'a str) -> &'a str {
        for suffix in ["_bucket", "_sum", "_count"] {
            if let Some(base) = series.strip_suffix(suffix) {
                if self.types.get(base).is_some_and(|t| t == "histogram" || t == "summary") {
                    return base;
                }
            }
        }
        series
    }

    /// Every series name and every declared family name.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.samples.iter().map(|s| s.name.as_str()).chain(self.types.keys().map(String::as_str))
    }
}

/// Parses an exposition; the first line that is not valid is the error.
pub fn parse(text: &str) -> Result<Exposition, ParseError> {
    let mut out = Exposition::default();
    let mut start = 0;
    for (i, raw) in text.split('\n').enumerate() {
        let range = start..start + raw.len();
        start += raw.len() + 1;
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        let fail = |message: String| ParseError { line: i + 1, range: range.clone(), message: clip_quotes(&message) };
        let trimmed = line.trim_matches([' ', '\t']);
        if trimmed.is_empty() {
            continue;
        }
        if let Some(comment) = trimmed.strip_prefix('#') {
            comment_line(comment, &mut out).map_err(fail)?;
            continue;
        }
        let sample = sample_line(trimmed, i + 1).map_err(fail)?;
        out.samples.push(sample);
    }
    Ok(out)
}

/// Longest quoted fragment of a line shown in a message.
const QUOTE_CHARS: usize = 60;

/// `message` with each `quoted` fragment cut to [`QUOTE_CHARS`] and control
/// characters (NUL, escape sequences) shown escaped: a scrape is another
/// program's text, and its line may be megabytes long.
fn clip_quotes(message: &str) -> String {
    let mut out = String::new();
    for (i, part) in message.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        let quoted = i % 2 == 1;
        for (n, c) in part.chars().enumerate() {
            if quoted && n == QUOTE_CHARS {
                out.push('…');
                break;
            }
            if c.is_control() {
                out.extend(c.escape_default());
            } else {
                out.push(c);
            }
        }
    }
    out
}

/// `# HELP name text`, `# TYPE name type`, `# EOF`, or a free comment.
fn comment_line(comment: &str, out: &mut Exposition) -> Result<(), String> {
    let mut words = comment.split_whitespace();
    match words.next() {
        Some("TYPE") => {
            let name = words.next().ok_or("`# TYPE` names no metric")?;
            check_name(name)?;
            let kind = words.next().ok_or_else(|| format!("`# TYPE {name}` gives no type"))?;
            if !TYPES.contains(&kind) {
                return Err(format!("`{kind}` is not a metric type (counter, gauge, histogram, summary, untyped)"));
            }
            if words.next().is_some() {
                return Err(format!("`# TYPE {name} {kind}` has words after the type"));
            }
            if out.types.insert(name.to_string(), kind.to_string()).is_some() {
                return Err(format!("a second `# TYPE` line for `{name}`"));
            }
            Ok(())
        }
        Some("HELP") => {
            let name = words.next().ok_or("`# HELP` names no metric")?;
            check_name(name)
        }
        _ => Ok(()),
    }
}

fn check_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':');
    if first_ok && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
        Ok(())
    } else {
        Err(format!("`{name}` is not a metric name"))
    }
}

fn sample_line(line: &str, number: usize) -> Result<Sample, String> {
    let name_end = line.find(['{', ' ', '\t']).unwrap_or(line.len());
    let name = &line[..name_end];
    if name.is_empty() {
        return Err("a sample line starts with no metric name".into());
    }
    check_name(name)?;
    let mut rest = &line[name_end..];
    let mut labels = Vec::new();
    if let Some(body) = rest.strip_prefix('{') {
        let (parsed, after) = label_set(body)?;
        labels = parsed;
        rest = after;
    }
    let mut words = rest.split_whitespace();
    let value = words.next().ok_or_else(|| format!("`{name}` has no value"))?;
    let value = number_of(value).ok_or_else(|| format!("the value `{value}` of `{name}` is not a number"))?;
    match words.next() {
        None => {}
        // An OpenMetrics exemplar follows a `#`.
        Some(w) if w.starts_with('#') => {}
        Some(ts) => {
            if ts.parse::<f64>().is_err() {
                return Err(format!("`{ts}` after the value of `{name}` is not a timestamp"));
            }
            if let Some(w) = words.next().filter(|w| !w.starts_with('#')) {
                return Err(format!("`{w}` follows the timestamp of `{name}`"));
            }
        }
    }
    Ok(Sample { name: name.to_string(), labels, value, line: number })
}

/// A sample value: a float, `NaN`, `+Inf`, `-Inf` (Go's spellings).
fn number_of(word: &str) -> Option<f64> {
    match word {
        "NaN" => Some(f64::NAN),
        "+Inf" | "Inf" => Some(f64::INFINITY),
        "-Inf" => Some(f64::NEG_INFINITY),
        // Rust also reads `inf`, `infinity`, `nan`: the format does not.
        w if w.chars().any(|c| c.is_ascii_alphabetic() && !matches!(c, 'e' | 'E')) => None,
        w => w.parse().ok(),
    }
}

/// `a="x",b="y"}` → the labels and what follows the `}`.
/// A sample's labels, in order.
type Labels = Vec<(String, String)>;

fn label_set(body: &str) -> Result<(Labels, &str), String> {
    let mut labels = Vec::new();
    let mut rest = body;
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix('}') {
            return Ok((labels, after));
        }
        let eq = rest.find('=').ok_or("a label has no `=`")?;
        let name = rest[..eq].trim();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("`{name}` is not a label name"));
        }
        rest = rest[eq + 1..].trim_start();
        rest = rest.strip_prefix('"').ok_or_else(|| format!("the value of label `{name}` is not quoted"))?;
        let mut value = String::new();
        let mut chars = rest.char_indices();
        let end = loop {
            match chars.next() {
                None => return Err(format!("the value of label `{name}` is never closed (no `\"`)")),
                Some((i, '"')) => break i,
                Some((_, '\\')) => match chars.next() {
                    Some((_, 'n')) => value.push('\n'),
                    Some((_, c @ ('\\' | '"'))) => value.push(c),
                    Some((_, c)) => return Err(format!("`\\{c}` is not an escape in a label value")),
                    None => return Err(format!("the value of label `{name}` is never closed (no `\"`)")),
                },
                Some((_, c)) => value.push(c),
            }
        };
        labels.push((name.to_string(), value));
        rest = rest[end + 1..].trim_start();
        if let Some(after) = rest.strip_prefix(',') {
            rest = after;
        } else if !rest.starts_with('}') {
            return Err("labels must be separated by `,` and closed by `}`".into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_types_and_families() {
        let text = "# HELP a_total help text\n# TYPE a_total counter\na_total 3\n\
                    # TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 0.5\nh_count 2\n\
                    g{reason=\"no_snapshot\",x=\"a\\\"b\"} 1.5e3 1700000000000\nn NaN\n";
        let e = parse(text).expect("valid");
        assert_eq!(e.samples.len(), 6);
        assert_eq!(e.samples[4].labels, vec![("reason".into(), "no_snapshot".into()), ("x".into(), "a\"b".into())]);
        assert_eq!(e.samples[4].value, 1500.0);
        assert_eq!(e.samples[4].line, 8);
        assert_eq!(e.family("h_bucket"), "h");
        assert_eq!(e.family("a_total"), "a_total");
        assert_eq!(e.family("g_count"), "g_count", "not declared a histogram");
        assert!(e.samples[5].value.is_nan());
        // Trailing comma, CRLF, an exemplar, +Inf, free comments and # EOF are all valid.
        let e = parse("# a comment\r\na{x=\"1\",} +Inf\r\nb 1 # {trace=\"t\"} 1\n# EOF\n").expect("valid");
        assert_eq!(e.samples.len(), 2);
        assert_eq!(e.samples[0].value, f64::INFINITY);
    }

    #[test]
    fn malformed_lines_name_their_number() {
        // (text, line, message) written from the format's grammar.
        let cases = [
            ("a 1\nb 12x\n", 2, "the value `12x` of `b` is not a number"),
            ("a{x=\"1} 2\n", 1, "the value of label `x` is never closed (no `\"`)"),
            ("a{x=1} 2\n", 1, "the value of label `x` is not quoted"),
            ("a\n", 1, "`a` has no value"),
            ("\n\n9lives 1\n", 3, "`9lives` is not a metric name"),
            ("# TYPE a countr\n", 1, "`countr` is not a metric type (counter, gauge, histogram, summary, untyped)"),
            ("# TYPE a counter\n# TYPE a counter\n", 2, "a second `# TYPE` line for `a`"),
            ("a 1 2 3\n", 1, "`3` follows the timestamp of `a`"),
            ("a inf\n", 1, "the value `inf` of `a` is not a number"),
            ("# TYPE\n", 1, "`# TYPE` names no metric"),
            ("# TYPE a\n", 1, "`# TYPE a` gives no type"),
            ("# TYPE a gauge extra\n", 1, "`# TYPE a gauge` has words after the type"),
            ("# HELP\n", 1, "`# HELP` names no metric"),
            ("# HELP a-b text\n", 1, "`a-b` is not a metric name"),
            ("{x=\"1\"} 2\n", 1, "a sample line starts with no metric name"),
            ("a{x} 2\n", 1, "a label has no `=`"),
            ("a{x-y=\"1\"} 2\n", 1, "`x-y` is not a label name"),
            ("a{x=\"\\t\"} 2\n", 1, "`\\t` is not an escape in a label value"),
            ("a{x=\"1\\", 1, "the value of label `x` is never closed (no `\"`)"),
            ("a{x=\"1\" y=\"2\"} 2\n", 1, "labels must be separated by `,` and closed by `}`"),
            ("a 1 soon\n", 1, "`soon` after the value of `a` is not a timestamp"),
        ];
        for (text, line, message) in cases {
            let e = parse(text).expect_err(text);
            assert_eq!((e.line, e.message.as_str()), (line, message), "{text:?}");
        }
    }

    #[test]
    fn a_long_or_raw_line_is_quoted_in_part_and_escaped() {
        let long = parse(&format!("x {}\n", "a".repeat(1_000_000))).expect_err("not a number");
        assert_eq!(long.message, format!("the value `{}…` of `x` is not a number", "a".repeat(60)));
        let raw = parse("a\u{0}\u{1b}]0;t\u{7}b 1\n").expect_err("not a name");
        assert_eq!(raw.message, "`a\\u{0}\\u{1b}]0;t\\u{7}b` is not a metric name");
    }
}
