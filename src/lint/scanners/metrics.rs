//! Metric names anywhere in text: `radiance:…` and `vllm:…`, including
//! inside PromQL (`rate(vllm:num_preemptions_total[5m])`).

use std::sync::LazyLock;

use regex::Regex;

use crate::lint::refs::Ref;
use crate::lint::span::Span;

static METRIC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|[^A-Za-z0-9_:/.@-])((?:radiance|vllm):[A-Za-z_][A-Za-z0-9_:]*[A-Za-z0-9_])").expect("valid regex")
});

/// Finds metric names in `text`; `span` maps a byte range of `text` to a span.
pub fn scan(text: &str, span: &dyn Fn(usize, usize) -> Span, out: &mut Vec<Ref>) {
    for cap in METRIC.captures_iter(text) {
        let Some(m) = cap.get(1) else { continue };
        // `radiance:1.8.1` is an image tag, not a metric.
        if m.as_str().split(':').nth(1).is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit())) {
            continue;
        }
        out.push(Ref::Metric { name: m.as_str().to_string(), span: span(m.start(), m.end()) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        scan(text, &|_, _| Span::default(), &mut out);
        out.into_iter()
            .filter_map(|r| match r {
                Ref::Metric { name, .. } => Some(name),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn finds_metric_names() {
        assert_eq!(names("rate(vllm:num_preemptions_total[5m])"), ["vllm:num_preemptions_total"]);
        assert_eq!(names("`radiance:engine_steps_held_total` moved"), ["radiance:engine_steps_held_total"]);
        assert_eq!(
            names("histogram_quantile(0.9, vllm:time_to_first_token_seconds_bucket)"),
            ["vllm:time_to_first_token_seconds_bucket"]
        );
        assert!(names("image ghcr.io/x/radiance:1.8.1").is_empty());
        assert!(names("a `radiance:`-only query").is_empty());
        assert!(names("https://radiance:8000/metrics").is_empty());
    }
}
