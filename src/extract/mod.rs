//! The extractor: an engine's source at a tag in, catalogue entries out.
//!
//! What is the same for every source language lives here: `one_tag.rs`
//! builds one tag's catalogue (what `knobs sync` writes), `history.rs`
//! every tag's (`knobs sync --all-tags`), `error.rs` says why one fails.
//! `lang.rs` is the seam a language's reader fills; each language is a
//! folder (`cpp/`, `python/`, `go/`) and one line of `reader_for`. Neither
//! `one_tag.rs` nor `history.rs` knows which languages there are.

pub mod cpp;
mod error;
pub mod go;
pub mod history;
pub mod lang;
pub mod one_tag;
pub mod python;
pub mod rust;

use crate::catalog::profile::Language;

pub use error::{BuildError, ExtractError};
use lang::LanguageReader;

/// The reader of `language`'s source: the registry of languages.
pub fn reader_for(language: Language) -> &'static dyn LanguageReader {
    match language {
        Language::Cpp => &cpp::CppReader,
        Language::Python => &python::PythonReader,
        Language::Go => &go::GoReader,
        Language::Rust => &rust::RustReader,
    }
}
