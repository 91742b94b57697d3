//! The lint: scanners find references in each file, rules judge them against
//! the pinned catalogue, suppressions are applied. Each file is linted on its
//! own, in its folder's context (built once per folder), so files run in
//! parallel.
//!
//! Who does what, in the order a run goes:
//! - [`settings`]: knobs.toml and the command line, validated into
//!   [`Settings`] (rules, severities, globs, the engine's commands);
//! - [`input`]: where texts come from ([`Disk`], [`StagedFiles`], standard
//!   input) and how bytes become text;
//! - [`driver`]: hands files to threads, catches a bug met on one file, and
//!   puts the [`Report`] in order;
//! - [`folder`]: a folder's context (env trio, pins), built once;
//! - `around`: what a file's neighbours say of it (a Helm template's chart
//!   values, a compose build's Dockerfile);
//! - [`file`]: one file — [`dispatch`] picks its scanner ([`scanners`] read,
//!   [`refs`] are what they find), [`pins`] picks the version each ref is
//!   judged against (`reach`: the build a monitoring file's repository
//!   runs; `fleet`: a fleet's builds, each judged and merged), [`rules`]
//!   judge (`verdicts`: references a folder's files judged clean, not
//!   judged again), [`suppress`] silences and reports suppressions;
//! - [`finding`]: the output model `report/` renders;
//! - [`fix`]: applies findings' fixes;
//! - [`baseline`]: findings recorded when a repository adopted knobs, not
//!   reported until their line changes;
//! - [`argv`]: a literal argv judged by the same rules, for `knobs verify`.

pub mod argv;
mod around;
pub mod baseline;
mod dispatch;
mod driver;
mod evidence;
mod file;
pub mod finding;
pub mod fix;
mod fleet;
pub mod folder;
pub mod input;
pub mod pairing;
mod pins;
mod reach;
pub mod refs;
pub mod rules;
pub mod scanners;
pub mod settings;
pub mod span;
pub mod suppress;
mod verdicts;

pub use argv::ArgvJudge;
pub use dispatch::scan;
pub use driver::{lint_files, lint_walk};
pub use finding::{FileReport, Report};
pub use input::{Disk, Input, StagedFiles};
pub use settings::{engine_commands, Overrides, Settings, DEFAULT_MAX_FILE_SIZE};
