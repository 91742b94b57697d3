//! Reports a metric queried under the wrong prefix.
//!
//! ## What it does
//! Finds a `radiance:` name that the pinned build exports only as `vllm:`, or
//! the other way round, and names the right one. In a query, it also finds
//! a name whose prefix ends in `_` where the engine's ends in `:`
//! (`radiance_engine_steps_total` for `radiance:engine_steps_total`), when
//! the pinned build exports the name with its own separator.
//!
//! ## Why is this bad?
//! Latency lives under `vllm:`, cadence under `radiance:`. A `radiance:`-only
//! query finds no time-to-first-token and no preemption counter, and a stall
//! reads as "nothing stalls". The preemption counter is
//! `vllm:num_preemptions_total`; `radiance:num_requests_preempted` is an
//! instant gauge.
//!
//! ## Example
//! ```promql
//! increase(radiance:num_preemptions_total[10m])
//! ```
//! Use instead:
//! ```promql
//! increase(vllm:num_preemptions_total[10m])
//! ```

use super::{Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::catalog::query::find_metric;
use crate::lint::refs::Ref;

pub const RULE: Rule = Rule {
    code: "KNB005",
    name: "wrong-metric-prefix",
    severity: Severity::Error,
    source: include_str!("wrong_metric_prefix.rs"),
    reads: Reads::METRIC,
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let r = s.r;
    let Ref::Metric { name, span, pattern: false, .. } = r else { return };
    if s.metric.is_some() || s.is_fallback(ctx) {
        return;
    }
    let exported = |o: &String| find_metric(ctx.catalog, o).is_some();
    let (right, help) = if let Some(right) = ctx.profile.paired_name(name).filter(exported) {
        (right, ctx.profile.metrics.pair_hint.clone())
    } else if let Some(right) = ctx.profile.separator_fixed(name).filter(exported) {
        (right, Some(format!("{} writes its metric names with its own separator, not `_`", ctx.catalog.source.engine)))
    } else {
        return;
    };
    out.push(Violation {
        rule: &RULE,
        span: *span,
        message: format!("`{name}` is exported as `{right}`"),
        help,
        fix: Some(right.clone()),
    });
}
