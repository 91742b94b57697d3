//! An engine-wide env key explained — one the engine reads itself, not a
//! flag's (`OLLAMA_KEEP_ALIVE`, `VLLM_USE_V1`): the kind its source parses
//! it as, its default, members and help in the pinned build, where it is
//! read, and the versions that read it.

use serde::Serialize;

use super::history::Version;
use crate::catalog::model::{Catalog, EnvKey};

/// Everything `knobs explain` says of an engine-wide env key.
#[derive(Debug, Serialize)]
pub struct EnvKeyExplain {
    pub build: String,
    /// Set when the build is an embedded catalogue used beside catalogues
    /// synced from another repository.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<String>,
    pub in_pinned: bool,
    pub key: EnvKey,
    pub versions: Vec<Version>,
}

fn find<'c>(c: &'c Catalog, name: &str) -> Option<&'c EnvKey> {
    c.env_keys.iter().find(|k| k.name == name)
}

/// What is known of the env key `name`, from the `pinned` build, else the
/// newest catalogued version that reads it; `None` when no build does.
pub(super) fn explain_env_key(
    name: &str,
    pinned: &Catalog,
    all: &[Catalog],
    build: &super::Build,
) -> Option<EnvKeyExplain> {
    let key = find(pinned, name).or_else(|| all.iter().rev().find_map(|c| find(c, name)))?;
    let versions = all
        .iter()
        .map(|c| {
            let present = find(c, name).is_some();
            Version { tag: c.source.tag.clone(), present, change: if present { "read" } else { "absent" }.into() }
        })
        .collect();
    Some(EnvKeyExplain {
        build: build.name.clone(),
        provenance: build.mark.clone(),
        in_pinned: find(pinned, name).is_some(),
        key: key.clone(),
        versions,
    })
}
