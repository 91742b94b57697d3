//! A subject knobs does not know: the error, with the name a metric is
//! exported as under the other prefix or the nearest flags, env keys,
//! metrics and rules. Both the resolver and the metric builder end here.

use crate::catalog::model::Catalog;
use crate::catalog::profile::Profile;
use crate::catalog::query::{env_key_for, find_metric};
use crate::lint::rules;

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

/// The error for a subject that names nothing, with its nearest names.
pub fn unknown_subject(subject: &str, catalog: &Catalog, profile: &Profile) -> Unknown {
    let build = format!("{} {}", catalog.source.engine, catalog.source.tag);
    unknown(subject, catalog, profile, &build)
}

/// The error for `subject`: the name a metric is exported as under the
/// other prefix, else up to three nearest flags, env keys, metrics and rules.
pub(super) fn unknown(subject: &str, catalog: &Catalog, profile: &Profile, build: &str) -> Unknown {
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
