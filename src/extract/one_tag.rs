//! A catalogue from a pinned tree: the files the engine's profile names, read
//! at the tag by the reader of the profile's language, with the tree's
//! provenance. This is what `knobs sync` writes; the command only chooses
//! the tree and where the file goes.

use crate::catalog::model::{Catalog, Provenance};
use crate::catalog::profile::Profile;
use crate::source::PinnedTree;

use super::lang::At;
use super::{reader_for, BuildError};

/// A catalogue and what the extraction warns of (one line each).
pub struct Built {
    pub catalog: Catalog,
    pub warnings: Vec<String>,
}

/// Extracts the catalogue of `tree` as `profile` says, with the user's
/// `queries` beside the built-in shapes.
pub fn catalogue(tree: &PinnedTree, profile: &Profile, queries: &[String]) -> Result<Built, BuildError> {
    let spec = profile.extract_for(&tree.tag);
    let at = At { tree, spec, prefixes: &profile.metrics.prefixes, queries };
    let read = reader_for(spec.language).read(&at)?;
    let mut catalog = Catalog::new(provenance(tree, profile), read.flags, read.metrics);
    catalog.env_keys = read.env_keys;
    catalog.normalise();
    Ok(Built { catalog, warnings: read.warnings })
}

fn provenance(tree: &PinnedTree, profile: &Profile) -> Provenance {
    Provenance {
        engine: profile.name.clone(),
        repo: tree.origin.clone(),
        tag: tree.tag.clone(),
        commit: tree.commit.clone(),
        knobs_version: env!("CARGO_PKG_VERSION").to_string(),
    }
}
