//! The semantics overlay (`catalog/semantics.toml`): what a knob is for, what
//! it costs, its meters and rollback — written by hand, so it is checked
//! against the catalogue: every flag and metric it names must exist in the
//! pinned build, and its rollback lines must be values the build accepts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::model::Catalog;

pub const FILE_NAME: &str = "semantics.toml";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Semantics {
    pub schema: u32,
    pub engine: String,
    #[serde(default)]
    pub flag: BTreeMap<String, FlagSemantics>,
    #[serde(default)]
    pub metric: BTreeMap<String, MetricSemantics>,
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

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("{} is not a valid overlay: {message}", path.display())]
#[diagnostic(code(knobs::semantics))]
pub struct SemanticsError {
    pub path: PathBuf,
    pub message: String,
}

impl Semantics {
    pub fn parse(path: &Path, text: &str) -> Result<Semantics, SemanticsError> {
        toml::from_str(text).map_err(|e| SemanticsError { path: path.to_path_buf(), message: e.to_string() })
    }

    /// The overlay built into the binary.
    pub fn embedded() -> Result<Semantics, SemanticsError> {
        let text = super::store::EMBEDDED.get_file(FILE_NAME).and_then(|f| f.contents_utf8()).unwrap_or("");
        if text.is_empty() {
            return Ok(Semantics::default());
        }
        Semantics::parse(&Path::new("catalog").join(FILE_NAME), text)
    }

    /// `<dir>/semantics.toml`, or an empty overlay when there is none.
    pub fn from_dir(dir: &Path) -> Result<Semantics, SemanticsError> {
        let path = dir.join(FILE_NAME);
        match std::fs::read_to_string(&path) {
            Ok(text) => Semantics::parse(&path, &text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Semantics::default()),
            Err(e) => Err(SemanticsError { path, message: e.to_string() }),
        }
    }

    pub fn open(dir: Option<&Path>) -> Result<Semantics, SemanticsError> {
        match dir {
            Some(d) => Semantics::from_dir(d),
            None => Semantics::embedded(),
        }
    }

    /// The knobs whose meters include a metric.
    pub fn metered_by(&self, metric: &str) -> Vec<&str> {
        self.flag.iter().filter(|(_, s)| s.meters.iter().any(|m| m == metric)).map(|(f, _)| f.as_str()).collect()
    }
}

/// One thing the overlay says that the catalogue does not bear out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Where in the overlay: `flag."--x".meters`.
    pub at: String,
    pub message: String,
}

fn names_in(text: &str) -> (Vec<String>, Vec<String>) {
    static FLAG: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?:^|[^A-Za-z0-9-])(--[a-z0-9][a-z0-9-]*[a-z0-9])").expect("valid regex"));
    static METRIC: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\b((?:radiance|vllm):[A-Za-z_][A-Za-z0-9_:]*[A-Za-z0-9_])").expect("valid regex")
    });
    (
        FLAG.captures_iter(text).filter_map(|c| c.get(1)).map(|m| m.as_str().to_string()).collect(),
        METRIC.captures_iter(text).filter_map(|c| c.get(1)).map(|m| m.as_str().to_string()).collect(),
    )
}

/// Checks the overlay against one catalogue.
pub fn check(sem: &Semantics, catalog: &Catalog) -> Vec<Problem> {
    use crate::lint::rules::{env_flag, find_metric, judge, Verdict};
    let build = format!("{} {}", catalog.source.engine, catalog.source.tag);
    let mut out = Vec::new();
    let flag_at = |at: String, name: &str, out: &mut Vec<Problem>| {
        if catalog.flag(name).is_none() {
            out.push(Problem { at, message: format!("`{name}` is not a flag of {build}") });
        }
    };
    let metric_at = |at: String, name: &str, out: &mut Vec<Problem>| {
        if find_metric(catalog, name).is_none() {
            out.push(Problem { at, message: format!("`{name}` is not exported by {build}") });
        }
    };
    if !sem.engine.is_empty() && sem.engine != catalog.source.engine {
        out.push(Problem { at: "engine".into(), message: format!("overlay is for `{}`, not {build}", sem.engine) });
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
            let (flags, metrics) = names_in(text.map_or("", String::as_str));
            flags.iter().for_each(|f| flag_at(at(field), f, &mut out));
            metrics.iter().for_each(|m| metric_at(at(field), m, &mut out));
        }
        if let Some(line) = &s.rollback {
            let Some((key, value)) = line.split_once('=') else {
                out.push(Problem { at: at("rollback"), message: format!("`{line}` is not an env line (KEY=value)") });
                continue;
            };
            match env_flag(key.trim(), catalog, &Default::default()) {
                Some(f) if f.name != *name => out
                    .push(Problem { at: at("rollback"), message: format!("`{key}` sets `{}`, not `{name}`", f.name) }),
                Some(f) => match judge(f, value.trim()) {
                    Verdict::Fine => {}
                    Verdict::NotMember(v) | Verdict::WrongKind(v) => out.push(Problem {
                        at: at("rollback"),
                        message: format!("`{v}` is not a value {build} accepts for `{}`", f.name),
                    }),
                },
                None => out.push(Problem { at: at("rollback"), message: format!("`{key}` sets no flag of {build}") }),
            }
        }
    }
    for (name, s) in &sem.metric {
        let at = |field: &str| format!("metric.\"{name}\".{field}");
        metric_at(format!("metric.\"{name}\""), name, &mut out);
        for (field, text) in [("measures", Some(&s.measures)), ("trap", s.trap.as_ref())] {
            let (flags, metrics) = names_in(text.map_or("", String::as_str));
            flags.iter().for_each(|f| flag_at(at(field), f, &mut out));
            metrics.iter().for_each(|m| metric_at(at(field), m, &mut out));
        }
    }
    out
}
