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

use serde::Deserialize;
use toml::Spanned;

use crate::catalog::profile::{self, Profile};
use crate::diag::FileError;

pub const FILE_NAME: &str = "knobs.toml";
/// The engine when neither `--engine` nor `[pin] engine` names one.
pub const DEFAULT_ENGINE: &str = "radiance";
/// The folder beside knobs.toml that `knobs sync` writes to and every
/// command reads synced catalogues from.
pub const DEFAULT_CATALOG_DIR: &str = "catalog";

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    pin: Option<RawPin>,
    #[serde(default)]
    catalog: Option<RawCatalog>,
    #[serde(default)]
    extract: Option<RawExtract>,
    #[serde(default)]
    lint: Option<RawLint>,
    #[serde(default)]
    profile: std::collections::BTreeMap<String, Spanned<toml::Table>>,
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
    severity: std::collections::BTreeMap<Spanned<String>, Spanned<String>>,
    #[serde(default)]
    select: Vec<Spanned<String>>,
    #[serde(default)]
    ignore: Vec<Spanned<String>>,
    #[serde(default)]
    exclude: Vec<Spanned<String>>,
    #[serde(default, rename = "per-file-ignores")]
    per_file_ignores: std::collections::BTreeMap<Spanned<String>, Vec<Spanned<String>>>,
    #[serde(default)]
    helm_args: Vec<String>,
    target_labels: Option<Vec<String>>,
    baseline: Option<Spanned<String>>,
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
struct RawCatalog {
    dir: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExtract {
    config: Option<Spanned<String>>,
    headers: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    query: Vec<RawQuery>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawQuery {
    flags: Spanned<String>,
}

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

/// Finds `knobs.toml` in `start` or the nearest folder above it. One owned
/// by neither this user nor root is passed over with a warning naming it,
/// as git refuses a repository another user owns: whoever can write a
/// folder above the work tree would otherwise configure knobs.
/// Each one passed over is said in `passed_over`.
pub fn find(start: &Path, passed_over: &mut Vec<String>) -> Option<PathBuf> {
    start.ancestors().map(|d| d.join(FILE_NAME)).filter(|p| p.is_file()).find(|p| match foreign_owner(p) {
        Some(uid) => {
            let shown = crate::pictures::visible(&p.display().to_string()).into_owned();
            let why = format!(
                "{shown} is owned by user {uid}, not by you or root: it is ignored (name it with --config to use it)"
            );
            if !passed_over.contains(&why) {
                passed_over.push(why);
            }
            false
        }
        None => true,
    })
}

/// The owner of `path` when it is neither this process's user nor root.
#[cfg(target_os = "linux")]
fn foreign_owner(path: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    // `/proc/self` belongs to the process's effective user.
    let me = std::fs::metadata("/proc/self").ok()?.uid();
    let owner = std::fs::metadata(path).ok()?.uid();
    (owner != me && owner != 0).then_some(owner)
}

#[cfg(not(target_os = "linux"))]
fn foreign_owner(_: &Path) -> Option<u32> {
    None
}

/// Reads the nearest `knobs.toml`, or the defaults when there is none.
pub fn load_from(start: &Path) -> Result<Config, Box<FileError>> {
    let mut passed_over = Vec::new();
    let mut cfg = match find(start, &mut passed_over) {
        Some(path) => load(&path)?,
        None => Config::default(),
    };
    cfg.passed_over = passed_over;
    Ok(cfg)
}

/// Reads a `knobs.toml` found in the tree: it is the project's, so it and
/// its catalogue folder must lie inside the project (the git work tree
/// holding it, else its folder) — not reached through a symlink that
/// leaves it, not a FIFO or a device — and it must be text.
pub fn load(path: &Path) -> Result<Config, Box<FileError>> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let root = crate::confine::project_root(dir);
    let text = crate::confine::read_to_string(&root, path, crate::bounded::CONFIG).map_err(|e| unreadable(path, &e))?;
    let cfg = parse(path, &text)?;
    if let Some(catalogs) = cfg.catalog_dir() {
        if let Err(e) = crate::confine::inside(&root, &catalogs) {
            let span = cfg.catalog_dir.as_ref().and_then(|_| crate::diag::find_key(&text, "dir"));
            return Err(Box::new(error(
                path,
                &text,
                span,
                format!("the catalogue folder {} is not inside the project: {e}", catalogs.display()),
                "the catalogue folder",
                Some(
                    "a catalogue folder is read and written inside the project; name another with --catalog-dir".into(),
                ),
            )));
        }
    }
    Ok(cfg)
}

/// Reads the `knobs.toml` the user named with `--config`: trusted where it
/// is, but a FIFO is refused rather than waited on, and it must be text.
pub fn load_named(path: &Path) -> Result<Config, Box<FileError>> {
    let text = crate::confine::read_named(path, crate::bounded::CONFIG).map_err(|e| unreadable(path, &e))?;
    parse(path, &text)
}

fn unreadable(path: &Path, e: &std::io::Error) -> Box<FileError> {
    Box::new(
        FileError::unreadable(
            path,
            format!("cannot read {}: {e}", crate::pictures::visible(&path.display().to_string())),
        )
        .with_code(CODE),
    )
}

/// The keys each table accepts, for a did-you-mean on an unknown one.
const KNOWN_KEYS: &[&str] = &[
    "pin",
    "catalog",
    "extract",
    "lint",
    "profile",
    "engine",
    "repo",
    "tag",
    "dir",
    "config",
    "headers",
    "query",
    "flags",
    "engine_commands",
    "serve_scripts",
    "env_files",
    "fail_on",
    "max_file_size",
    "severity",
    "select",
    "ignore",
    "exclude",
    "per-file-ignores",
    "helm_args",
    "target_labels",
    "baseline",
];

fn did_you_mean(message: &str) -> Option<String> {
    let unknown = message.split('`').nth(1)?;
    let near = crate::suggest::suggest(unknown, KNOWN_KEYS.iter().copied())?;
    Some(format!("did you mean `{near}`?"))
}

/// Parses and checks the text of a `knobs.toml`.
pub fn parse(path: &Path, text: &str) -> Result<Config, Box<FileError>> {
    let raw: RawConfig = toml::from_str(text).map_err(|e| {
        let help = did_you_mean(e.message());
        Box::new(error(
            path,
            text,
            e.span(),
            format!("{} is not valid", crate::pictures::visible(&path.display().to_string())),
            e.message(),
            help,
        ))
    })?;
    let mut cfg = Config { path: Some(path.to_path_buf()), text: text.to_string(), ..Config::default() };
    let fail = |s: &Spanned<String>, message: &str, label: &str, help: &str| {
        Box::new(error(path, text, Some(s.span()), message.to_string(), label, Some(help.to_string())))
    };
    if let Some(pin) = raw.pin {
        if let Some(engine) = pin.engine {
            if !profile::valid_name(engine.get_ref()) {
                return Err(fail(
                    &engine,
                    "invalid [pin] engine",
                    "not an engine name",
                    "use letters, digits, `.`, `-` or `_`, e.g. `radiance` or `llama.cpp`",
                ));
            }
            cfg.engine = Some(engine.into_inner());
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
            if !valid_tag(tag.get_ref()) {
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
    if let Some(dir) = raw.catalog.and_then(|c| c.dir) {
        if dir.get_ref().trim().is_empty() {
            return Err(fail(&dir, "empty [catalog] dir", "empty", "a folder relative to knobs.toml, e.g. `catalog`"));
        }
        cfg.catalog_dir = Some(dir.into_inner());
    }
    if let Some(ex) = raw.extract {
        if let Some(c) = ex.config {
            if c.get_ref().trim().is_empty() || c.get_ref().starts_with('/') || c.get_ref().contains("..") {
                return Err(fail(
                    &c,
                    "invalid [extract] config",
                    "must be a path inside the repository",
                    "e.g. `core/config.cpp`",
                ));
            }
            cfg.extract_config = Some(c.into_inner());
        }
        if let Some(h) = ex.headers {
            cfg.headers = Some(h.into_iter().map(Spanned::into_inner).collect());
        }
        cfg.queries = ex.query.into_iter().map(|q| Located::from(q.flags)).collect();
    }
    for (name, table) in raw.profile {
        let span = table.span();
        let mut table = table.into_inner();
        table.insert("name".into(), toml::Value::String(name.clone()));
        let parsed = toml::Value::Table(table).try_into::<Profile>().map_err(|e| e.message().to_string());
        let checked = parsed.and_then(|p| p.validate().map(|_| p).map_err(|e| e.message));
        match checked {
            Ok(p) => cfg.profiles.push(p),
            Err(message) => {
                return Err(Box::new(error(
                    path,
                    text,
                    Some(span),
                    format!("invalid [profile.\"{name}\"]: {message}"),
                    "this profile",
                    Some("see README.md, `Engines`, for the keys a profile takes".into()),
                )))
            }
        }
    }
    if let Some(lint) = raw.lint {
        cfg.engine_commands = lint.engine_commands;
        cfg.serve_scripts = lint.serve_scripts;
        cfg.env_files = lint.env_files;
        cfg.max_file_size = lint.max_file_size;
        cfg.helm_args = lint.helm_args;
        cfg.target_labels = lint.target_labels;
        cfg.baseline = lint.baseline.map(Located::from);
        if let Some(f) = lint.fail_on {
            if !matches!(f.get_ref().as_str(), "error" | "warning") {
                return Err(fail(&f, "invalid [lint] fail_on", "not a severity", "use `error` or `warning`"));
            }
            cfg.fail_on = Some(f.into_inner());
        }
        cfg.severity = lint.severity.into_iter().map(|(k, v)| (Located::from(k), Located::from(v))).collect();
        cfg.select = lint.select.into_iter().map(Located::from).collect();
        cfg.ignore = lint.ignore.into_iter().map(Located::from).collect();
        cfg.exclude = lint.exclude.into_iter().map(Located::from).collect();
        cfg.per_file_ignores = lint
            .per_file_ignores
            .into_iter()
            .map(|(k, v)| (Located::from(k), v.into_iter().map(Located::from).collect()))
            .collect();
    }
    Ok(cfg)
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_pin() {
        let cfg = parse(Path::new("knobs.toml"), "[pin]\nengine = \"llama.cpp\"\nrepo = \"r\"\ntag = \"b4100\"\n")
            .expect("valid");
        assert_eq!(cfg.tag.as_deref(), Some("b4100"));
        assert_eq!(cfg.engine_name(None), "llama.cpp");
        assert_eq!(cfg.engine_name(Some("radiance")), "radiance");
        assert_eq!(cfg.profile("llama.cpp").metrics.prefixes, ["llamacpp:"]);
    }

    #[test]
    fn errors_point_into_the_file() {
        let text = "[pin]\ntag = \"v1 8\"\n";
        let err = parse(Path::new("knobs.toml"), text).expect_err("bad tag");
        let span = err.span.expect("span");
        assert_eq!(&text[span.offset()..span.offset() + span.len()], "\"v1 8\"");
        let err = parse(Path::new("knobs.toml"), "[pinn]\n").expect_err("unknown table");
        assert!(err.label.contains("unknown field"), "{}", err.label);
        assert_eq!(err.help.as_deref(), Some("did you mean `pin`?"));
        for bad in ["../x", "/etc", ".."] {
            let text = format!("[pin]\nengine = \"{bad}\"\n");
            assert!(parse(Path::new("knobs.toml"), &text).is_err(), "{bad}");
        }
        assert!(parse(Path::new("knobs.toml"), "[pin]\ntag = \"v1/../../x\"\n").is_err());
    }

    #[test]
    fn a_profile_in_knobs_toml_describes_a_third_engine() {
        let text = "[pin]\nengine = \"whisper.cpp\"\n\n[profile.\"whisper.cpp\"]\n[profile.\"whisper.cpp\".extract]\nconfig = [\"examples/cli/cli.cpp\"]\n[[profile.\"whisper.cpp\".command]]\nname = \"whisper-cli\"\n";
        let cfg = parse(Path::new("knobs.toml"), text).expect("valid");
        let p = cfg.profile("whisper.cpp");
        assert_eq!(p.extract.config, ["examples/cli/cli.cpp"]);
        assert_eq!(p.commands[0].name, "whisper-cli");
        let bad = "[profile.x]\nimages = { tag = \"(\" }\n";
        let err = parse(Path::new("knobs.toml"), bad).expect_err("bad regex");
        assert!(err.message.contains("invalid [profile.\"x\"]"), "{}", err.message);
    }
}
