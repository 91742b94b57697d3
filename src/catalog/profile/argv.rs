//! A profile's `[argv]`: how the engine's parser reads a command line
//! (`=` values, dashes in values, positionals, dotted keys, attached short
//! values, spellings rewritten before parsing, abbreviations, the option
//! naming a YAML file of options).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::yes;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgvSpec {
    /// `--flag=value` is accepted.
    #[serde(default = "yes")]
    pub equals: bool,
    /// An option taking a value consumes the next word even when it starts with `-`.
    #[serde(default)]
    pub dash_values: bool,
    /// In a `--` word, `_` reads as `-`.
    #[serde(default)]
    pub underscores: bool,
    /// The engine takes positional arguments (a bare word is not refused).
    #[serde(default = "yes")]
    pub positionals: bool,
    /// How many positional words a binary takes, by the binary as written
    /// (`vllm serve` → 1, `vllm run-batch` → 0): a word past them is refused.
    #[serde(default)]
    pub positional_limits: BTreeMap<String, usize>,
    /// Earlier builds' limits, oldest era first: a build before an era's
    /// `until` takes its `limits` where they name the binary
    /// (`sglang serve` took no model word before v0.5.16).
    #[serde(default, rename = "positional_era")]
    pub positional_eras: Vec<PositionalEra>,
    /// `--opt.key value` sets a key under `--opt` (an option that takes
    /// JSON): the option written is the part before the first `.`.
    #[serde(default)]
    pub dotted: bool,
    /// Short options whose value may be attached to them (`-O3`, `-O=3`).
    #[serde(default)]
    pub attached: Vec<String>,
    /// Spellings the engine's parser rewrites before it reads argv, to the
    /// option they become where the build registers no such spelling
    /// (vLLM from v0.12: `-O3` is `--optimization-level 3`).
    #[serde(default)]
    pub rewrites: BTreeMap<String, String>,
    /// A unique prefix of a long option is that option (argparse's
    /// abbreviations); a prefix of several is refused.
    #[serde(default)]
    pub abbreviations: bool,
    /// The option that names a YAML file of options (`--config FILE`), its
    /// keys the options' names without dashes.
    #[serde(default)]
    pub config: Option<String>,
    /// A `false` in that file is dropped: the option keeps its default.
    #[serde(default)]
    pub config_drops_false: bool,
    /// A switch takes `--switch=value` (false: the parser refuses a value
    /// given to an option that takes none, as argparse does).
    #[serde(default = "yes")]
    pub switch_values: bool,
}

impl Default for ArgvSpec {
    fn default() -> Self {
        ArgvSpec {
            equals: true,
            dash_values: false,
            underscores: false,
            positionals: true,
            positional_limits: BTreeMap::new(),
            positional_eras: Vec::new(),
            dotted: false,
            attached: Vec::new(),
            rewrites: BTreeMap::new(),
            abbreviations: false,
            config: None,
            config_drops_false: false,
            switch_values: true,
        }
    }
}

/// The positional limits of the builds before `until` (a tag).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PositionalEra {
    pub until: String,
    pub limits: BTreeMap<String, usize>,
}
