//! The knobs a verification is about: `--knob` names resolved against the
//! pinned build before anything is read (a typo is the user's to fix first),
//! and each one judged once argv and scrapes are in. A name may be a flag,
//! an env key (a key the project's serve scripts read is looked up in them),
//! or a flag of another catalogued version only; a metric named where a knob
//! is wanted says which knobs it meters.

use crate::catalog::model::Catalog;
use crate::catalog::pinned::Pinned;
use crate::catalog::semantics::Semantics;
use crate::explain::{self, Project};

use super::argv::ArgvReport;
use super::meters::{self, KnobVerdict, Scrapes, Status};

/// A knob named on the command line: its flag, and the tag of the other
/// version that has it when the pinned build does not.
pub struct Named {
    pub flag: String,
    pub elsewhere: Option<String>,
}

/// A `--knob` that names no knob.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum KnobError {
    #[error("`{name}` is a metric, not a knob: {which}")]
    #[diagnostic(
        code(knobs::verify::knob),
        help("name the knob: `--knob FLAG`; its meters are read from the overlay")
    )]
    Metric { name: String, which: String },
    #[error(transparent)]
    #[diagnostic(transparent)]
    Unknown(#[from] explain::Unknown),
}

/// True when a name may be an env key of the project's own (upper case):
/// only then are its serve scripts read.
pub fn needs_project(knobs: &[String]) -> bool {
    knobs.iter().any(|k| k.chars().any(|c| c.is_ascii_uppercase()))
}

/// Resolves every `--knob`, once each, in the order given.
pub fn resolve(knobs: &[String], pinned: &Pinned<'_>, project: &Project) -> Result<Vec<Named>, KnobError> {
    let (catalog, profile) = (pinned.catalog, pinned.profile);
    let mut named: Vec<Named> = Vec::new();
    for k in knobs {
        let Some((f, from)) = explain::resolve_flag(k, catalog, pinned.all, profile, project) else {
            // A meter named where a knob is wanted: say which knobs it meters.
            if let Some(m) = crate::catalog::query::find_metric(catalog, k) {
                let knobs: Vec<String> =
                    pinned.semantics.metered_by(&m.name).iter().map(|f| format!("`{f}`")).collect();
                let which = if knobs.is_empty() {
                    "the overlay names no knob it meters".to_string()
                } else {
                    format!("it is the meter of {}", knobs.join(", "))
                };
                return Err(KnobError::Metric { name: k.clone(), which });
            }
            return Err(explain::unknown_subject(k, catalog, profile).into());
        };
        // A flag only another catalogued version has.
        let elsewhere = (!std::ptr::eq(from, catalog)).then(|| from.source.tag.clone());
        if !named.iter().any(|n| n.flag == f.name) {
            named.push(Named { flag: f.name.clone(), elsewhere });
        }
    }
    Ok(named)
}

/// Judges each named knob: a flag of another version is invalid here; the
/// others by their argv and the overlay's meters the build registers.
pub fn judge(
    named: &[Named],
    argv: &ArgvReport,
    scrapes: Scrapes<'_>,
    catalog: &Catalog,
    sem: &Semantics,
    label: &str,
) -> Vec<KnobVerdict> {
    let build = format!("{} {}", catalog.source.engine, catalog.source.tag);
    named
        .iter()
        .map(|n| match &n.elsewhere {
            Some(tag) => KnobVerdict {
                flag: n.flag.clone(),
                status: Status::Invalid,
                value: None,
                default: None,
                meters: Vec::new(),
                why: format!("`{}` is not a flag of {build} (it is a flag of {} {tag})", n.flag, catalog.source.engine),
                left_out: None,
            },
            None => {
                let meters = sem.flag.get(&n.flag).map(|s| s.meters.clone()).unwrap_or_default();
                meters::judge(&n.flag, &meters, argv, scrapes, catalog, label)
            }
        })
        .collect()
}
