//! A candidate: the partial flag one strategy proposes, and how the
//! candidates for one flag merge into one (the strongest source first) and
//! are completed from the settings struct.

use std::collections::{BTreeMap, HashMap};

use crate::catalog::model::{Kind, MembersFrom};

use super::{roles, text};

/// A partial flag proposed by one strategy; merged with others by name.
#[derive(Debug, Clone, Default)]
pub(crate) struct Candidate {
    pub name: String,
    pub aliases: Vec<String>,
    pub metavar: Option<String>,
    pub default: Option<String>,
    pub help: Option<String>,
    /// A kind the source states (a kind field, a template argument, a setter).
    pub kind: Option<Kind>,
    /// A kind the parse code suggests (`std::stoi` on the value).
    pub evidence: Option<Kind>,
    /// True when the declaration shows the flag takes a value.
    pub takes_value: Option<bool>,
    pub members: Option<(Vec<String>, MembersFrom)>,
    pub line: usize,
    /// 0 declaration, 1 comparison in a parse chain, 2 usage text.
    pub rank: u8,
    /// Which configuration file declared it.
    pub file: usize,
    /// The struct field a parse branch assigns (`params.n_threads = …`).
    pub field: Option<String>,
    /// What stands for each placeholder of a format-string help.
    pub help_args: Vec<HelpArg>,
    /// Spellings that turn the option off.
    pub negated: Vec<String>,
    pub env: Vec<String>,
    pub scopes: Vec<String>,
    pub excludes: Vec<String>,
    /// The message of an option that always refuses.
    pub removed: Option<String>,
    /// Value words after the option, when more than one.
    pub arity: Option<u8>,
    /// The value is a comma-separated list.
    pub list: bool,
    /// A declaration that would have said so if it limited its scopes.
    pub scope_known: bool,
}

/// What a format-string help's argument stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HelpArg {
    /// A field of the settings struct: its initialiser is the value.
    Field(String),
    /// `field ? "yes" : "no"` on a boolean field.
    Choice {
        field: String,
        yes: String,
        no: String,
    },
    Text(String),
    /// Computed at run time.
    Unknown,
}

impl Candidate {
    /// Fills metavar and default from leftover short strings, in source
    /// order (the common order is flag, metavar, default, help), then notes
    /// whether the flag takes a value.
    pub(crate) fn fill_slots(&mut self, pending: Vec<String>) {
        let mut pending = pending.into_iter();
        if self.metavar.is_none() && self.default.is_none() {
            match (pending.next(), pending.next()) {
                (Some(a), Some(b)) => {
                    self.metavar = Some(a);
                    self.default = Some(b);
                }
                (Some(a), None) => self.default = Some(a),
                _ => {}
            }
        } else if self.default.is_none() {
            self.default = pending.next();
        } else if self.metavar.is_none() {
            self.metavar = pending.next();
        }
        self.takes_value = self.metavar.as_ref().map(|m| !m.is_empty());
    }

    /// Completes a merged candidate from the settings struct: a
    /// format-string help filled in, the kind and the default of the field
    /// a parse branch assigns.
    pub(crate) fn complete(&mut self, field_defaults: &HashMap<String, String>, field_types: &HashMap<String, String>) {
        // A format-string help: its placeholders filled from the fields'
        // initialisers (`string_format("… (default: %d)", params.n_ctx)`).
        if !self.help_args.is_empty() {
            if let Some(fmt) = &self.help {
                let values: Vec<Option<String>> = self
                    .help_args
                    .iter()
                    .map(|a| match a {
                        HelpArg::Text(t) => Some(t.clone()),
                        HelpArg::Field(f) => field_defaults.get(f).cloned(),
                        HelpArg::Choice { field, yes, no } => match field_defaults.get(field).map(String::as_str) {
                            Some("true") => Some(yes.clone()),
                            Some("false") => Some(no.clone()),
                            _ => None,
                        },
                        HelpArg::Unknown => None,
                    })
                    .collect();
                self.help = Some(text::fill_format(fmt, &values));
            }
        }
        // A value bound to a field (`add_option("--x", o.x, …)`) has the
        // field's declared type.
        if self.kind.is_none() && self.evidence.is_none() {
            self.evidence = self.field.as_ref().and_then(|f| field_types.get(f)).and_then(|t| roles::kind_of_ident(t));
            // A branch that reads a word and sets a boolean from it
            // (`--log-format json` sets `log_json`) is no switch.
            if self.takes_value == Some(true) && self.evidence == Some(Kind::Switch) {
                self.evidence = None;
            }
        }
        // Where the source states no default, the literal initialiser of the
        // field a parse branch assigns is the default (`int n_processors = 1;`).
        // Not for switches: `--no-gpu` sets `use_gpu`, whose default is the field's.
        if self.default.as_deref().is_none_or(str::is_empty) && self.takes_value == Some(true) {
            if let Some(d) = self.field.as_ref().and_then(|f| field_defaults.get(f)) {
                self.default = Some(d.clone());
            }
        }
    }
}

/// Merges candidates by name: the strongest source fills each field first.
pub(crate) fn merge(mut cands: Vec<Candidate>) -> BTreeMap<String, Candidate> {
    cands.sort_by_key(|c| (c.rank, c.line));
    // A usage line or comparison may name a flag by an alias first; map aliases
    // to the declared long name.
    let mut out: BTreeMap<String, Candidate> = BTreeMap::new();
    let mut key_of: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    for c in cands {
        let key = key_of.get(&c.name).cloned().unwrap_or_else(|| c.name.clone());
        match out.get_mut(&key) {
            None => {
                for s in std::iter::once(&c.name).chain(&c.aliases).chain(&c.negated) {
                    key_of.entry(s.clone()).or_insert_with(|| key.clone());
                }
                out.insert(key, c);
            }
            Some(m) => {
                for a in c.aliases {
                    if a != m.name && !m.aliases.contains(&a) {
                        key_of.entry(a.clone()).or_insert_with(|| key.clone());
                        m.aliases.push(a);
                    }
                }
                // The same option declared twice (one per binary): both
                // scopes; one declaration with none makes it unscoped.
                let unscoped = (m.scope_known && m.scopes.is_empty()) || (c.scope_known && c.scopes.is_empty());
                m.scope_known |= c.scope_known;
                m.list |= c.list;
                for (into, from) in [
                    (&mut m.negated, c.negated),
                    (&mut m.env, c.env),
                    (&mut m.scopes, c.scopes),
                    (&mut m.excludes, c.excludes),
                ] {
                    for v in from {
                        if !into.contains(&v) {
                            into.push(v);
                        }
                    }
                }
                if unscoped {
                    m.scopes.clear();
                }
                fill(&mut m.metavar, c.metavar);
                fill(&mut m.default, c.default);
                fill(&mut m.help, c.help);
                fill(&mut m.kind, c.kind);
                fill(&mut m.evidence, c.evidence);
                fill(&mut m.takes_value, c.takes_value);
                fill(&mut m.field, c.field);
                fill(&mut m.removed, c.removed);
                fill(&mut m.arity, c.arity);
                match (&mut m.members, c.members) {
                    (None, theirs) => m.members = theirs,
                    // Two declarations with their own sets (one per binary): the union.
                    (Some((mine, from)), Some((theirs, _))) if from.origin.starts_with("validator") => {
                        for t in theirs {
                            if !mine.contains(&t) {
                                mine.push(t);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

fn fill<T>(slot: &mut Option<T>, value: Option<T>) {
    if slot.is_none() {
        *slot = value;
    }
}
