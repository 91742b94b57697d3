//! `knobs.toml`: the project's pin and extraction settings.
//!
//! Read in two phases: serde into a raw struct (syntax and unknown keys), then
//! validation into `Config`, with errors that point into the file.

use std::ops::Range;
use std::path::{Path, PathBuf};

use miette::{Diagnostic, NamedSource, SourceSpan};
use serde::Deserialize;
use toml::Spanned;

pub const FILE_NAME: &str = "knobs.toml";
pub const DEFAULT_ENGINE: &str = "radiance";
pub const DEFAULT_CONFIG_PATH: &str = "core/config.cpp";

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    pin: Option<RawPin>,
    #[serde(default)]
    extract: Option<RawExtract>,
    #[serde(default)]
    lint: Option<RawLint>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLint {
    #[serde(default)]
    engine_commands: Vec<String>,
    #[serde(default)]
    serve_scripts: Vec<String>,
    #[serde(default)]
    env_files: Vec<String>,
    fail_on: Option<Spanned<String>>,
    max_file_size: Option<u64>,
    #[serde(default)]
    severity: std::collections::BTreeMap<String, Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPin {
    engine: Option<Spanned<String>>,
    repo: Option<Spanned<String>>,
    tag: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExtract {
    config: Option<Spanned<String>>,
    #[serde(default)]
    headers: Vec<Spanned<String>>,
    #[serde(default)]
    query: Vec<RawQuery>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawQuery {
    flags: Spanned<String>,
}

/// The validated configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Where it was read from; `None` for the built-in defaults.
    pub path: Option<PathBuf>,
    pub engine: String,
    pub repo: Option<String>,
    pub tag: Option<String>,
    /// The file holding the help table and validator.
    pub config_path: String,
    /// Headers read for struct definitions.
    pub headers: Vec<String>,
    /// Tree-sitter queries for help-table shapes knobs does not know.
    pub queries: Vec<String>,
    /// Binaries whose argv is the engine's; the engine name is always one.
    pub engine_commands: Vec<String>,
    /// Serve-script names whose argv is handed to the engine.
    pub serve_scripts: Vec<String>,
    /// Extra file names read as env files.
    pub env_files: Vec<String>,
    /// `error` or `warning`: the lowest severity that fails the run.
    pub fail_on: Option<String>,
    pub max_file_size: Option<u64>,
    /// Rule code → `error`, `warning` or `off`.
    pub severity: Vec<(&'static str, Option<crate::lint::rules::Severity>)>,
}

impl Config {
    /// The folder holding knobs.toml, when one was read.
    pub fn dir(&self) -> Option<PathBuf> {
        self.path.as_ref().and_then(|p| p.parent()).map(Path::to_path_buf)
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            path: None,
            engine: DEFAULT_ENGINE.into(),
            repo: None,
            tag: None,
            config_path: DEFAULT_CONFIG_PATH.into(),
            headers: vec!["core/config.h".into()],
            queries: Vec::new(),
            engine_commands: Vec::new(),
            serve_scripts: Vec::new(),
            env_files: Vec::new(),
            fail_on: None,
            max_file_size: None,
            severity: Vec::new(),
        }
    }
}

/// An error in `knobs.toml`, pointing at the offending text.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{message}")]
#[diagnostic(code(knobs::config))]
pub struct ConfigError {
    pub message: String,
    #[source_code]
    pub src: NamedSource<String>,
    #[label("{label}")]
    pub span: Option<SourceSpan>,
    pub label: String,
    #[help]
    pub help: Option<String>,
}

impl ConfigError {
    fn at(
        path: &Path,
        text: &str,
        span: Option<Range<usize>>,
        message: String,
        label: &str,
        help: Option<String>,
    ) -> Self {
        ConfigError {
            message,
            src: NamedSource::new(path.display().to_string(), text.to_string()),
            span: span.map(|r| SourceSpan::from(r.start..r.end)),
            label: label.to_string(),
            help,
        }
    }
}

/// Finds `knobs.toml` in `start` or the nearest folder above it.
pub fn find(start: &Path) -> Option<PathBuf> {
    start.ancestors().map(|d| d.join(FILE_NAME)).find(|p| p.is_file())
}

/// Reads the nearest `knobs.toml`, or the defaults when there is none.
pub fn load_from(start: &Path) -> Result<Config, Box<ConfigError>> {
    match find(start) {
        Some(path) => {
            let text = std::fs::read_to_string(&path).map_err(|e| {
                Box::new(ConfigError::at(&path, "", None, format!("cannot read {}: {e}", path.display()), "", None))
            })?;
            parse(&path, &text)
        }
        None => Ok(Config::default()),
    }
}

fn valid_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Parses and validates the text of a `knobs.toml`.
pub fn parse(path: &Path, text: &str) -> Result<Config, Box<ConfigError>> {
    let raw: RawConfig = toml::from_str(text).map_err(|e| {
        Box::new(ConfigError::at(path, text, e.span(), format!("{} is not valid", path.display()), e.message(), None))
    })?;
    let mut cfg = Config { path: Some(path.to_path_buf()), ..Config::default() };
    let fail = |s: &Spanned<String>, message: &str, label: &str, help: &str| {
        Box::new(ConfigError::at(path, text, Some(s.span()), message.to_string(), label, Some(help.to_string())))
    };
    if let Some(pin) = raw.pin {
        if let Some(engine) = pin.engine {
            if !valid_name(engine.get_ref()) {
                return Err(fail(
                    &engine,
                    "invalid [pin] engine",
                    "not a plain name",
                    "use letters, digits, `-` or `_`, e.g. `radiance`",
                ));
            }
            cfg.engine = engine.into_inner();
        }
        if let Some(repo) = pin.repo {
            if repo.get_ref().trim().is_empty() {
                return Err(fail(
                    &repo,
                    "empty [pin] repo",
                    "empty",
                    "give a URL or a path to the engine's git repository",
                ));
            }
            cfg.repo = Some(repo.into_inner());
        }
        if let Some(tag) = pin.tag {
            if tag.get_ref().trim().is_empty() || tag.get_ref().contains(char::is_whitespace) {
                return Err(fail(
                    &tag,
                    "invalid [pin] tag",
                    "not a tag name",
                    "give the tag of the deployed build, e.g. `v1.8.1`",
                ));
            }
            cfg.tag = Some(tag.into_inner());
        }
    }
    if let Some(ex) = raw.extract {
        if let Some(c) = ex.config {
            if c.get_ref().trim().is_empty() || c.get_ref().starts_with('/') {
                return Err(fail(
                    &c,
                    "invalid [extract] config",
                    "must be a path inside the repository",
                    "e.g. `core/config.cpp`",
                ));
            }
            cfg.config_path = c.into_inner();
        }
        if !ex.headers.is_empty() {
            cfg.headers = ex.headers.into_iter().map(Spanned::into_inner).collect();
        }
        for q in ex.query {
            if let Err(problem) = crate::extract::queries::check(q.flags.get_ref()) {
                return Err(fail(
                    &q.flags,
                    &format!("invalid [[extract.query]] flags query: {}", problem.message),
                    "this query",
                    "captures: @flag (required), @metavar, @default, @help, @alias, @kind; see the tree-sitter query syntax",
                ));
            }
            cfg.queries.push(q.flags.into_inner());
        }
    }
    if let Some(lint) = raw.lint {
        use crate::lint::rules::{find, Severity};
        cfg.engine_commands = lint.engine_commands;
        cfg.serve_scripts = lint.serve_scripts;
        cfg.env_files = lint.env_files;
        cfg.max_file_size = lint.max_file_size;
        if let Some(f) = lint.fail_on {
            if !matches!(f.get_ref().as_str(), "error" | "warning") {
                return Err(fail(&f, "invalid [lint] fail_on", "not a severity", "use `error` or `warning`"));
            }
            cfg.fail_on = Some(f.into_inner());
        }
        for (rule, level) in lint.severity {
            let Some(r) = find(&rule) else {
                let start = text.find(&rule).unwrap_or(0);
                return Err(Box::new(ConfigError::at(
                    path,
                    text,
                    Some(start..start + rule.len()),
                    format!("[lint.severity] names no rule `{rule}`"),
                    "unknown rule",
                    Some("`knobs rules` lists the rule codes and names".into()),
                )));
            };
            let sev = match level.get_ref().as_str() {
                "error" => Some(Severity::Error),
                "warning" => Some(Severity::Warning),
                "off" => None,
                _ => return Err(fail(&level, "invalid severity", "not a severity", "use `error`, `warning` or `off`")),
            };
            cfg.severity.push((r.code, sev));
        }
    }
    Ok(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_pin() {
        let cfg = parse(Path::new("knobs.toml"), "[pin]\nengine = \"radiance\"\nrepo = \"r\"\ntag = \"v1.8.1\"\n")
            .expect("valid");
        assert_eq!(cfg.tag.as_deref(), Some("v1.8.1"));
        assert_eq!(cfg.repo.as_deref(), Some("r"));
    }

    #[test]
    fn errors_point_into_the_file() {
        let text = "[pin]\ntag = \"v1 8\"\n";
        let err = parse(Path::new("knobs.toml"), text).expect_err("bad tag");
        let span = err.span.expect("span");
        assert_eq!(&text[span.offset()..span.offset() + span.len()], "\"v1 8\"");
        let err = parse(Path::new("knobs.toml"), "[pinn]\n").expect_err("unknown table");
        assert!(err.label.contains("unknown field"), "{}", err.label);
    }
}
