//! Why an extraction fails: nothing the known shapes recognise (C++) or no
//! entry function declaring an option (Python), a file the grammar cannot
//! read, or a user's query too costly to run; and why a tree could not be
//! read into a catalogue (that, or the tree itself).

use crate::source::SourceError;

/// An extraction that produced nothing usable.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum ExtractError {
    #[diagnostic(
        code(knobs::extract::no_flags),
        help("if the help table uses a shape knobs does not know, point [extract] config at the right file")
    )]
    #[error(
        "no flags found in {path}: none of the known shapes (table rows, builder calls, if-chains, usage text) matched"
    )]
    NoFlags { path: String },
    #[diagnostic(
        code(knobs::extract::no_options),
        help("point [[extract.entry]] at the function that builds the binary's argument parser at this tag")
    )]
    #[error("no options found: no [[extract.entry]] function ({functions}) declares one at this tag")]
    NoOptions { functions: String },
    #[diagnostic(
        code(knobs::extract::values_too_costly),
        help("the engine's Python builds values far larger than an argument parser's: check the repository and tag")
    )]
    #[error("settling the values the Python at this tag names took more than {steps} steps; nothing was written")]
    ValuesTooCostly { steps: usize },
    #[diagnostic(
        code(knobs::extract::nothing_read),
        help("point [extract] sources, [extract.env] scan, the flag or the metric folders at where this tag declares them")
    )]
    #[error("no env key, flag or metric found in the {language} files of {paths}")]
    NothingRead { language: String, paths: String },
    #[error("the grammar could not be loaded: {0}")]
    Grammar(String),
    #[error("tree-sitter could not parse {path}")]
    Parse { path: String },
    #[diagnostic(
        code(knobs::extract::query_too_costly),
        help("each `(_)*` multiplies the ways a match may go on: anchor the query on named nodes, or drop the repetition")
    )]
    #[error("[[extract.query]] number {number} in knobs.toml (`{query}`) {why} on {path}; nothing was written")]
    QueryTooCostly { number: usize, query: String, path: String, why: String },
}

/// Why no catalogue could be built: the tree could not be read, or nothing in
/// it reads as a flag declaration.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum BuildError {
    #[error(transparent)]
    #[diagnostic(transparent)]
    Source(#[from] SourceError),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Extract(#[from] ExtractError),
}
