//! Reports `rate`, `irate` or `increase` over a gauge.
//!
//! ## What it does
//! Reads each PromQL query (in a `promql` block or a rule file's `expr:`)
//! and finds a counter function handed a metric the pinned build registers
//! as a gauge.
//!
//! ## Why is this bad?
//! A gauge is a value at an instant (requests waiting, a decayed rate), not
//! a count: `rate` over it treats every drop as a counter reset and every
//! rise as events, and draws a line that means nothing. A census built on it
//! ranks the wrong cause.
//!
//! ## Example
//! ```promql
//! rate(vllm:num_requests_running[5m])
//! ```
//! Use instead:
//! ```promql
//! avg_over_time(vllm:num_requests_running[5m])
//! ```

use super::{Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::catalog::model::MetricType;
use crate::lint::refs::Ref;

pub const RULE: Rule = Rule {
    code: "KNB012",
    name: "rate-of-gauge",
    severity: Severity::Warning,
    source: include_str!("rate_of_gauge.rs"),
    reads: Reads::METRIC,
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let Ref::Metric { name, span, usage: Some(usage), .. } = s.r else { return };
    let Some(func) = usage.func.as_deref().filter(|f| matches!(*f, "rate" | "irate" | "increase")) else { return };
    let Some(metric) = s.metric.filter(|m| m.kind == MetricType::Gauge && m.name == *name) else { return };
    out.push(Violation {
        rule: &RULE,
        span: *span,
        message: format!(
            "`{func}` over `{}`, a gauge in {}: a value at an instant, not a count",
            metric.name,
            ctx.build()
        ),
        help: Some(
            "use the gauge as it is, or `avg_over_time`/`max_over_time`; `rate` and `increase` are for counters".into(),
        ),
        fix: None,
    });
}
