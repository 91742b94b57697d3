//! A profile's `[images]`: the container images that run the engine, the
//! catalogue tag an image tag pins, and the variants that run another binary.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageSpec {
    /// Image repository names (the last path segment) that run the engine.
    #[serde(default)]
    pub names: Vec<String>,
    /// A regex over the image tag whose group 1 is the catalogue tag.
    #[serde(default)]
    pub tag: Option<String>,
    /// Image variants by tag: which binary the entrypoint runs.
    #[serde(default, rename = "variant")]
    pub variants: Vec<ImageVariant>,
}

/// An image whose tag matches `tag` runs `command` (or, when `foreign`,
/// something that is not the engine's option table).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageVariant {
    pub tag: String,
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub foreign: bool,
}
