//! Whose env file it is. An env file is judged as the engine's only with
//! evidence: its folder says so (an engine image pinned there, a serve
//! script there that runs the engine, an engine unit that reads the file),
//! it pins the engine's image itself, one of its keys is one only the engine
//! reads (the profile's `[env] prefix`, or a key that sets a flag and is
//! not among the profile's `[env] shared` keys, which other programs read
//! too), or knobs.toml names it (`[lint] env_files`). The `.env` beside a
//! compose file feeds the compose file's `${}` substitution: it is the
//! engine's only when a service that runs the engine names it (`env_file:`)
//! or knobs.toml does. Without evidence, a
//! `grafana.env` that sets `LOG_LEVEL` and `PORT` is another program's: only
//! its keys that set no flag stay, without their values, so that a near
//! miss of the engine's key is still a warning (KNB006) and nothing else is
//! said.

use std::collections::HashMap;
use std::path::Path;

use super::folder::Folder;
use super::refs::Ref;
use super::scanners::Scan;
use super::{dispatch, Settings};
use crate::catalog::query::{env_key_for, env_target};
use crate::kinds::FileKind;

/// An env file's scan, cut down to its near misses when nothing says the
/// file is the engine's.
pub fn env_scan(path: &Path, text: &str, settings: &Settings<'_>, folder: &Folder) -> Scan {
    let mut scan = dispatch::scan(text, FileKind::Env, settings, folder.catalog(settings));
    if folder.compose_substitution(path) && !is_engines(path, &scan, settings, folder) {
        // The compose file's variables: no key of them is the engine's.
        scan.refs.retain(|r| !matches!(r, Ref::Env { .. }));
    } else if !is_engines(path, &scan, settings, folder) {
        near_misses_only(&mut scan, settings, &folder.env_flags);
    }
    scan
}

/// True when something says the env file is the engine's.
fn is_engines(path: &Path, scan: &Scan, settings: &Settings<'_>, folder: &Folder) -> bool {
    let named = path.file_name().is_some_and(|n| settings.env_files.iter().any(|e| *e == n.to_string_lossy()));
    if named || folder.reads(path) {
        return true;
    }
    // A compose file's `.env`: its keys are the compose file's variables.
    if folder.compose_substitution(path) {
        return false;
    }
    !scan.pins.is_empty()
        || scan.refs.iter().any(|r| {
            // A key in lower case means the engine's key all the same.
            matches!(r, Ref::Env { key, .. } if own_key(&key.to_ascii_uppercase(), settings, &folder.env_flags))
        })
}

/// True for a key only the engine reads: one with the profile's prefix;
/// for a profile without one, a key that sets a flag of a catalogued
/// version and is not among the keys other programs share.
fn own_key(key: &str, settings: &Settings<'_>, env_flags: &HashMap<String, String>) -> bool {
    let (profile, env) = (settings.profile, &settings.profile.env);
    if let Some(prefix) = &env.prefix {
        return key.starts_with(prefix.as_str());
    }
    settings.all.iter().any(|c| {
        env_target(key, c, profile, env_flags)
            .is_some_and(|t| env_key_for(t.flag, profile).is_none_or(|k| !env.shared.contains(&k)))
    })
}

/// Keeps, of an env file's keys, those that set no flag in any catalogued
/// version (a near miss is still worth a warning), without their values.
fn near_misses_only(scan: &mut Scan, settings: &Settings<'_>, env_flags: &HashMap<String, String>) {
    let (profile, all) = (settings.profile, settings.all);
    scan.refs.retain_mut(|r| match r {
        Ref::Env { key, value, .. } => {
            *value = None;
            !key.bytes().any(|b| b.is_ascii_lowercase())
                && !all.iter().any(|c| env_target(key, c, profile, env_flags).is_some())
        }
        _ => true,
    });
}
