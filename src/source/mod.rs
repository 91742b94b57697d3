//! Git: the pinned source (a tag of the engine's repository, read blob by
//! blob) and the user's own repository (staged content, changed files, hooks).
//!
//! Only this module touches git2. Remote repositories are fetched into a
//! bare cache, only the tags asked for, each at depth 1; nothing is checked
//! out, so no hook, filter or submodule of the fetched repository ever runs.

mod cache;
mod ceiling;
mod chain;
mod error;
mod fetch;
mod guard;
mod listing;
mod local;
mod redact;
mod refs;
mod sources;
mod tags;
mod tree;
mod worktree;

pub use cache::cache_root;
pub use error::SourceError;
pub use listing::{fetch_tags, list_tags};
pub use redact::redact;
pub use refs::{Listed, RemoteTag, Transfer};
pub use sources::{CppSources, Limits, Wanted, CPP, PYTHON};
pub use tags::{TagReader, TagRef, TaggedRepo};
pub use tree::{Origin, PinnedTree, MAX_FILE};
pub use worktree::{HooksDir, Staged, Worktree, WorktreeError};
