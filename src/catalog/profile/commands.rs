//! A profile's `[[command]]`s and `[[renamed]]` binaries: which binaries
//! (or `python -m` modules, or subcommands) run the engine's option table,
//! how a command line's first words invoke it, and what a binary was
//! called in an older build.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Profile;
use crate::catalog::tag::compare_tags;

/// A binary renamed between versions: from the tag `since` on, the program
/// that was `name` is `to` (llama.cpp's `main` became `llama-cli`, and
/// later `llama-completion`). A build older than every rename of a name
/// still has the binary under that name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Renamed {
    pub name: String,
    pub to: String,
    pub since: String,
}

/// A binary that runs (or does not run) the engine's option table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandSpec {
    pub name: String,
    /// The scope whose options it accepts; none: every option.
    #[serde(default)]
    pub scope: Option<String>,
    /// It parses its own arguments: its flags are not judged.
    #[serde(default)]
    pub foreign: bool,
    /// `llama serve …`: subcommand → scope. A subcommand may be two words
    /// (`bench latency`), written with one space.
    #[serde(default)]
    pub subcommands: BTreeMap<String, String>,
    /// The name is a Python module, run as `python -m NAME` (an interpreter
    /// in front of it, never as a command word of its own).
    #[serde(default)]
    pub module: bool,
    /// Whether this binary's parser reads `_` as `-` in a `--` word; none:
    /// the profile's `[argv] underscores` (a binary with its own parser
    /// may not: the old llama.cpp server compared its words as written).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub underscores: Option<bool>,
}

/// How a command line's first words run the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invocation {
    /// The engine's argv follows; `scope` says which options it accepts.
    Engine { scope: Option<String>, words: usize },
    /// A binary with its own parser: nothing it takes is the engine's.
    Foreign,
}

impl Profile {
    /// How a command (by its basename) and the word after it run the engine.
    pub fn invocation(&self, command: &str, next: Option<&str>) -> Option<Invocation> {
        let c = self.commands.iter().find(|c| c.name == command && !c.module)?;
        self.invocation_of(c, next)
    }

    /// How `python -m MODULE` runs the engine, when the module is one of its commands.
    pub fn module_invocation(&self, module: &str) -> Option<Invocation> {
        let c = self.commands.iter().find(|c| c.name == module && c.module)?;
        self.invocation_of(c, None)
    }

    /// True when `command` is a program of subcommands (`ollama serve`).
    pub fn has_subcommands(&self, command: &str) -> bool {
        self.commands.iter().any(|c| c.name == command && !c.module && !c.subcommands.is_empty())
    }

    /// True when some command of the profile is a Python module.
    pub fn has_modules(&self) -> bool {
        self.commands.iter().any(|c| c.module)
    }

    /// True when `command` has a subcommand of two words starting with
    /// `first` (`vllm bench latency`).
    pub fn has_nested_subcommand(&self, command: &str, first: &str) -> bool {
        let c = self.commands.iter().find(|c| c.name == command && !c.module);
        c.is_some_and(|c| c.subcommands.keys().any(|k| k.split_once(' ').is_some_and(|(a, _)| a == first)))
    }

    fn invocation_of(&self, c: &CommandSpec, next: Option<&str>) -> Option<Invocation> {
        if c.foreign {
            return Some(Invocation::Foreign);
        }
        if !c.subcommands.is_empty() {
            // `llama serve …`; an unknown subcommand is not judged.
            // `next` may be two words (`bench latency`) when the profile names such a subcommand.
            return match next.and_then(|n| c.subcommands.get(n).map(|s| (s, n))) {
                Some((scope, n)) => {
                    Some(Invocation::Engine { scope: Some(scope.clone()), words: 1 + n.split(' ').count() })
                }
                None => Some(Invocation::Foreign),
            };
        }
        Some(Invocation::Engine { scope: c.scope.clone(), words: 1 })
    }
    /// True when `name` is an old name of a binary renamed in some version.
    pub fn is_renamed(&self, name: &str) -> bool {
        self.renamed.iter().any(|r| r.name == name)
    }

    /// What the binary once called `name` is in the build `tag`: the latest
    /// rename at or before `tag`, each earlier one before it; empty when
    /// the build is older than every rename (the name is still its own).
    pub fn renames_at(&self, name: &str, tag: &str) -> Vec<&Renamed> {
        let mut hops: Vec<&Renamed> = (self.renamed.iter())
            .filter(|r| r.name == name && compare_tags(&r.since, tag) != std::cmp::Ordering::Greater)
            .collect();
        hops.sort_by(|a, b| compare_tags(&a.since, &b.since));
        hops
    }

    /// Whether the binary `command` (by basename) reads `_` as `-`: its own
    /// rule, else the profile's.
    pub fn underscores_of(&self, command: &str) -> bool {
        (self.commands.iter().find(|c| c.name == command).and_then(|c| c.underscores)).unwrap_or(self.argv.underscores)
    }

    /// The scope of a binary by name (`llama-server` → its example's).
    pub fn scope_of(&self, command: &str) -> Option<&str> {
        self.commands.iter().find(|c| c.name == command && !c.foreign && !c.module).and_then(|c| c.scope.as_deref())
    }
}
