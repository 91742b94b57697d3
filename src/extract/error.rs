//! Why an extraction fails: nothing the known shapes recognise, or a file
//! the C++ grammar cannot read.

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
    #[error("the C++ grammar could not be loaded: {0}")]
    Grammar(String),
    #[error("tree-sitter could not parse {path}")]
    Parse { path: String },
}
