//! A catalogue from a pinned tree: the files the engine's profile names, read
//! at the tag, through the flag and metric extractors, with the tree's
//! provenance. This is what `knobs sync` writes; the command only chooses
//! the tree and where the file goes.

use crate::catalog::model::{Catalog, Provenance};
use crate::catalog::profile::{Language, Profile};
use crate::source::{PinnedTree, SourceError};

use super::{extract, extract_metrics, ExtractError, SourceFile, Sources};

/// A catalogue and what the extraction warns of (one line each).
pub struct Built {
    pub catalog: Catalog,
    pub warnings: Vec<String>,
}

/// Why no catalogue could be built: the tree could not be read, or nothing in
/// it reads as a flag declaration.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum BuildError {
    #[error(transparent)]
    #[diagnostic(transparent)]
    Source(#[from] SourceError),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Extract(#[from] ExtractError),
}

/// Extracts the catalogue of `tree` as `profile` says, with the user's
/// `queries` beside the built-in shapes.
pub fn catalogue(tree: &PinnedTree, profile: &Profile, queries: &[String]) -> Result<Built, BuildError> {
    let spec = profile.extract_for(&tree.tag);
    if spec.language == Language::Python {
        return python_catalogue(tree, profile);
    }
    let mut config = Vec::new();
    for path in &spec.config {
        config.push(SourceFile::new(path.clone(), tree.require(path)?));
    }
    let optional = |paths: &[String]| -> Result<Vec<SourceFile>, SourceError> {
        let mut out = Vec::new();
        for p in paths {
            if let Some(text) = tree.read(p)? {
                out.push(SourceFile::new(p.clone(), text));
            }
        }
        Ok(out)
    };
    let headers = optional(&spec.headers)?;
    let validators = optional(&spec.validators)?;
    let scoped = (!spec.scoped.is_empty()).then_some(&spec.scoped);
    let sources = Sources { config: &config, headers: &headers, validators: &validators, queries, scoped };
    // Only the files that name a metric prefix are kept in memory.
    let prefixes = &profile.metrics.prefixes;
    let found = tree.cpp_sources(&spec.metrics, &|text| super::metrics::mentions_metric(text, prefixes))?;
    let files: Vec<SourceFile> = found.files.into_iter().map(|(path, text)| SourceFile::new(path, text)).collect();
    // Flags and metrics are read from the sources side by side.
    let (flags, metrics) = rayon::join(|| extract(&sources), || extract_metrics(&files, prefixes));
    let (flags, flag_warnings) = flags?;
    let (metrics, metric_warnings) = metrics?;
    let mut warnings: Vec<String> = flag_warnings.iter().chain(&metric_warnings).map(|w| w.to_string()).collect();
    warnings.extend(found.notes);
    let mut catalog = Catalog::new(
        Provenance {
            engine: profile.name.clone(),
            repo: tree.origin.clone(),
            tag: tree.tag.clone(),
            commit: tree.commit.clone(),
            knobs_version: env!("CARGO_PKG_VERSION").to_string(),
        },
        flags,
        metrics,
    );
    catalog.normalise();
    Ok(Built { catalog, warnings })
}

/// The catalogue of a Python engine: its `.py` files read at the tag.
fn python_catalogue(tree: &PinnedTree, profile: &Profile) -> Result<Built, BuildError> {
    use crate::source::{Limits, PYTHON};
    let spec = profile.extract_for(&tree.tag);
    let found = tree.sources_within(&PYTHON, &super::python::paths(spec), &|_| true, Limits::default())?;
    let parts = super::python::extract(found.files, spec, &profile.metrics.prefixes)?;
    let mut warnings = parts.warnings;
    warnings.extend(found.notes);
    let mut catalog = Catalog::new(provenance(tree, profile), parts.flags, parts.metrics);
    catalog.env_keys = parts.env_keys;
    catalog.normalise();
    Ok(Built { catalog, warnings })
}

fn provenance(tree: &PinnedTree, profile: &Profile) -> Provenance {
    Provenance {
        engine: profile.name.clone(),
        repo: tree.origin.clone(),
        tag: tree.tag.clone(),
        commit: tree.commit.clone(),
        knobs_version: env!("CARGO_PKG_VERSION").to_string(),
    }
}
