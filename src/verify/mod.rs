//! `knobs verify`: the three checks every arm runbook ends with, done
//! against the catalogue instead of by hand — the flag reached the engine's
//! argv with a value the build accepts (a deploy is not evidence), the
//! knob's own meter left zero, and the scrape is the pinned build's shape.
//!
//! Reading is split from judging: [`argv`] and [`fetch`] read, [`exposition`]
//! parses, [`shape`] and [`meters`] judge, [`render`] prints. Nothing here
//! names an engine: flags, defaults and metric sets come from the
//! catalogue, meters and conditional passing from the overlay, argv and
//! metric prefixes from the profile.

pub mod argv;
pub mod exposition;
pub mod fetch;
pub mod knobs;
pub mod meters;
pub mod render;
pub mod shape;

use serde::Serialize;

/// What stops a verification before any verdict: an input that cannot be
/// read. Exit status 2.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum VerifyError {
    #[error("cannot read the {what} {path}: {message}")]
    #[diagnostic(code(knobs::verify::read))]
    Read { what: &'static str, path: String, message: String },
    #[error("the {what} {from} is not UTF-8 text")]
    #[diagnostic(code(knobs::verify::read))]
    NotText { what: &'static str, from: String },
    #[error("{from} holds no argv")]
    #[diagnostic(code(knobs::verify::argv), help("a kernel thread or a zombie process has an empty cmdline"))]
    EmptyArgv { from: String },
    #[error("cannot read {url}: {message}")]
    #[diagnostic(code(knobs::verify::fetch))]
    Fetch {
        url: String,
        message: String,
        #[help]
        help: Option<String>,
    },
    #[error("{url} did not answer within {seconds}s")]
    #[diagnostic(code(knobs::verify::timeout), help("`--timeout SECONDS` waits longer"))]
    Timeout { url: String, seconds: f64 },
    #[error("{from} is not a Prometheus text exposition: line {line}: {message}")]
    #[diagnostic(code(knobs::verify::exposition))]
    Malformed {
        from: String,
        line: usize,
        message: String,
        #[help]
        help: Option<String>,
    },
}

/// Parses a scrape, naming the line that is not exposition text.
pub fn parse_scrape(scrape: &fetch::Scrape) -> Result<exposition::Exposition, VerifyError> {
    exposition::parse(&scrape.text).map_err(|e| {
        let text = scrape.text.get(e.range.clone()).unwrap_or("").trim_end();
        let shown: String = text
            .chars()
            .take(120)
            .flat_map(|c| if c.is_control() { c.escape_default().collect() } else { vec![c] })
            .collect();
        let ellipsis = if text.chars().count() > 120 { "…" } else { "" };
        VerifyError::Malformed {
            from: scrape.from.clone(),
            line: e.line,
            message: e.message,
            help: Some(format!("line {} reads: {shown}{ellipsis}", e.line)),
        }
    })
}

/// Everything `knobs verify` found.
#[derive(Debug, Clone, Serialize)]
pub struct Verification {
    /// `radiance v1.8.1`
    pub build: String,
    /// Set when the build is an embedded catalogue used beside catalogues
    /// synced from another repository.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<String>,
    pub argv: argv::ArgvReport,
    pub metrics_from: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before_from: Option<String>,
    pub shape: shape::Shape,
    pub knobs: Vec<meters::KnobVerdict>,
}

impl Verification {
    /// Why the verification fails, one sentence each; empty when it passes.
    pub fn failures(&self) -> Vec<String> {
        let mut out = Vec::new();
        for k in self.knobs.iter().filter(|k| k.status != meters::Status::Engaged) {
            out.push(format!("`{}` is {}: {}", k.flag, k.status.as_str(), k.why));
        }
        let errors = self.argv.errors();
        if errors > 0 {
            let s = if errors == 1 { "" } else { "s" };
            out.push(format!("argv has {errors} error{s} against {}", self.build));
        }
        if !self.shape.matches {
            out.push(format!(
                "the scrape is not {}'s shape ({} missing, {} not catalogued); it looks like {}",
                self.build,
                self.shape.missing.len(),
                self.shape.extra.len(),
                self.shape.looks_like.as_deref().unwrap_or("no catalogued version")
            ));
        }
        out
    }

    pub fn passed(&self) -> bool {
        self.failures().is_empty()
    }
}
