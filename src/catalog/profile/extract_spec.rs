//! A profile's `[extract]` table (and each `[[era]]`'s): which files of the
//! engine's tree are read, in which language, and for Python the functions,
//! env dict and argparse helpers the reader follows.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Which files of the engine's tree are read, and for what.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractSpec {
    /// Files holding the option table and its validators.
    #[serde(default)]
    pub config: Vec<String>,
    /// Read for struct definitions and field defaults only (missing ones are skipped).
    #[serde(default)]
    pub headers: Vec<String>,
    /// More files whose functions the option handlers call to validate values.
    #[serde(default)]
    pub validators: Vec<String>,
    /// Path prefixes read for metric registrations; empty reads every
    /// source file (of the language) that mentions a prefix.
    #[serde(default)]
    pub metrics: Vec<String>,
    /// Config files that are one binary's own parser, with that binary's
    /// scope: an option read only there is accepted only by it (llama.cpp's
    /// old server). Every other config file's options are unscoped.
    #[serde(default)]
    pub scoped: BTreeMap<String, String>,
    /// The language of the source: `cpp` (the default) or `python`.
    #[serde(default)]
    pub language: Language,
    /// Python: files and folders whose `.py` files are read for classes,
    /// functions and aliases that the entry functions name.
    #[serde(default)]
    pub sources: Vec<String>,
    /// Python: the functions that build each binary's argument parser.
    #[serde(default, rename = "entry")]
    pub entries: Vec<EntrySpec>,
    /// Python: the dict of engine-wide env keys.
    #[serde(default)]
    pub env: Option<EnvTableSpec>,
    /// Python: the names of the engine's argparse helpers.
    #[serde(default)]
    pub python: PythonSpec,
}

/// The language an engine's source is read in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    #[default]
    Cpp,
    Python,
}

/// A function that builds the parser of one binary (a scope): the first of
/// `functions` defined at the top of `file` (names change between versions).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntrySpec {
    pub scope: String,
    pub file: String,
    pub functions: Vec<String>,
}

/// Where the engine-wide env keys are declared: a dict named `table` in
/// `file`; `choices` are the helpers called as (key, default, members).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvTableSpec {
    pub file: String,
    pub table: String,
    #[serde(default)]
    pub choices: Vec<String>,
}

/// The engine's own helpers around argparse, by name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PythonSpec {
    /// Functions that turn a dataclass into argparse kwargs per field.
    #[serde(default)]
    pub kwargs_functions: Vec<String>,
    /// Custom argparse actions that take an optional `true`/`false`.
    #[serde(default)]
    pub bool_actions: Vec<String>,
    /// Decorators that make a class a config (its option takes JSON).
    #[serde(default)]
    pub config_decorators: Vec<String>,
    /// Generics that stand for their first argument, as `Annotated` does.
    #[serde(default)]
    pub wrappers: Vec<String>,
    /// What the metrics client appends to a counter's name on export.
    #[serde(default)]
    pub counter_suffix: Option<String>,
    /// What the metrics client appends to an info metric's name on export.
    #[serde(default)]
    pub info_suffix: Option<String>,
    /// The series the metrics client exports for each type, as suffixes of
    /// the name registered (a counter's without `counter_suffix`; `""` is
    /// the name itself): `histogram = ["_bucket", "_sum", "_count"]`.
    #[serde(default)]
    pub samples: BTreeMap<String, Vec<String>>,
    /// A series suffix dropped from every metric of a tag whose source calls
    /// one of `created_off` (`_created`, `disable_created_metrics`).
    #[serde(default)]
    pub created: Option<String>,
    #[serde(default)]
    pub created_off: Vec<String>,
    /// A word in the condition of an `if` a registration sits under → the
    /// flags that turn it on, the first the tag has (vLLM's hidden metrics:
    /// `show_hidden_metrics` → `--show-hidden-metrics-for-version`).
    #[serde(default)]
    pub shown_by: BTreeMap<String, Vec<String>>,
}
