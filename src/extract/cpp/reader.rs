//! The C++ reader behind the language seam: the files of a tag the profile's
//! `[extract]` names (the option table, its headers and validators; the
//! folders metrics are registered in), read from the pinned tree and handed
//! to the flag and metric pipelines. Flags and metrics are read apart, so
//! a history extracts each distinct set of either once.

use std::collections::BTreeMap;

use crate::catalog::model::{Flag, Metric};
use crate::catalog::profile::ExtractSpec;
use crate::extract::lang::{At, Extracted, Inputs, LanguageReader, Readings};
use crate::extract::BuildError;
use crate::source::{PinnedTree, SourceError};

use super::{extract, extract_metrics, ExtractError, SourceFile, Sources};

/// The reader of C++ sources (tree-sitter-cpp).
pub struct CppReader;

impl LanguageReader for CppReader {
    fn readings(&self, spec: &ExtractSpec) -> Readings {
        let flags = Inputs {
            label: "",
            required: spec.config.clone(),
            optional: spec.headers.iter().chain(&spec.validators).cloned().collect(),
        };
        // No metric folder named: the whole tree is walked.
        let metric_paths = if spec.metrics.is_empty() { vec![String::new()] } else { spec.metrics.clone() };
        let metrics = Inputs { label: "", required: Vec::new(), optional: metric_paths };
        Readings::Apart { flags, metrics }
    }

    fn read(&self, at: &At<'_>) -> Result<Extracted, BuildError> {
        let flag_files = FlagFiles::read(at.tree, at.spec)?;
        let metric_files = MetricFiles::read(at.tree, at.spec, at.prefixes)?;
        // Flags and metrics are read from the sources side by side.
        let (flags, metrics) = rayon::join(|| flag_files.extract(at.queries), || metric_files.extract(at.prefixes));
        let (flags, mut warnings) = flags?;
        let (metrics, metric_warnings) = metrics?;
        warnings.extend(metric_warnings);
        Ok(Extracted { flags, env_keys: Vec::new(), metrics, warnings })
    }

    fn read_flags(&self, at: &At<'_>) -> Result<(Vec<Flag>, Vec<String>), BuildError> {
        Ok(FlagFiles::read(at.tree, at.spec)?.extract(at.queries)?)
    }

    fn read_metrics(&self, at: &At<'_>) -> Result<(Vec<Metric>, Vec<String>), BuildError> {
        Ok(MetricFiles::read(at.tree, at.spec, at.prefixes)?.extract(at.prefixes)?)
    }
}

/// The files flags are read from: the config files `spec` names (each
/// required), its headers and validators (when there).
struct FlagFiles {
    config: Vec<SourceFile>,
    headers: Vec<SourceFile>,
    validators: Vec<SourceFile>,
    /// Config files that are one binary's own parser, with its scope.
    scoped: BTreeMap<String, String>,
}

impl FlagFiles {
    fn read(tree: &PinnedTree, spec: &ExtractSpec) -> Result<FlagFiles, SourceError> {
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
    fn extract(&self, queries: &[String]) -> Result<(Vec<Flag>, Vec<String>), ExtractError> {
        let scoped = (!self.scoped.is_empty()).then_some(&self.scoped);
        let sources =
            Sources { config: &self.config, headers: &self.headers, validators: &self.validators, queries, scoped };
        let (flags, warnings) = extract(&sources)?;
        Ok((flags, warnings.iter().map(|w| w.to_string()).collect()))
    }
}

/// The C++ files metrics are read from (those under the paths `spec`
/// names that mention a prefix), and the walk's notes.
struct MetricFiles {
    files: Vec<SourceFile>,
    notes: Vec<String>,
}

impl MetricFiles {
    fn read(tree: &PinnedTree, spec: &ExtractSpec, prefixes: &[String]) -> Result<MetricFiles, SourceError> {
        // Only the files that name a metric prefix are kept in memory.
        let found = tree.cpp_sources(&spec.metrics, &|text| super::metrics::mentions_metric(text, prefixes))?;
        let files = found.files.into_iter().map(|(path, text)| SourceFile::new(path, text)).collect();
        Ok(MetricFiles { files, notes: found.notes })
    }

    /// The metrics registered under `prefixes`, and the warnings (the
    /// walk's notes last).
    fn extract(&self, prefixes: &[String]) -> Result<(Vec<Metric>, Vec<String>), ExtractError> {
        let (metrics, warnings) = extract_metrics(&self.files, prefixes)?;
        let mut warnings: Vec<String> = warnings.iter().map(|w| w.to_string()).collect();
        warnings.extend(self.notes.iter().cloned());
        Ok((metrics, warnings))
    }
}
