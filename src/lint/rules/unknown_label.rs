//! Reports a label the metric does not have.
//!
//! ## What it does
//! Checks the label names a PromQL selector matches on, and those an
//! aggregation above it groups by (`by`, `without`), against the labels the
//! pinned build registers for the metric, where the source registers them
//! — also a metric registered with no labels at all, whose every matcher
//! (but on a label the scrape adds) matches nothing.
//! The labels a scrape adds (`[lint] target_labels`: `job`, `instance`,
//! `namespace`, `pod`, … by default) and `le`/`quantile` are always allowed;
//! labels `label_replace`/`label_join` make, and those brought across a
//! binary operator, are not judged.
//!
//! ## Why is this bad?
//! A matcher on a label the series does not carry matches nothing (or, with
//! `!=`, everything): the panel is empty, or the alert watches the wrong
//! thing, and nobody is told.
//!
//! ## Example
//! ```promql
//! rate(radiance:prefix_hit_cut_tokens_total{cause="budget"}[5m])
//! ```
//! Use instead:
//! ```promql
//! rate(radiance:prefix_hit_cut_tokens_total{reason="budget"}[5m])
//! ```

use super::{Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::lint::refs::Ref;
use crate::suggest::suggest;

pub const RULE: Rule = Rule {
    code: "KNB015",
    name: "unknown-label",
    severity: Severity::Warning,
    source: include_str!("unknown_label.rs"),
    reads: Reads::METRIC,
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let Ref::Metric { usage: Some(usage), .. } = s.r else { return };
    // Only where the source says which labels the metric has.
    let Some(metric) = s.metric.filter(|m| !m.labels.is_empty() || m.unlabelled) else { return };
    for (label, span) in &usage.labels {
        let known = metric.labels.iter().any(|l| l == label)
            || matches!(label.as_str(), "le" | "quantile")
            || ctx.target_labels.iter().any(|t| t == label);
        if known {
            continue;
        }
        if metric.labels.is_empty() {
            out.push(Violation {
                rule: &RULE,
                span: *span,
                message: format!("`{label}` is not a label of `{}` in {}: it has no labels", metric.name, ctx.build()),
                help: Some(format!(
                    "`{}` is registered with no labels, so this matcher matches nothing; labels a scrape adds go in `[lint] target_labels`",
                    metric.name
                )),
                fix: None,
            });
            continue;
        }
        let near = suggest(label, metric.labels.iter().map(String::as_str));
        let has = metric.labels.iter().map(|l| format!("`{l}`")).collect::<Vec<_>>().join(", ");
        out.push(Violation {
            rule: &RULE,
            span: *span,
            message: format!("`{label}` is not a label of `{}` in {}", metric.name, ctx.build()),
            help: Some(match near {
                Some(n) => format!("did you mean `{n}`? it has {has}"),
                None => format!("it has {has}; labels a scrape adds go in `[lint] target_labels`"),
            }),
            fix: None,
        });
    }
}
