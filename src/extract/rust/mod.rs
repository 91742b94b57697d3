//! The Rust extractor: an engine whose options are a clap derive struct
//! (text-generation-inference's launcher: `#[derive(Parser)] struct Args`
//! with `#[clap(long, env, value_enum)]` fields) read with tree-sitter-rust,
//! never compiled. The profile's `[[extract.entry]]` names, per scope, the
//! file and the struct (`functions = ["Args"]`); `sources` names more files
//! or folders read for the enums and flattened structs it uses. Each
//! option's env key (`env`) is on its flag; `[extract.env] scan` folders
//! give the keys the engine reads for itself (`readers`: `env::var`).
//! Only this folder knows tree-sitter-rust.
//!
//! `syntax.rs` is the grammar seam (structs, enums, their attributes and
//! doc comments as owned values), `case.rs` clap's renaming, `field.rs` a
//! field as a flag; `reader.rs` is the `LanguageReader`.

mod case;
mod field;
mod reader;
mod syntax;

use std::collections::BTreeMap;

use crate::catalog::model::{EnvKey, Flag};
use crate::catalog::profile::{EnvTableSpec, ExtractSpec};

use super::lang::Extracted;
use super::ExtractError;
use field::{struct_flags, Decls};
pub use reader::RustReader;

/// Every path a Rust extraction reads (files or folders).
pub fn paths(spec: &ExtractSpec) -> Vec<String> {
    let mut out: Vec<String> = spec.sources.clone();
    out.extend(spec.entries.iter().map(|e| e.file.clone()));
    out.extend(spec.env.iter().flat_map(|e| e.scan.iter().cloned()));
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
    if let Some(env) = &spec.env {
        extracted.env_keys = env_keys(&files, env, &extracted.flags)?;
    }
    Ok(extracted)
}

/// The env keys the scanned files read for themselves (`env::var("KEY")`),
/// each once, with `prefixes` if the profile gives any; an option's own
/// key is the option's, not listed again.
fn env_keys(files: &[(String, String)], env: &EnvTableSpec, flags: &[Flag]) -> Result<Vec<EnvKey>, ExtractError> {
    let mut keys: Vec<EnvKey> = Vec::new();
    for (path, text) in files.iter().filter(|(p, _)| env.scan.iter().any(|s| p.starts_with(s.as_str()))) {
        for (name, line) in syntax::env_reads(path, text, &env.readers)? {
            let shaped =
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
            let prefixed = env.prefixes.is_empty() || env.prefixes.iter().any(|p| name.starts_with(p.as_str()));
            let own = flags.iter().any(|f| f.env.contains(&name));
            if shaped && prefixed && !own && !keys.iter().any(|k| k.name == name) {
                keys.push(EnvKey {
                    name,
                    default: String::new(),
                    members: Vec::new(),
                    help: String::new(),
                    location: format!("{path}:{line}"),
                    kind: String::new(),
                    ..Default::default()
                });
            }
        }
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::profile::EntrySpec;

    fn entry(scope: &str, name: &str) -> EntrySpec {
        EntrySpec {
            scope: scope.to_string(),
            file: "src/main.rs".to_string(),
            functions: vec![name.to_string()],
            fallback: false,
        }
    }

    /// Each entry's struct gives its scope's options; an option two structs
    /// declare is in both scopes; a struct missing or declaring nothing is
    /// said, never a silent success.
    #[test]
    fn each_entry_is_a_scope_and_a_lost_one_is_said() {
        let src = "#[derive(Parser)]\nstruct Serve {\n    #[arg(long)]\n    port: u16,\n    #[arg(long)]\n    model: String,\n}\n#[derive(Parser)]\nstruct Bench {\n    #[arg(long)]\n    port: u16,\n}\n#[derive(Parser)]\nstruct Empty {\n    model: String,\n}\n";
        let spec = ExtractSpec {
            language: crate::catalog::profile::Language::Rust,
            entries: vec![
                entry("serve", "Serve"),
                entry("bench", "Bench"),
                entry("gone", "Gone"),
                entry("empty", "Empty"),
            ],
            ..ExtractSpec::default()
        };
        let read = extract(vec![("src/main.rs".to_string(), src.to_string())], &spec).expect("read");
        let scopes: Vec<(&str, Vec<&str>)> =
            read.flags.iter().map(|f| (f.name.as_str(), f.scopes.iter().map(String::as_str).collect())).collect();
        assert_eq!(scopes, [("--model", vec!["serve"]), ("--port", vec!["serve", "bench"])]);
        assert_eq!(
            read.warnings,
            [
                "scope gone: none of the structs Gone is declared in src/main.rs",
                "scope empty: struct Empty in src/main.rs declares no option at this tag; the scope has none in the catalogue",
            ]
        );
        let none = ExtractSpec { entries: vec![entry("gone", "Gone")], ..spec };
        let err = extract(vec![("src/main.rs".to_string(), src.to_string())], &none).err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some(
                "no options found: no [[extract.entry]] function (struct Gone in src/main.rs) declares one at this tag"
            )
        );
    }
}
