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
//! walks the parser-building functions (`parser_class.rs`: options a
//! parser class reads itself), `generator.rs` the profile's
//! generators of options from annotated dataclass fields, `action.rs` a
//! custom argparse action's class, `env.rs` the env dict or class,
//! `env_scan.rs` env keys found word by word in unparsed files,
//! and `metrics.rs` the metric registrations; `reader.rs` is the
//! `LanguageReader`, and `inputs.rs` says which paths of a tag it reads.

mod action;
mod annotation;
mod dict;
mod env;
mod env_scan;
mod generator;
mod inputs;
mod kwargs;
mod metrics;
mod module;
mod parse;
mod parser_class;
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
use inputs::parsed_paths;
pub use inputs::paths;
use module::Program;
use parser_walk::{Names, Walker};
pub use reader::PythonReader;

/// Reads `files` (path, text) as `spec` says; `prefixes` are the metric
/// prefixes of the engine.
pub fn extract(
    files: Vec<(String, String)>,
    spec: &ExtractSpec,
    prefixes: &[String],
) -> Result<Extracted, ExtractError> {
    value::start_tag();
    let mut extracted = Extracted::default();
    // Env keys called for anywhere in the scanned folders, word by word;
    // a file read for nothing else is not parsed.
    let mut scanned = Vec::new();
    let files = match &spec.env {
        Some(env) if !env.scan.is_empty() => {
            for (path, text) in &files {
                if env.scan.iter().any(|s| path.starts_with(s.as_str())) {
                    env_scan::scan(path, text, &env.readers, &env.deprecated.readers, &env.prefixes, &mut scanned);
                }
            }
            let parsed = parsed_paths(spec);
            files.into_iter().filter(|(p, _)| parsed.iter().any(|s| p.starts_with(s.as_str()))).collect()
        }
        _ => files,
    };
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
        generators: &spec.python.generators,
    };
    let mut flags: BTreeMap<String, Flag> = BTreeMap::new();
    // Scopes some entry was found for; an entry not found is said only
    // when no other entry of its scope was (a fallback stood in for it).
    let mut read: Vec<&str> = Vec::new();
    let mut absent: Vec<(&str, String)> = Vec::new();
    for entry in &spec.entries {
        if entry.fallback && read.contains(&entry.scope.as_str()) {
            continue;
        }
        let found = program
            .file_index(&entry.file)
            .and_then(|i| entry.functions.iter().find_map(|name| program.entry_in(name, i)).map(|f| (i, f)));
        let Some((file, (func, cls))) = found else {
            absent.push((
                &entry.scope,
                format!("scope {}: none of {} is defined in {}", entry.scope, entry.functions.join(", "), entry.file),
            ));
            continue;
        };
        read.push(&entry.scope);
        let mut walker = Walker::new(&program, &names);
        walker.function(file, func, cls);
        extracted.warnings.append(&mut walker.warnings);
        // A scope found but declaring nothing is lost from the catalogue:
        // said, never a silent success.
        if walker.flags.is_empty() {
            let name = func.child_by_field_name("name").map(|n| parsed[file].text_of(n)).unwrap_or("__main__");
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
    extracted.warnings.extend(absent.into_iter().filter(|(s, _)| !read.contains(s)).map(|(_, w)| w));
    let all: Vec<String> = read.iter().map(|s| s.to_string()).collect();
    parser_class::add(&program, &spec.python.argv_parsers, &all, &mut flags);
    if flags.is_empty() {
        let functions: Vec<String> =
            spec.entries.iter().map(|e| format!("{} in {}", e.functions.join(" or "), e.file)).collect();
        return Err(ExtractError::NoOptions { functions: functions.join(", ") });
    }
    extracted.flags = flags.into_values().collect();
    if let Some(table) = &spec.env {
        extracted.env_keys = env::engine_keys(&program, table, scanned, &mut extracted.warnings);
    }
    let gates = metrics::gates(spec, &extracted);
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
                // kept; gated only if both are, deprecated if either says so,
                // with no labels only if neither names any.
                Some(old) => {
                    old.unlabelled &= m.unlabelled;
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
