//! The catalogue: what one tagged build of the engine accepts and exports.
//!
//! These are plain serde types, written to and read from `catalog/<engine>/<tag>.toml`.
//! Everything else in knobs (lint, explain, diff) reads these types, never the C++.

use serde::{Deserialize, Serialize};

/// Bumped whenever a field changes meaning; readers refuse newer schemas.
pub const SCHEMA_VERSION: u32 = 1;

/// One catalogue file: a tagged build's flags and metrics, with provenance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Catalog {
    pub schema: u32,
    pub source: Provenance,
    #[serde(default, rename = "flag")]
    pub flags: Vec<Flag>,
    #[serde(default, rename = "metric")]
    pub metrics: Vec<Metric>,
}

/// Where a catalogue came from: enough to read the same source again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    pub engine: String,
    pub repo: String,
    pub tag: String,
    pub commit: String,
    pub knobs_version: String,
}

/// The kind of value a flag takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// Takes no value.
    Switch,
    Int,
    Float,
    String,
    /// One of a set of members.
    Enum,
    /// The word `auto` or an integer.
    AutoOrInt,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Switch => "switch",
            Kind::Int => "int",
            Kind::Float => "float",
            Kind::String => "string",
            Kind::Enum => "enum",
            Kind::AutoOrInt => "auto-or-int",
        }
    }
}

/// One command-line flag of the engine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Flag {
    /// The long name with its leading dashes, e.g. `--prefill-interleave`.
    pub name: String,
    #[serde(default)]
    pub aliases: Vec<String>,
    /// The placeholder shown in `--help` (`N`, `auto|N`); empty when none.
    #[serde(default)]
    pub metavar: String,
    pub kind: Kind,
    /// The value used when the flag is absent; empty when the source gives none.
    #[serde(default)]
    pub default: String,
    /// What `auto` resolves to, when the source says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_means: Option<String>,
    /// Accepted members, for enums.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<String>,
    /// Where the members came from, when there are any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub members_from: Option<MembersFrom>,
    #[serde(default)]
    pub help: String,
    /// `path:line` of the flag's declaration.
    pub location: String,
}

/// The origin of an enum's member list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MembersFrom {
    /// `validator-message`, `validator-comparisons`, `declared-choices` or `help`.
    pub origin: String,
    /// `path:line` of the code the members were read from.
    pub location: String,
    /// True when the source refuses any value outside the members.
    pub closed: bool,
}

/// The Prometheus type of a metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MetricType {
    Counter,
    Gauge,
    Histogram,
    Summary,
    /// Registered, but the source does not say which type.
    Untyped,
}

impl MetricType {
    pub fn as_str(self) -> &'static str {
        match self {
            MetricType::Counter => "counter",
            MetricType::Gauge => "gauge",
            MetricType::Histogram => "histogram",
            MetricType::Summary => "summary",
            MetricType::Untyped => "untyped",
        }
    }
}

/// One exported metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Metric {
    /// The full name with its prefix, e.g. `radiance:engine_steps_total`.
    pub name: String,
    #[serde(rename = "type")]
    pub kind: MetricType,
    #[serde(default)]
    pub help: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    pub location: String,
}

impl Catalog {
    /// Sorts everything so that the same source always writes the same bytes.
    pub fn normalise(&mut self) {
        self.flags.sort_by(|a, b| a.name.cmp(&b.name));
        for f in &mut self.flags {
            f.aliases.sort();
            f.aliases.dedup();
        }
        self.metrics.sort_by(|a, b| a.name.cmp(&b.name));
    }

    pub fn flag(&self, name: &str) -> Option<&Flag> {
        self.flags.iter().find(|f| f.name == name || f.aliases.iter().any(|a| a == name))
    }

    pub fn metric(&self, name: &str) -> Option<&Metric> {
        self.metrics.iter().find(|m| m.name == name)
    }

    pub fn enum_count(&self) -> usize {
        self.flags.iter().filter(|f| !f.members.is_empty()).count()
    }

    /// The catalogue as TOML, with a header comment saying it is generated.
    pub fn to_toml(&self) -> Result<String, toml::ser::Error> {
        let body = toml::to_string(self)?;
        Ok(format!(
            "# Generated by `knobs sync` from {} at {} ({}). Do not edit by hand.\n{}",
            self.source.repo, self.source.tag, self.source.commit, body
        ))
    }
}
