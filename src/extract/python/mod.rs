//! The Python extractor: an engine whose options are declared with
//! argparse (vLLM's shape) read with tree-sitter-python, never run. The
//! profile names the functions that build each binary's parser (its
//! scope), the dict of engine-wide env keys, and the files metrics are
//! registered in; everything the functions name is traced through the
//! files read. Only this folder knows tree-sitter-python.
//!
//! `tree.rs` is the grammar seam, `module.rs` the program (names across
//! modules), `value.rs` settles values, `annotation.rs` reads a field's
//! type as argparse kinds, `kwargs.rs` makes a flag of a call's kwargs,
//! `special.rs` the builder's field-name special cases, `parser_walk.rs`
//! walks the parser-building functions, `env.rs` the env dict
//! and `metrics.rs` the metric registrations; `reader.rs` is the
//! `LanguageReader`: which files of a tag are read.

mod annotation;
mod dict;
mod env;
mod kwargs;
mod metrics;
mod module;
mod parse;
mod parser_walk;
mod reader;
mod samples;
mod special;
mod tree;
mod value;

use std::collections::BTreeMap;

use crate::catalog::model::{Flag, Metric};
use crate::catalog::profile::ExtractSpec;

use super::lang::Extracted;
use super::ExtractError;
use module::Program;
use parser_walk::{Names, Walker};
pub use reader::PythonReader;

/// Every path a Python extraction reads (files or folders).
pub fn paths(spec: &ExtractSpec) -> Vec<String> {
    let mut out: Vec<String> = spec.sources.clone();
    out.extend(spec.entries.iter().map(|e| e.file.clone()));
    out.extend(spec.env.iter().map(|e| e.file.clone()));
    out.extend(spec.metrics.iter().cloned());
    out.sort();
    out.dedup();
    // A file inside a folder already listed is read with it.
    let folders: Vec<String> = out.iter().filter(|p| p.ends_with('/')).cloned().collect();
    out.retain(|p| !folders.iter().any(|f| p != f && p.starts_with(f.as_str())));
    out
}

/// The gates a registration may sit under: the profile's words, each with
/// the first of its flags this tag has, and the engine-wide env keys.
fn gates(spec: &ExtractSpec, read: &Extracted) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (word, flags) in &spec.python.shown_by {
        if let Some(flag) = flags.iter().find(|f| read.flags.iter().any(|g| g.name == **f)) {
            out.push((word.clone(), flag.clone()));
        }
    }
    out.extend(read.env_keys.iter().map(|k| (k.name.clone(), k.name.clone())));
    out
}

/// Reads `files` (path, text) as `spec` says; `prefixes` are the metric
/// prefixes of the engine.
pub fn extract(
    files: Vec<(String, String)>,
    spec: &ExtractSpec,
    prefixes: &[String],
) -> Result<Extracted, ExtractError> {
    value::start_tag();
    let mut extracted = Extracted::default();
    let named = |p: &str| {
        spec.entries.iter().any(|e| e.file == p)
            || spec.env.as_ref().is_some_and(|e| e.file == p)
            || spec.metrics.iter().any(|m| p.starts_with(m.as_str()))
    };
    let parsed = parse::parse_within(files, &named, parse::MAX_NODES, &mut extracted.warnings)?;
    let program = Program::new(&parsed);
    let names = Names {
        kwargs_functions: &spec.python.kwargs_functions,
        bool_actions: &spec.python.bool_actions,
        config_decorators: &spec.python.config_decorators,
        wrappers: &spec.python.wrappers,
        special: special::special_types(&program, &spec.python.kwargs_functions),
    };
    let mut flags: BTreeMap<String, Flag> = BTreeMap::new();
    for entry in &spec.entries {
        let found = program
            .file_index(&entry.file)
            .and_then(|i| entry.functions.iter().find_map(|name| program.function_in(name, i)).map(|f| (i, f)));
        let Some((file, func)) = found else {
            extracted.warnings.push(format!(
                "scope {}: none of {} is defined in {}",
                entry.scope,
                entry.functions.join(", "),
                entry.file
            ));
            continue;
        };
        let mut walker = Walker::new(&program, &names);
        walker.function(file, func, None);
        extracted.warnings.append(&mut walker.warnings);
        // A scope found but declaring nothing is lost from the catalogue:
        // said, never a silent success.
        if walker.flags.is_empty() {
            let name = func.child_by_field_name("name").map(|n| parsed[file].text_of(n)).unwrap_or("?");
            extracted.warnings.push(format!(
                "scope {}: {name} in {} declares no option at this tag; the scope has none in the catalogue",
                entry.scope, entry.file
            ));
        }
        for mut flag in walker.flags {
            match flags.get_mut(&flag.name) {
                Some(old) => {
                    if !old.scopes.contains(&entry.scope) {
                        old.scopes.push(entry.scope.clone());
                    }
                }
                None => {
                    flag.scopes = vec![entry.scope.clone()];
                    flags.insert(flag.name.clone(), flag);
                }
            }
        }
    }
    if flags.is_empty() {
        let functions: Vec<String> =
            spec.entries.iter().map(|e| format!("{} in {}", e.functions.join(" or "), e.file)).collect();
        return Err(ExtractError::NoOptions { functions: functions.join(", ") });
    }
    extracted.flags = flags.into_values().collect();
    if let Some(table) = &spec.env {
        match program.file_index(&table.file).and_then(|i| env::env_keys(&program, i, &table.table, &table.choices)) {
            Some(keys) => extracted.env_keys = keys,
            None => extracted.warnings.push(format!("no dict `{}` of env keys in {}", table.table, table.file)),
        }
    }
    let gates = gates(spec, &extracted);
    let reading = metrics::Reading {
        prefixes,
        counter_suffix: spec.python.counter_suffix.as_deref(),
        info_suffix: spec.python.info_suffix.as_deref(),
        gates: &gates,
    };
    let mut metrics: BTreeMap<String, Metric> = BTreeMap::new();
    let mut created_off = false;
    for (i, f) in parsed.iter().enumerate() {
        let listed = spec.metrics.is_empty() || spec.metrics.iter().any(|m| f.path.starts_with(m.as_str()));
        if !listed || !prefixes.iter().any(|p| f.text.contains(p.as_str())) {
            continue;
        }
        created_off |= spec.python.created_off.iter().any(|c| f.text.contains(&format!("{c}(")));
        for m in metrics::registrations(&program, i, &reading, &mut extracted.warnings) {
            match metrics.get_mut(&m.name) {
                // Registered twice (two engines' loggers): the first is
                // kept; gated only if both are, deprecated if either says so.
                Some(old) => {
                    if m.shown_by.is_none() {
                        old.shown_by = None;
                    }
                    if old.deprecated.is_none() {
                        old.deprecated = m.deprecated;
                        old.successor = m.successor;
                    }
                }
                None => {
                    metrics.insert(m.name.clone(), m);
                }
            }
        }
    }
    let created = spec.python.created.as_deref().filter(|_| created_off);
    samples::settle(&mut metrics, &spec.python, created);
    extracted.metrics = metrics.into_values().collect();
    // A value left unsettled for want of steps may be a missing choice, a
    // wrong default: no catalogue rather than a wrong one.
    if value::tag_over() {
        return Err(ExtractError::ValuesTooCostly { steps: value::TAG_STEPS });
    }
    // A function read for several scopes warns once.
    let mut seen = rustc_hash::FxHashSet::default();
    extracted.warnings.retain(|w| seen.insert(w.clone()));
    Ok(extracted)
}
