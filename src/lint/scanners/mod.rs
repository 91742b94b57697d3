//! Scanners: one per file type. Each reads a file and reports references
//! (flags, env knobs, metrics), suppression comments and image pins. None of
//! them judges anything — that is the rules' work.

pub mod env;
pub mod markdown;
pub mod metrics;
pub mod shell;

use super::refs::Ref;
use super::span::Span;
use super::suppress::Suppression;

/// What the lint needs to know about the engine while scanning: its command
/// names and which flags take a value.
pub struct ScanCtx<'a> {
    /// Binary names whose argv is the engine's (`radiance`).
    pub engine_commands: &'a [String],
    /// Script names whose argv is handed to the engine (`serve-radiance.sh`).
    pub serve_scripts: &'a [String],
    /// `Some(true)` for a known flag taking a value, `None` for an unknown one.
    pub takes_value: &'a dyn Fn(&str) -> Option<bool>,
}

/// Everything a scanner found in one file.
#[derive(Debug, Default, Clone)]
pub struct Scan {
    pub refs: Vec<Ref>,
    pub suppressions: Vec<Suppression>,
    /// Engine versions pinned by image references (`…/radiance:1.0.13`).
    pub pins: Vec<(String, Span)>,
    /// Env variables a serve script passes to a flag: (variable, flag).
    pub env_flags: Vec<(String, String)>,
}
