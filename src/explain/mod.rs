//! `knobs explain SUBJECT`: everything the catalogue and the overlay know
//! about a flag (by name or env key), an engine-wide env key, a metric, or
//! a rule.
//!
//! Reading is split from resolving and printing: [`project`] reads the
//! project's serve scripts (the env keys they read, from an explicit root);
//! this module resolves a subject to a [`Topic`], and [`unknown`] one it
//! cannot to an [`Unknown`] with its nearest names; [`flag`], [`env_key`]
//! and [`metric`] build what is known of a flag, an engine-wide env key or a
//! metric, [`history`] how it changed
//! across versions; [`render`] prints them, [`changes`] prints a flag's
//! every change (`--history`), and [`listing`] prints `knobs flags` and
//! `knobs rules`.
//! Nothing here names an engine: flags and metrics come from the catalogue,
//! what they do from the overlay, env keys and prefixes from the profile.

pub(crate) mod changes;
mod env_key;
mod flag;
mod history;
pub(crate) mod listing;
mod metric;
pub(crate) mod project;
mod render;
mod unknown;

pub use env_key::EnvKeyExplain;
pub use flag::{resolve_flag, FlagExplain, Meter, ShapeRun};
pub use history::Version;
pub use metric::MetricExplain;
pub use project::Project;
pub use render::{human, json, markdown};
pub use unknown::{unknown_subject, Unknown};

use crate::catalog::pinned::Pinned;
use crate::catalog::query::find_metric;
use crate::lint::rules::{self, Rule};
use unknown::unknown;

/// The build a topic is explained for: `radiance v1.8.1`; the same with
/// where it came from (`radiance v1.8.1 from R`), which the notes about the
/// overlay name; and, for an embedded catalogue used beside catalogues
/// synced from another repository, the sentence that marks it.
#[derive(Debug, Clone, Default)]
pub struct Build {
    pub name: String,
    pub label: String,
    pub mark: Option<String>,
    /// True when the build comes from a history of facts only (the one
    /// embedded in knobs): its help texts are not there.
    pub facts_only: bool,
}

impl Build {
    /// The pinned build as explain names it.
    pub fn of(pinned: &Pinned<'_>) -> Build {
        Build { name: pinned.name(), label: pinned.label(), mark: pinned.mark(), facts_only: pinned.facts_only() }
    }
}

/// What explain says for a help text that a history of facts only left out.
pub const NO_HELP: &str = "not in this history, which holds facts only: run `knobs sync --tag TAG` for help texts";

/// What a subject resolved to.
pub enum Topic {
    Flag(Box<FlagExplain>),
    Metric(Box<MetricExplain>),
    EnvKey(Box<EnvKeyExplain>),
    Rule(&'static Rule),
}

/// Resolves and explains a subject against the pinned build (with every
/// version read beside it, and its history when there is one: a flag's
/// spans and changes).
pub fn explain(subject: &str, pinned: &Pinned<'_>, project: &Project) -> Result<Topic, Unknown> {
    let (catalog, all, history, sem, profile) =
        (pinned.catalog, pinned.all, pinned.history(), pinned.semantics, pinned.profile);
    let build = &Build::of(pinned);
    if let Some(rule) = rules::find(subject) {
        return Ok(Topic::Rule(rule));
    }
    if profile.is_metric_name(subject) {
        return metric::explain_metric(subject, catalog, all, sem, profile, build).map(|m| Topic::Metric(Box::new(m)));
    }
    // A metric written without its prefix (`engine_steps_held_total`).
    let prefixed = profile
        .metrics
        .prefixes
        .iter()
        .map(|p| format!("{p}{subject}"))
        .find(|name| find_metric(catalog, name).is_some() || all.iter().any(|c| find_metric(c, name).is_some()));
    if let Some(name) = prefixed {
        return metric::explain_metric(&name, catalog, all, sem, profile, build).map(|m| Topic::Metric(Box::new(m)));
    }
    let found = resolve_flag(subject, catalog, all, profile, project)
        .or_else(|| history.and_then(|h| flag::resolve_in_history(subject, h, profile)));
    match found {
        Some((flag, from)) => {
            let mut e = flag::explain_flag(flag, from, catalog, all, sem, profile, build);
            // The rollback names the key the project's scripts really read.
            flag::read_by(&mut e, project);
            if let Some(h) = history {
                flag::with_history(&mut e, h);
            }
            Ok(Topic::Flag(Box::new(e)))
        }
        // A key the engine reads itself, not a flag's (`OLLAMA_KEEP_ALIVE`).
        None => match env_key::explain_env_key(subject, catalog, all, build) {
            Some(e) => Ok(Topic::EnvKey(Box::new(e))),
            None => Err(unknown(subject, catalog, profile, &build.name)),
        },
    }
}
