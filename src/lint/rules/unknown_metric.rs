//! Reports a metric the pinned build does not export.
//!
//! ## What it does
//! Checks every `radiance:` and `vllm:` metric name — in queries, code blocks
//! and prose — against the metrics the pinned build registers, allowing the
//! `_bucket`, `_sum` and `_count` series of histograms. When another
//! build has the metric, it says when: not exported yet (from which tag),
//! no longer exported (the last tag that did, and its successor where the
//! source names one or one metric of its type replaced it). A suffix the
//! metric's type does not export (`_total` on a gauge, `_bucket` on a
//! counter) is named as such. A name on one side of an `or` whose other
//! side the build exports is a fallback across builds, not a finding; nor
//! is a name with a `:` after the prefix (`radiance:engine_steps:rate5m`),
//! a recording rule's output by Prometheus's naming convention, when no
//! metric of the build holds one (a rule file that records series says
//! which it has).
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
use crate::catalog::metric_since::MetricWhen;
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
    // A name under none of the engine's prefixes (a query's `vllm_x`) is
    // judged only by wrong-metric-prefix, when the engine exports it.
    if s.metric.is_some() || !ctx.profile.is_metric_name(name) || s.is_fallback(ctx) {
        return;
    }
    // Under the other prefix it is wrong-metric-prefix's finding.
    if ctx.profile.paired_name(name).is_some_and(|o| find_metric(ctx.catalog, &o).is_some()) {
        return;
    }
    if recorded(ctx, r, name) {
        return;
    }
    let (message, help) = match ctx.metric_when(name) {
        MetricWhen::Later { from } => (
            format!("`{name}` is not exported yet by {} (from {from})", ctx.build()),
            Some(format!(
                "this file pins {}; {} exports it from {from}",
                ctx.catalog.source.tag, ctx.catalog.source.engine
            )),
        ),
        MetricWhen::Gone { last, successor } => {
            let message = match &successor {
                Some(next) => format!("`{name}` is no longer exported by {} (last {last}; use `{next}`)", ctx.build()),
                None => format!("`{name}` is no longer exported by {} (last {last})", ctx.build()),
            };
            let help = match successor {
                Some(next) if find_metric(ctx.catalog, &next).is_some() => {
                    format!("{} exports `{next}` in its place", ctx.build())
                }
                Some(next) => format!("`{next}` replaced it after {last}"),
                None => format!("the last build that exports it is {} {last}", ctx.catalog.source.engine),
            };
            (message, Some(help))
        }
        MetricWhen::Never => (format!("`{name}` is not exported by {}", ctx.build()), never_help(name, ctx)),
    };
    out.push(Violation { rule: &RULE, span: *span, message, help, fix: None });
}

/// A name no build exports: the counter's `_total` form, else the nearest
/// name, else that none of the builds knobs knows has it.
fn never_help(name: &str, ctx: &Ctx<'_>) -> Option<String> {
    if let Some(why) = wrong_suffix(ctx, name) {
        return Some(why);
    }
    if let Some(total) = find_metric(ctx.catalog, &format!("{name}_total"))
        .filter(|m| m.kind == crate::catalog::model::MetricType::Counter && m.name == format!("{name}_total"))
    {
        // A counter registered as `x` is exported as `x_total`.
        return Some(format!("a counter is exported with `_total`: `{}`", total.name));
    }
    if let Some(n) = suggest(name, ctx.catalog.metrics.iter().map(|m| m.name.as_str())) {
        return Some(format!("did you mean `{n}`?"));
    }
    Some(format!("no build of {} that knobs knows exports it", ctx.catalog.source.engine))
}

/// True when `name` is named as a recording rule's output is
/// (`level:metric:operations`, Prometheus's convention): a `:` after the
/// engine's prefix, where no metric of the build has one. Such a series is
/// a rule's, recorded in a file knobs may not see, not the engine's —
/// except in a rule file that records series itself: there a name none of
/// its rules records is a typo.
fn recorded(ctx: &Ctx<'_>, r: &Ref, name: &str) -> bool {
    // In a rule file that records its own series, the file says which.
    if matches!(r, Ref::Metric { usage: Some(u), .. } if u.recordings_seen) {
        return false;
    }
    let after_prefix = |n: &str| {
        let prefix = ctx.profile.metrics.prefixes.iter().filter(|p| n.starts_with(p.as_str())).map(String::len).max();
        n.get(prefix.unwrap_or(0)..).is_some_and(|rest| rest.contains(':'))
    };
    after_prefix(name) && !ctx.catalog.metrics.iter().any(|m| after_prefix(&m.name))
}

/// A suffix the metric's type does not export: `_total` on a gauge or a
/// histogram, `_bucket` on a counter or a gauge.
fn wrong_suffix(ctx: &Ctx<'_>, name: &str) -> Option<String> {
    use crate::catalog::model::MetricType;
    let kind = |m: &crate::catalog::model::Metric| m.kind.as_str();
    if let Some(base) = name.strip_suffix("_total") {
        let m = find_metric(ctx.catalog, base).filter(|m| {
            matches!(m.kind, MetricType::Gauge | MetricType::Histogram | MetricType::Summary) && m.name == base
        })?;
        return Some(format!("`{base}` is a {}: it has no `_total` series; query `{base}`", kind(m)));
    }
    let base = name.strip_suffix("_bucket")?;
    let m = [base.to_string(), format!("{base}_total")]
        .iter()
        .find_map(|b| ctx.catalog.metric(b))
        .filter(|m| matches!(m.kind, MetricType::Counter | MetricType::Gauge))?;
    Some(format!("`{}` is a {}: only a histogram has `_bucket` series", m.name, kind(m)))
}
