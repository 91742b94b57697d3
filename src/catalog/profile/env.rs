//! A profile's `[env]`: how an env key names a flag (the convention, the
//! negated spelling, the engine's own prefix, keys other programs share).

use serde::{Deserialize, Serialize};

use super::yes;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvSpec {
    /// An env key names the flag in upper snake case, optionally behind a
    /// service prefix; otherwise only the keys the source declares count.
    #[serde(default = "yes")]
    pub convention: bool,
    /// `[from, to]`: a negatable option also reads its key with `from`
    /// replaced by `to` (`LLAMA_ARG_MMAP` → `LLAMA_ARG_NO_MMAP`).
    #[serde(default)]
    pub negated: Option<[String; 2]>,
    /// The prefix only this engine's keys carry (`LLAMA_ARG_`): a key with
    /// it is evidence that an env file is the engine's.
    #[serde(default)]
    pub prefix: Option<String>,
    /// Keys of the engine's flags that other programs read too (`PORT`,
    /// `LOG_LEVEL`): on their own, no evidence that a file is the engine's.
    #[serde(default)]
    pub shared: Vec<String>,
    /// Old prefixes the engine still reads as its own (`SGL_` → `SGLANG_`:
    /// `SGL_X` is read as `SGLANG_X`).
    #[serde(default)]
    pub aliases: std::collections::BTreeMap<String, String>,
}

impl EnvSpec {
    /// The key the engine reads `key` as, when an alias prefix renames it.
    pub fn alias_of(&self, key: &str) -> Option<String> {
        self.aliases.iter().find_map(|(from, to)| key.strip_prefix(from.as_str()).map(|rest| format!("{to}{rest}")))
    }
}

impl Default for EnvSpec {
    fn default() -> Self {
        EnvSpec { convention: true, negated: None, prefix: None, shared: Vec::new(), aliases: Default::default() }
    }
}
