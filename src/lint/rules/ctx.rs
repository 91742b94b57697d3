//! What the rules judge against: the profile, the pinned catalogue and
//! every catalogued version, the engine's history when there is one, a
//! folder's env variables, and the facts about a catalogue that are worked
//! out once ([`CatalogFacts`]). The history is asked only on a finding's path.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::catalog::history::History;
use crate::catalog::model::{Catalog, Flag};
use crate::catalog::profile::Profile;
use crate::catalog::query;
use crate::catalog::since::{self, Removal};

/// What the rules judge against.
pub struct Ctx<'a> {
    /// The engine's profile: its argv, env and metric rules.
    pub profile: &'a Profile,
    /// The pinned version's catalogue for this file.
    pub catalog: &'a Catalog,
    /// Every catalogued version of the engine, oldest first.
    pub all: &'a [Catalog],
    /// Every tag of the engine, when a history is synced or embedded.
    pub history: Option<&'a History>,
    /// Env variables a serve script passes to a flag.
    pub env_flags: &'a HashMap<String, String>,
    /// What is worked out once per catalogue, on first need.
    pub derived: &'a CatalogFacts,
    /// Labels a scrape adds to every series (`[lint] target_labels`).
    pub target_labels: &'a [String],
}

/// Facts about one catalogue that rules ask for often and that take work
/// to find: each is computed once, when first asked for, and shared by
/// every file judged against that catalogue.
#[derive(Debug, Default)]
pub struct CatalogFacts {
    /// Old name → the catalogue's name, over every other catalogued version.
    renames: OnceLock<HashMap<String, String>>,
    /// Every env key the build reads, sorted, with its flag.
    env_keys: OnceLock<Vec<(String, String)>>,
    /// Where the build sits in the history (see [`since::position`]).
    position: OnceLock<Option<usize>>,
}

impl<'a> Ctx<'a> {
    /// `radiance v1.8.1`
    pub fn build(&self) -> String {
        format!("{} {}", self.catalog.source.engine, self.catalog.source.tag)
    }

    /// Other versions that have a flag of this name.
    pub fn versions_with_flag(&self, name: &str) -> Vec<&Catalog> {
        self.all
            .iter()
            .filter(|c| c.source.tag != self.catalog.source.tag && query::flag(c, self.profile, name).is_some())
            .collect()
    }

    /// The pinned build's name for a flag an older version called `old`.
    pub fn renamed(&self, old: &str) -> Option<&'a str> {
        let all = self.all;
        let catalog = self.catalog;
        let map = self.derived.renames.get_or_init(|| {
            let mut map = HashMap::new();
            for other in all.iter().filter(|c| c.source.tag != catalog.source.tag) {
                for r in crate::catalog::diff::diff(other, catalog).flags_renamed {
                    map.entry(r.from).or_insert(r.to);
                }
            }
            map
        });
        map.get(old).map(String::as_str)
    }

    /// Every env key the pinned build reads: declared ones (and their
    /// negated forms), and the convention's where the profile has one; only
    /// keys of two words or more, sorted, each with its flag.
    pub fn env_keys(&self) -> &'a [(String, String)] {
        let (catalog, profile) = (self.catalog, self.profile);
        self.derived.env_keys.get_or_init(|| {
            let mut keys: Vec<(String, String)> = Vec::new();
            for f in &catalog.flags {
                for k in f.env.iter().cloned().chain(query::env_key_for(f, profile)) {
                    if let (Some([from, to]), false) = (&profile.env.negated, f.negated.is_empty()) {
                        if let Some(rest) = k.strip_prefix(from.as_str()) {
                            keys.push((format!("{to}{rest}"), f.name.clone()));
                        }
                    }
                    keys.push((k, f.name.clone()));
                }
            }
            keys.retain(|(k, _)| k.contains('_'));
            keys.sort();
            keys.dedup();
            keys
        })
    }

    /// The history, and where the pinned build sits in it (`None`: before
    /// every tag it holds).
    fn in_history(&self) -> Option<(&'a History, Option<usize>)> {
        let h = self.history?;
        let at = self.derived.position.get_or_init(|| since::position(h, &self.catalog.source.tag).map(|(i, _)| i));
        Some((h, *at))
    }

    /// Where a metric the pinned build lacks is among the builds knobs knows.
    pub fn metric_when(&self, name: &str) -> crate::catalog::metric_since::MetricWhen {
        crate::catalog::metric_since::metric_when(self.catalog, self.all, self.in_history(), name)
    }

    /// When a flag the pinned build lacks was removed, by the history.
    pub fn removal(&self, written: &str) -> Option<Removal> {
        let (h, at) = self.in_history()?;
        since::removal(h, written, self.profile.argv.underscores, at)
    }

    /// When an engine-wide env key the pinned build does not read was
    /// removed: the last tag reading it and the tag after it.
    pub fn env_key_removal(&self, key: &str) -> Option<(String, String)> {
        let (h, at) = self.in_history()?;
        since::env_key_removal(h, key, at?)
    }

    /// The first tag after the pinned build that reads an engine-wide env key.
    pub fn env_key_from(&self, key: &str) -> Option<&'a str> {
        let (h, at) = self.in_history()?;
        h.env_key_spans(key)
            .into_iter()
            .flat_map(|(_, r)| r.iter().map(|r| *r.start()))
            .filter(|s| at.is_none_or(|at| *s > at))
            .min()
            .and_then(|i| h.tag(i))
    }

    /// True when some tag of the history reads an engine-wide env key.
    pub fn env_key_in_history(&self, key: &str) -> bool {
        self.history.is_some_and(|h| !h.env_key_spans(key).is_empty())
    }

    /// The first tag after the pinned build that has a flag it lacks.
    pub fn flag_from(&self, written: &str) -> Option<&'a str> {
        let (h, at) = self.in_history()?;
        since::flag_from(h, written, self.profile.argv.underscores, at)
    }

    /// The flag an env key the pinned build does not read sets in another
    /// tag of the history, when one does.
    pub fn env_flag_elsewhere(&self, key: &str) -> Option<String> {
        let (h, _) = self.in_history()?;
        since::env_flag(h, key, self.profile, self.env_flags).filter(|name| self.in_other_tags(name))
    }

    /// True when a tag of the history other than the pinned one has the flag.
    pub fn in_other_tags(&self, written: &str) -> bool {
        self.in_history().is_some_and(|(h, at)| since::elsewhere(h, written, self.profile.argv.underscores, at))
    }

    /// The first tag after the pinned build whose flag `name` accepts `member`.
    pub fn member_from(&self, name: &str, member: &str) -> Option<&'a str> {
        let (h, at) = self.in_history()?;
        since::member_from(h, name, member, at)
    }

    /// When the pinned build's flag `name` stopped accepting `member`: the
    /// last tag that did, and the first that did not.
    pub fn member_removal(&self, name: &str, member: &str) -> Option<(String, String)> {
        let (h, at) = self.in_history()?;
        since::member_removal(h, name, member, at)
    }

    /// The spans of the history in which flag `name` was a switch, as
    /// labels: those before the pinned build, else those after it, with
    /// `true` when they are before.
    pub fn switch_spans(&self, name: &str) -> Option<(Vec<String>, bool)> {
        let (h, at) = self.in_history()?;
        let spans = since::switch_spans(h, name);
        let before: Vec<String> =
            spans.iter().filter(|(r, _)| at.is_some_and(|at| *r.end() < at)).map(|(_, l)| l.clone()).collect();
        if !before.is_empty() {
            return Some((before, true));
        }
        let after: Vec<String> =
            spans.iter().filter(|(r, _)| at.is_none_or(|at| *r.start() > at)).map(|(_, l)| l.clone()).collect();
        (!after.is_empty()).then_some((after, false))
    }

    /// The pinned build's flag of a written spelling.
    pub fn flag(&self, name: &str) -> Option<&'a Flag> {
        query::flag(self.catalog, self.profile, name)
    }
}
