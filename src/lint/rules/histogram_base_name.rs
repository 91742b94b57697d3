//! Reports a histogram's name queried as a series.
//!
//! ## What it does
//! Finds, in a PromQL query, the bare name of a metric the pinned build
//! registers as a histogram.
//!
//! ## Why is this bad?
//! A histogram `h` is exported as `h_bucket`, `h_sum` and `h_count`; there
//! is no series called `h`. The query returns nothing, and an alert on it
//! never fires.
//!
//! ## Example
//! ```promql
//! histogram_quantile(0.99, rate(vllm:time_to_first_token_seconds[5m]))
//! ```
//! Use instead:
//! ```promql
//! histogram_quantile(0.99, rate(vllm:time_to_first_token_seconds_bucket[5m]))
//! ```

use super::{Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::catalog::model::MetricType;
use crate::lint::refs::Ref;

pub const RULE: Rule = Rule {
    code: "KNB014",
    name: "histogram-base-name",
    severity: Severity::Error,
    source: include_str!("histogram_base_name.rs"),
    reads: Reads::METRIC,
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let Ref::Metric { name, span, usage: Some(usage), pattern: false } = s.r else { return };
    let Some(metric) = s.metric.filter(|m| m.kind == MetricType::Histogram && m.name == *name) else { return };
    // Read by a quantile, the one right series is the buckets.
    let fix = usage.quantile.then(|| format!("{name}_bucket"));
    out.push(Violation {
        rule: &RULE,
        span: *span,
        message: format!("`{name}` is a histogram in {}: no series has this name", ctx.build()),
        help: Some(format!("query `{0}_bucket` (for quantiles), `{0}_sum` or `{0}_count`", metric.name)),
        fix,
    });
}
