//! What a reader of one source language (`cpp/`, `python/`) must provide to
//! the language-neutral extraction (`one_tag.rs` for one tag, `history.rs`
//! for every tag): the files a tag's reading depends on, which key it in a
//! history, and the reading of them into flags, env keys and metrics, with
//! warnings. `reader_for` in `mod.rs` is the registry: a language is a
//! folder of its own plus one line there.

use crate::catalog::model::{EnvKey, Flag, Metric};
use crate::catalog::profile::ExtractSpec;
use crate::source::PinnedTree;

use super::error::BuildError;

/// A reader of one source language.
pub trait LanguageReader: Sync {
    /// What a tag's reading depends on when `spec` is its era's `[extract]`.
    fn readings(&self, spec: &ExtractSpec) -> Readings;

    /// Everything the tree declares: flags, env keys and metrics.
    fn read(&self, at: &At<'_>) -> Result<Extracted, BuildError>;

    /// The flags alone (asked of a reader whose readings are `Apart`).
    fn read_flags(&self, at: &At<'_>) -> Result<(Vec<Flag>, Vec<String>), BuildError> {
        let read = self.read(at)?;
        Ok((read.flags, read.warnings))
    }

    /// The metrics alone (asked of a reader whose readings are `Apart`).
    fn read_metrics(&self, at: &At<'_>) -> Result<(Vec<Metric>, Vec<String>), BuildError> {
        let read = self.read(at)?;
        Ok((read.metrics, read.warnings))
    }
}

/// What one reading is given: the tree at a tag, the `[extract]` of the
/// tag's era, the engine's metric prefixes and the user's tree-sitter
/// queries (`[[extract.query]]`, for a language that takes them).
pub struct At<'a> {
    pub tree: &'a PinnedTree,
    pub spec: &'a ExtractSpec,
    pub prefixes: &'a [String],
    pub queries: &'a [String],
}

/// What one tree's source gives a catalogue.
#[derive(Debug, Default)]
pub struct Extracted {
    pub flags: Vec<Flag>,
    pub env_keys: Vec<EnvKey>,
    pub metrics: Vec<Metric>,
    pub warnings: Vec<String>,
}

/// How a tag is read, and so keyed in a history: a tag whose inputs have
/// the ids another tag's had is not read again.
pub enum Readings {
    /// One reading gives flags, env keys and metrics.
    Whole(Inputs),
    /// Flags and metrics are read apart, each from its own files (a server
    /// folder changes far more often than an option table).
    Apart { flags: Inputs, metrics: Inputs },
}

/// The paths (files or folders; `""` is the whole tree) one reading depends
/// on: without a `required` one the tag cannot be read.
pub struct Inputs {
    /// Put in front of the key, so that two readers' keys never meet.
    pub label: &'static str,
    pub required: Vec<String>,
    pub optional: Vec<String>,
}

impl Inputs {
    /// Every path, the required ones first.
    pub fn paths(&self) -> Vec<String> {
        self.required.iter().chain(&self.optional).cloned().collect()
    }
}

/// Names each refused flag's successors: the other flags of the build its
/// message names (`the argument has been removed. use --spec-draft-n-max or
/// --spec-ngram-mod-n-max`), each by its name. A fact kept where the
/// message, the engine's sentence, is not.
pub fn name_successors(flags: &mut [Flag]) {
    let mut name_of = std::collections::HashMap::new();
    for f in flags.iter().filter(|f| f.removed.is_none()) {
        for s in f.spellings() {
            name_of.entry(s.to_string()).or_insert_with(|| f.name.clone());
        }
    }
    for f in flags.iter_mut() {
        let Some(message) = &f.removed else { continue };
        let words = message.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'));
        let mut named: Vec<String> = Vec::new();
        for w in words.filter(|w| w.starts_with('-')) {
            let Some(n) = name_of.get(w.trim_end_matches('-')) else { continue };
            if *n != f.name && !named.contains(n) {
                named.push(n.clone());
            }
        }
        f.successors = named;
    }
}
