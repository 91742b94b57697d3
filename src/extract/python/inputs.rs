//! What a Python extraction reads at a tag: every path (the files and
//! folders that key a history's reading) and the ones whose files are
//! parsed rather than scanned for env keys.

use crate::catalog::profile::ExtractSpec;

/// Every path a Python extraction reads (files or folders).
pub fn paths(spec: &ExtractSpec) -> Vec<String> {
    let mut out: Vec<String> = spec.sources.clone();
    out.extend(spec.entries.iter().map(|e| e.file.clone()));
    out.extend(spec.env.iter().map(|e| e.file.clone()).filter(|f| !f.is_empty()));
    out.extend(spec.env.iter().flat_map(|e| e.scan.iter().cloned()));
    out.extend(spec.metrics.iter().cloned());
    out.sort();
    out.dedup();
    // A file inside a folder already listed is read with it.
    let folders: Vec<String> = out.iter().filter(|p| p.ends_with('/')).cloned().collect();
    out.retain(|p| !folders.iter().any(|f| p != f && p.starts_with(f.as_str())));
    out
}

/// The paths whose files are parsed (the rest of what is read is scanned
/// for env keys only).
pub(super) fn parsed_paths(spec: &ExtractSpec) -> Vec<String> {
    let mut out: Vec<String> = spec.sources.clone();
    out.extend(spec.entries.iter().map(|e| e.file.clone()));
    out.extend(spec.env.iter().map(|e| e.file.clone()).filter(|f| !f.is_empty()));
    out.extend(spec.metrics.iter().cloned());
    out
}
