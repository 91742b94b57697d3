//! `knobs explain SUBJECT`: everything the catalogue and the overlay know
//! about a flag (by name or env key), a metric, or a rule.

use std::fmt::Write as _;

use serde::Serialize;

use crate::catalog::model::{Catalog, Flag, Metric};
use crate::catalog::profile::Profile;
use crate::catalog::query::{env_key_for, env_target, find_metric};
use crate::catalog::semantics::{FlagSemantics, MetricSemantics, Semantics};
use crate::lint::rules::{self, Rule};

/// What the project's own files say: the env keys its serve scripts read,
/// each with the flag it sets and the script that reads it.
#[derive(Debug, Default, Clone)]
pub struct Project {
    pub env_keys: Vec<(String, String, String)>,
}

/// What a subject resolved to.
pub enum Subject {
    Flag(Box<FlagExplain>),
    Metric(Box<MetricExplain>),
    Rule(&'static Rule),
}

/// A subject knobs does not know, with its nearest names.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("`{subject}` is not a flag, env key, metric or rule of {build}")]
#[diagnostic(code(knobs::explain::unknown))]
pub struct Unknown {
    pub subject: String,
    pub build: String,
    #[help]
    pub help: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Meter {
    pub name: String,
    pub present: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub r#type: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Version {
    pub tag: String,
    pub present: bool,
    /// What changed from the previous catalogued version.
    pub change: String,
}

#[derive(Debug, Serialize)]
pub struct FlagExplain {
    pub build: String,
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
    pub semantics: Option<FlagSemantics>,
    pub meters: Vec<Meter>,
    pub history: Vec<Version>,
}

#[derive(Debug, Serialize)]
pub struct MetricExplain {
    pub build: String,
    pub in_pinned: bool,
    pub metric: Metric,
    pub semantics: Option<MetricSemantics>,
    pub metered_for: Vec<String>,
    pub versions: Vec<Version>,
    /// The same name under the other prefix, when that exists too.
    pub other_prefix: Option<String>,
}

fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

fn at(location: &str, c: &Catalog) -> String {
    format!("{location} @ {} ({})", c.source.tag, short(&c.source.commit))
}

/// Resolves and explains a subject against `catalog` (the pinned build),
/// with `all` the engine's catalogued versions, oldest first.
pub fn explain(
    subject: &str,
    catalog: &Catalog,
    all: &[Catalog],
    sem: &Semantics,
    profile: &Profile,
    project: &Project,
) -> Result<Subject, Unknown> {
    let build = format!("{} {}", catalog.source.engine, catalog.source.tag);
    if let Some(rule) = rules::find(subject) {
        return Ok(Subject::Rule(rule));
    }
    if profile.is_metric_name(subject) {
        return explain_metric(subject, catalog, all, sem, profile, &build).map(|m| Subject::Metric(Box::new(m)));
    }
    // A metric written without its prefix (`engine_steps_held_total`).
    let prefixed = profile
        .metrics
        .prefixes
        .iter()
        .map(|p| format!("{p}{subject}"))
        .find(|name| find_metric(catalog, name).is_some() || all.iter().any(|c| find_metric(c, name).is_some()));
    if let Some(name) = prefixed {
        return explain_metric(&name, catalog, all, sem, profile, &build).map(|m| Subject::Metric(Box::new(m)));
    }
    match resolve_flag(subject, catalog, all, profile, project) {
        Some((flag, from)) => {
            let mut e = explain_flag(flag, from, catalog, all, sem, profile, &build);
            e.read_by = project
                .env_keys
                .iter()
                .filter(|(_, f, _)| *f == flag.name)
                .map(|(k, _, script)| (k.clone(), script.clone()))
                .collect();
            // The rollback names the key the project's scripts really read.
            if let (Some(s), Some((key, _))) = (e.semantics.as_mut(), e.read_by.first()) {
                if let Some(line) = &s.rollback {
                    if let Some((_, value)) = line.split_once('=') {
                        s.rollback = Some(format!("{key}={value}"));
                    }
                }
            }
            Ok(Subject::Flag(Box::new(e)))
        }
        None => Err(unknown(subject, catalog, profile, &build)),
    }
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

/// The error for a subject that names nothing, with its nearest names.
pub fn unknown_subject(subject: &str, catalog: &Catalog, profile: &Profile) -> Unknown {
    let build = format!("{} {}", catalog.source.engine, catalog.source.tag);
    unknown(subject, catalog, profile, &build)
}

fn unknown(subject: &str, catalog: &Catalog, profile: &Profile, build: &str) -> Unknown {
    let mut names: Vec<String> = Vec::new();
    for f in &catalog.flags {
        names.push(f.name.clone());
        names.push(f.name.trim_start_matches('-').to_string());
        names.extend(env_key_for(f, profile));
    }
    names.extend(catalog.metrics.iter().map(|m| m.name.clone()));
    // Metric names without their prefix, for a subject written without one.
    for m in &catalog.metrics {
        if let Some(p) = profile.metrics.prefixes.iter().find(|p| m.name.starts_with(p.as_str())) {
            names.push(m.name[p.len()..].to_string());
        }
    }
    for r in rules::RULES {
        names.push(r.code.to_string());
        names.push(r.name.to_string());
    }
    let mut scored: Vec<(usize, &String)> = names
        .iter()
        .map(|n| (strsim::damerau_levenshtein(subject, n), n))
        .filter(|(d, _)| *d <= 3.max(subject.len() / 4))
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    let mut help: Option<String> = None;
    if let Some(right) = profile.paired_name(subject).filter(|o| find_metric(catalog, o).is_some()) {
        let why = profile.metrics.pair_hint.as_deref().map(|h| format!(": {h}")).unwrap_or_default();
        help = Some(format!("it is exported as `{right}`{why}"));
    } else if !scored.is_empty() {
        let near: Vec<String> = scored.iter().take(3).map(|(_, n)| format!("`{n}`")).collect();
        help = Some(format!("did you mean {}?", near.join(", ")));
    }
    let help = help.or_else(|| Some("`knobs flags` lists the flags; `knobs explain KNB001` explains a rule".into()));
    Unknown { subject: subject.to_string(), build: build.to_string(), help }
}

fn explain_flag(
    flag: &Flag,
    from: &Catalog,
    pinned: &Catalog,
    all: &[Catalog],
    sem: &Semantics,
    profile: &Profile,
    build: &str,
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
    let meters = semantics
        .iter()
        .flat_map(|s| s.meters.iter())
        .map(|m| {
            let found = find_metric(pinned, m);
            Meter { name: m.clone(), present: found.is_some(), r#type: found.map(|f| f.kind.as_str().to_string()) }
        })
        .collect();
    FlagExplain {
        build: build.to_string(),
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
        flag: flag.clone(),
        semantics,
        meters,
        history: flag_history(&flag.name, all),
        read_by: Vec::new(),
        omitted,
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

/// How a flag changed across versions, oldest first.
fn flag_history(name: &str, all: &[Catalog]) -> Vec<Version> {
    let mut out = Vec::new();
    let mut prev: Option<(&Catalog, &Flag)> = None;
    let mut prev_catalog: Option<&Catalog> = None;
    for c in all {
        let now = c.flag(name);
        let change = match (prev, now) {
            (None, None) => "absent".to_string(),
            (None, Some(f)) => {
                let renamed = prev_catalog.and_then(|p| {
                    crate::catalog::diff::diff(p, c).flags_renamed.into_iter().find(|r| r.to == f.name).map(|r| r.from)
                });
                match (renamed, prev_catalog) {
                    (Some(old), _) => format!("renamed from `{old}`"),
                    (None, Some(_)) => "added".to_string(),
                    (None, None) => describe(f),
                }
            }
            (Some(_), None) => {
                let renamed = prev_catalog.and_then(|p| {
                    crate::catalog::diff::diff(p, c).flags_renamed.into_iter().find(|r| r.from == name).map(|r| r.to)
                });
                renamed.map_or_else(|| "removed".to_string(), |to| format!("removed: renamed to `{to}`"))
            }
            (Some((_, a)), Some(b)) => {
                let mut parts = Vec::new();
                let added: Vec<&String> = b.members.iter().filter(|m| !a.members.contains(m)).collect();
                let removed: Vec<&String> = a.members.iter().filter(|m| !b.members.contains(m)).collect();
                if !added.is_empty() {
                    parts.push(format!("members added: {}", join(&added)));
                }
                if !removed.is_empty() {
                    parts.push(format!("members removed: {}", join(&removed)));
                }
                if a.default != b.default {
                    parts.push(format!("default `{}` → `{}`", a.default, b.default));
                }
                if a.kind != b.kind {
                    parts.push(format!("kind {} → {}", a.kind.as_str(), b.kind.as_str()));
                }
                if parts.is_empty() {
                    "unchanged".to_string()
                } else {
                    parts.join("; ")
                }
            }
        };
        out.push(Version { tag: c.source.tag.clone(), present: now.is_some(), change });
        prev = now.map(|f| (c, f));
        prev_catalog = Some(c);
    }
    out
}

fn describe(f: &Flag) -> String {
    if f.members.is_empty() {
        "present".to_string()
    } else {
        format!("present; members {}", join(&f.members.iter().collect::<Vec<_>>()))
    }
}

fn join(items: &[&String]) -> String {
    items.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
}

fn explain_metric(
    name: &str,
    pinned: &Catalog,
    all: &[Catalog],
    sem: &Semantics,
    profile: &Profile,
    build: &str,
) -> Result<MetricExplain, Unknown> {
    let found = find_metric(pinned, name).or_else(|| all.iter().rev().find_map(|c| find_metric(c, name)));
    let Some(metric) = found else { return Err(unknown(name, pinned, profile, build)) };
    let versions = all
        .iter()
        .map(|c| {
            let present = find_metric(c, &metric.name).is_some();
            Version { tag: c.source.tag.clone(), present, change: if present { "exported" } else { "absent" }.into() }
        })
        .collect();
    Ok(MetricExplain {
        build: build.to_string(),
        in_pinned: find_metric(pinned, name).is_some(),
        semantics: sem.metric.get(&metric.name).cloned(),
        metered_for: sem.metered_by(&metric.name).into_iter().map(str::to_string).collect(),
        other_prefix: profile.paired_name(&metric.name).filter(|o| all.iter().any(|c| find_metric(c, o).is_some())),
        metric: metric.clone(),
        versions,
    })
}

/// Wraps prose at 88 columns under an indent.
fn wrap(text: &str, indent: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && indent.len() + line.len() + 1 + word.len() > 88 {
            let _ = writeln!(out, "{indent}{line}");
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        let _ = writeln!(out, "{indent}{line}");
    }
    out
}

fn field(out: &mut String, key: &str, value: &str) {
    if value.is_empty() {
        return;
    }
    let wrapped = wrap(value, "              ");
    let _ = write!(out, "  {key:<10}  {}", wrapped.trim_start());
}

/// Human text.
pub fn human(s: &Subject) -> String {
    let mut out = String::new();
    match s {
        Subject::Rule(r) => {
            let _ = writeln!(out, "{} {} ({} by default)\n", r.code, r.name, r.severity.as_str());
            let _ = writeln!(out, "{}", r.doc());
        }
        Subject::Flag(e) => {
            let f = &e.flag;
            let role = e.semantics.as_ref().map(|s| format!(" — {}", s.role)).unwrap_or_default();
            let _ = writeln!(out, "{}{role}", f.name);
            let _ = writeln!(out, "{} ({})", e.build, short(&e.commit));
            if !e.in_pinned {
                let _ = writeln!(out, "not in {}: shown as the newest catalogued version that has it", e.build);
            }
            let _ = writeln!(out);
            if !f.aliases.is_empty() {
                field(&mut out, "aliases", &f.aliases.join(", "));
            }
            let value = if f.metavar.is_empty() {
                f.kind.as_str().to_string()
            } else {
                format!("{} ({})", f.metavar, f.kind.as_str())
            };
            field(&mut out, "value", &value);
            if !f.members.is_empty() {
                field(&mut out, "members", &f.members.join(", "));
                if let (Some(from), Some(loc)) = (&f.members_from, &e.members_at) {
                    let closed = if from.closed { "; any other value is refused at boot" } else { "; an open set" };
                    field(&mut out, "", &format!("from the {} at {loc}{closed}", from.origin.replace('-', " ")));
                }
            }
            let default = if f.default.is_empty() { "none in the source".to_string() } else { f.default.clone() };
            field(&mut out, "default", &default);
            if let Some(a) = &f.auto_means {
                field(&mut out, "auto", a);
            }
            field(&mut out, "help", &f.help);
            field(&mut out, "declared", &e.declared_at);
            if let Some(removed) = &f.removed {
                field(&mut out, "removed", &format!("still parsed, always refused: {removed}"));
            }
            if !f.negated.is_empty() {
                field(&mut out, "negated", &f.negated.join(", "));
            }
            if let Some(key) = &e.env_key {
                let env = if !e.env_prefixable {
                    key.clone()
                } else if key.contains('_') {
                    format!("{key} (a service prefix is allowed: SVC_{key})")
                } else {
                    format!("{key} (exactly: a one-word key takes no service prefix)")
                };
                field(&mut out, "env", &env);
            }
            if !e.binaries.is_empty() {
                field(&mut out, "binaries", &e.binaries.join(", "));
            }
            for (key, script) in &e.read_by {
                field(&mut out, "read as", &format!("{key} by {script}"));
            }
            if let Some(sem) = &e.semantics {
                let _ = writeln!(out, "\nWhat it does\n{}", wrap(&sem.does, "  ").trim_end());
                if let Some(c) = &sem.costs {
                    let _ = writeln!(out, "\nWhat it costs\n{}", wrap(c, "  ").trim_end());
                }
                if !e.meters.is_empty() {
                    let _ = writeln!(out, "\nMeters (must move once armed)");
                    for m in &e.meters {
                        let state = if m.present { "present" } else { "ABSENT " };
                        let ty = m.r#type.as_deref().map(|t| format!(" ({t})")).unwrap_or_default();
                        let _ = writeln!(out, "  {state}  {}{ty}", m.name);
                    }
                }
                if !sem.related.is_empty() {
                    let _ = writeln!(out, "\nRelated\n  {}", sem.related.join(", "));
                }
                if let Some(r) = &sem.rollback {
                    let _ = writeln!(out, "\nRollback\n  {r}");
                }
                if let Some(c) = &sem.conditional {
                    let _ = writeln!(out, "\nServe-script caveat\n{}", wrap(c, "  ").trim_end());
                }
                if !e.omitted.is_empty() {
                    let names = e.omitted.iter().map(|o| format!("`{o}`")).collect::<Vec<_>>().join(", ");
                    let _ = writeln!(out, "\n(The overlay says more of {names}, which {} lacks.)", e.build);
                }
            }
            let _ = writeln!(out, "\nHistory");
            for v in &e.history {
                let _ = writeln!(out, "  {:<10}  {}", v.tag, v.change);
            }
        }
        Subject::Metric(e) => {
            let m = &e.metric;
            let _ = writeln!(out, "{} — {}", m.name, m.kind.as_str());
            let _ = writeln!(out, "{}", e.build);
            if !e.in_pinned {
                let _ = writeln!(out, "not exported by {}", e.build);
            }
            let _ = writeln!(out);
            field(&mut out, "help", &m.help);
            if !m.labels.is_empty() {
                field(&mut out, "labels", &m.labels.join(", "));
            }
            field(&mut out, "declared", &m.location);
            if let Some(s) = &e.semantics {
                let _ = writeln!(out, "\nWhat it measures\n{}", wrap(&s.measures, "  ").trim_end());
                if let Some(t) = &s.trap {
                    let _ = writeln!(out, "\nTrap\n{}", wrap(t, "  ").trim_end());
                }
            }
            if let Some(o) = &e.other_prefix {
                let _ = writeln!(out, "\nPrefix\n  `{o}` exists too: check which one you mean");
            }
            if !e.metered_for.is_empty() {
                let _ = writeln!(out, "\nMeter for\n  {}", e.metered_for.join(", "));
            }
            let _ = writeln!(out, "\nVersions");
            for v in &e.versions {
                let _ = writeln!(out, "  {:<10}  {}", v.tag, v.change);
            }
        }
    }
    out
}

/// Markdown, for a runbook vault.
pub fn markdown(s: &Subject) -> String {
    let mut out = String::new();
    match s {
        Subject::Rule(r) => {
            let _ = writeln!(out, "# {} `{}`\n\nDefault severity: {}.\n", r.code, r.name, r.severity.as_str());
            let _ = writeln!(out, "{}", r.doc());
        }
        Subject::Flag(e) => {
            let f = &e.flag;
            let _ = writeln!(out, "# `{}`\n", f.name);
            if let Some(sem) = &e.semantics {
                let _ = writeln!(out, "*{}*\n", sem.role);
            }
            let _ = writeln!(out, "- build: {} (`{}`)", e.build, short(&e.commit));
            if !f.metavar.is_empty() {
                let _ = writeln!(out, "- value: `{}` ({})", f.metavar, f.kind.as_str());
            } else {
                let _ = writeln!(out, "- value: {}", f.kind.as_str());
            }
            if !f.members.is_empty() {
                let members: Vec<String> = f.members.iter().map(|m| format!("`{m}`")).collect();
                let _ =
                    writeln!(out, "- members: {} (`{}`)", members.join(", "), e.members_at.as_deref().unwrap_or(""));
            }
            if !f.default.is_empty() {
                let _ = writeln!(out, "- default: `{}`", f.default);
            }
            if let Some(a) = &f.auto_means {
                let _ = writeln!(out, "- `auto`: {a}");
            }
            if let Some(key) = &e.env_key {
                let _ = writeln!(out, "- env: `{key}`");
            }
            let _ = writeln!(out, "- declared: `{}`", e.declared_at);
            let _ = writeln!(out, "\n{}", f.help);
            if let Some(sem) = &e.semantics {
                let _ = writeln!(out, "\n## What it does\n\n{}", sem.does);
                if let Some(c) = &sem.costs {
                    let _ = writeln!(out, "\n## What it costs\n\n{c}");
                }
                if !e.meters.is_empty() {
                    let _ = writeln!(out, "\n## Meters\n");
                    for m in &e.meters {
                        let _ = writeln!(
                            out,
                            "- `{}` ({})",
                            m.name,
                            if m.present { "present" } else { "absent in this build" }
                        );
                    }
                }
                if let Some(r) = &sem.rollback {
                    let _ = writeln!(out, "\n## Rollback\n\n```sh\n{r}\n```");
                }
            }
            let _ = writeln!(out, "\n## History\n");
            for v in &e.history {
                let _ = writeln!(out, "- {}: {}", v.tag, v.change);
            }
        }
        Subject::Metric(e) => {
            let _ = writeln!(
                out,
                "# `{}`\n\n- type: {}\n- build: {}\n\n{}",
                e.metric.name,
                e.metric.kind.as_str(),
                e.build,
                e.metric.help
            );
            if let Some(s) = &e.semantics {
                let _ = writeln!(out, "\n{}", s.measures);
                if let Some(t) = &s.trap {
                    let _ = writeln!(out, "\n> **Trap:** {t}");
                }
            }
        }
    }
    out
}

/// JSON.
pub fn json(s: &Subject) -> String {
    let v = match s {
        Subject::Rule(r) => serde_json::json!({
            "kind": "rule", "code": r.code, "name": r.name, "severity": r.severity.as_str(), "doc": r.doc(),
        }),
        Subject::Flag(e) => serde_json::json!({"kind": "flag", "flag": e}),
        Subject::Metric(e) => serde_json::json!({"kind": "metric", "metric": e}),
    };
    serde_json::to_string_pretty(&v).map(|s| s + "\n").unwrap_or_default()
}
