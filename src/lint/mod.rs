//! The lint: scanners find references in each file, rules judge them against
//! the pinned catalogue, suppressions are applied. Each file is linted on its
//! own (reading at most its env-trio siblings), so files run in parallel.

pub mod refs;
pub mod rules;
pub mod scanners;
pub mod span;
pub mod suppress;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::catalog::model::Catalog;
use crate::catalog::profile::Profile;
use crate::catalog::query;
use crate::catalog::store::same_tag;
use crate::walk::{FileKind, Skipped};
use refs::{ArgvRules, Ref};
use rules::{Ctx, Rule, Severity, Violation, RULES};
use scanners::{Commands, Scan, ScanCtx};
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

/// A linted file: its text (for snippets) and findings.
#[derive(Debug, Clone)]
pub struct FileReport {
    pub path: String,
    pub text: String,
    pub findings: Vec<Finding>,
    /// Which build the file was judged against.
    pub tag: String,
}

/// Everything one `knobs lint` run found.
#[derive(Debug, Default)]
pub struct Report {
    pub files: Vec<FileReport>,
    pub skipped: Vec<Skipped>,
    /// Things the user should know that are not findings.
    pub notes: Vec<String>,
}

impl Report {
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.files.iter().flat_map(|f| f.findings.iter())
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
        }
    }

    fn severity_of(&self, rule: &Rule) -> Option<Severity> {
        self.severity.get(rule.code).copied().unwrap_or(Some(rule.severity))
    }
}

/// Scans one file's text.
pub fn scan(text: &str, kind: FileKind, settings: &Settings<'_>, catalog: &Catalog) -> Scan {
    let profile = settings.profile;
    let tv = |name: &str| query::flag(catalog, profile, name).map(|f| f.values());
    let ctx = ScanCtx {
        commands: &settings.commands,
        takes_value: &tv,
        argv: ArgvRules { dash_values: profile.argv.dash_values },
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

/// Where linted texts come from: the disk, or the git index (`--staged`).
pub trait Source: Sync {
    /// The text of a file, or why it is skipped.
    fn read(&self, path: &Path) -> Result<String, String>;
    /// The files in the same folder that `wanted` accepts by name (for
    /// env-trio context); only those are read.
    fn siblings(&self, path: &Path, wanted: &dyn Fn(&Path) -> bool) -> Vec<(PathBuf, String)>;
}

/// Files on disk, relative to a working directory.
pub struct Disk {
    pub cwd: PathBuf,
    pub max_file_size: u64,
}

impl Source for Disk {
    fn read(&self, path: &Path) -> Result<String, String> {
        let path = self.cwd.join(path);
        let meta = std::fs::metadata(&path).map_err(|e| format!("cannot read: {e}"))?;
        if meta.len() > self.max_file_size {
            return Err(format!("larger than {} bytes", self.max_file_size));
        }
        let bytes = std::fs::read(&path).map_err(|e| format!("cannot read: {e}"))?;
        decode(bytes, self.max_file_size)
    }

    fn siblings(&self, path: &Path, wanted: &dyn Fn(&Path) -> bool) -> Vec<(PathBuf, String)> {
        let abs = self.cwd.join(path);
        let Some(dir) = abs.parent() else { return Vec::new() };
        let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
        let mut paths: Vec<PathBuf> =
            entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| wanted(p) && p.is_file()).collect();
        paths.sort();
        paths.into_iter().filter_map(|p| self.read(&p).ok().map(|t| (p, t))).collect()
    }
}

/// Files as staged in the index, by path as shown.
pub struct Index {
    pub files: Vec<(PathBuf, Vec<u8>)>,
    pub max_file_size: u64,
}

impl Source for Index {
    fn read(&self, path: &Path) -> Result<String, String> {
        let bytes = self.files.iter().find(|(p, _)| p == path).map(|(_, b)| b.clone()).ok_or("not staged")?;
        decode(bytes, self.max_file_size)
    }

    fn siblings(&self, path: &Path, wanted: &dyn Fn(&Path) -> bool) -> Vec<(PathBuf, String)> {
        let dir = path.parent();
        self.files
            .iter()
            .filter(|(p, _)| p.parent() == dir && wanted(p))
            .filter_map(|(p, _)| self.read(p).ok().map(|t| (p.clone(), t)))
            .collect()
    }
}

/// Text of a file's bytes, or why it is skipped.
fn decode(bytes: Vec<u8>, max: u64) -> Result<String, String> {
    if bytes.len() as u64 > max {
        return Err(format!("larger than {max} bytes"));
    }
    if bytes.iter().take(8192).any(|b| *b == 0) {
        return Err("binary".into());
    }
    String::from_utf8(bytes).map_err(|_| "not UTF-8".to_string())
}

/// An env file's trio: the env variables its folder's serve scripts pass to
/// flags, and the engine version its folder's env files pin.
fn trio(path: &Path, settings: &Settings<'_>, source: &dyn Source) -> (HashMap<String, String>, Vec<String>) {
    let mut env_flags = HashMap::new();
    let mut pins = Vec::new();
    // Only env files and scripts matter; judge by name (an extension-less
    // file may still be a script) so nothing else in the folder is read.
    let by_name = |p: &Path| {
        crate::walk::classify(p, &settings.env_files, b"#!/bin/sh\n").is_some_and(|k| k != FileKind::Markdown)
    };
    for (p, text) in source.siblings(path, &by_name) {
        match crate::walk::classify(&p, &settings.env_files, text.as_bytes()) {
            Some(FileKind::Shell) => {
                for (var, flag) in scan(&text, FileKind::Shell, settings, settings.catalog).env_flags {
                    env_flags.entry(var).or_insert(flag);
                }
            }
            Some(FileKind::Env) => {
                let mut s = Scan::default();
                scanners::env::image_pins(&text, &settings.commands, &|_, _| Span::default(), &mut s.pins);
                pins.extend(s.pins.into_iter().map(|(t, _)| t));
            }
            _ => {}
        }
    }
    (env_flags, pins)
}

/// Lints one file, `path` as shown to the user; siblings come from `source`.
pub fn lint_file(
    path: &Path,
    text: String,
    kind: FileKind,
    settings: &Settings<'_>,
    source: &dyn Source,
    notes: &mut Vec<String>,
) -> FileReport {
    let (env_flags, pins) = if kind == FileKind::Env { trio(path, settings, source) } else { Default::default() };
    let path = &path.display().to_string();
    let mut catalog = settings.catalog;
    if let Some(pin) = pins.first() {
        match settings.all.iter().find(|c| same_tag(&c.source.tag, pin)) {
            Some(c) => catalog = c,
            None => notes.push(format!(
                "{path}: its trio pins {} {pin}, which has no catalogue; judged against {} (run `knobs sync --tag {pin}`)",
                catalog.source.engine, catalog.source.tag
            )),
        }
    }
    let scan = scan(&text, kind, settings, catalog);
    let ctx = Ctx { profile: settings.profile, catalog, all: settings.all, env_flags: &env_flags };
    let mut violations: Vec<Violation> = Vec::new();
    for r in &scan.refs {
        for rule in RULES {
            if settings.severity_of(rule).is_some() {
                (rule.check)(r, &ctx, &mut violations);
            }
        }
    }
    let violations = apply_suppressions(violations, &scan.suppressions);
    let mut findings: Vec<Finding> = violations
        .into_iter()
        .filter_map(|v| {
            let severity = settings.severity_of(v.rule)?;
            Some(Finding {
                code: v.rule.code,
                rule: v.rule.name,
                severity,
                path: path.to_string(),
                span: v.span.into(),
                message: v.message,
                help: v.help,
            })
        })
        .collect();
    findings.sort_by(|a, b| (a.span.line, a.span.column, a.code).cmp(&(b.span.line, b.span.column, b.code)));
    findings.dedup();
    FileReport { path: path.to_string(), text, findings, tag: catalog.source.tag.clone() }
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
            });
        } else if !used {
            let what = if s.rules.is_empty() { "any rule".to_string() } else { s.rules.join(", ") };
            kept.push(Violation {
                rule: &rules::UNUSED_SUPPRESSION,
                span: s.span,
                message: format!("this suppression of {what} silences nothing"),
                help: Some("remove it".into()),
            });
        }
    }
    kept
}

/// Lints files in parallel; results come back in input order.
pub fn lint_files(files: &[(PathBuf, FileKind)], source: &dyn Source, settings: &Settings<'_>) -> Report {
    let mut report = Report::default();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(files.len().max(1));
    let chunk = files.len().div_ceil(threads).max(1);
    let results: Vec<(Vec<FileReport>, Vec<Skipped>, Vec<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    let mut reports = Vec::new();
                    let mut skipped = Vec::new();
                    let mut notes = Vec::new();
                    for (rel, kind) in part {
                        match source.read(rel) {
                            Ok(text) => reports.push(lint_file(rel, text, *kind, settings, source, &mut notes)),
                            Err(reason) => skipped.push(Skipped { path: rel.clone(), reason }),
                        }
                    }
                    (reports, skipped, notes)
                })
            })
            .collect();
        // A worker that panicked must not vanish with its files' findings.
        handles.into_iter().map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
    });
    for (r, s, n) in results {
        report.files.extend(r);
        report.skipped.extend(s);
        report.notes.extend(n);
    }
    report
}

/// The refs of a text, for tests and tools.
pub fn refs_of(text: &str, kind: FileKind, settings: &Settings<'_>) -> Vec<Ref> {
    scan(text, kind, settings, settings.catalog).refs
}
