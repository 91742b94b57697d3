//! The Rust reader behind the language seam: every `.rs` file under the
//! paths the profile's `[extract]` names (its sources and entry files),
//! read at the tag in one bounded walk; one reading gives the flags and,
//! on each, its env key.

use crate::catalog::profile::ExtractSpec;
use crate::extract::lang::{At, Extracted, Inputs, LanguageReader, Readings};
use crate::extract::BuildError;
use crate::source::{Limits, Wanted};

use super::{extract, paths};

/// The Rust files a Rust engine's catalogue is read from.
const RUST: Wanted = Wanted { extensions: &[".rs"], noun: "Rust", purpose: "the catalogue" };

/// The reader of Rust sources (tree-sitter-rust).
pub struct RustReader;

impl LanguageReader for RustReader {
    fn readings(&self, spec: &ExtractSpec) -> Readings {
        Readings::Whole(Inputs { label: "rs", required: paths(spec), optional: Vec::new() })
    }

    fn read(&self, at: &At<'_>) -> Result<Extracted, BuildError> {
        let found = at.tree.sources_within(&RUST, &paths(at.spec), &|_| true, Limits::default())?;
        let mut read = extract(found.files, at.spec)?;
        read.warnings.extend(found.notes);
        Ok(read)
    }
}
