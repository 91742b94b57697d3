//! Metric names anywhere in text, under the engine's prefixes (from its
//! profile), including inside PromQL (`rate(vllm:num_preemptions_total[5m])`).
//! A name written as a pattern (`radiance:engine_steps_*`, a regex in
//! `{__name__=~"…"}` or `grep -E`) is reported as a pattern, to be matched
//! against the catalogue rather than judged as a name.

use regex::Regex;

use crate::lint::refs::Ref;
use crate::lint::span::Span;

/// Compiled once per run from the engine's metric prefixes.
#[derive(Debug, Clone)]
pub struct Matcher {
    re: Option<Regex>,
    prefixes: Vec<String>,
}

impl Matcher {
    pub fn new(prefixes: &[String]) -> Matcher {
        let alts: Vec<String> = prefixes.iter().map(|p| regex::escape(p)).collect();
        // A name, then (optionally) a pattern tail: `*`, `.*`, `(a|b)`, `[…]`, `+`, `?`.
        let re = (!alts.is_empty()).then(|| {
            Regex::new(&format!(
                r"(?:^|[^A-Za-z0-9_:/.@-])((?:{})[A-Za-z_][A-Za-z0-9_:]*[A-Za-z0-9_]?)((?:\.\*|\.\+|\*|\([A-Za-z0-9_|]*\)|\[[^\]\s]*\]|\+|\?|\.|[A-Za-z0-9_:]+)*)",
                alts.join("|")
            ))
            .expect("valid regex")
        });
        Matcher { re, prefixes: prefixes.to_vec() }
    }

    /// True when the text may hold a metric name (a cheap pre-filter).
    pub fn might_match(&self, text: &str) -> bool {
        self.prefixes.iter().any(|p| text.contains(p.as_str()))
    }

    /// Finds metric names in `text`; `span` maps a byte range of `text` to a span.
    pub fn scan(&self, text: &str, span: &dyn Fn(usize, usize) -> Span, out: &mut Vec<Ref>) {
        let Some(re) = &self.re else { return };
        if !self.might_match(text) {
            return;
        }
        for cap in re.captures_iter(text) {
            let Some(m) = cap.get(1) else { continue };
            let name = m.as_str();
            // `radiance:1.8.1` is an image tag, not a metric.
            let prefix_len = self.prefixes.iter().find(|p| name.starts_with(p.as_str())).map_or(0, |p| p.len());
            if name[prefix_len..].starts_with(|c: char| c.is_ascii_digit()) || name.len() == prefix_len {
                continue;
            }
            let tail = cap.get(2).map_or("", |t| t.as_str());
            // A trailing `.` ends a sentence, and `[5m]` is a PromQL range;
            // anything else makes a pattern.
            let is_range = tail.starts_with('[')
                && tail[1..]
                    .split(']')
                    .next()
                    .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit() || "smhdwy:".contains(c)));
            let pattern_tail = if is_range { "" } else { tail.trim_end_matches('.') };
            if pattern_tail.is_empty() {
                out.push(Ref::Metric { name: name.to_string(), span: span(m.start(), m.end()), pattern: false });
            } else {
                let end = m.end() + pattern_tail.len();
                let whole = &text[m.start()..end];
                out.push(Ref::Metric { name: whole.to_string(), span: span(m.start(), end), pattern: true });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(String, bool)> {
        let m = Matcher::new(&["radiance:".to_string(), "vllm:".to_string()]);
        let mut out = Vec::new();
        m.scan(text, &|_, _| Span::default(), &mut out);
        out.into_iter()
            .filter_map(|r| match r {
                Ref::Metric { name, pattern, .. } => Some((name, pattern)),
                _ => None,
            })
            .collect()
    }

    fn names(text: &str) -> Vec<String> {
        found(text).into_iter().map(|(n, _)| n).collect()
    }

    #[test]
    fn finds_metric_names() {
        assert_eq!(names("rate(vllm:num_preemptions_total[5m])"), ["vllm:num_preemptions_total"]);
        assert_eq!(names("`radiance:engine_steps_held_total` moved"), ["radiance:engine_steps_held_total"]);
        assert_eq!(names("watch radiance:engine_steps_total."), ["radiance:engine_steps_total"]);
        assert_eq!(
            names("histogram_quantile(0.9, vllm:time_to_first_token_seconds_bucket)"),
            ["vllm:time_to_first_token_seconds_bucket"]
        );
        assert!(names("image ghcr.io/x/radiance:1.8.1").is_empty());
        assert!(names("a `radiance:`-only query").is_empty());
        assert!(names("https://radiance:8000/metrics").is_empty());
    }

    #[test]
    fn patterns_are_marked() {
        assert_eq!(found("radiance:engine_steps_*"), [("radiance:engine_steps_*".to_string(), true)]);
        assert_eq!(
            found(r#"{__name__=~"radiance:engine_steps_.*"}"#),
            [("radiance:engine_steps_.*".to_string(), true)]
        );
        assert_eq!(
            found("grep -E '^radiance:engine_steps_(held|decode)_total'"),
            [("radiance:engine_steps_(held|decode)_total".to_string(), true)]
        );
    }
}
