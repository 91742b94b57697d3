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
    /// The language of the source: `cpp` (the default), `python`, `go` or `rust`.
    #[serde(default)]
    pub language: Language,
    /// Python: files and folders whose `.py` files are read for classes,
    /// functions and aliases that the entry functions name (Rust: whose
    /// `.rs` files are read for the enums and structs the entry structs name).
    #[serde(default)]
    pub sources: Vec<String>,
    /// Python: the functions that build each binary's argument parser
    /// (Rust: the clap derive structs it parses into, in `functions`).
    #[serde(default, rename = "entry")]
    pub entries: Vec<EntrySpec>,
    /// Python: the dict of engine-wide env keys.
    #[serde(default)]
    pub env: Option<EnvTableSpec>,
    /// Python: the names of the engine's argparse helpers.
    #[serde(default)]
    pub python: PythonSpec,
    /// Go: the engine's env helpers, parsers and flag folders.
    #[serde(default)]
    pub go: super::GoSpec,
}

/// The language an engine's source is read in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    #[default]
    Cpp,
    Python,
    Go,
    Rust,
}

/// A function that builds the parser of one binary (a scope): the first of
/// `functions` defined in `file` (names change between versions). A name
/// is a function at the top of the file, a method (`ServerArgs.add_cli_args`)
/// of a class the file defines, or `__main__`: the file's
/// `if __name__ == "__main__":` block. A `fallback` entry is read only at
/// a tag where no earlier entry of its scope is found (the parser lived in
/// another file in older builds: vLLM's server module before
/// `cli_args.py`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntrySpec {
    pub scope: String,
    pub file: String,
    pub functions: Vec<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fallback: bool,
}

/// Where the engine-wide env keys are declared: a dict named `table` in
/// `file` (vLLM's `environment_variables`) or a class named `class` whose
/// attributes are the keys (SGLang's `class Envs`, `KEY = EnvBool(False)`);
/// `choices` are the helpers called as (key, default, members). `scan`
/// folders are searched, word by word without parsing, for the keys
/// `readers` are called with (`os.getenv("KEY")`, `get_bool_env_var("KEY")`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvTableSpec {
    #[serde(default)]
    pub file: String,
    #[serde(default)]
    pub table: String,
    #[serde(default)]
    pub class: String,
    #[serde(default)]
    pub choices: Vec<String>,
    #[serde(default)]
    pub scan: Vec<String>,
    #[serde(default)]
    pub readers: Vec<String>,
    /// Only keys starting with one of these are taken from `scan` (none: every key).
    #[serde(default)]
    pub prefixes: Vec<String>,
    /// Where the source says a key is deprecated (still read, warned about).
    #[serde(default)]
    pub deprecated: DeprecatedEnvSpec,
}

/// The deprecated env keys: the keys of a module-level dict `table` in the
/// env file (`OLD: Spec(successor="NEW")`, or `OLD: "NEW"`), the literal
/// key of a class attribute's keyword named in `keywords`
/// (`deprecated_name="OLD"`: the attribute is its successor), and the first
/// argument of a call to one of `readers` (`warn("OLD", "NEW")`), which the
/// scan reads as it reads any reader's key.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeprecatedEnvSpec {
    #[serde(default)]
    pub table: String,
    /// The keyword of a dict value's call that names the successor.
    #[serde(default)]
    pub successor: String,
    #[serde(default)]
    pub keywords: Vec<String>,
    #[serde(default)]
    pub readers: Vec<String>,
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
    /// argparse subclasses whose `parse_args` takes options out of argv
    /// itself (`if '--config' in args:`): each such option is every
    /// scope's.
    #[serde(default)]
    pub argv_parsers: Vec<String>,
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
    /// Functions that declare one option per annotated field of a dataclass
    /// (SGLang's `add_cli_args_from_dataclass(parser, ServerArgs)`).
    #[serde(default)]
    pub generators: Vec<GeneratorSpec>,
}

/// A function that generates options from a dataclass's fields, each
/// annotated `Annotated[T, Meta(...)]` (or `Annotated[T, "help"]`); a field
/// without the metadata gives no option. The option is `--field-name`;
/// `T` gives its kind as the generator reads it: `Literal[...]` members,
/// a list `list_nargs` values of its element's kind, `bool` the
/// `bool_action`, `int`/`float` their kinds, anything else a string.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeneratorSpec {
    /// The generator's name (`add_cli_args_from_dataclass`).
    pub function: String,
    /// The class of the metadata (`Arg`).
    pub metadata: String,
    /// What each keyword of the metadata means, where it is not argparse's
    /// own (`help`, `choices`, `nargs`, `action`, `const`, `required`):
    /// `name` (the option's name), `flags` (more names), `type` (a parser
    /// of the value), `skip` (true: no option), `kwargs` (more argparse
    /// keywords, a dict).
    #[serde(default)]
    pub keywords: BTreeMap<String, String>,
    /// The action a `bool` field is given (`store_true`, `BooleanOptionalAction`).
    #[serde(default = "store_true")]
    pub bool_action: String,
    /// The `nargs` a list field is given unless its metadata says.
    #[serde(default = "one_or_more")]
    pub list_nargs: String,
    /// The generator's keyword that limits it to some fields (`fields=[...]`).
    #[serde(default)]
    pub fields: Option<String>,
}

fn store_true() -> String {
    "store_true".to_string()
}

fn one_or_more() -> String {
    "+".to_string()
}
