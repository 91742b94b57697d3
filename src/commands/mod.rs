//! One module per subcommand: raw clap arguments in, output and an exit
//! status out.

pub mod catalog;
pub mod explain;
pub mod hook;
pub mod lint;
pub mod meta;
pub mod sync;

use std::io::Write;

/// Where a command writes, so tests can capture it in-process.
pub struct Io<'a> {
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
    pub cwd: std::path::PathBuf,
    /// True when colour may be used (a terminal, and no NO_COLOR).
    pub color: bool,
    /// -1 quiet, 0 normal, 1 and up verbose.
    pub verbosity: i8,
}

/// How a command ended, short of a tool error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Clean,
    Findings,
}

/// Writing output failed (for `knobs lint | head`, a broken pipe, which is
/// not an error).
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("cannot write output: {0}")]
#[diagnostic(code(knobs::output))]
pub struct OutputError(#[from] pub std::io::Error);
