//! Resources compiled into the binary: the catalogues and overlays under
//! `catalog/`, and the engine profiles under `profiles/`. Kept at the bottom
//! of the module tree so that any layer may read them without importing the
//! top (`lib.rs`).

use include_dir::{include_dir, Dir};

/// `catalog/<engine>/<tag>.toml` and `catalog/<engine>/semantics.toml`.
pub(crate) static CATALOGS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/catalog");

/// `profiles/<engine>.toml`.
pub(crate) static PROFILES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/profiles");
