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

/// An image whose tag matches `tag` (and, with `until`, pins a build
/// before that tag) runs `command` (or, when `foreign`, something that is
/// not the engine's option table). The first variant that matches wins, so
/// an older entrypoint is listed before the newer one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageVariant {
    pub tag: String,
    /// The first build whose image no longer runs this variant's command
    /// (an image tag that pins no build is the newest's).
    #[serde(default)]
    pub until: Option<String>,
    #[serde(default)]
    pub command: Option<String>,
    /// The image's CMD, when `command` is a program of subcommands (its
    /// ENTRYPOINT `/bin/ollama`, its CMD `serve`): what the entrypoint is
    /// given when no word follows the image. A word that follows replaces it.
    #[serde(default)]
    pub cmd: Option<String>,
    #[serde(default)]
    pub foreign: bool,
    /// How many positional words `command` takes in these builds, over
    /// `[argv] positional_limits`.
    #[serde(default)]
    pub positionals: Option<usize>,
    /// The option a positional word would stand for, when these builds
    /// parse the word and then ignore it (the option's value is used).
    #[serde(default)]
    pub ignored_positional: Option<String>,
}
