//! Scanners: one per file type. Each reads a file and reports references
//! (flags, env knobs, metrics), suppression comments and image pins. None of
//! them judges anything — that is the rules' work. What they know of the
//! engine (its commands, images, metric prefixes, how its argv reads) comes
//! from its profile through [`ScanCtx`].
//!
//! Beside the scanners, the pieces several of them share: the profile
//! compiled into matchers (`engine_matcher`), how a command line runs the
//! engine (`invocation`), the words of an argv written in a structured file
//! (`items`) and their judging (`argv`), the image/command/env shape of a
//! container (`container`), `\`-continued lines (`continuation`), and the
//! text of another script language rewritten as shell, places kept
//! (`rewrite`); a YAML file of the engine's options (`options`); a Helm
//! template read as the YAML it renders to (`template`); for monitoring
//! files, JSON's strings (`json`), a text held in a YAML scalar
//! (`nested`), a dashboard's query made PromQL (`grafana`) and read
//! (`queries`).

pub mod actions;
mod argv;
pub mod batch;
pub mod code;
pub mod compose;
mod container;
mod continuation;
pub mod dashboards;
pub mod dockerfile;
mod engine_matcher;
pub mod env;
mod grafana;
pub mod helm;
pub mod helm_template;
mod invocation;
mod items;
mod json;
pub mod kubernetes;
pub mod llama_swap;
pub mod makefile;
pub mod markdown;
pub mod metrics;
pub mod monitoring;
mod nested;
pub mod options;
pub mod powershell;
pub mod procfile;
pub mod prom_rules;
pub mod promql;
pub mod quadlet;
mod queries;
mod rewrite;
pub mod shell;
pub mod systemd;
pub mod template;
pub mod unit;
mod words;
mod wrappers;
pub mod yaml;

pub use self::engine_matcher::EngineMatcher;
use super::pairing::ArgvRules;
use super::refs::Ref;
use super::span::Span;
use super::suppress::Suppression;

/// What the lint needs to know about the engine while scanning.
pub struct ScanCtx<'a> {
    pub commands: &'a EngineMatcher,
    /// How many value words a known flag takes; `None` for an unknown one.
    pub takes_value: &'a dyn Fn(&str) -> Option<usize>,
    pub argv: ArgvRules,
    /// Finds metric names in text.
    pub metrics: &'a metrics::Matcher,
    /// How the engine reads its environment (its own prefix, aliases).
    pub env: &'a crate::catalog::profile::EnvSpec,
}

/// Everything a scanner found in one file.
#[derive(Debug, Default, Clone)]
pub struct Scan {
    pub refs: Vec<Ref>,
    pub suppressions: Vec<Suppression>,
    /// Engine versions pinned by image references (`…/radiance:1.0.13`).
    pub pins: Vec<(String, Span)>,
    /// Env variables a serve script passes to a flag: (variable, flag).
    pub env_flags: Vec<(String, String)>,
    /// Env variables a serve script expands unquoted into the engine's argv
    /// without setting them (`radiance $RADIANCE_ARGS`), with the binary.
    pub env_argv: Vec<(String, Option<std::sync::Arc<super::refs::Binary>>)>,
    /// Things the user should know about this file that are not findings.
    pub notes: Vec<String>,
    /// Parts of a file that pin their own version (a compose service, a
    /// Kubernetes container): the refs they hold (indexes into `refs`) and
    /// their pin.
    pub sections: Vec<Section>,
    /// Files a unit names with `EnvironmentFile=`, as written.
    pub env_files: Vec<String>,
    /// The distinct PromQL regex matchers read in this file so far (each
    /// is compiled, twice): at most `promql::MAX_REGEX_MATCHERS`.
    pub regex_matchers: Vec<String>,
    /// True once a query was passed over for the budget (and said so).
    pub regex_budget_spent: bool,
    /// What the file's neighbours said, when it was scanned with them.
    pub around: Option<std::sync::Arc<Around>>,
}

/// What a file's neighbours say about it (read by `lint::around`): the
/// values of the chart a template belongs to, the lists a chart's
/// templates expand as argv (for its values file), and the image each
/// compose service's `build:` starts from.
#[derive(Debug, Default, Clone)]
pub struct Around {
    pub values: Vec<yaml::Node>,
    pub bound: Vec<(String, template::Use)>,
    pub built: std::collections::HashMap<String, compose::Built>,
}

impl Around {
    pub fn is_empty(&self) -> bool {
        self.values.is_empty() && self.bound.is_empty() && self.built.is_empty()
    }
}

/// A part of a file with its own engine image: its refs are judged against
/// the version that image pins.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Section {
    pub refs: std::ops::Range<usize>,
    pub pin: Option<String>,
}

/// A scanning context for the default engine, for unit tests.
#[cfg(test)]
pub(crate) fn test_ctx<R>(f: impl FnOnce(&ScanCtx<'_>) -> R) -> R {
    let profile = crate::catalog::profile::builtin("radiance").expect("radiance");
    let commands = EngineMatcher::new(&profile, vec![]);
    let metrics = metrics::Matcher::new(&profile.metrics.prefixes);
    let tv = |_: &str| None;
    let ctx = ScanCtx {
        commands: &commands,
        takes_value: &tv,
        argv: ArgvRules { positionals: true, ..ArgvRules::default() },
        metrics: &metrics,
        env: &profile.env,
    };
    f(&ctx)
}

/// An env knob written in a deployment file: its key and value, each where
/// it stands. An empty value sets nothing to judge.
pub(crate) fn env_ref(
    key: &str,
    key_at: std::ops::Range<usize>,
    value: &str,
    value_at: std::ops::Range<usize>,
    span: &dyn Fn(usize, usize) -> Span,
) -> Ref {
    let value = (!value.is_empty()).then(|| super::refs::Value {
        text: Some(value.to_string()),
        span: span(value_at.start, value_at.end),
        var: None,
    });
    Ref::Env { key: key.to_string(), span: span(key_at.start, key_at.end), value }
}
