//! Reports `histogram_quantile` over a series that is not a histogram's buckets.
//!
//! ## What it does
//! Finds the series a `histogram_quantile` reads (directly, or through
//! `rate`, `increase` and aggregations) and checks that it is the `_bucket`
//! series of a metric the pinned build registers as a histogram.
//!
//! ## Why is this bad?
//! `histogram_quantile` needs cumulative buckets with an `le` label. Over a
//! counter, a gauge or a histogram's `_sum`/`_count` it returns nothing
//! (or NaN), and a latency panel stays empty while requests queue.
//!
//! ## Example
//! ```promql
//! histogram_quantile(0.9, rate(radiance:engine_steps_total[5m]))
//! ```
//! Use instead:
//! ```promql
//! histogram_quantile(0.9, rate(radiance:prefill_steps_duration_bucket[5m]))
//! ```

use super::{Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::catalog::model::MetricType;
use crate::lint::refs::Ref;

pub const RULE: Rule = Rule {
    code: "KNB013",
    name: "quantile-of-non-histogram",
    severity: Severity::Error,
    source: include_str!("quantile_of_non_histogram.rs"),
    reads: Reads::METRIC,
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let Ref::Metric { name, span, usage: Some(usage), pattern: false } = s.r else { return };
    if !usage.quantile {
        return;
    }
    let Some(metric) = s.metric else { return };
    let is_histogram = metric.kind == MetricType::Histogram;
    if is_histogram && name.ends_with("_bucket") {
        return;
    }
    // A histogram's own name is histogram-base-name's finding.
    if is_histogram && metric.name == *name {
        return;
    }
    let what = match metric.kind {
        MetricType::Histogram => "a histogram's sum or count".to_string(),
        k => format!("a {}", k.as_str()),
    };
    out.push(Violation {
        rule: &RULE,
        span: *span,
        message: format!(
            "`histogram_quantile` reads `{name}`, {what} in {}, not a histogram's `_bucket` series",
            ctx.build()
        ),
        help: Some("a quantile needs a histogram's buckets: `histogram_quantile(0.9, rate(NAME_bucket[5m]))`".into()),
        fix: None,
    });
}
