//! A flag explained: what the pinned build declares of it (kind, members,
//! default, env key, binaries), what the overlay says — with the sentences
//! about what this build lacks left out, and said to be — its meters, and
//! the keys the project's serve scripts read for it. Also how a subject's
//! spelling resolves to a flag, which verify shares.

use serde::Serialize;

use super::history::{self, Version};
use super::project::Project;
use crate::catalog::model::short_commit;
use crate::catalog::model::{Catalog, Flag};
use crate::catalog::profile::Profile;
use crate::catalog::query::{env_key_for, env_target, find_metric};
use crate::catalog::semantics::{unregistered_note, FlagSemantics, Semantics};

/// A meter the overlay names for a flag that the build exports (one it
/// does not is left out, in [`FlagExplain::unregistered`]).
#[derive(Debug, Serialize)]
pub struct Meter {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub r#type: Option<String>,
}

/// Everything `knobs explain` says of a flag.
#[derive(Debug, Serialize)]
pub struct FlagExplain {
    pub build: String,
    /// Set when the build is an embedded catalogue used beside catalogues
    /// synced from another repository.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<String>,
    pub commit: String,
    /// False when the pinned build lacks the flag (it is explained from the
    /// newest version that has it).
    pub in_pinned: bool,
    pub flag: Flag,
    /// `core/config.cpp:92 @ v1.8.1 (76552d15dfd0)`
    pub members_at: Option<String>,
    pub declared_at: String,
    /// The env key that sets it, when it has one.
    pub env_key: Option<String>,
    /// True when the key may carry a service prefix (the profile's convention).
    pub env_prefixable: bool,
    /// The binaries that accept it, when the source scopes it.
    pub binaries: Vec<String>,
    /// Env keys the project's serve scripts read for it: (key, script).
    pub read_by: Vec<(String, String)>,
    /// Words the overlay's text was filtered of, because this version lacks them.
    pub omitted: Vec<String>,
    /// Meters and related flags the overlay names that this version does
    /// not register: left out of `meters` and the related list.
    pub unregistered: Vec<String>,
    /// The one line that says so: "the overlay describes `…`, which
    /// radiance v1.8.1 from R does not register".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unregistered_note: Option<String>,
    pub semantics: Option<FlagSemantics>,
    pub meters: Vec<Meter>,
    pub history: Vec<Version>,
    /// With the engine's history: one span of tags per shape the flag kept
    /// (`b3000–b4100`, `switch`), oldest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spans: Vec<ShapeRun>,
    /// With the engine's history: every change of the flag, with its tag.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<crate::catalog::since::Step>,
}

/// A run of tags in which a flag kept one shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShapeRun {
    pub tags: String,
    pub shape: String,
}

/// Fills in what the engine's history says of the flag: its spans and changes.
pub(super) fn with_history(e: &mut FlagExplain, h: &crate::catalog::history::History) {
    use crate::catalog::since;
    e.spans = since::spans(h, &e.flag.name).into_iter().map(|(tags, shape)| ShapeRun { tags, shape }).collect();
    e.changes = since::changes(h, &e.flag.name);
}

/// The flag a subject names in the history (by a spelling, or an env key
/// some tag reads), when no catalogued version has it: from the newest tag
/// that has it.
pub(super) fn resolve_in_history<'h>(
    subject: &str,
    h: &'h crate::catalog::history::History,
    profile: &Profile,
) -> Option<(&'h Flag, &'h Catalog)> {
    let by_env = || crate::catalog::since::env_flag(h, subject, profile, &Default::default());
    let name = if subject.starts_with('-') {
        subject.to_string()
    } else if subject.chars().any(|c| c.is_ascii_uppercase()) {
        by_env().unwrap_or_else(|| format!("--{subject}"))
    } else {
        format!("--{subject}")
    };
    let single = format!("-{}", name.trim_start_matches('-'));
    [name, single].iter().find_map(|n| {
        let last = *crate::catalog::since::presence(h, n, profile.argv.underscores).last()?.end();
        let c = h.catalog_at(last)?;
        crate::catalog::query::flag(c, profile, n).map(|f| (f, c))
    })
}

fn at(location: &str, c: &Catalog) -> String {
    format!("{location} @ {} ({})", c.source.tag, short_commit(&c.source.commit))
}

/// The flag a subject names — `--prefill-interleave`, `prefill-interleave`,
/// an env key (`PREFILL_INTERLEAVE`, a key the project's serve scripts read)
/// — in the pinned build, else in the newest catalogued version that has
/// it, with the catalogue it was found in. Explain and verify read names
/// the same way.
pub fn resolve_flag<'c>(
    subject: &str,
    catalog: &'c Catalog,
    all: &'c [Catalog],
    profile: &Profile,
    project: &Project,
) -> Option<(&'c Flag, &'c Catalog)> {
    let by_env = |subject: &str| {
        // A key the project's serve scripts read wins over the convention.
        if let Some((_, flag, _)) = project.env_keys.iter().find(|(k, _, _)| k == subject) {
            return Some(flag.clone());
        }
        env_target(subject, catalog, profile, &Default::default())
            .or_else(|| all.iter().rev().find_map(|c| env_target(subject, c, profile, &Default::default())))
            .map(|t| t.flag.name.clone())
    };
    let name = if subject.starts_with('-') {
        subject.to_string()
    } else if subject.chars().any(|c| c.is_ascii_uppercase()) {
        by_env(subject).unwrap_or_else(|| format!("--{subject}"))
    } else {
        format!("--{subject}")
    };
    let single = format!("-{}", name.trim_start_matches('-'));
    fn lookup<'c>(c: &'c Catalog, profile: &Profile, name: &str, single: &str) -> Option<&'c Flag> {
        crate::catalog::query::flag(c, profile, name).or_else(|| c.flag(single))
    }
    lookup(catalog, profile, &name, &single)
        .map(|f| (f, catalog))
        .or_else(|| all.iter().rev().find_map(|c| lookup(c, profile, &name, &single).map(|f| (f, c))))
}

/// What is known of `flag`, found in `from`, for the `pinned` build.
pub(super) fn explain_flag(
    flag: &Flag,
    from: &Catalog,
    pinned: &Catalog,
    all: &[Catalog],
    sem: &Semantics,
    profile: &Profile,
    build: &super::Build,
) -> FlagExplain {
    let mut semantics = sem.flag.get(&flag.name).cloned();
    // The overlay is written for the newest build: what it says of members,
    // flags or metrics this version lacks is left out, and said to be.
    let mut omitted: Vec<String> = Vec::new();
    if let Some(s) = semantics.as_mut() {
        let mut absent: Vec<String> = all
            .iter()
            .filter_map(|c| c.flag(&flag.name))
            .flat_map(|f| f.members.iter())
            .filter(|m| !pinned.flag(&flag.name).is_some_and(|p| p.members.contains(m)))
            .cloned()
            .collect();
        absent.sort();
        absent.dedup();
        for field in [Some(&mut s.does), s.costs.as_mut(), s.conditional.as_mut()].into_iter().flatten() {
            let (kept, dropped) = without_sentences_naming(field, &absent, pinned, profile);
            *field = kept;
            for d in dropped {
                if !omitted.contains(&d) {
                    omitted.push(d);
                }
            }
        }
    }
    // A meter or a related flag the version does not register is left out.
    let mut unregistered: Vec<String> = Vec::new();
    let mut meters = Vec::new();
    if let Some(s) = semantics.as_mut() {
        for m in &s.meters {
            match find_metric(pinned, m) {
                Some(found) => meters.push(Meter { name: m.clone(), r#type: Some(found.kind.as_str().to_string()) }),
                None => unregistered.push(m.clone()),
            }
        }
        let (kept, gone): (Vec<String>, Vec<String>) = s.related.drain(..).partition(|r| pinned.flag(r).is_some());
        s.related = kept;
        unregistered.extend(gone);
    }
    FlagExplain {
        build: build.name.clone(),
        provenance: build.mark.clone(),
        unregistered_note: unregistered_note(&unregistered, &build.label),
        unregistered,
        commit: pinned.source.commit.clone(),
        in_pinned: std::ptr::eq(from, pinned),
        members_at: flag.members_from.as_ref().map(|m| at(&m.location, from)),
        declared_at: at(&flag.location, from),
        env_key: env_key_for(flag, profile),
        env_prefixable: flag.env.is_empty() && profile.env.convention,
        binaries: if flag.scopes.is_empty() && flag.excludes.is_empty() {
            Vec::new()
        } else {
            profile.binaries_accepting(&flag.scopes, &flag.excludes)
        },
        flag: {
            let mut f = flag.clone();
            if f.help.is_empty() && build.facts_only {
                f.help = super::NO_HELP.to_string();
            }
            f
        },
        semantics,
        meters,
        history: history::flag_history(&flag.name, all),
        spans: Vec::new(),
        changes: Vec::new(),
        read_by: Vec::new(),
        omitted,
    }
}

/// Names the env keys the project's serve scripts read for the flag, and
/// has the rollback set the key they really read.
pub(super) fn read_by(e: &mut FlagExplain, project: &Project) {
    e.read_by = project
        .env_keys
        .iter()
        .filter(|(_, f, _)| *f == e.flag.name)
        .map(|(k, _, script)| (k.clone(), script.clone()))
        .collect();
    if let (Some(s), Some((key, _))) = (e.semantics.as_mut(), e.read_by.first()) {
        if let Some(line) = &s.rollback {
            if let Some((_, value)) = line.split_once('=') {
                s.rollback = Some(format!("{key}={value}"));
            }
        }
    }
}

/// The sentences of `text` that name none of `absent` nor a flag or metric
/// the pinned build lacks; and what was named in those left out.
fn without_sentences_naming(
    text: &str,
    absent: &[String],
    pinned: &Catalog,
    profile: &Profile,
) -> (String, Vec<String>) {
    let mut kept = Vec::new();
    let mut dropped = Vec::new();
    for sentence in text.split_inclusive(['.', ';']) {
        let mut missing: Vec<String> = Vec::new();
        for w in sentence.split_whitespace() {
            let w = w.trim_matches(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':')));
            let w = w.trim_end_matches(':');
            let gone_member = absent.iter().any(|a| a == w);
            let gone_flag = w.starts_with("--") && w.len() > 2 && pinned.flag(w).is_none();
            let gone_metric = profile.is_metric_name(w) && find_metric(pinned, w).is_none();
            if gone_member || gone_flag || gone_metric {
                missing.push(w.to_string());
            }
        }
        if missing.is_empty() {
            kept.push(sentence);
        } else {
            dropped.extend(missing);
        }
    }
    (kept.concat().trim().to_string(), dropped)
}
