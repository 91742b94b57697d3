//! What can go wrong reading the pinned source, each case with the help
//! that says what to do about it.

use std::path::PathBuf;

/// A fetch that reports no progress for this many times `$KNOBS_GIT_TIMEOUT`
/// is abandoned (a server that keeps the connection busy without sending
/// anything useful, such as one header line a second). Here, beside the
/// error whose help states the limits.
pub(super) const IDLE_FACTOR: u64 = 2;

/// No fetch runs longer than this many times `$KNOBS_GIT_TIMEOUT`, progress
/// or not (an hour at the default 30 s).
pub(super) const OVERALL_FACTOR: u64 = 120;

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum SourceError {
    #[error("cannot read repository `{repo}`: {message}")]
    #[diagnostic(
        code(knobs::source::unreachable),
        help("check the URL or path; knobs fetches into a bare cache and never checks out")
    )]
    Unreachable { repo: String, message: String },
    #[error("cannot read repository `{repo}`: {} does not exist", path.display())]
    #[diagnostic(
        code(knobs::source::no_such_path),
        help("a local repository is read in place; a remote needs a URL (https://, ssh://, git://, file://) or host:org/repo")
    )]
    NoSuchPath { repo: String, path: PathBuf },
    #[error("cannot read repository `{repo}`: {message}")]
    #[diagnostic(
        code(knobs::source::deadline),
        help("KNOBS_GIT_TIMEOUT (seconds, default 30) sets the limits: a fetch is abandoned after {IDLE_FACTOR}× it without progress, and after {OVERALL_FACTOR}× it in all")
    )]
    Abandoned { repo: String, message: String },
    #[diagnostic(code(knobs::source::tag))]
    #[error("tag `{tag}` not found in `{repo}`{}", nearest_text(.nearest))]
    TagNotFound { tag: String, repo: String, nearest: Vec<String> },
    #[diagnostic(
        code(knobs::source::tag_kind),
        help("knobs reads the tree of a tagged commit; tag the release commit instead")
    )]
    #[error("tag `{tag}` in `{repo}` points at {kind}, not at a commit")]
    TagNotACommit { tag: String, repo: String, kind: &'static str },
    #[diagnostic(
        code(knobs::source::missing_file),
        help("set `config` under [extract] in knobs.toml if the help table lives elsewhere")
    )]
    #[error("`{path}` does not exist at {tag} in `{repo}`")]
    MissingFile { path: String, tag: String, repo: String },
    #[diagnostic(
        code(knobs::source::missing_object),
        help("the repository lacks this object (a partial, shallow or damaged clone?): fetch it, or sync from a complete remote")
    )]
    #[error("`{path}` at {tag} in `{repo}` cannot be read: its content ({id}) is not in the repository")]
    MissingObject { path: String, tag: String, repo: String, id: String },
    #[diagnostic(
        code(knobs::source::too_large),
        help("knobs reads a file the profile names only up to this size; point [extract] at the file that holds the option table")
    )]
    #[error("`{path}` at {tag} in `{repo}` is {size} bytes, over the {cap} bytes knobs reads of one file")]
    TooLarge { path: String, tag: String, repo: String, size: usize, cap: usize },
    #[error("`{path}` at {tag} in `{repo}` would inflate {cost} bytes to be read (a delta on a larger base), over the {} MiB knobs takes to read one object; nothing was read", cap / (1024 * 1024))]
    #[diagnostic(
        code(knobs::source::inflates),
        help("a local repository is read in place: an object's header declares its own size only, so its delta chain in the pack is judged first; no engine's source file comes near this")
    )]
    Inflates { path: String, tag: String, repo: String, cost: u64, cap: u64 },
    #[error("cannot read repository `{repo}`: {message}; nothing was added to the cache")]
    #[diagnostic(
        code(knobs::source::ceiling),
        help("knobs fetches one tag's tree at depth 1, and no engine's comes near this ceiling: check that the URL names the engine's repository")
    )]
    Ceiling { repo: String, message: String },
    #[error("cache at {}: {message}", path.display())]
    Cache { path: PathBuf, message: String },
    #[error("git: {0}")]
    Git(#[from] git2::Error),
}

fn nearest_text(nearest: &[String]) -> String {
    if nearest.is_empty() {
        "; the repository has no tags".to_string()
    } else {
        format!("; nearest tags: {}", nearest.join(", "))
    }
}

impl SourceError {
    /// The error with the userinfo of every URL in it removed (`redact`).
    pub(super) fn redacted(self) -> SourceError {
        use super::redact::redact;
        let r = |s: String| redact(&s);
        match self {
            SourceError::Unreachable { repo, message } => {
                SourceError::Unreachable { repo: r(repo), message: r(message) }
            }
            SourceError::NoSuchPath { repo, path } => SourceError::NoSuchPath { repo: r(repo), path },
            SourceError::Abandoned { repo, message } => SourceError::Abandoned { repo: r(repo), message: r(message) },
            SourceError::TagNotFound { tag, repo, nearest } => SourceError::TagNotFound { tag, repo: r(repo), nearest },
            SourceError::TagNotACommit { tag, repo, kind } => SourceError::TagNotACommit { tag, repo: r(repo), kind },
            SourceError::MissingFile { path, tag, repo } => SourceError::MissingFile { path, tag, repo: r(repo) },
            SourceError::MissingObject { path, tag, repo, id } => {
                SourceError::MissingObject { path, tag, repo: r(repo), id }
            }
            SourceError::TooLarge { path, tag, repo, size, cap } => {
                SourceError::TooLarge { path, tag, repo: r(repo), size, cap }
            }
            SourceError::Inflates { path, tag, repo, cost, cap } => {
                SourceError::Inflates { path, tag, repo: r(repo), cost, cap }
            }
            SourceError::Ceiling { repo, message } => SourceError::Ceiling { repo: r(repo), message: r(message) },
            SourceError::Cache { path, message } => SourceError::Cache { path, message: r(message) },
            SourceError::Git(e) => SourceError::Git(git2::Error::new(e.code(), e.class(), redact(e.message()))),
        }
    }
}
