//! The lint: scanners find references in each file, rules judge them against
//! the pinned catalogue, suppressions are applied. Each file is linted on its
//! own, in its folder's context (built once per folder), so files run in
//! parallel.

pub mod fix;
pub mod folder;
pub mod refs;
pub mod rules;
pub mod scanners;
pub mod source;
pub mod span;
pub mod suppress;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::catalog::model::Catalog;
use crate::catalog::profile::Profile;
use crate::catalog::query;
use crate::walk::{FileKind, Skipped};
use folder::{Folder, Folders};
use refs::{ArgvRules, Ref};
use rules::{Ctx, Rule, Severity, Violation, RULES};
use scanners::{Commands, Scan, ScanCtx};
pub use source::{Disk, Index, Source, Text};
use span::Span;

/// Largest file linted by default; larger ones are skipped with a note.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 1024 * 1024;

/// One finding, ready for any output format.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub code: &'static str,
    pub rule: &'static str,
    pub severity: Severity,
    pub path: String,
    #[serde(flatten)]
    pub span: SpanOut,
    pub message: String,
    pub help: Option<String>,
    /// The text that replaces the span under `--fix`, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// A span as the JSON output names its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SpanOut {
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

impl From<Span> for SpanOut {
    fn from(s: Span) -> Self {
        SpanOut { line: s.line, column: s.col, end_line: s.end_line, end_column: s.end_col }
    }
}

/// A linted file: its findings, and its text where there are findings (for
/// snippets).
#[derive(Debug, Clone)]
pub struct FileReport {
    pub path: String,
    pub text: Option<String>,
    pub findings: Vec<Finding>,
    /// Which build the file was judged against.
    pub tag: String,
    /// Things about this file the user should know that are not findings.
    pub notes: Vec<String>,
}

/// Everything one `knobs lint` run found.
#[derive(Debug, Default)]
pub struct Report {
    pub files: Vec<FileReport>,
    pub skipped: Vec<Skipped>,
    /// Files a walk left out by `exclude` or ignore files.
    pub excluded: usize,
    /// Things about the run the user should know that are not findings.
    pub notes: Vec<String>,
}

impl Report {
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.files.iter().flat_map(|f| f.findings.iter())
    }

    /// Every note: the run's, then file by file.
    pub fn all_notes(&self) -> impl Iterator<Item = &String> {
        self.notes.iter().chain(self.files.iter().flat_map(|f| f.notes.iter()))
    }
}

/// Lint settings, validated.
pub struct Settings<'a> {
    /// The engine's profile.
    pub profile: &'a Profile,
    /// The catalogue files are judged against unless a trio pins another.
    pub catalog: &'a Catalog,
    /// Every catalogued version of the engine, oldest first.
    pub all: &'a [Catalog],
    /// The commands that run the engine (the profile's and knobs.toml's).
    pub commands: Commands,
    /// Finds the engine's metric names.
    pub metrics: scanners::metrics::Matcher,
    pub env_files: Vec<String>,
    /// Severity per rule code; `None` turns a rule off.
    pub severity: HashMap<&'static str, Option<Severity>>,
    pub max_file_size: u64,
    /// `--select`: only these rules (codes); `None`: all.
    pub select: Option<Vec<&'static str>>,
    /// `--ignore`: never these rules (codes).
    pub ignore: Vec<&'static str>,
    /// `[lint.per-file-ignores]`: files matching a glob skip these rules.
    pub per_file_ignores: Vec<(globset::GlobMatcher, Vec<&'static str>)>,
    /// What the rules work out about each catalogue of `all` (same order).
    derived: Vec<rules::Derived>,
}

impl<'a> Settings<'a> {
    /// Settings for an engine: its commands and metric names from the profile
    /// and knobs.toml's extra commands and serve scripts.
    pub fn new(profile: &'a Profile, catalog: &'a Catalog, all: &'a [Catalog], extra_commands: Vec<String>) -> Self {
        Settings {
            profile,
            catalog,
            all,
            commands: Commands::new(profile, extra_commands),
            metrics: scanners::metrics::Matcher::new(&profile.metrics.prefixes),
            env_files: Vec::new(),
            severity: HashMap::new(),
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            select: None,
            ignore: Vec::new(),
            per_file_ignores: Vec::new(),
            derived: all.iter().map(|_| rules::Derived::default()).collect(),
        }
    }

    fn severity_of(&self, rule: &Rule) -> Option<Severity> {
        self.severity.get(rule.code).copied().unwrap_or(Some(rule.severity))
    }

    /// True when a rule runs on a file (as shown): not off, selected, not
    /// ignored, not ignored for this file.
    fn enabled(&self, rule: &Rule, path: &str) -> bool {
        self.severity_of(rule).is_some()
            && self.select.as_ref().is_none_or(|s| s.contains(&rule.code))
            && !self.ignore.contains(&rule.code)
            && !self.per_file_ignores.iter().any(|(g, codes)| codes.contains(&rule.code) && g.is_match(path))
    }
}

/// Scans one file's text.
pub fn scan(text: &str, kind: FileKind, settings: &Settings<'_>, catalog: &Catalog) -> Scan {
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
    }
    out
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
    let catalog = folder.catalog(settings);
    let text = text.text;
    let scan = scanned.unwrap_or_else(|| scan(&text, kind, settings, catalog));
    notes.extend(scan.notes.iter().map(|n| format!("{shown}: {n}")));
    let local = rules::Derived::default();
    let derived = settings.all.iter().position(|c| std::ptr::eq(c, catalog)).map_or(&local, |i| &settings.derived[i]);
    let ctx = Ctx { profile: settings.profile, catalog, all: settings.all, env_flags: &folder.env_flags, derived };
    let active: Vec<&Rule> = RULES.iter().copied().filter(|r| settings.enabled(r, &shown)).collect();
    let mut violations: Vec<Violation> = Vec::new();
    for r in &scan.refs {
        // Each reference is resolved against the catalogue once, for every rule.
        let subject = rules::Subject::new(r, &ctx);
        for rule in &active {
            (rule.check)(&subject, &ctx, &mut violations);
        }
    }
    let file_off = suppress::file_directive(&text);
    let violations = apply_suppressions(violations, &scan.suppressions);
    let mut findings: Vec<Finding> = violations
        .into_iter()
        .filter(|v| settings.enabled(v.rule, &shown))
        .filter(|v| !file_off.as_ref().is_some_and(|rules| suppress::names(rules, v.rule)))
        .filter_map(|v| {
            let severity = settings.severity_of(v.rule)?;
            Some(Finding {
                code: v.rule.code,
                rule: v.rule.name,
                severity,
                path: shown.clone(),
                span: v.span.into(),
                message: v.message,
                help: v.help,
                fix: v.fix,
            })
        })
        .collect();
    findings.sort_by(|a, b| (a.span.line, a.span.column, a.code).cmp(&(b.span.line, b.span.column, b.code)));
    findings.dedup();
    // The text is kept only where a renderer will show a snippet of it.
    let text = (!findings.is_empty()).then_some(text);
    FileReport { path: shown, text, findings, tag: catalog.source.tag.clone(), notes }
}

/// Drops what suppressions silence; reports unused and unknown suppressions.
fn apply_suppressions(violations: Vec<Violation>, suppressions: &[suppress::Suppression]) -> Vec<Violation> {
    let mut used = vec![false; suppressions.len()];
    let mut kept = Vec::new();
    for v in violations {
        let hit = suppressions.iter().position(|s| {
            (s.first_line..=s.last_line).contains(&v.span.line)
                && (s.rules.is_empty()
                    || s.rules
                        .iter()
                        .any(|r| r.eq_ignore_ascii_case(v.rule.code) || r.eq_ignore_ascii_case(v.rule.name)))
        });
        match hit {
            Some(i) => used[i] = true,
            None => kept.push(v),
        }
    }
    for (s, used) in suppressions.iter().zip(used) {
        let unknown: Vec<&String> = s.rules.iter().filter(|r| rules::find(r).is_none()).collect();
        if !unknown.is_empty() {
            let names = unknown.iter().map(|r| format!("`{r}`")).collect::<Vec<_>>().join(", ");
            kept.push(Violation {
                rule: &rules::UNKNOWN_SUPPRESSION,
                span: s.span,
                message: format!("no rule is called {names}"),
                help: Some("`knobs explain RULE` and `knobs rules` list the rules".into()),
                fix: None,
            });
        } else if !used {
            let what = if s.rules.is_empty() { "any rule".to_string() } else { s.rules.join(", ") };
            kept.push(Violation {
                rule: &rules::UNUSED_SUPPRESSION,
                span: s.span,
                message: format!("this suppression of {what} silences nothing"),
                help: Some("remove it".into()),
                fix: None,
            });
        }
    }
    kept
}

/// One file's result, with its place in the report: (order, path, result).
type Linted = (usize, PathBuf, Result<FileReport, Skipped>);

/// Lints files as they come — from a list, or from a walk still under way
/// — on whichever thread hands them in. Each folder's context is built
/// once; each file is read once and linted once.
pub struct Linter<'s, 'a> {
    source: &'s dyn Source,
    settings: &'s Settings<'a>,
    folders: Folders,
    /// (order, path, result); sorted by order, then path, at the end.
    results: std::sync::Mutex<Vec<Linted>>,
    seen: std::sync::Mutex<std::collections::HashSet<PathBuf>>,
}

impl<'s, 'a> Linter<'s, 'a> {
    pub fn new(source: &'s dyn Source, settings: &'s Settings<'a>) -> Self {
        Linter {
            source,
            settings,
            folders: Folders::default(),
            results: std::sync::Mutex::new(Vec::new()),
            seen: std::sync::Mutex::new(std::collections::HashSet::new()),
        }
    }

    /// Lints one file (`rel` as shown); a file handed in twice is linted
    /// once. `order` places it in the report (equal orders: by path).
    pub fn lint(&self, order: usize, rel: &Path, kind: FileKind) {
        if let Ok(mut seen) = self.seen.lock() {
            if !seen.insert(rel.to_path_buf()) {
                return;
            }
        }
        let folder = self.folders.of(rel, self.settings, self.source);
        let (read, scanned) = folder.take(rel).unwrap_or_else(|| (self.source.read(rel), None));
        // A scan made as another kind (by name, not by content) is not reused.
        let scanned = scanned.filter(|_| kind == FileKind::Shell);
        let result = match read {
            Ok(text) => Ok(lint_file(rel, text, kind, self.settings, &folder, scanned)),
            Err(reason) => Err(Skipped { path: rel.to_path_buf(), reason }),
        };
        if let Ok(mut results) = self.results.lock() {
            results.push((order, rel.to_path_buf(), result));
        }
    }

    /// The report: files in order, then the folders' notes.
    pub fn finish(self) -> Report {
        let mut results = self.results.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        results.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        let mut report = Report { notes: self.folders.notes(), ..Report::default() };
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
pub fn lint_files(files: &[(PathBuf, FileKind)], source: &dyn Source, settings: &Settings<'_>) -> Report {
    use rayon::prelude::*;
    let linter = Linter::new(source, settings);
    files.par_iter().enumerate().for_each(|(i, (rel, kind))| linter.lint(i, rel, *kind));
    linter.finish()
}

/// The refs of a text, for tests and tools.
pub fn refs_of(text: &str, kind: FileKind, settings: &Settings<'_>) -> Vec<Ref> {
    scan(text, kind, settings, settings.catalog).refs
}
