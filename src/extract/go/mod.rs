//! The Go reader behind the language seam (tree-sitter-go): env keys,
//! flags and Prometheus metrics.
//!
//! What is read is the profile's: `[extract] sources` are the engine's env
//! configuration package (every key its readers are called with is kept),
//! `[extract.env] scan` the folders searched for the same reader calls
//! (only keys with one of `[extract.env] prefixes` are kept there: a
//! program reads `HOME` too), `[extract.go] flags` the folders whose
//! `flag`/pflag/cobra declarations are read, `[extract] metrics` the
//! folders read for Prometheus registrations (none: every file naming one
//! of `[metrics] prefixes`). `env.rs` reads env keys, `flags.rs` flags,
//! `metrics.rs` metrics, `tree.rs` is the grammar's seam. A `_test.go` file is
//! never read: the engine does not run it.

mod env;
mod flags;
mod metrics;
mod tree;

use crate::catalog::profile::ExtractSpec;
use crate::extract::lang::{At, Extracted, Inputs, LanguageReader, Readings};
use crate::extract::{BuildError, ExtractError};
use crate::source::{Limits, Wanted};

use env::{Keys, Reading};
use tree::GoFile;

/// The Go files a Go engine's catalogue is read from.
const GO: Wanted = Wanted { extensions: &[".go"], noun: "Go", purpose: "the catalogue" };

/// The reader of Go sources.
pub struct GoReader;

impl LanguageReader for GoReader {
    fn readings(&self, spec: &ExtractSpec) -> Readings {
        Readings::Whole(Inputs { label: "go", required: Vec::new(), optional: paths(spec) })
    }

    fn read(&self, at: &At<'_>) -> Result<Extracted, BuildError> {
        let spec = at.spec;
        let mut out = Extracted::default();
        let env = spec.env.clone().unwrap_or_default();
        let mut keys = Keys::default();
        let all = |_: &str| true;
        let sources = files(at, &spec.sources, &all, &mut out.warnings)?;
        for f in &sources {
            keys.read(f, &Reading { go: &spec.go, readers: &env.readers, prefixes: &[] });
        }
        if !env.scan.is_empty() {
            let mentions = |t: &str| env.prefixes.is_empty() || env.prefixes.iter().any(|p| t.contains(p.as_str()));
            for f in files(at, &env.scan, &mentions, &mut out.warnings)? {
                if !sources.iter().any(|s| s.path == f.path) {
                    keys.read(&f, &Reading { go: &spec.go, readers: &env.readers, prefixes: &env.prefixes });
                }
            }
        }
        out.env_keys = keys.into_keys();
        if !spec.go.flags.is_empty() {
            let mut declared = Vec::new();
            for f in files(at, &spec.go.flags, &all, &mut out.warnings)? {
                flags::flags(&f, &mut declared);
            }
            out.flags = flags::merge(declared);
        }
        // Metrics: the `[extract] metrics` folders, else (when the engine
        // has metric prefixes) every file that names one.
        let mention = |t: &str| at.prefixes.iter().any(|p| t.contains(p.as_str()));
        let metric_files = match (spec.metrics.is_empty(), at.prefixes.is_empty()) {
            (false, _) => files(at, &spec.metrics, &all, &mut out.warnings)?,
            (true, false) => files(at, &[String::new()], &mention, &mut out.warnings)?,
            (true, true) => Vec::new(),
        };
        for f in &metric_files {
            metrics::metrics(f, at.prefixes, &mut out.metrics);
        }
        if out.env_keys.is_empty() && out.flags.is_empty() && out.metrics.is_empty() {
            let all = paths(spec);
            let shown = if all.iter().any(|p| p.trim_matches('/').is_empty()) {
                "the whole tree".to_string()
            } else {
                all.join(", ")
            };
            return Err(ExtractError::NothingRead { language: "Go".into(), paths: shown }.into());
        }
        Ok(out)
    }
}

/// The `.go` files (tests left out) at or below `under` whose text `keep`
/// accepts, parsed; `""` is the whole tree. A folder the tag lacks is
/// passed over (the engine moved its package between eras).
fn files(
    at: &At<'_>,
    under: &[String],
    keep: &dyn Fn(&str) -> bool,
    warnings: &mut Vec<String>,
) -> Result<Vec<GoFile>, BuildError> {
    let whole = under.iter().any(|u| u.trim_matches('/').is_empty());
    let under: Vec<String> = if whole { Vec::new() } else { under.to_vec() };
    let found = at.tree.sources_within(&GO, &under, keep, Limits::default())?;
    warnings.extend(found.notes);
    let mut out = Vec::new();
    for (path, text) in found.files.into_iter().filter(|(p, _)| !p.ends_with("_test.go")) {
        out.push(GoFile::parse(&path, text)?);
    }
    Ok(out)
}

/// Every path a reading depends on: the sources, the scanned folders, the
/// flag and metric folders.
fn paths(spec: &ExtractSpec) -> Vec<String> {
    let env = spec.env.iter().flat_map(|e| e.scan.iter());
    let mut out: Vec<String> =
        spec.sources.iter().chain(env).chain(&spec.go.flags).chain(&spec.metrics).cloned().collect();
    out.dedup();
    out
}
