//! A metric the pinned build does not export, placed among the builds knobs
//! knows (the catalogued tags, and every tag of a history): exported from a
//! later tag, no longer exported (the last tag that did, and what replaced
//! it where the source says so), or exported by none.
//!
//! What replaced it: the successor its deprecation text names (read from
//! the last build that had it), else the one metric of the same type and
//! labels that the first build without it added.

use super::history::History;
use super::model::{Catalog, Metric};
use super::query::find_metric;
use super::tag::compare_tags;

/// Where a metric is, relative to a build that lacks it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetricWhen {
    /// A later build exports it, from this tag.
    Later { from: String },
    /// Earlier builds exported it: the newest of them, and what replaced it.
    Gone { last: String, successor: Option<String> },
    /// No build knobs knows of exports it.
    Never,
}

/// Where `name` is among `all` (oldest first) and the history, for the
/// build `pinned` that lacks it. The history is asked first (it holds every
/// tag); the catalogues answer for an engine without one.
pub fn metric_when(
    pinned: &Catalog,
    all: &[Catalog],
    history: Option<(&History, Option<usize>)>,
    name: &str,
) -> MetricWhen {
    if let Some(when) = history.and_then(|(h, at)| in_history(h, at, name)) {
        return when;
    }
    in_catalogues(pinned, all, name)
}

/// From the catalogued builds alone.
fn in_catalogues(pinned: &Catalog, all: &[Catalog], name: &str) -> MetricWhen {
    let tag = pinned.source.tag.as_str();
    let holding: Vec<usize> = (0..all.len()).filter(|&i| find_metric(&all[i], name).is_some()).collect();
    let later = holding.iter().find(|&&i| compare_tags(&all[i].source.tag, tag).is_gt());
    let earlier = holding.iter().rev().find(|&&i| compare_tags(&all[i].source.tag, tag).is_lt());
    match (earlier, later) {
        (Some(&last), _) => {
            let next = all[last + 1..].iter().find(|c| find_metric(c, name).is_none());
            let successor =
                find_metric(&all[last], name).and_then(|m| successor(m, &all[last], next.unwrap_or(pinned)));
            MetricWhen::Gone { last: all[last].source.tag.clone(), successor }
        }
        (None, Some(&from)) => MetricWhen::Later { from: all[from].source.tag.clone() },
        (None, None) => MetricWhen::Never,
    }
}

/// From a history; `None` when no tag of it exports the metric.
fn in_history(h: &History, at: Option<usize>, name: &str) -> Option<MetricWhen> {
    let runs: Vec<std::ops::RangeInclusive<usize>> =
        names(name).iter().flat_map(|n| h.metric_spans(n)).flat_map(|(_, r)| r.iter().cloned()).collect();
    if runs.is_empty() {
        return None;
    }
    // The family is exported at the pinned tag (`x_bucket` of a counter
    // `x`): the series as written is not one of its, in any build.
    if at.is_some_and(|at| runs.iter().any(|r| r.contains(&at))) {
        return Some(MetricWhen::Never);
    }
    let last = runs.iter().map(|r| *r.end()).filter(|&e| at.is_some_and(|at| e < at)).max();
    if let Some(last) = last {
        let (a, b) = (h.catalog_at(last), h.catalog_at(last + 1));
        let successor = match (a, b) {
            (Some(a), Some(b)) => find_metric(a, name).and_then(|m| successor(m, a, b)),
            _ => None,
        };
        return Some(MetricWhen::Gone { last: h.tag(last)?.to_string(), successor });
    }
    let from = runs.iter().map(|r| *r.start()).filter(|&s| at.is_none_or(|at| s > at)).min()?;
    Some(MetricWhen::Later { from: h.tag(from)?.to_string() })
}

/// The names a history record may carry for a written series name.
fn names(name: &str) -> Vec<String> {
    let mut out = vec![name.to_string()];
    out.extend(["_bucket", "_sum", "_count"].iter().filter_map(|s| name.strip_suffix(s)).map(str::to_string));
    out
}

/// What replaced `gone` (read in `had`, the last build with it) in `then`,
/// the first build without it.
fn successor(gone: &Metric, had: &Catalog, then: &Catalog) -> Option<String> {
    if let Some(s) = &gone.successor {
        return Some(s.clone());
    }
    let mut added = then.metrics.iter().filter(|m| {
        m.kind == gone.kind && m.labels == gone.labels && m.shown_by.is_none() && had.metric(&m.name).is_none()
    });
    match (added.next(), added.next()) {
        (Some(one), None) => Some(one.name.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::model::{MetricType, Provenance};

    fn build(tag: &str, metrics: &[(&str, MetricType, Option<&str>)]) -> Catalog {
        let source = Provenance {
            engine: "e".into(),
            repo: "r".into(),
            tag: tag.into(),
            commit: "c".into(),
            knobs_version: "0".into(),
        };
        let metrics = metrics
            .iter()
            .map(|(n, k, s)| Metric {
                name: (*n).into(),
                kind: *k,
                location: "m.py:1".into(),
                successor: s.map(str::to_string),
                ..Metric::default()
            })
            .collect();
        Catalog::new(source, Vec::new(), metrics)
    }

    #[test]
    fn a_metric_is_placed_before_after_or_nowhere() {
        use MetricType::*;
        let all = [
            build("v1.0.0", &[("e:old", Gauge, None), ("e:ttl", Histogram, Some("e:itl"))]),
            build(
                "v1.1.0",
                &[("e:ttl", Histogram, Some("e:itl")), ("e:usage", Gauge, None), ("e:itl", Histogram, None)],
            ),
            build("v1.2.0", &[("e:usage", Gauge, None), ("e:itl", Histogram, None), ("e:new", Counter, None)]),
        ];
        let at = |i: usize, n: &str| metric_when(&all[i], &all, None, n);
        assert_eq!(at(0, "e:new"), MetricWhen::Later { from: "v1.2.0".into() });
        // Its text names the successor.
        assert_eq!(at(2, "e:ttl_bucket"), MetricWhen::Gone { last: "v1.1.0".into(), successor: Some("e:itl".into()) });
        // The one gauge the next build added.
        assert_eq!(at(2, "e:old"), MetricWhen::Gone { last: "v1.0.0".into(), successor: Some("e:usage".into()) });
        assert_eq!(at(2, "e:never"), MetricWhen::Never);
    }
}
