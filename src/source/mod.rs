//! The pinned source: a tag of the engine's repository, read blob by blob.
//!
//! Only this module touches git2. Repositories are fetched into a bare cache;
//! nothing is checked out, so no hook, filter or submodule of the fetched
//! repository ever runs.

mod git;

pub use git::{cache_root, PinnedTree, SourceError};
