//! `knobs explain SUBJECT`: everything the catalogue and the overlay know
//! about a flag (by name or env key), a metric, or a rule.
//!
//! Reading is split from resolving and printing: [`project`] reads the
//! project's serve scripts (the env keys they read, from an explicit root);
//! this module resolves a subject to a [`Topic`] or an [`Unknown`] with its
//! nearest names; [`flag`] and [`metric`] build what is known of a flag or a
//! metric, [`history`] how it changed across versions; [`render`] prints
//! them, and [`listing`] prints `knobs flags` and `knobs rules`.
//! Nothing here names an engine: flags and metrics come from the catalogue,
//! what they do from the overlay, env keys and prefixes from the profile.

mod flag;
mod history;
pub(crate) mod listing;
mod metric;
pub(crate) mod project;
mod render;

pub use flag::{resolve_flag, FlagExplain, Meter};
pub use history::Version;
pub use metric::MetricExplain;
pub use project::Project;
pub use render::{human, json, markdown};

use crate::catalog::model::Catalog;
use crate::catalog::profile::Profile;
use crate::catalog::query::{env_key_for, find_metric};
use crate::catalog::semantics::Semantics;
use crate::lint::rules::{self, Rule};

/// The build a topic is explained for: `radiance v1.8.1`; the same with
/// where it came from (`radiance v1.8.1 from R`), which the notes about the
/// overlay name; and, for an embedded catalogue used beside catalogues
/// synced from another repository, the sentence that marks it.
#[derive(Debug, Clone, Default)]
pub struct Build {
    pub name: String,
    pub label: String,
    pub mark: Option<String>,
}

/// What a subject resolved to.
pub enum Topic {
    Flag(Box<FlagExplain>),
    Metric(Box<MetricExplain>),
    Rule(&'static Rule),
}

/// A subject knobs does not know, with its nearest names.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("`{subject}` is not a flag, env key, metric or rule of {build}")]
#[diagnostic(code(knobs::explain::unknown))]
pub struct Unknown {
    pub subject: String,
    pub build: String,
    #[help]
    pub help: Option<String>,
}

/// Resolves and explains a subject against `catalog` (the pinned build),
/// with `all` the engine's catalogued versions, oldest first.
pub fn explain(
    subject: &str,
    catalog: &Catalog,
    all: &[Catalog],
    sem: &Semantics,
    profile: &Profile,
    project: &Project,
    build: &Build,
) -> Result<Topic, Unknown> {
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
    match resolve_flag(subject, catalog, all, profile, project) {
        Some((flag, from)) => {
            let mut e = flag::explain_flag(flag, from, catalog, all, sem, profile, build);
            // The rollback names the key the project's scripts really read.
            flag::read_by(&mut e, project);
            Ok(Topic::Flag(Box::new(e)))
        }
        None => Err(unknown(subject, catalog, profile, &build.name)),
    }
}

/// The error for a subject that names nothing, with its nearest names.
pub fn unknown_subject(subject: &str, catalog: &Catalog, profile: &Profile) -> Unknown {
    let build = format!("{} {}", catalog.source.engine, catalog.source.tag);
    unknown(subject, catalog, profile, &build)
}

/// The error for `subject`: the name a metric is exported as under the
/// other prefix, else up to three nearest flags, env keys, metrics and rules.
fn unknown(subject: &str, catalog: &Catalog, profile: &Profile, build: &str) -> Unknown {
    let mut names: Vec<String> = Vec::new();
    for f in &catalog.flags {
        names.push(f.name.clone());
        names.push(f.name.trim_start_matches('-').to_string());
        names.extend(env_key_for(f, profile));
    }
    names.extend(catalog.metrics.iter().map(|m| m.name.clone()));
    // Metric names without their prefix, for a subject written without one.
    for m in &catalog.metrics {
        if let Some(p) = profile.metrics.prefixes.iter().find(|p| m.name.starts_with(p.as_str())) {
            names.push(m.name[p.len()..].to_string());
        }
    }
    for r in rules::RULES {
        names.push(r.code.to_string());
        names.push(r.name.to_string());
    }
    let near = crate::suggest::ranked(subject, names.iter().map(String::as_str), 3.max(subject.len() / 4));
    let mut help: Option<String> = None;
    if let Some(right) = profile.paired_name(subject).filter(|o| find_metric(catalog, o).is_some()) {
        let why = profile.metrics.pair_hint.as_deref().map(|h| format!(": {h}")).unwrap_or_default();
        help = Some(format!("it is exported as `{right}`{why}"));
    } else if !near.is_empty() {
        let near: Vec<String> = near.iter().take(3).map(|n| format!("`{n}`")).collect();
        help = Some(format!("did you mean {}?", near.join(", ")));
    }
    let help = help.or_else(|| Some("`knobs flags` lists the flags; `knobs explain KNB001` explains a rule".into()));
    Unknown { subject: subject.to_string(), build: build.to_string(), help }
}
