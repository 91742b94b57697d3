//! One module per subcommand: raw clap arguments in, output and an exit
//! status out.

pub mod catalog;
pub mod explain;
pub mod hook;
pub mod lint;
pub mod sync;

use std::io::Write;

/// Where a command writes, so tests can capture it in-process.
pub struct Io<'a> {
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
    pub cwd: std::path::PathBuf,
    /// True when colour may be used (a terminal, and no NO_COLOR).
    pub color: bool,
}

/// How a command ended, short of a tool error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Clean,
    Findings,
}
