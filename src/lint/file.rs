//! Linting one file: scan it (or take the scan its folder's context made),
//! group its refs by the version each is judged against, run the enabled
//! rules on each ref, apply the file's suppressions, and keep the findings
//! with the lines a snippet shows.

use std::path::Path;

use super::finding::{Excerpt, FileReport, Finding};
use super::folder::Folder;
use super::input::Text;
use super::reach::Found;
use super::refs::Ref;
use super::rules::{self, Ctx, Violation};
use super::scanners::Scan;
use super::verdicts::Under;
use super::{dispatch, evidence, fleet, pins, span, suppress, Settings};
use crate::catalog::model::Catalog;
use crate::kinds::FileKind;

/// Lints one file, `path` as shown to the user, in its folder's context.
/// `scanned` is the file's scan when its folder's context already made it.
pub fn lint_file(
    path: &Path,
    text: Text,
    kind: FileKind,
    settings: &Settings<'_>,
    folder: &Folder,
    scanned: Option<Scan>,
    nearby: &Nearby<'_>,
) -> FileReport {
    let shown = crate::pictures::path_text(path);
    let mut notes: Vec<String> = text.note.iter().map(|n| format!("{shown}: {n}")).collect();
    // The folder's pin picks the catalogue (a pin without one: the folder's note).
    let catalog = folder.catalog(settings);
    let text = text.text;
    let mut scan = scanned.unwrap_or_else(|| scan_in(path, &text, kind, settings, folder));
    // A deployment file's own engine image pins the version its argv is
    // judged against (a pin with no catalogue: a note, and the folder's);
    // a compose service or a container with its own image, its own.
    let mut groups = pins::group(&text, kind, &shown, settings, catalog, &mut scan, &mut notes);
    if folder.unjudged {
        // The folder pins a build older than every catalogued one.
        groups.iter_mut().for_each(|(_, refs)| refs.clear());
    }
    notes.extend(scan.notes.iter().map(|n| format!("{shown}: {n}")));
    // A monitoring file with no pin of its own: the fleet's builds, else
    // knobs.toml's pin, else the build its repository runs.
    let own = own_build(&groups, kind, settings, folder);
    let mut builds: Vec<&Catalog> = if own { settings.fleet.clone() } else { Vec::new() };
    let mut judged_by = None;
    if !builds.is_empty() {
        let tags: Vec<&str> = builds.iter().map(|c| c.source.tag.as_str()).collect();
        judged_by = Some(format!("and each build of the fleet, `[metrics] builds`: {}", tags.join(", ")));
    } else if own && !settings.pin_named {
        judged_by = reached(&mut groups, &mut builds, &shown, settings, nearby.reach, &mut notes);
    }
    let fleet = !builds.is_empty();
    // Series the project's own code registers under the engine's prefix (a
    // router's gauges, an exporter's) are its, known to every file of it.
    let metric = |r: &Ref| matches!(r, Ref::Metric { pattern: false, .. });
    if groups.iter().any(|(_, refs)| refs.iter().any(metric)) {
        let known = (nearby.registered)();
        if !known.is_empty() {
            for (_, refs) in &mut groups {
                refs.retain(|r| !matches!(r, Ref::Metric { name, pattern: false, .. } if known.contains(name)));
            }
        }
    }
    // Each reference is handed only to the rules that read its kind.
    let by_kind = rules::ByKind::new(|r| settings.enabled(r, &shown));
    let mut violations: Vec<Violation> = Vec::new();
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut options_files = Vec::new();
    let local = rules::CatalogFacts::default();
    let ctx_of = |catalog| ctx_for(catalog, settings, folder, &local);
    let judge = |ctx: &Ctx<'_>, refs: &mut dyn Iterator<Item = &Ref>, out: &mut Vec<Violation>| {
        // A binary whose own parser compares `_` as written (the profile's
        // reads it as `-`) is judged by the profile without that rule.
        let plain = std::cell::OnceCell::new();
        let refs: Vec<&Ref> = refs.filter(|r| !by_kind.none_of(r)).collect();
        // What the folder's files said before and the rules found clean is
        // clean again (under a catalogue of the run's own, the same rules).
        let under = settings.derived(ctx.catalog).is_some().then_some(Under { catalog: ctx.catalog, rules: by_kind });
        let known = under.map(|u| folder.verdicts.known_clean(u, &refs)).unwrap_or_default();
        let mut clean = Vec::new();
        for (i, r) in refs.iter().copied().enumerate() {
            if known.get(i) == Some(&true) {
                continue;
            }
            let found = out.len();
            let plain_ctx;
            let (ctx, own_ctx) = match r {
                Ref::Flag { binary: Some(b), .. } if b.plain_underscores => {
                    let profile = plain.get_or_init(|| {
                        let mut p = ctx.profile.clone();
                        p.argv.underscores = false;
                        p
                    });
                    plain_ctx = Ctx { profile, ..*ctx };
                    (&plain_ctx, true)
                }
                _ => (ctx, false),
            };
            // Each reference is resolved against the catalogue once, for every rule.
            let subject = rules::Subject::new(r, ctx);
            for rule in by_kind.of(r) {
                (rule.check)(&subject, ctx, out);
            }
            if out.len() == found && !own_ctx {
                clean.push(r);
            }
        }
        if let Some(u) = under {
            folder.verdicts.keep(u, &clean);
        }
    };
    for (catalog, refs) in &groups {
        options_files.extend(refs.iter().filter_map(|r| options_file(r, dir, settings, catalog)));
        let ctx = ctx_of(catalog);
        if !fleet {
            judge(&ctx, &mut refs.iter(), &mut violations);
            continue;
        }
        // A fleet: its metric references judged against each build, merged.
        judge(&ctx, &mut refs.iter().filter(|r| !matches!(r, Ref::Metric { .. })), &mut violations);
        let per_build: Vec<_> = (builds.iter())
            .map(|c| {
                let mut found = Vec::new();
                judge(&ctx_of(c), &mut refs.iter().filter(|r| matches!(r, Ref::Metric { .. })), &mut found);
                (*c, found)
            })
            .collect();
        let when = |c: &Catalog, name: &str| ctx_for(c, settings, folder, &local).metric_when(name);
        violations.extend(fleet::merge(&per_build, refs, &when, !settings.fleet.is_empty()));
    }
    // The version a file is said to be judged against: its first pin's.
    let catalog = groups.iter().find(|(_, refs)| !refs.is_empty()).or(groups.first()).map_or(catalog, |(c, _)| *c);
    // A named fleet says its first build; builds found around it, the run's.
    let catalog =
        if fleet && !settings.fleet.is_empty() { builds.first().copied().unwrap_or(catalog) } else { catalog };
    let file_off = suppress::file_directive(&text);
    let violations = suppress::apply(violations, &scan.suppressions);
    let mut findings: Vec<Finding> = violations
        .into_iter()
        .filter(|v| settings.enabled(v.rule, &shown))
        .filter(|v| !file_off.as_ref().is_some_and(|rules| suppress::names(rules, v.rule)))
        .filter_map(|v| {
            let severity = settings.severity_of(v.rule)?;
            Some(Finding::new(v, severity, &shown))
        })
        .collect();
    findings.sort_by(|a, b| (a.span.line, a.span.column, a.code).cmp(&(b.span.line, b.span.column, b.code)));
    findings.dedup();
    // Only the lines a snippet shows are kept; the whole text only for fixes.
    let lines = if findings.is_empty() {
        Excerpt::default()
    } else {
        Excerpt::around(&text, &span::LineIndex::new(&text), &findings)
    };
    let text = (settings.keep_text && !findings.is_empty()).then_some(text);
    // `EnvironmentFile=/etc/radiance/engine.env`: the file of that name
    // beside the unit, as a repository keeps it.
    let env_files = (scan.env_files.iter())
        .filter_map(|f| Path::new(f).file_name())
        .map(|name| dir.join(name))
        .filter(|p| p != path)
        .collect();
    let tag = catalog.source.tag.clone();
    FileReport { path: shown, text, lines, findings, tag, judged_by, notes, env_files, options_files }
}

/// What a file's surroundings say, asked only when needed: the build its
/// repository runs, and the series its project's code registers.
pub struct Nearby<'a> {
    pub reach: &'a dyn Fn() -> Found,
    pub registered: &'a dyn Fn() -> std::sync::Arc<Vec<String>>,
}

/// What the rules are told of the build `catalog` for this file.
fn ctx_for<'c>(
    catalog: &'c Catalog,
    settings: &'c Settings<'_>,
    folder: &'c Folder,
    local: &'c rules::CatalogFacts,
) -> Ctx<'c> {
    Ctx {
        profile: settings.at_tag(&catalog.source.tag).0,
        catalog,
        all: settings.all,
        history: settings.history,
        env_flags: &folder.env_flags,
        derived: settings.derived(catalog).unwrap_or(local),
        target_labels: &settings.target_labels,
    }
}

/// True when a file that may hold monitoring queries (a dashboard, a rule
/// file, a monitoring object) has no build of its own: no image it runs,
/// no pin of its folder, no `--tag`, and it names metrics.
fn own_build(groups: &[(&Catalog, Vec<Ref>)], kind: FileKind, settings: &Settings<'_>, folder: &Folder) -> bool {
    let [(catalog, refs)] = groups else { return false };
    kind.reads_monitoring()
        && std::ptr::eq(*catalog, settings.catalog)
        && folder.pins.is_empty()
        && !settings.tag_forced
        && refs.iter().any(|r| matches!(r, Ref::Metric { .. }))
}

/// Judges a monitoring file by the build its repository runs (`reach`),
/// and says why (for `-v`); several builds in reach are each judged
/// (`builds`), and a name only some of them lack is left alone. A build older than every catalogued one is a note, as an image
/// pin's is.
fn reached<'a>(
    groups: &mut [(&'a Catalog, Vec<Ref>)],
    builds: &mut Vec<&'a Catalog>,
    shown: &str,
    settings: &Settings<'a>,
    reach: &dyn Fn() -> Found,
    notes: &mut Vec<String>,
) -> Option<String> {
    let engine = &settings.catalog.source.engine;
    match reach() {
        Found::Nothing => None,
        Found::One(pin) => {
            let by = crate::pictures::path_text(&pin.by);
            let tag = &pin.tag;
            match settings.pinned(tag) {
                Some((c, nearest)) => {
                    if let Some(g) = groups.first_mut() {
                        g.0 = c;
                    }
                    Some(if nearest {
                        format!("the nearest earlier tag to {tag}, the build {by} runs{}", settings.sync_hint(tag))
                    } else {
                        format!("the build {by} runs")
                    })
                }
                None => {
                    let unjudged = settings.unjudged(tag, "the file is");
                    notes.push(format!("{shown}: {by} runs {engine} {tag}, {unjudged}"));
                    groups.iter_mut().for_each(|(_, refs)| refs.clear());
                    None
                }
            }
        }
        Found::Several(pins) => {
            // Several builds run around it: each judged (those with a
            // catalogue; one left alone judges as one pin does), and only
            // what none of them exports is said.
            for p in &pins {
                if let Some((c, _)) = settings.pinned(&p.tag) {
                    if !builds.iter().any(|b| std::ptr::eq(*b, c)) {
                        builds.push(c);
                    }
                }
            }
            // Newest first: a finding every build gives is said as the newest says it.
            builds.sort_by(|a, b| crate::catalog::tag::compare_tags(&b.source.tag, &a.source.tag));
            if builds.len() < 2 {
                if let (Some(c), Some(g)) = (builds.pop(), groups.first_mut()) {
                    g.0 = c;
                }
            }
            let each: Vec<String> =
                pins.iter().map(|p| format!("{} in {}", p.tag, crate::pictures::path_text(&p.by))).collect();
            Some(format!("and each build the files around it run ({})", each.join(", ")))
        }
    }
}

/// Scans a file as its kind says, in its folder's context: an env file is
/// the engine's only with evidence, and its values may be the argv a serve
/// script of the folder splits (`RADIANCE_ARGS="--a 1"` read by `radiance
/// $RADIANCE_ARGS`: its words are the engine's argv).
fn scan_in(path: &Path, text: &str, kind: FileKind, settings: &Settings<'_>, folder: &Folder) -> Scan {
    let catalog = folder.catalog(settings);
    if !kind.env_file() {
        return dispatch::scan(text, kind, settings, catalog);
    }
    let mut scan = evidence::env_scan(path, text, settings, folder);
    if !folder.env_argv.is_empty() {
        let tv = |name: &str| crate::catalog::query::flag(catalog, settings.profile, name).map(|f| f.values());
        let argv = super::pairing::ArgvRules::of(&settings.profile.argv);
        super::scanners::shell::env_value_argv(&folder.env_argv, &tv, argv, &mut scan.refs);
    }
    scan
}

/// The YAML file of options an argv names with the profile's `[argv]
/// config` option (`--config serve.yaml`), as the project keeps it: a
/// relative path from the naming file's folder, an absolute one by its
/// name beside it; with the build the argv is judged against. A path
/// that is an expansion, or not a `.yaml`/`.yml` file, names none.
fn options_file(
    r: &super::refs::Ref,
    dir: &Path,
    settings: &Settings<'_>,
    catalog: &crate::catalog::model::Catalog,
) -> Option<(std::path::PathBuf, String)> {
    use super::refs::{FlagSite, Ref};
    let option = settings.profile.argv.config.as_deref()?;
    let Ref::Flag { name, value: Some(v), site: FlagSite::Argv, .. } = r else { return None };
    let flag = crate::catalog::query::flag(catalog, settings.profile, name)?;
    if flag.name != option && !flag.aliases.iter().any(|a| a == option) {
        return None;
    }
    let written = v.text.as_deref().filter(|t| v.var.is_none() && !t.contains('$'))?;
    let p = Path::new(written);
    if !p.extension().is_some_and(|e| e == "yaml" || e == "yml") {
        return None;
    }
    let joined = if p.is_absolute() { dir.join(p.file_name()?) } else { dir.join(p) };
    // `./a.yaml` and `../cfg/a.yaml` as the walk names the same file.
    let mut beside = std::path::PathBuf::new();
    for c in joined.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if !beside.pop() {
                    return None;
                }
            }
            other => beside.push(other),
        }
    }
    Some((beside, catalog.source.tag.clone()))
}
