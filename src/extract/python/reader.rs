//! The Python reader behind the language seam: every `.py` file under the
//! paths the profile's `[extract]` names (its sources, entry files, env
//! dict and metric folders), read at the tag in one bounded walk and
//! handed to the pipeline, which gives flags, env keys and metrics in one
//! reading.

use crate::catalog::profile::ExtractSpec;
use crate::extract::lang::{At, Extracted, Inputs, LanguageReader, Readings};
use crate::extract::BuildError;
use crate::source::{Limits, PYTHON};

use super::{extract, paths};

/// The reader of Python sources (tree-sitter-python).
pub struct PythonReader;

impl LanguageReader for PythonReader {
    fn readings(&self, spec: &ExtractSpec) -> Readings {
        // One key for all, from every file or folder the pipeline reads.
        Readings::Whole(Inputs { label: "py", required: paths(spec), optional: Vec::new() })
    }

    fn read(&self, at: &At<'_>) -> Result<Extracted, BuildError> {
        let found = at.tree.sources_within(&PYTHON, &paths(at.spec), &|_| true, Limits::default())?;
        let mut read = extract(found.files, at.spec, at.prefixes)?;
        read.warnings.extend(found.notes);
        Ok(read)
    }
}
