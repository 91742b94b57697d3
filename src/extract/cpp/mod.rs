//! The C++ reader: C++ source in, catalogue entries out.
//!
//! This is the only part of knobs' extractor that knows tree-sitter-cpp;
//! `reader.rs` is its `LanguageReader` (which files of a tag it reads).
//! It does not assume one idiom for the help table: several strategies
//! each look for their own shape (table rows, builder calls, if-chains,
//! usage texts) and propose candidates; the candidates are merged by flag
//! name. Enum members come from the validator — the code that refuses a
//! value — never from help text alone.

mod accepts;
mod calls;
mod candidate;
mod chain;
mod chain_values;
mod code;
mod cst;
mod handler;
mod help_text;
mod infer;
mod metrics;
mod node_kind;
mod operator_chain;
mod owner;
mod parsed;
mod preprocess;
pub mod queries;
mod query_budget;
mod reader;
mod reject;
pub mod roles;
mod rows;
mod setters;
pub mod text;
mod usage;
mod validator;

use std::collections::BTreeMap;

use crate::catalog::model::{Flag, Metric};

use super::ExtractError;
use candidate::{merge, Candidate};
pub use parsed::Warning;
use parsed::{parse, parse_all, parse_warnings, Parsed};
pub use preprocess::SourceFile;
pub use reader::CppReader;

/// The files one extraction reads.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sources<'a> {
    /// The option table and its validator (at least one file).
    pub config: &'a [SourceFile],
    /// Read for struct definitions and field defaults only.
    pub headers: &'a [SourceFile],
    /// Files whose functions the option handlers call to validate values.
    pub validators: &'a [SourceFile],
    /// Tree-sitter queries (from `knobs.toml`) for shapes knobs does not know.
    pub queries: &'a [String],
    /// Config files that are one binary's own parser, by path, with its scope.
    pub scoped: Option<&'a BTreeMap<String, String>>,
}

/// Extracts the flags of `config` (the help table and validator); `companions`
/// (headers beside it) are read for struct definitions only.
pub fn extract_flags(
    config: &SourceFile,
    companions: &[SourceFile],
) -> Result<(Vec<Flag>, Vec<Warning>), ExtractError> {
    extract(&Sources { config: std::slice::from_ref(config), headers: companions, ..Sources::default() })
}

/// Extracts the flags the sources declare.
pub fn extract(src: &Sources<'_>) -> Result<(Vec<Flag>, Vec<Warning>), ExtractError> {
    use rayon::prelude::*;
    // Every file is parsed (and walked) once, all at the same time.
    let files: Vec<&SourceFile> = src.config.iter().chain(src.validators).chain(src.headers).collect();
    let trees = parse_all(&files);
    let configs = src.config.len();
    let code_files = configs + src.validators.len();
    let mut parsed = Vec::new();
    let mut headers = Vec::new();
    for (i, (f, tree)) in files.iter().zip(trees.iter()).enumerate() {
        match tree {
            Ok(t) if i < code_files => parsed.push((*f, t)),
            // A header that does not parse only lacks struct facts.
            Ok(t) => headers.push((*f, t)),
            Err(_) if i >= code_files => {}
            Err(_) => return Err(ExtractError::Parse { path: f.path.clone() }),
        }
    }
    let parsed: Vec<Parsed<'_>> = parsed.par_iter().map(|(f, t)| Parsed::new(f, t)).collect();
    let headers: Vec<Parsed<'_>> = headers.par_iter().map(|(f, t)| Parsed::new(f, t)).collect();
    let mut warnings: Vec<Warning> = parsed[..configs].iter().flat_map(parse_warnings).collect();
    let mut structs = std::collections::HashMap::new();
    let mut field_defaults = std::collections::HashMap::new();
    let mut field_types = std::collections::HashMap::new();
    let facts: Vec<_> = parsed[..configs]
        .par_iter()
        .chain(headers.par_iter())
        .map(|p| (rows::struct_fields(p), rows::field_defaults(p), rows::field_types(p)))
        .collect();
    for (fields, defaults, types) in facts {
        for (k, v) in fields {
            structs.entry(k).or_insert(v);
        }
        for (k, v) in defaults {
            field_defaults.entry(k).or_insert(v);
        }
        for (k, v) in types {
            field_types.entry(k).or_insert(v);
        }
    }
    let code = code::Code::new(&parsed);
    // The strategies read each file on their own: side by side.
    let found: Vec<Vec<Candidate>> = parsed[..configs]
        .par_iter()
        .enumerate()
        .map(|(i, p)| {
            let ((found, rows), (calls, (chain, usage))) = rayon::join(
                || (queries::candidates(p, src.queries), rows::candidates(p, &structs)),
                || {
                    rayon::join(
                        || calls::candidates(p, i, &code),
                        || rayon::join(|| chain::candidates(p), || usage::candidates(p)),
                    )
                },
            );
            let mut found = found?;
            found.extend(rows);
            found.extend(calls);
            found.extend(chain);
            found.extend(usage);
            // With a binary's own parser among the files, where an option
            // was read is its scope: that binary's, or (elsewhere) none.
            let scope = src.scoped.map(|s| s.get(&src.config[i].path));
            for c in &mut found {
                c.file = i;
                if let Some(scope) = scope {
                    c.scopes = scope.cloned().into_iter().collect();
                    c.scope_known = true;
                }
            }
            Ok(found)
        })
        .collect::<Result<_, ExtractError>>()?;
    let cands: Vec<Candidate> = found.into_iter().flatten().collect();
    let mut merged = merge(cands);
    for p in &parsed[..configs] {
        validator::attach_members(p, &mut merged, &mut warnings);
    }
    for c in merged.values_mut() {
        c.complete(&field_defaults, &field_types);
    }
    let mut flags: Vec<Flag> = merged.into_values().map(|c| infer::finish(c, &parsed[..configs])).collect();
    super::lang::name_successors(&mut flags);
    if flags.is_empty() {
        let path = src.config.iter().map(|c| c.path.as_str()).collect::<Vec<_>>().join(", ");
        return Err(ExtractError::NoFlags { path });
    }
    Ok((flags, warnings))
}

/// Extracts every metric registered in `files` under one of `prefixes`.
pub fn extract_metrics(files: &[SourceFile], prefixes: &[String]) -> Result<(Vec<Metric>, Vec<Warning>), ExtractError> {
    use crate::catalog::model::MetricType;
    let mut found: BTreeMap<String, Metric> = BTreeMap::new();
    let mut warnings = Vec::new();
    use rayon::prelude::*;
    // Only files that name a prefix are parsed; all of them at once.
    let named: Vec<&SourceFile> = files.iter().filter(|f| metrics::mentions_metric(&f.text, prefixes)).collect();
    let read: Vec<(Vec<Warning>, Vec<Metric>)> = named
        .par_iter()
        .map(|f| {
            let tree = parse(f)?;
            let p = Parsed::new(f, &tree);
            Ok((parse_warnings(&p), metrics::registrations(&p, prefixes)))
        })
        .collect::<Result<_, ExtractError>>()?;
    for (w, registered) in read {
        warnings.extend(w);
        for m in registered {
            match found.get_mut(&m.name) {
                // Several sightings of one name: the first typed one wins,
                // and labels, help found elsewhere are kept.
                Some(old) => {
                    if old.kind == MetricType::Untyped && m.kind != MetricType::Untyped {
                        old.kind = m.kind;
                        old.location = m.location;
                    }
                    if old.help.is_empty() {
                        old.help = m.help;
                    }
                    for l in m.labels {
                        if !old.labels.contains(&l) {
                            old.labels.push(l);
                        }
                    }
                }
                None => {
                    found.insert(m.name.clone(), m);
                }
            }
        }
    }
    Ok((found.into_values().collect(), warnings))
}
