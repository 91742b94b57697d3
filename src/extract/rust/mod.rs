//! The Rust extractor: an engine whose options are a clap derive struct
//! (text-generation-inference's launcher: `#[derive(Parser)] struct Args`
//! with `#[clap(long, env, value_enum)]` fields) read with tree-sitter-rust,
//! never compiled. The profile's `[[extract.entry]]` names, per scope, the
//! file and the struct (`functions = ["Args"]`); `sources` names more files
//! or folders read for the enums and flattened structs it uses. Each
//! option's env key (`env`) is on its flag. Only this folder knows
//! tree-sitter-rust.
//!
//! `syntax.rs` is the grammar seam (structs, enums, their attributes and
//! doc comments as owned values), `case.rs` clap's renaming, `field.rs` a
//! field as a flag; `reader.rs` is the `LanguageReader`.

mod case;
mod field;
mod reader;
mod syntax;

use std::collections::BTreeMap;

use crate::catalog::model::Flag;
use crate::catalog::profile::ExtractSpec;

use super::lang::Extracted;
use super::ExtractError;
use field::{struct_flags, Decls};
pub use reader::RustReader;

/// Every path a Rust extraction reads (files or folders).
pub fn paths(spec: &ExtractSpec) -> Vec<String> {
    let mut out: Vec<String> = spec.sources.clone();
    out.extend(spec.entries.iter().map(|e| e.file.clone()));
    out.sort();
    out.dedup();
    let folders: Vec<String> = out.iter().filter(|p| p.ends_with('/')).cloned().collect();
    out.retain(|p| !folders.iter().any(|f| p != f && p.starts_with(f.as_str())));
    out
}

/// Reads `files` (path, text) as `spec` says: each entry's struct, the
/// first of its names the entry's file (else any file read) declares.
pub fn extract(files: Vec<(String, String)>, spec: &ExtractSpec) -> Result<Extracted, ExtractError> {
    let mut extracted = Extracted::default();
    let mut items = Vec::new();
    for (path, text) in &files {
        items.extend(syntax::items(path, text)?);
    }
    // The entry files' items first: a name declared there wins.
    items.sort_by_key(|i| !spec.entries.iter().any(|e| e.file == i.path));
    let decls = Decls { items: &items };
    let mut flags: BTreeMap<String, Flag> = BTreeMap::new();
    for entry in &spec.entries {
        let found = entry
            .functions
            .iter()
            .find_map(|name| items.iter().find(|i| !i.is_enum && i.name == *name && i.path == entry.file));
        let Some(item) = found else {
            extracted.warnings.push(format!(
                "scope {}: none of the structs {} is declared in {}",
                entry.scope,
                entry.functions.join(", "),
                entry.file
            ));
            continue;
        };
        let mut read = Vec::new();
        struct_flags(item, &decls, 0, &mut read, &mut extracted.warnings);
        if read.is_empty() {
            extracted.warnings.push(format!(
                "scope {}: struct {} in {} declares no option at this tag; the scope has none in the catalogue",
                entry.scope, item.name, entry.file
            ));
        }
        for mut flag in read {
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
        let structs: Vec<String> =
            spec.entries.iter().map(|e| format!("struct {} in {}", e.functions.join(" or "), e.file)).collect();
        return Err(ExtractError::NoOptions { functions: structs.join(", ") });
    }
    extracted.flags = flags.into_values().collect();
    Ok(extracted)
}
