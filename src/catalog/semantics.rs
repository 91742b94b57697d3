//! The semantics overlay (`catalog/<engine>/semantics.toml`): what a knob is for, what
//! it costs, its meters and rollback — written by hand, so it is a hint and
//! never a gate: what it names that a version lacks is left out for that
//! version (by explain and verify), and [`check`] — `knobs catalog check` —
//! lists every flag and metric it names that the build lacks and every
//! rollback line the build refuses.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::model::Catalog;
use super::profile::Profile;
use crate::diag::FileError;

pub const FILE_NAME: &str = "semantics.toml";

/// The newest overlay schema this knobs reads.
pub const SCHEMA: u32 = 1;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Semantics {
    pub schema: u32,
    pub engine: String,
    #[serde(default)]
    pub flag: BTreeMap<String, FlagSemantics>,
    #[serde(default)]
    pub metric: BTreeMap<String, MetricSemantics>,
    /// The file it was read from and its text, for errors that point into it.
    #[serde(skip)]
    pub source: Option<(PathBuf, String)>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlagSemantics {
    /// One phrase: "decoder dial".
    pub role: String,
    pub does: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub costs: Option<String>,
    /// Metrics that must move once the knob is armed.
    #[serde(default)]
    pub meters: Vec<String>,
    #[serde(default)]
    pub related: Vec<String>,
    /// The env line that undoes an arm.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollback: Option<String>,
    /// How serve scripts pass it, when passing is conditional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditional: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricSemantics {
    pub measures: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trap: Option<String>,
}

/// An overlay that cannot be read or does not parse.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum SemanticsError {
    #[error("cannot read overlay {}: {message}", path.display())]
    #[diagnostic(code(knobs::semantics))]
    Read { path: PathBuf, message: String },
    #[error(transparent)]
    #[diagnostic(transparent)]
    File(Box<FileError>),
}

impl Semantics {
    pub fn parse(path: &Path, text: &str) -> Result<Semantics, SemanticsError> {
        let mut sem: Semantics = toml::from_str(text)
            .map_err(|e| SemanticsError::File(Box::new(FileError::from_toml(path, text, "a valid overlay", &e))))?;
        if sem.schema > SCHEMA {
            let e = FileError::new(
                path,
                text,
                crate::diag::find_key(text, "schema"),
                format!("overlay {} has schema {}", path.display(), sem.schema),
                &format!("this knobs reads schema {SCHEMA} and older"),
            )
            .with_help("upgrade knobs, or write the overlay in the schema it reads");
            return Err(SemanticsError::File(Box::new(e)));
        }
        sem.source = Some((path.to_path_buf(), text.to_string()));
        Ok(sem)
    }

    /// The engine's overlay built into the binary, or an empty one.
    pub fn embedded(engine: &str) -> Result<Semantics, SemanticsError> {
        let path = Path::new(engine).join(FILE_NAME);
        let text = crate::embedded::CATALOGS.get_file(&path).and_then(|f| f.contents_utf8()).unwrap_or("");
        if text.is_empty() {
            return Ok(Semantics::default());
        }
        Semantics::parse(&Path::new("catalog").join(path), text)
    }

    /// `<dir>/<engine>/semantics.toml` from the last folder that has one,
    /// else the embedded overlay.
    pub fn open(engine: &str, dirs: &[PathBuf]) -> Result<Semantics, SemanticsError> {
        for dir in dirs.iter().rev() {
            let path = dir.join(engine).join(FILE_NAME);
            match crate::confine::read_to_string(dir, &path, crate::bounded::CONFIG) {
                Ok(text) => return Semantics::parse(&path, &text),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(SemanticsError::Read { path, message: e.to_string() }),
            }
        }
        Semantics::embedded(engine)
    }

    /// The knobs whose meters include a metric.
    pub fn metered_by(&self, metric: &str) -> Vec<&str> {
        self.flag.iter().filter(|(_, s)| s.meters.iter().any(|m| m == metric)).map(|(f, _)| f.as_str()).collect()
    }
}

/// The line that says what of the overlay a version does not register:
/// "the overlay describes `a`, `b`, which radiance v1.8.1 from R does not
/// register"; none when it registers everything.
pub fn unregistered_note(names: &[String], label: &str) -> Option<String> {
    if names.is_empty() {
        return None;
    }
    let names: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    Some(format!("the overlay describes {}, which {label} does not register", names.join(", ")))
}

/// An overlay entry the catalogue does not bear out (named apart from
/// `verify::argv::Problem`, which is a command line the engine refuses).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    /// Where in the overlay: `flag."--x".meters`.
    pub at: String,
    pub message: String,
}

/// The flags and metric names a text mentions.
fn names_in(text: &str, profile: &Profile) -> (Vec<String>, Vec<String>) {
    static FLAG: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?:^|[^A-Za-z0-9-])(--[a-z0-9][a-z0-9-]*[a-z0-9])").expect("valid regex"));
    static WORD: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"[A-Za-z_][A-Za-z0-9_:]*[A-Za-z0-9_]").expect("valid regex"));
    (
        FLAG.captures_iter(text).filter_map(|c| c.get(1)).map(|m| m.as_str().to_string()).collect(),
        WORD.find_iter(text).map(|m| m.as_str()).filter(|w| profile.is_metric_name(w)).map(str::to_string).collect(),
    )
}

/// Checks the overlay against one catalogue.
pub fn check(sem: &Semantics, catalog: &Catalog, profile: &Profile) -> Vec<Mismatch> {
    use super::query::{env_target, find_metric, judge, Verdict};
    let build = format!("{} {}", catalog.source.engine, catalog.source.tag);
    let mut out = Vec::new();
    let near = |name: &str, known: &mut dyn Iterator<Item = &str>| {
        crate::suggest::suggest(name, known).map(|n| format!(" (did you mean `{n}`?)")).unwrap_or_default()
    };
    let flag_at = |at: String, name: &str, out: &mut Vec<Mismatch>| {
        if catalog.flag(name).is_none() {
            let near = near(name, &mut catalog.flags.iter().flat_map(super::model::Flag::spellings));
            out.push(Mismatch { at, message: format!("`{name}` is not a flag of {build}{near}") });
        }
    };
    let metric_at = |at: String, name: &str, out: &mut Vec<Mismatch>| {
        if find_metric(catalog, name).is_none() {
            let near = near(name, &mut catalog.metrics.iter().map(|m| m.name.as_str()));
            out.push(Mismatch { at, message: format!("`{name}` is not exported by {build}{near}") });
        }
    };
    if !sem.engine.is_empty() && sem.engine != catalog.source.engine {
        out.push(Mismatch { at: "engine".into(), message: format!("overlay is for `{}`, not {build}", sem.engine) });
    }
    for (name, s) in &sem.flag {
        let at = |field: &str| format!("flag.\"{name}\".{field}");
        flag_at(format!("flag.\"{name}\""), name, &mut out);
        for m in &s.meters {
            metric_at(at("meters"), m, &mut out);
        }
        for r in &s.related {
            flag_at(at("related"), r, &mut out);
        }
        for (field, text) in [
            ("role", Some(&s.role)),
            ("does", Some(&s.does)),
            ("costs", s.costs.as_ref()),
            ("conditional", s.conditional.as_ref()),
        ] {
            let (flags, metrics) = names_in(text.map_or("", String::as_str), profile);
            flags.iter().for_each(|f| flag_at(at(field), f, &mut out));
            metrics.iter().for_each(|m| metric_at(at(field), m, &mut out));
        }
        if let Some(line) = &s.rollback {
            let Some((key, value)) = line.split_once('=') else {
                out.push(Mismatch { at: at("rollback"), message: format!("`{line}` is not an env line (KEY=value)") });
                continue;
            };
            match env_target(key.trim(), catalog, profile, &Default::default()).map(|t| t.flag) {
                Some(f) if f.name != *name => out
                    .push(Mismatch { at: at("rollback"), message: format!("`{key}` sets `{}`, not `{name}`", f.name) }),
                Some(f) => match judge(f, value.trim()) {
                    Verdict::Fine => {}
                    Verdict::NotMember(v) | Verdict::WrongKind(v) => out.push(Mismatch {
                        at: at("rollback"),
                        message: format!("`{v}` is not a value {build} accepts for `{}`", f.name),
                    }),
                },
                None => out.push(Mismatch { at: at("rollback"), message: format!("`{key}` sets no flag of {build}") }),
            }
        }
    }
    for (name, s) in &sem.metric {
        let at = |field: &str| format!("metric.\"{name}\".{field}");
        metric_at(format!("metric.\"{name}\""), name, &mut out);
        for (field, text) in [("measures", Some(&s.measures)), ("trap", s.trap.as_ref())] {
            let (flags, metrics) = names_in(text.map_or("", String::as_str), profile);
            flags.iter().for_each(|f| flag_at(at(field), f, &mut out));
            metrics.iter().for_each(|m| metric_at(at(field), m, &mut out));
        }
    }
    out
}
