//! A profile's `[metrics]`: the prefixes the engine's metric names carry,
//! and the pairs of prefixes one is often written under for the other.

use serde::{Deserialize, Serialize};

use super::Profile;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricSpec {
    /// Metric name prefixes the engine exports (`radiance:`).
    #[serde(default)]
    pub prefixes: Vec<String>,
    /// Prefixes a name is often written under by mistake for the other.
    #[serde(default)]
    pub pairs: Vec<[String; 2]>,
    /// Said when a name is under the wrong one of a pair.
    #[serde(default)]
    pub pair_hint: Option<String>,
}

impl Profile {
    /// The same metric name under the paired prefix.
    pub fn paired_name(&self, name: &str) -> Option<String> {
        for [a, b] in &self.metrics.pairs {
            if let Some(rest) = name.strip_prefix(a.as_str()) {
                return Some(format!("{b}{rest}"));
            }
            if let Some(rest) = name.strip_prefix(b.as_str()) {
                return Some(format!("{a}{rest}"));
            }
        }
        None
    }

    /// The engine's name for `name` written with `_` for the separator that
    /// ends one of its prefixes (`vllm_num_requests_running` for
    /// `vllm:num_requests_running`): Prometheus's client libraries write
    /// names that way, the engine's do not.
    pub fn separator_fixed(&self, name: &str) -> Option<String> {
        separator_variants(&self.metrics.prefixes)
            .find_map(|(variant, prefix)| name.strip_prefix(variant.as_str()).map(|rest| format!("{prefix}{rest}")))
    }

    /// True when `name` starts with one of the engine's metric prefixes.
    pub fn is_metric_name(&self, name: &str) -> bool {
        self.metrics.prefixes.iter().any(|p| name.starts_with(p.as_str()))
    }
}

/// Each prefix that ends in a separator no name-word holds (`vllm:`), with
/// that separator written as `_` (`vllm_`): (the variant, the prefix).
pub fn separator_variants(prefixes: &[String]) -> impl Iterator<Item = (String, &String)> {
    prefixes.iter().filter_map(|p| {
        let last = p.chars().next_back()?;
        let head = &p[..p.len() - last.len_utf8()];
        let separator = !(last.is_ascii_alphanumeric() || last == '_' || head.is_empty());
        separator.then(|| (format!("{head}_"), p))
    })
}
