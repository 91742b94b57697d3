//! A metric explained: its type, help and labels in the pinned build, what
//! the overlay says it measures and its trap, the knobs it meters, the
//! versions that export it, and its twin under the other prefix.

use serde::Serialize;

use super::history::Version;
use super::unknown::{unknown, Unknown};
use crate::catalog::model::{Catalog, Metric};
use crate::catalog::profile::Profile;
use crate::catalog::query::find_metric;
use crate::catalog::semantics::{MetricSemantics, Semantics};

/// Everything `knobs explain` says of a metric.
#[derive(Debug, Serialize)]
pub struct MetricExplain {
    pub build: String,
    /// Set when the build is an embedded catalogue used beside catalogues
    /// synced from another repository.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<String>,
    pub in_pinned: bool,
    pub metric: Metric,
    pub semantics: Option<MetricSemantics>,
    pub metered_for: Vec<String>,
    pub versions: Vec<Version>,
    /// The same name under the other prefix, when that exists too.
    pub other_prefix: Option<String>,
}

/// What is known of the metric `name`, from the `pinned` build, else the
/// newest catalogued version that exports it.
pub(super) fn explain_metric(
    name: &str,
    pinned: &Catalog,
    all: &[Catalog],
    sem: &Semantics,
    profile: &Profile,
    build: &super::Build,
) -> Result<MetricExplain, Unknown> {
    let found = find_metric(pinned, name).or_else(|| all.iter().rev().find_map(|c| find_metric(c, name)));
    let Some(metric) = found else { return Err(unknown(name, pinned, profile, &build.name)) };
    let versions = all
        .iter()
        .map(|c| {
            let present = find_metric(c, &metric.name).is_some();
            Version { tag: c.source.tag.clone(), present, change: if present { "exported" } else { "absent" }.into() }
        })
        .collect();
    Ok(MetricExplain {
        build: build.name.clone(),
        provenance: build.mark.clone(),
        in_pinned: find_metric(pinned, name).is_some(),
        semantics: sem.metric.get(&metric.name).cloned(),
        metered_for: sem.metered_by(&metric.name).into_iter().map(str::to_string).collect(),
        other_prefix: profile.paired_name(&metric.name).filter(|o| all.iter().any(|c| find_metric(c, o).is_some())),
        metric: metric.clone(),
        versions,
    })
}
