//! A catalogue from a pinned tree: the files the engine's profile names, read
//! at the tag, through the flag and metric extractors, with the tree's
//! provenance. This is what `knobs sync` writes; the command only chooses
//! the tree and where the file goes.

use crate::catalog::model::{Catalog, Flag, Metric, Provenance};
use crate::catalog::profile::{ExtractSpec, Language, Profile};
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
    let prefixes = &profile.metrics.prefixes;
    let (flag_files, metric_files) = (FlagFiles::read(tree, spec)?, MetricFiles::read(tree, spec, prefixes)?);
    // Flags and metrics are read from the sources side by side.
    let (flags, metrics) = rayon::join(|| flag_files.extract(queries), || metric_files.extract(prefixes));
    let (flags, mut warnings) = flags?;
    let (metrics, metric_warnings) = metrics?;
    warnings.extend(metric_warnings);
    let mut catalog = Catalog::new(provenance(tree, profile), flags, metrics);
    catalog.normalise();
    Ok(Built { catalog, warnings })
}

/// The catalogue of a Python engine: its `.py` files read at the tag.
pub fn python_catalogue(tree: &PinnedTree, profile: &Profile) -> Result<Built, BuildError> {
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

/// The files flags are read from: the config files `spec` names (each
/// required), its headers and validators (when there).
pub struct FlagFiles {
    config: Vec<SourceFile>,
    headers: Vec<SourceFile>,
    validators: Vec<SourceFile>,
    /// Config files that are one binary's own parser, with its scope.
    scoped: std::collections::BTreeMap<String, String>,
}

impl FlagFiles {
    pub fn read(tree: &PinnedTree, spec: &ExtractSpec) -> Result<FlagFiles, SourceError> {
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
        Ok(FlagFiles {
            config,
            headers: optional(&spec.headers)?,
            validators: optional(&spec.validators)?,
            scoped: spec.scoped.clone(),
        })
    }

    /// The flags they declare, with the user's `queries`, and the warnings.
    pub fn extract(&self, queries: &[String]) -> Result<(Vec<Flag>, Vec<String>), ExtractError> {
        let scoped = (!self.scoped.is_empty()).then_some(&self.scoped);
        let sources =
            Sources { config: &self.config, headers: &self.headers, validators: &self.validators, queries, scoped };
        let (flags, warnings) = extract(&sources)?;
        Ok((flags, warnings.iter().map(|w| w.to_string()).collect()))
    }
}

/// The C++ files metrics are read from (those under the paths `spec`
/// names that mention a prefix), and the walk's notes.
pub struct MetricFiles {
    files: Vec<SourceFile>,
    notes: Vec<String>,
}

impl MetricFiles {
    pub fn read(tree: &PinnedTree, spec: &ExtractSpec, prefixes: &[String]) -> Result<MetricFiles, SourceError> {
        // Only the files that name a metric prefix are kept in memory.
        let found = tree.cpp_sources(&spec.metrics, &|text| super::metrics::mentions_metric(text, prefixes))?;
        let files = found.files.into_iter().map(|(path, text)| SourceFile::new(path, text)).collect();
        Ok(MetricFiles { files, notes: found.notes })
    }

    /// The metrics registered under `prefixes`, and the warnings (the
    /// walk's notes last).
    pub fn extract(&self, prefixes: &[String]) -> Result<(Vec<Metric>, Vec<String>), ExtractError> {
        let (metrics, warnings) = extract_metrics(&self.files, prefixes)?;
        let mut warnings: Vec<String> = warnings.iter().map(|w| w.to_string()).collect();
        warnings.extend(self.notes.iter().cloned());
        Ok((metrics, warnings))
    }
}
