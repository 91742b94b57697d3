//! What a scrape shows for each registered metric, by the client's rules
//! the profile states (`[extract.python] samples`): a histogram `x` is
//! `x_bucket`, `x_sum`, `x_count` and `x_created`; a counter `x_total` is
//! `x_total` and `x_created`. A successor named without its suffix (`Use
//! vllm:prefix_cache_queries instead`) is settled to the name catalogued.

use std::collections::BTreeMap;

use crate::catalog::model::{Metric, MetricType};
use crate::catalog::profile::PythonSpec;

/// Fills each metric's series; `created_off`: the `_created` suffix the
/// tag's source turns off.
pub fn settle(metrics: &mut BTreeMap<String, Metric>, spec: &PythonSpec, created_off: Option<&str>) {
    let names: Vec<String> = metrics.keys().cloned().collect();
    for m in metrics.values_mut() {
        let family = family(m, spec);
        if let Some(suffixes) = spec.samples.get(m.kind.as_str()) {
            let series: Vec<String> =
                suffixes.iter().filter(|s| created_off != Some(s.as_str())).map(|s| format!("{family}{s}")).collect();
            m.samples = if series.len() == 1 && series[0] == m.name { Vec::new() } else { series };
        }
        if let Some(next) = &m.successor {
            let suffixes = [spec.counter_suffix.as_deref(), spec.info_suffix.as_deref()];
            let settled = std::iter::once(next.clone())
                .chain(suffixes.into_iter().flatten().map(|s| format!("{next}{s}")))
                .find(|n| names.contains(n));
            if let Some(n) = settled {
                m.successor = Some(n);
            }
        }
    }
}

/// The name the client was given: a counter's without `counter_suffix`,
/// an info metric's without `info_suffix`.
fn family(m: &Metric, spec: &PythonSpec) -> String {
    let suffix = match m.kind {
        MetricType::Counter => spec.counter_suffix.as_deref(),
        MetricType::Info => spec.info_suffix.as_deref(),
        _ => None,
    };
    suffix.and_then(|s| m.name.strip_suffix(s)).unwrap_or(&m.name).to_string()
}
