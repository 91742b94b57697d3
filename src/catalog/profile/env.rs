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
    /// The words the engine's own env reading gives a switch (`[env.switch]`);
    /// none: any boolean word is taken as written.
    #[serde(default)]
    pub switch: Option<SwitchWords>,
}

/// What a switch's env key does with its value, as the source reads it
/// (llama.cpp: `handler_void && (value == "1" || value == "true")`, later
/// `is_truthy`): `on` sets the switch; `off` leaves it unset, as meant;
/// any other word is ignored, the switch left unset.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SwitchWords {
    /// The exact words that set the switch.
    pub on: Vec<String>,
    /// The words that mean off: the switch stays unset, as the writer meant.
    #[serde(default)]
    pub off: Vec<String>,
}

impl SwitchWords {
    /// True when the build ignores `value` for a switch: neither a word
    /// that sets it nor one that means off (exact comparison, as the
    /// source's).
    pub fn ignores(&self, value: &str) -> bool {
        !self.on.iter().chain(&self.off).any(|w| w == value)
    }
}

impl EnvSpec {
    /// The key the engine reads `key` as, when an alias prefix renames it.
    pub fn alias_of(&self, key: &str) -> Option<String> {
        self.aliases.iter().find_map(|(from, to)| key.strip_prefix(from.as_str()).map(|rest| format!("{to}{rest}")))
    }
}

impl Default for EnvSpec {
    fn default() -> Self {
        EnvSpec {
            convention: true,
            negated: None,
            prefix: None,
            shared: Vec::new(),
            aliases: Default::default(),
            switch: None,
        }
    }
}
