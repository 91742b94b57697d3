//! A profile's `[scopes]`: which binaries accept an option, by the scopes the
//! source gives it (a common scope inherited unless told otherwise).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Profile;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScopeSpec {
    /// The scope every binary inherits (`LLAMA_EXAMPLE_COMMON`).
    #[serde(default)]
    pub common: Option<String>,
    /// Scopes that do not inherit `common`.
    #[serde(default)]
    pub not_inheriting: Vec<String>,
    /// Scopes an era adds to those (`[[era]] not_inheriting`): they refuse
    /// what a catalogue scopes elsewhere, but not an option it leaves
    /// unscoped (a catalogue synced before the era's files were scoped, or
    /// written by hand, says nothing of where an option was read).
    #[serde(skip)]
    pub era_not_inheriting: Vec<String>,
    /// A scope that also takes every option of the scopes listed: `vllm
    /// serve` (`vllm-serve`) takes the options it shares with the server
    /// module (`serve`) and its own, which the module does not take.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub includes: BTreeMap<String, Vec<String>>,
}

impl Profile {
    /// True when an option with these scopes and excludes is accepted under
    /// `scope` (a binary's scope; `None` accepts everything).
    pub fn accepts(&self, scopes: &[String], excludes: &[String], scope: Option<&str>) -> bool {
        let Some(scope) = scope else { return true };
        if excludes.iter().any(|e| e == scope) {
            return false;
        }
        // An option the source scopes nowhere is in the common scope.
        let implicit;
        let scopes = match (scopes.is_empty(), &self.scopes.common) {
            (true, Some(_)) if self.scopes.era_not_inheriting.iter().any(|s| s == scope) => return true,
            (true, Some(c)) => {
                implicit = [c.clone()];
                &implicit[..]
            }
            (true, None) => return true,
            (false, _) => scopes,
        };
        if scopes.iter().any(|s| s == scope) {
            return true;
        }
        if self.scopes.includes.get(scope).is_some_and(|inc| scopes.iter().any(|s| inc.contains(s))) {
            return true;
        }
        let inherits = !self.scopes.not_inheriting.iter().chain(&self.scopes.era_not_inheriting).any(|s| s == scope);
        inherits && self.scopes.common.as_ref().is_some_and(|c| scopes.contains(c))
    }

    /// The binaries whose scope accepts an option, for messages.
    pub fn binaries_accepting(&self, scopes: &[String], excludes: &[String]) -> Vec<String> {
        let mut out = Vec::new();
        for c in &self.commands {
            if c.foreign {
                continue;
            }
            if c.subcommands.is_empty() {
                if self.accepts(scopes, excludes, c.scope.as_deref()) {
                    out.push(if c.module { format!("python -m {}", c.name) } else { c.name.clone() });
                }
            } else {
                for (sub, scope) in &c.subcommands {
                    if self.accepts(scopes, excludes, Some(scope)) {
                        out.push(format!("{} {sub}", c.name));
                    }
                }
            }
        }
        out
    }
}
