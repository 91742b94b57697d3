//! Reports a metric the pinned build does not export.
//!
//! ## What it does
//! Checks every `radiance:` and `vllm:` metric name — in queries, code blocks
//! and prose — against the metrics the pinned build registers, allowing the
//! `_bucket`, `_sum` and `_count` series of histograms. When another
//! catalogued version has the metric, it says which.
//!
//! ## Why is this bad?
//! Prometheus answers a query for a metric that does not exist with an empty
//! result, not an error: a meter that can never move reads as "nothing
//! happened". A counter the pinned build did not export yet once made a
//! census rank the wrong cause.
//!
//! ## Example
//! ```promql
//! rate(radiance:engine_steps_hold_total[5m])
//! ```
//! Use instead:
//! ```promql
//! rate(radiance:engine_steps_held_total[5m])
//! ```

use super::{Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::catalog::query::{find_metric, matching_metrics};
use crate::lint::refs::Ref;
use crate::suggest::suggest;

pub const RULE: Rule = Rule {
    code: "KNB004",
    name: "unknown-metric",
    severity: Severity::Error,
    source: include_str!("unknown_metric.rs"),
    reads: Reads::METRIC,
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let r = s.r;
    let Ref::Metric { name, span, pattern, .. } = r else { return };
    if *pattern {
        // A glob or regex: it must match something the build exports.
        if matching_metrics(ctx.catalog, name).is_empty()
            && ctx.profile.paired_name(name).is_none_or(|o| matching_metrics(ctx.catalog, &o).is_empty())
        {
            out.push(Violation {
                rule: &RULE,
                span: *span,
                message: format!("`{name}` matches no metric {} exports", ctx.build()),
                help: Some(format!("`knobs catalog show {}` lists the metrics", ctx.catalog.source.tag)),
                fix: None,
            });
        }
        return;
    }
    if s.metric.is_some() {
        return;
    }
    // Under the other prefix it is wrong-metric-prefix's finding.
    if ctx.profile.paired_name(name).is_some_and(|o| find_metric(ctx.catalog, &o).is_some()) {
        return;
    }
    let elsewhere: Vec<&str> = ctx
        .all
        .iter()
        .filter(|c| c.source.tag != ctx.catalog.source.tag && find_metric(c, name).is_some())
        .map(|c| c.source.tag.as_str())
        .collect();
    let help = if !elsewhere.is_empty() {
        Some(format!(
            "exported by {} {}, not by the pinned {}",
            ctx.catalog.source.engine,
            elsewhere.join(", "),
            ctx.catalog.source.tag
        ))
    } else if let Some(total) = find_metric(ctx.catalog, &format!("{name}_total"))
        .filter(|m| m.kind == crate::catalog::model::MetricType::Counter && m.name == format!("{name}_total"))
    {
        // A counter registered as `x` is exported as `x_total`.
        Some(format!("a counter is exported with `_total`: `{}`", total.name))
    } else {
        suggest(name, ctx.catalog.metrics.iter().map(|m| m.name.as_str())).map(|n| format!("did you mean `{n}`?"))
    };
    out.push(Violation {
        rule: &RULE,
        span: *span,
        message: format!("`{name}` is not exported by {}", ctx.build()),
        help,
        fix: None,
    });
}
