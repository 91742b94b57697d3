//! `knobs.toml`: the project's pin, its catalogue folder, extraction and lint
//! settings, and profiles for engines knobs does not know.
//!
//! Read in two phases: serde into a raw struct (syntax and unknown keys, with
//! a did-you-mean), then checks into `Config`, with errors that point into the
//! file. Config holds plain data — rule names, queries as text, each with its
//! place in the file — and the layer that uses a value validates it, pointing
//! back here with [`Config::error_at`]. It imports no other layer of knobs but
//! the catalogue's profile type.

use std::ops::Range;
use std::path::{Path, PathBuf};

use toml::Spanned;

use crate::catalog::profile::{self, Profile};
use crate::diag::FileError;

mod find;
mod parse;

pub use find::{find, load, load_from, load_named};
pub use parse::parse;

pub const FILE_NAME: &str = "knobs.toml";
/// The engine when neither `--engine` nor `[pin] engine` names one.
pub const DEFAULT_ENGINE: &str = "radiance";
/// The folder beside knobs.toml that `knobs sync` writes to and every
/// command reads synced catalogues from.
pub const DEFAULT_CATALOG_DIR: &str = "catalog";

/// A value read from knobs.toml, with the byte range it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located<T> {
    pub value: T,
    pub span: Range<usize>,
}

impl<T> Located<T> {
    fn from(s: Spanned<T>) -> Located<T> {
        let span = s.span();
        Located { value: s.into_inner(), span }
    }
}

/// The checked configuration.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Config {
    /// Where it was read from; `None` for the built-in defaults.
    pub path: Option<PathBuf>,
    /// knobs.toml files the search passed over, and why (the command
    /// prints them as warnings).
    pub passed_over: Vec<String>,
    /// Its text, for errors that point into it.
    pub text: String,
    /// `[pin] engine`; the command line's `--engine` wins over it.
    pub engine: Option<String>,
    pub repo: Option<String>,
    pub tag: Option<String>,
    /// `[catalog] dir`, relative to knobs.toml (default `catalog`).
    pub catalog_dir: Option<String>,
    /// `[extract] config`: replaces the profile's configuration files.
    pub extract_config: Option<String>,
    /// `[extract] headers`: replaces the profile's headers.
    pub headers: Option<Vec<String>>,
    /// Tree-sitter queries for help-table shapes knobs does not know.
    pub queries: Vec<Located<String>>,
    /// Profiles for engines knobs does not know (`[profile.NAME]`).
    pub profiles: Vec<Profile>,
    /// Binaries whose argv is the engine's, beyond the profile's.
    pub engine_commands: Vec<String>,
    /// Serve-script names whose argv is handed to the engine.
    pub serve_scripts: Vec<String>,
    /// Extra file names read as env files.
    pub env_files: Vec<String>,
    /// `error` or `warning`: the lowest severity that fails the run.
    pub fail_on: Option<String>,
    pub max_file_size: Option<u64>,
    /// `[lint.severity]`: rule (code or name) → `error`, `warning` or `off`.
    pub severity: Vec<(Located<String>, Located<String>)>,
    /// `[lint] select` / `ignore`: rules (codes or names).
    pub select: Vec<Located<String>>,
    pub ignore: Vec<Located<String>>,
    /// `[lint] exclude`: path globs that are never linted.
    pub exclude: Vec<Located<String>>,
    /// `[lint.per-file-ignores]`: path glob → rules.
    pub per_file_ignores: Vec<(Located<String>, Vec<Located<String>>)>,
    /// `[lint] helm_args`: dotted keys of Helm values holding the engine's extra args.
    pub helm_args: Vec<String>,
    /// `[lint] target_labels`: labels a scrape adds (replaces the default list).
    pub target_labels: Option<Vec<String>>,
    /// `[metrics] builds`: the builds a fleet runs; a monitoring file with
    /// no pin of its own is judged against each.
    pub builds: Vec<Located<String>>,
    /// `[lint] baseline`: the file of findings not reported (relative to
    /// knobs.toml); the command line's `--baseline` wins over it.
    pub baseline: Option<Located<String>>,
}

impl Config {
    /// The folder holding knobs.toml, when one was read.
    pub fn dir(&self) -> Option<PathBuf> {
        self.path.as_ref().and_then(|p| p.parent()).map(Path::to_path_buf)
    }

    /// The folder synced catalogues are read from and written to: `[catalog]
    /// dir` or `catalog/`, beside knobs.toml; `None` without a knobs.toml.
    pub fn catalog_dir(&self) -> Option<PathBuf> {
        self.dir().map(|d| d.join(self.catalog_dir.as_deref().unwrap_or(DEFAULT_CATALOG_DIR)))
    }

    /// The engine: `--engine`, else `[pin] engine`, else the default.
    pub fn engine_name<'a>(&'a self, flag: Option<&'a str>) -> &'a str {
        flag.or(self.engine.as_deref()).unwrap_or(DEFAULT_ENGINE)
    }

    /// The profile of an engine: one described in knobs.toml, else a built-in
    /// one, else the default engine's rules under the engine's own name.
    /// `[extract]` settings replace the profile's files.
    pub fn profile(&self, engine: &str) -> Profile {
        let mut p = self
            .profiles
            .iter()
            .find(|p| p.name == engine)
            .cloned()
            .or_else(|| profile::builtin(engine))
            .unwrap_or_else(|| {
                let mut d = profile::builtin(DEFAULT_ENGINE).unwrap_or_else(|| Profile::bare(engine));
                d.name = engine.to_string();
                d.images.names = vec![engine.to_string()];
                d.commands = Profile::bare(engine).commands;
                d
            });
        // The user's files are read at every tag: the profile's eras go.
        if let Some(c) = &self.extract_config {
            p.extract.config = vec![c.clone()];
            p.extract.scoped.clear();
            p.eras.clear();
        }
        if let Some(h) = &self.headers {
            p.extract.headers = h.clone();
            for e in &mut p.eras {
                e.extract.headers = h.clone();
            }
        }
        p
    }

    /// An error pointing at `span` of knobs.toml.
    pub fn error_at(&self, span: Range<usize>, message: String, label: &str, help: Option<String>) -> FileError {
        let path = self.path.clone().unwrap_or_else(|| PathBuf::from(FILE_NAME));
        error(&path, &self.text, Some(span), message, label, help)
    }
}

/// An error pointing at `span` of a knobs.toml's `text`.
fn error(
    path: &Path,
    text: &str,
    span: Option<Range<usize>>,
    message: String,
    label: &str,
    help: Option<String>,
) -> FileError {
    let e = FileError::new(path, text, span, message, label).with_code(CODE);
    FileError { help, ..e }
}

const CODE: &str = "knobs::config";

/// A tag that can name a catalogue file: no whitespace, no path separators.
pub fn valid_tag(tag: &str) -> bool {
    let t = tag.trim();
    !t.is_empty()
        && t == tag
        && !tag.contains(char::is_whitespace)
        && !tag.contains(['/', '\\'])
        && tag != "."
        && tag != ".."
        && !tag.starts_with('.')
}
