//! Judging a literal engine argv (a running process's, for `knobs verify`)
//! exactly as an argv in a serve script is judged: the same pairing of
//! flags and values, the same rules. It needs the engine and its
//! catalogues, not a lint run's settings: an [`ArgvJudge`].

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use super::pairing::{self, ArgvRules, Word};
use super::refs::{Binary, Ref};
use super::rules::{self, Ctx, Violation, RULES};
use super::scanners::EngineMatcher;
use super::settings::DEFAULT_TARGET_LABELS;
use super::span;
use crate::catalog::model::{Catalog, Flag};
use crate::catalog::profile::Profile;
use crate::catalog::query;

/// What an argv is judged with: the engine's profile and the commands that
/// run it, the pinned catalogue and every catalogued version.
pub struct ArgvJudge<'a> {
    pub profile: &'a Profile,
    pub catalog: &'a Catalog,
    /// Every catalogued version of the engine, oldest first.
    pub all: &'a [Catalog],
    /// The commands that run the engine (the profile's and knobs.toml's):
    /// they say where an argv's engine arguments start.
    pub commands: EngineMatcher,
    /// Labels a scrape adds to every series.
    target_labels: Vec<String>,
    /// What the rules work out about `catalog`.
    derived: rules::CatalogFacts,
}

impl<'a> ArgvJudge<'a> {
    /// A judge for an engine, with knobs.toml's extra commands and serve scripts.
    pub fn new(profile: &'a Profile, catalog: &'a Catalog, all: &'a [Catalog], extra_commands: Vec<String>) -> Self {
        ArgvJudge {
            profile,
            catalog,
            all,
            commands: EngineMatcher::new(profile, extra_commands),
            target_labels: DEFAULT_TARGET_LABELS.iter().map(|s| s.to_string()).collect(),
            derived: rules::CatalogFacts::default(),
        }
    }
}

/// One word (or `--x=v` pair) of a literal argv and what the rules say of it.
#[derive(Debug)]
pub struct JudgedWord {
    pub r: Ref,
    /// The pinned build's flag it names, when it names one.
    pub flag: Option<Flag>,
    pub violations: Vec<Violation>,
}

/// Judges a literal engine argv (without its program word). `binary`
/// scopes the flags when the profile does.
pub fn judge_argv(argv: &[String], binary: Option<&Arc<Binary>>, judge: &ArgvJudge<'_>) -> Vec<JudgedWord> {
    let catalog = judge.catalog;
    let profile = judge.profile;
    let joined = argv.join(" ");
    let mut words = Vec::with_capacity(argv.len());
    let mut at = 0;
    for a in argv {
        words.push(Word {
            text: Some(Cow::Borrowed(a.as_str())),
            var: None,
            default: None,
            start: at,
            end: at + a.len(),
        });
        at += a.len() + 1;
    }
    let idx = span::LineIndex::new(&joined);
    let tv = |name: &str| query::flag(catalog, profile, name).map(|f| f.values());
    let rules = ArgvRules::of(&profile.argv);
    let mut refs = Vec::new();
    pairing::argv_refs(&words, &tv, rules, binary, &|s, e| idx.span(&joined, s, e), &mut refs);
    let none = HashMap::new();
    let ctx = Ctx {
        profile,
        catalog,
        all: judge.all,
        history: None,
        env_flags: &none,
        derived: &judge.derived,
        target_labels: &judge.target_labels,
    };
    refs.into_iter()
        .map(|r| {
            let subject = rules::Subject::new(&r, &ctx);
            let mut violations = Vec::new();
            for rule in RULES {
                (rule.check)(&subject, &ctx, &mut violations);
            }
            let flag = subject.flag.cloned();
            JudgedWord { r, flag, violations }
        })
        .collect()
}
