//! The lint: scanners find references in each file, rules judge them against
//! the pinned catalogue, suppressions are applied. Each file is linted on its
//! own, in its folder's context (built once per folder), so files run in
//! parallel.

pub mod argv;
pub mod finding;
pub mod fix;
pub mod folder;
pub mod input;
pub mod refs;
pub mod rules;
pub mod scanners;
pub mod settings;
pub mod span;
pub mod suppress;

use std::path::{Path, PathBuf};

use crate::catalog::model::Catalog;
use crate::catalog::query;
use crate::catalog::store::same_tag;
use crate::walk::{FileKind, Skipped};
pub use argv::{judge_argv, ArgvJudge, JudgedWord};
pub use finding::{Excerpt, FileReport, Finding, Report, SpanOut};
use folder::{Folder, Folders};
pub use input::{Disk, Input, StagedFiles, Text};
use refs::{ArgvRules, Ref};
use rules::{Ctx, Rule, Violation, RULES};
use scanners::{Scan, ScanCtx};
pub use settings::{engine_commands, Overrides, Settings, DEFAULT_MAX_FILE_SIZE, DEFAULT_TARGET_LABELS};

/// Scans one file's text.
pub fn scan(text: &str, kind: FileKind, settings: &Settings<'_>, catalog: &Catalog) -> Scan {
    // A byte-order mark is no column (see `span::LineIndex`), so the places
    // found in the text after it are the places in the whole file; without
    // this, a reader that expects `FROM` or `[Unit]` first saw none.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let profile = settings.profile;
    let tv = |name: &str| query::flag(catalog, profile, name).map(|f| f.values());
    let ctx = ScanCtx {
        commands: &settings.commands,
        takes_value: &tv,
        argv: ArgvRules { dash_values: profile.argv.dash_values, positionals: profile.argv.positionals },
        metrics: &settings.metrics,
    };
    let mut out = Scan::default();
    match kind {
        FileKind::Markdown => scanners::markdown::scan(text, &ctx, &mut out),
        FileKind::Env => scanners::env::scan(text, &ctx, &mut out),
        FileKind::Shell => {
            let idx = span::LineIndex::new(text);
            scanners::shell::scan(text, &|s, e| idx.span(text, s, e), &ctx, &mut out);
            settings.metrics.scan(text, &|s, e| idx.span(text, s, e), &mut out.refs);
            out.suppressions.extend(suppress::line_comments(text));
        }
        FileKind::Systemd => scanners::systemd::scan(text, &ctx, &mut out),
        FileKind::Quadlet => scanners::quadlet::scan(text, &ctx, &mut out),
        FileKind::Dockerfile => scanners::dockerfile::scan(text, &ctx, &mut out),
        FileKind::Compose | FileKind::HelmValues | FileKind::Yaml => yaml_file(text, kind, settings, &ctx, &mut out),
    }
    out
}

/// A YAML file: read with the YAML parser, then by what it is — compose,
/// Helm values (by name), Kubernetes manifests or Prometheus rules (by
/// content). A file that does not parse is a note naming the line.
fn yaml_file(text: &str, kind: FileKind, settings: &Settings<'_>, ctx: &ScanCtx<'_>, out: &mut Scan) {
    use scanners::{compose, helm, kubernetes, prom_rules, yaml};
    let idx = span::LineIndex::new(text);
    let span = |s: usize, e: usize| idx.span(text, s, e);
    let line_of = |at: usize| idx.position(text, at).0;
    // A document that does not parse is a note; the others are still read.
    let (docs, errors) = yaml::load_each(text);
    for e in errors {
        out.notes.push(format!("line {}: not read, the YAML does not parse ({})", line_of(e.at), e.message));
    }
    match kind {
        FileKind::Compose => compose::scan(&docs, text, &span, ctx, out),
        FileKind::HelmValues => {
            let keys = helm::HelmKeys { keys: &settings.helm_args, named: settings.helm_args_named };
            helm::scan(&docs, &keys, text, &span, ctx, out);
        }
        _ => {
            if docs.iter().any(kubernetes::is_manifest) {
                kubernetes::scan(&docs, text, &span, ctx, out);
            }
            if docs.iter().any(prom_rules::is_rule_file) {
                prom_rules::scan(&docs, text, &line_of, &span, ctx, out);
            }
        }
    }
    out.suppressions.extend(suppress::line_comments(text));
}

/// Lints one file, `path` as shown to the user, in its folder's context.
/// `scanned` is the file's scan when its folder's context already made it.
pub fn lint_file(
    path: &Path,
    text: Text,
    kind: FileKind,
    settings: &Settings<'_>,
    folder: &Folder,
    scanned: Option<Scan>,
) -> FileReport {
    let shown = path.display().to_string();
    let mut notes: Vec<String> = text.note.iter().map(|n| format!("{shown}: {n}")).collect();
    // The folder's pin picks the catalogue (a pin without one: the folder's note).
    let mut catalog = folder.catalog(settings);
    let text = text.text;
    let mut scan = scanned.unwrap_or_else(|| scan(&text, kind, settings, catalog));
    // A deployment file's own engine image pins the version its argv is
    // judged against (a pin with no catalogue: a note, and the folder's);
    // a compose service or a container with its own image, its own.
    let mut groups: Vec<(&Catalog, Vec<Ref>)> = Vec::new();
    if !matches!(kind, FileKind::Markdown | FileKind::Env | FileKind::Shell) {
        let pinned_to = |pin: &str, notes: &mut Vec<String>| match settings
            .all
            .iter()
            .find(|c| same_tag(&c.source.tag, pin))
        {
            Some(c) => Some(c),
            None => {
                let note = format!(
                    "{shown}: pins {} {pin}, which has no catalogue: judged against {} instead (run `knobs sync --tag {pin}`)",
                    settings.catalog.source.engine, catalog.source.tag
                );
                if !notes.contains(&note) {
                    notes.push(note);
                }
                None
            }
        };
        if scan.sections.iter().any(|s| s.pin.is_some()) {
            // Refs outside a pinned section stay with the file's catalogue.
            let pins: Vec<String> = scan.sections.iter().filter_map(|s| s.pin.clone()).fold(Vec::new(), |mut v, p| {
                if !v.contains(&p) {
                    v.push(p);
                }
                v
            });
            let mut own = std::mem::take(&mut scan.refs);
            for pin in pins {
                let Some(c) = pinned_to(&pin, &mut notes).filter(|c| !std::ptr::eq(*c, catalog)) else { continue };
                // Read again as that version reads it (which flags take values).
                let from = self::scan(&text, kind, settings, c);
                let refs: Vec<Ref> = (from.sections.iter().filter(|s| s.pin.as_deref() == Some(pin.as_str())))
                    .flat_map(|s| from.refs.get(s.refs.clone()).unwrap_or_default().iter().cloned())
                    .collect();
                groups.push((c, refs));
                // ...and those refs leave the file's group.
                let mine: Vec<std::ops::Range<usize>> = scan
                    .sections
                    .iter()
                    .filter(|s| s.pin.as_deref() == Some(pin.as_str()))
                    .map(|s| s.refs.clone())
                    .collect();
                own = own
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| !mine.iter().any(|r| r.contains(i)))
                    .map(|(_, r)| r)
                    .collect();
            }
            scan.refs = own;
        } else if let Some((pin, _)) = scan.pins.first().cloned() {
            if let Some(pinned) = pinned_to(&pin, &mut notes).filter(|c| !std::ptr::eq(*c, catalog)) {
                catalog = pinned;
                scan = self::scan(&text, kind, settings, catalog);
            }
        }
    }
    notes.extend(scan.notes.iter().map(|n| format!("{shown}: {n}")));
    groups.insert(0, (catalog, std::mem::take(&mut scan.refs)));
    let active: Vec<&Rule> = RULES.iter().copied().filter(|r| settings.enabled(r, &shown)).collect();
    let mut violations: Vec<Violation> = Vec::new();
    for (catalog, refs) in &groups {
        let local = rules::Derived::default();
        let derived = settings.derived(catalog).unwrap_or(&local);
        let ctx = Ctx {
            profile: settings.profile,
            catalog,
            all: settings.all,
            env_flags: &folder.env_flags,
            derived,
            target_labels: &settings.target_labels,
        };
        for r in refs {
            // Each reference is resolved against the catalogue once, for every rule.
            let subject = rules::Subject::new(r, &ctx);
            for rule in &active {
                (rule.check)(&subject, &ctx, &mut violations);
            }
        }
    }
    // The version a file is said to be judged against: its first pin's.
    let catalog = groups.iter().find(|(_, refs)| !refs.is_empty()).map_or(catalog, |(c, _)| *c);
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
    let dir = path.parent().unwrap_or(Path::new(""));
    let env_files = (scan.env_files.iter())
        .filter_map(|f| Path::new(f).file_name())
        .map(|name| dir.join(name))
        .filter(|p| p != path)
        .collect();
    FileReport { path: shown, text, lines, findings, tag: catalog.source.tag.clone(), notes, env_files }
}

/// One file's result, with its place in the report: (order, path, result).
type Linted = (usize, PathBuf, Result<FileReport, Skipped>);

/// Lints files as they come — from a list, or from a walk still under way
/// — on whichever thread hands them in. Each folder's context is built
/// once; each file is read once and linted once.
pub struct Linter<'s, 'a> {
    source: &'s dyn Input,
    settings: &'s Settings<'a>,
    folders: Folders,
    /// (order, path, result); sorted by order, then path, at the end.
    results: std::sync::Mutex<Vec<Linted>>,
    /// Files linted with nothing to say.
    clean: std::sync::atomic::AtomicUsize,
    /// Files knobs failed on (a bug), with what it said.
    failed: std::sync::Mutex<Vec<(PathBuf, String)>>,
    /// Files put off until their folder's context is ready.
    later: std::sync::Mutex<Vec<(usize, PathBuf, FileKind)>>,
    /// Paths linted so far, when the same file may be handed in twice.
    seen: Option<std::sync::Mutex<std::collections::HashSet<PathBuf>>>,
    /// Env files units name (`EnvironmentFile=`), with the unit's order.
    named_env: std::sync::Mutex<Vec<(usize, PathBuf)>>,
}

impl<'s, 'a> Linter<'s, 'a> {
    pub fn new(source: &'s dyn Input, settings: &'s Settings<'a>) -> Self {
        Linter {
            source,
            settings,
            folders: Folders::default(),
            results: std::sync::Mutex::new(Vec::new()),
            later: std::sync::Mutex::new(Vec::new()),
            clean: std::sync::atomic::AtomicUsize::new(0),
            failed: std::sync::Mutex::new(Vec::new()),
            seen: None,
            named_env: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// Lints a file handed in twice only once (several walked paths may
    /// overlap: `knobs lint docs docs/arm.md`).
    pub fn once_each(mut self) -> Self {
        self.seen = Some(std::sync::Mutex::new(std::collections::HashSet::new()));
        self
    }

    /// Lints one file (`rel` as shown). `order` places it in the report
    /// (equal orders: by path).
    pub fn lint(&self, order: usize, rel: &Path, kind: FileKind) {
        if let Some(Ok(mut seen)) = self.seen.as_ref().map(|s| s.lock()) {
            if !seen.insert(rel.to_path_buf()) {
                return;
            }
        }
        // A file whose folder another thread is still reading waits for the end.
        let Some(folder) = self.folders.ready(rel, self.settings, self.source) else {
            if let Ok(mut later) = self.later.lock() {
                later.push((order, rel.to_path_buf(), kind));
            }
            return;
        };
        self.lint_in(order, rel, kind, &folder);
        self.catch_up();
    }

    /// Lints files put off earlier whose folders are ready now.
    fn catch_up(&self) {
        loop {
            let next = {
                let Ok(mut later) = self.later.lock() else { return };
                match later.iter().position(|(_, rel, _)| self.folders.built(rel)) {
                    Some(i) => later.swap_remove(i),
                    None => return,
                }
            };
            let (order, rel, kind) = next;
            let folder = self.folders.of(&rel, self.settings, self.source);
            self.lint_in(order, &rel, kind, &folder);
        }
    }

    fn lint_in(&self, order: usize, rel: &Path, kind: FileKind, folder: &Folder) {
        // A bug met on one file (reading or linting it) is reported for that
        // file; the run goes on.
        let linted = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let (read, scanned) = folder.take(rel).unwrap_or_else(|| (self.source.read(rel), None));
            // A scan made as another kind (by name, not by content) is not reused.
            let scanned = scanned.filter(|_| kind == FileKind::Shell);
            match read {
                Ok(text) => Ok(lint_file(rel, text, kind, self.settings, folder, scanned)),
                Err(reason) => Err(Skipped { path: rel.to_path_buf(), reason }),
            }
        }));
        let result = linted.unwrap_or_else(|payload| {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            if let Ok(mut failed) = self.failed.lock() {
                failed.push((rel.to_path_buf(), what.clone()));
            }
            Err(Skipped {
                path: rel.to_path_buf(),
                reason: format!("knobs failed on it ({what}): a bug, please report it"),
            })
        });
        // Env files a unit names are linted at the end, once.
        if let Ok(f) = &result {
            if !f.env_files.is_empty() {
                if let Ok(mut named) = self.named_env.lock() {
                    named.extend(f.env_files.iter().map(|p| (order, p.clone())));
                }
            }
        }
        // A file with nothing to say is counted, not kept.
        if let Ok(f) = &result {
            if !self.settings.keep_clean && f.is_clean(&self.settings.catalog.source.tag) {
                self.clean.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                return;
            }
        }
        if let Ok(mut results) = self.results.lock() {
            results.push((order, rel.to_path_buf(), result));
        }
    }

    /// The report: files in order, then the folders' notes.
    pub fn finish(self) -> Report {
        use rayon::prelude::*;
        let later = std::mem::take(&mut *self.later.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        let lint_later = |(order, rel, kind): &(usize, PathBuf, FileKind)| {
            let folder = self.folders.of(rel, self.settings, self.source);
            self.lint_in(*order, rel, *kind, &folder);
        };
        // A few left over are done here; many (a list with no walk) in parallel.
        if later.len() > 64 {
            later.par_iter().for_each(lint_later);
        } else {
            later.iter().for_each(lint_later);
        }
        // A file a unit names as its EnvironmentFile= is an env file. One
        // whose name already says so was linted as one by the walk; others
        // (`engine.conf`) are linted here, if they are there.
        let mut named = std::mem::take(&mut *self.named_env.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        named.sort();
        named.dedup_by(|a, b| a.1 == b.1);
        let mut named_env = Vec::new();
        for (order, rel) in named {
            if crate::walk::classify(&rel, &self.settings.env_files, b"").is_some() || self.source.read(&rel).is_err() {
                continue;
            }
            let folder = self.folders.of(&rel, self.settings, self.source);
            self.lint_in(order, &rel, FileKind::Env, &folder);
            named_env.push(rel);
        }
        let mut results = self.results.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        // Path order (component by component) as bytes: `/` sorts first.
        results.sort_by_cached_key(|(order, path, _)| {
            let key: Vec<u8> =
                path.as_os_str().as_encoded_bytes().iter().map(|b| if *b == b'/' { 0 } else { *b }).collect();
            (*order, key)
        });
        let mut report = Report { notes: self.folders.notes(), ..Report::default() };
        report.clean = self.clean.into_inner();
        report.failed = self.failed.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        report.named_env = named_env;
        for (_, _, r) in results {
            match r {
                Ok(f) => report.files.push(f),
                Err(s) => report.skipped.push(s),
            }
        }
        report
    }
}

/// Lints a list of files in parallel (work stealing across every core);
/// results come back in input order.
pub fn lint_files(files: &[(PathBuf, FileKind)], source: &dyn Input, settings: &Settings<'_>) -> Report {
    use rayon::prelude::*;
    let linter = Linter::new(source, settings);
    files.par_iter().enumerate().for_each(|(i, (rel, kind))| linter.lint(i, rel, *kind));
    linter.finish()
}

/// The refs of a text, for tests and tools.
pub fn refs_of(text: &str, kind: FileKind, settings: &Settings<'_>) -> Vec<Ref> {
    scan(text, kind, settings, settings.catalog).refs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Panics on one file, as a bug in a scanner would.
    struct Panicky;

    impl Input for Panicky {
        fn read(&self, path: &Path) -> Result<Text, String> {
            if path.ends_with("boom.md") {
                panic!("planted");
            }
            Ok(Text { text: "`--checkpoint-policy floor`\n".into(), note: None })
        }
        fn siblings(&self, _: &Path, _: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
            Vec::new()
        }
    }

    #[test]
    fn a_file_knobs_fails_on_is_reported_and_the_run_goes_on() {
        let store = crate::catalog::store::Store::embedded("radiance").expect("embedded");
        let catalog = store.get("radiance", "v1.8.1").expect("v1.8.1");
        let profile = crate::catalog::profile::builtin("radiance").expect("profile");
        let settings = Settings::new(&profile, catalog, &store.catalogs, Vec::new());
        let files = [
            (PathBuf::from("a.md"), FileKind::Markdown),
            (PathBuf::from("boom.md"), FileKind::Markdown),
            (PathBuf::from("c.md"), FileKind::Markdown),
        ];
        let report = lint_files(&files, &Panicky, &settings);
        assert_eq!(report.failed, [(PathBuf::from("boom.md"), "planted".to_string())]);
        // The two others were linted: each has its finding.
        let linted: Vec<_> = report.files.iter().map(|f| (f.path.as_str(), f.findings.len())).collect();
        assert_eq!(linted, [("a.md", 1), ("c.md", 1)]);
        assert_eq!(report.skipped.len(), 1);
        assert_eq!(report.skipped[0].reason, "knobs failed on it (planted): a bug, please report it");
    }
}
