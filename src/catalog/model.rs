//! The catalogue: what one tagged build of the engine accepts and exports.
//!
//! These are plain serde types, written to and read from `catalog/<engine>/<tag>.toml`.
//! Everything else in knobs (lint, explain, diff) reads these types, never the C++.

use serde::{Deserialize, Serialize};

/// Bumped whenever a field changes meaning; readers refuse newer schemas
/// and read every older one (schema 2 added fields with empty defaults;
/// schema 3 the engine-wide env keys, `[[env_key]]`; schema 4 a flag's
/// `nargs`, `deprecated` and `successors`, a metric's series, gate,
/// deprecation and successor, the `info` type and an env key's `kind`,
/// deprecation and successor; schema 5 a metric registered with no labels, `unlabelled`, told from one
/// whose labels were not read).
pub const SCHEMA_VERSION: u32 = 5;

/// The most flags, metrics or env keys one catalogue may hold. The largest
/// engine's has about 600 flags; a catalogue in a pull request with 100,000
/// made every did-you-mean slow, so one over this is refused, naming it.
pub const MAX_ENTRIES: usize = 20_000;

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
    /// Env keys the engine reads for itself, not per flag (one table of
    /// them, as vLLM's `envs.py`): an env file is judged against this set.
    #[serde(default, rename = "env_key", skip_serializing_if = "Vec::is_empty")]
    pub env_keys: Vec<EnvKey>,
    /// Look-up tables, built on first use; not part of the file.
    #[serde(skip)]
    index: IndexCell,
}

/// Name → position tables over a catalogue, so a look-up is a hash probe.
#[derive(Debug, Default)]
struct Index {
    /// Every spelling (name, alias, negated) → flag.
    flags: rustc_hash::FxHashMap<String, usize>,
    /// Every declared env key → flag.
    env: rustc_hash::FxHashMap<String, usize>,
    metrics: rustc_hash::FxHashMap<String, usize>,
}

/// Holds the index; always equal to another, and cloned empty, so it never
/// changes what a catalogue is.
#[derive(Debug, Default)]
struct IndexCell(std::sync::OnceLock<Index>);

impl Clone for IndexCell {
    fn clone(&self) -> Self {
        IndexCell::default()
    }
}

impl PartialEq for IndexCell {
    fn eq(&self, _: &Self) -> bool {
        true
    }
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

impl Provenance {
    /// The commit as people read it: its first 12 hex digits.
    pub fn short_commit(&self) -> &str {
        short_commit(&self.commit)
    }
}

/// A commit id as people read it (its first 12 hex digits), for a commit
/// held apart from its provenance.
pub fn short_commit(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
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
    /// Spellings that turn it off (`--no-mmap`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub negated: Vec<String>,
    /// Env keys the source declares for it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    /// Scopes (binaries, examples) the source limits it to; empty: all.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    /// Scopes the source takes it away from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excludes: Vec<String>,
    /// Set when the flag still parses but is always refused: the message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub removed: Option<String>,
    /// The build's flags that message names in its place (`use --spec-draft-n-max`):
    /// facts, kept where the message is not (a history of facts only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub successors: Vec<String>,
    /// How many argv words follow it as values, when more than one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arity: Option<u8>,
    /// argparse's `nargs` where the count of value words varies: `?` (none
    /// or one), `*` (any number), `+` (one or more); each word up to the
    /// next option is one value (`--cuda-graph-bs 1 2 4`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nargs: Option<String>,
    /// The value is a comma-separated list, each part a value.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub list: bool,
    /// The source says the flag is deprecated (it still parses and works).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deprecated: bool,
}

impl Flag {
    /// Every spelling: the name, its aliases and negated forms.
    pub fn spellings(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.name.as_str())
            .chain(self.aliases.iter().map(String::as_str))
            .chain(self.negated.iter().map(String::as_str))
    }

    /// How many argv words follow it: 0 for a switch; for a varying count
    /// (`nargs="+"`) the most it may take, [`MANY_VALUES`].
    pub fn values(&self) -> usize {
        if self.kind == Kind::Switch {
            0
        } else if matches!(self.nargs.as_deref(), Some("+" | "*")) {
            MANY_VALUES
        } else {
            usize::from(self.arity.unwrap_or(1))
        }
    }

    /// True when the flag may be given with no value word (`nargs="?"`, `"*"`).
    pub fn value_optional(&self) -> bool {
        matches!(self.nargs.as_deref(), Some("?" | "*"))
    }
}

/// The most value words an option with a varying count (`nargs="+"`) is
/// taken to read: every word up to the next option, within reason.
pub const MANY_VALUES: usize = 255;

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

/// An env key the engine reads on its own (not the env form of a flag).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvKey {
    pub name: String,
    /// The value used when the key is unset; empty when the source gives none.
    #[serde(default)]
    pub default: String,
    /// The values it accepts, when the source lists them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<String>,
    #[serde(default)]
    pub help: String,
    /// `path:line` of its declaration.
    pub location: String,
    /// The kind of value the source parses it as (`uint`, `bool`,
    /// `duration`; `duration|int` when either is taken), when it says one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// The source says the key is deprecated (it is still read, and warned about).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deprecated: bool,
    /// The key a deprecated key's value is forwarded to, when the source names one.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub successor: String,
}

/// The Prometheus type of a metric.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MetricType {
    Counter,
    Gauge,
    Histogram,
    Summary,
    /// Labels as facts, one series of value 1 named `…_info`.
    Info,
    /// Registered, but the source does not say which type.
    #[default]
    Untyped,
}

impl MetricType {
    pub fn as_str(self) -> &'static str {
        match self {
            MetricType::Counter => "counter",
            MetricType::Gauge => "gauge",
            MetricType::Histogram => "histogram",
            MetricType::Summary => "summary",
            MetricType::Info => "info",
            MetricType::Untyped => "untyped",
        }
    }
}

/// One exported metric.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
    /// The reader saw the registration name no labels at all: a matcher on
    /// any label the scrape does not add matches nothing. False when
    /// `labels` lists them, or when they were not read (known at run time).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unlabelled: bool,
    pub location: String,
    /// Every series name a scrape shows for it when that is more than its
    /// name (`…_bucket`, `…_sum`, `…_count`, `…_created`); empty: the name alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub samples: Vec<String>,
    /// Exported only when this flag (or env key) is given; `None`: always.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shown_by: Option<String>,
    /// The source's deprecation text, when it marks the metric deprecated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecated: Option<String>,
    /// The metric the source names as its replacement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub successor: Option<String>,
}

impl Metric {
    /// Every series name a scrape of it shows.
    pub fn series(&self) -> impl Iterator<Item = &str> {
        let own = self.samples.is_empty().then_some(self.name.as_str());
        own.into_iter().chain(self.samples.iter().map(String::as_str))
    }
}

impl Catalog {
    /// Sorts everything so that the same source always writes the same bytes.
    pub fn normalise(&mut self) {
        self.flags.sort_by(|a, b| a.name.cmp(&b.name));
        for f in &mut self.flags {
            for list in [&mut f.aliases, &mut f.negated, &mut f.env, &mut f.scopes, &mut f.excludes] {
                list.sort();
                list.dedup();
            }
        }
        self.metrics.sort_by(|a, b| a.name.cmp(&b.name));
        self.env_keys.sort_by(|a, b| a.name.cmp(&b.name));
        // The oldest schema that holds what this catalogue holds, so that a
        // catalogue with no engine-wide env keys reads in an older knobs.
        let schema_4 = self.flags.iter().any(|f| f.nargs.is_some() || f.deprecated || !f.successors.is_empty())
            || self.metrics.iter().any(|m| {
                !m.samples.is_empty()
                    || m.shown_by.is_some()
                    || m.deprecated.is_some()
                    || m.successor.is_some()
                    || m.kind == MetricType::Info
            })
            || self.env_keys.iter().any(|k| !k.kind.is_empty() || k.deprecated);
        self.schema = if self.metrics.iter().any(|m| m.unlabelled) {
            5
        } else if schema_4 {
            4
        } else if self.env_keys.is_empty() {
            2
        } else {
            3
        };
        self.index = IndexCell::default();
    }

    fn index(&self) -> &Index {
        self.index.0.get_or_init(|| {
            let mut ix = Index::default();
            for (i, f) in self.flags.iter().enumerate() {
                for s in f.spellings() {
                    ix.flags.entry(s.to_string()).or_insert(i);
                }
                for e in &f.env {
                    ix.env.entry(e.clone()).or_insert(i);
                }
            }
            for (i, m) in self.metrics.iter().enumerate() {
                ix.metrics.entry(m.name.clone()).or_insert(i);
            }
            ix
        })
    }

    /// A flag by any of its spellings (name, alias, negated form).
    pub fn flag(&self, name: &str) -> Option<&Flag> {
        self.index().flags.get(name).map(|i| &self.flags[*i])
    }

    /// A flag by an env key its source declares.
    pub fn flag_by_env(&self, key: &str) -> Option<&Flag> {
        self.index().env.get(key).map(|i| &self.flags[*i])
    }

    pub fn metric(&self, name: &str) -> Option<&Metric> {
        self.index().metrics.get(name).map(|i| &self.metrics[*i])
    }

    /// A new catalogue (the index starts empty).
    pub fn new(source: Provenance, flags: Vec<Flag>, metrics: Vec<Metric>) -> Catalog {
        Catalog { schema: SCHEMA_VERSION, source, flags, metrics, env_keys: Vec::new(), index: IndexCell::default() }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A catalogue says the oldest schema that holds what it holds, so that
    /// an older knobs refuses one with facts it cannot read by its schema,
    /// not by an unknown field.
    #[test]
    fn the_schema_is_the_oldest_that_holds_the_facts() {
        let source = Provenance {
            engine: "e".into(),
            repo: "r".into(),
            tag: "v1".into(),
            commit: "c".into(),
            knobs_version: "0".into(),
        };
        let metric = |successor: Option<&str>| Metric {
            name: "e:m".into(),
            kind: MetricType::Gauge,
            location: "m.py:1".into(),
            successor: successor.map(str::to_string),
            ..Metric::default()
        };
        let mut plain = Catalog::new(source.clone(), Vec::new(), vec![metric(None)]);
        plain.normalise();
        assert_eq!(plain.schema, 2);
        let mut newer = Catalog::new(source.clone(), Vec::new(), vec![metric(Some("e:n"))]);
        newer.normalise();
        assert_eq!(newer.schema, 4);
        let bare = Metric { unlabelled: true, ..metric(None) };
        let mut newest = Catalog::new(source, Vec::new(), vec![bare]);
        newest.normalise();
        assert_eq!(newest.schema, 5);
        assert_eq!(SCHEMA_VERSION, 5);
    }
}
