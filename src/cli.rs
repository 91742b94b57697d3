//! The command line, as clap definitions. Parsing only: each command's
//! module turns these raw arguments into work.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Lint radiance runbooks, env files and serve scripts against the flags and
/// metrics of the pinned build — read from its source, never from memory.
#[derive(Debug, Parser)]
#[command(name = "knobs", version, about, long_about = None)]
pub struct Cli {
    /// When to colour output: auto is when writing to a terminal and NO_COLOR is unset
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Print only findings, verdicts and errors: no summaries or notes
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Say more (lint: the catalogue each file was judged against, and the files passed over)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// The engine: a built-in profile (radiance, llama.cpp, vllm, sglang, ollama, tgi) or one in knobs.toml [default: knobs.toml `[pin] engine`, else radiance]
    #[arg(long, global = true, value_name = "NAME")]
    pub engine: Option<String>,
    /// Read this knobs.toml instead of searching upward for one
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lint runbooks, env files, serve scripts, deployment files and PromQL against the pinned catalogue.
    ///
    /// Reads Markdown, env files, shell scripts, systemd units and drop-ins,
    /// Quadlet `.container` files, compose files, Kubernetes manifests,
    /// Dockerfiles, Helm values and Prometheus rule files. Exit status: 0
    /// clean, 1 findings, 2 an error in knobs or its input.
    Lint(LintArgs),
    /// Everything the catalogue knows about a flag, env key, metric or rule.
    Explain(ExplainArgs),
    /// List the flags of a catalogued version, one per line.
    Flags(FlagsArgs),
    /// List the lint rules.
    Rules,
    /// Extract a catalogue from a tag of the engine's repository.
    Sync(SyncArgs),
    /// Show or compare catalogues.
    #[command(subcommand)]
    Catalog(CatalogCommand),
    /// Prove a knob engaged on a live endpoint: its flag in the engine's argv
    /// with a valid value, its meter off zero, and the scrape the pinned build's shape.
    Verify(VerifyArgs),
    /// Manage the git pre-commit hook.
    #[command(subcommand)]
    Hook(HookCommand),
    /// Run the language server: diagnostics, hover, completion and code actions in an editor, over stdio.
    ///
    /// Speaks the Language Server Protocol on standard input and output
    /// (logs go to standard error). Each file is judged as `knobs lint`
    /// judges it on disk: the nearest knobs.toml, its pin and settings.
    /// Set-up for VS Code, Neovim and Helix: docs/editor.md.
    Server,
    /// Print a shell completion script.
    Completions {
        #[arg(value_enum)]
        shell: Shell,
    },
    /// Print the man page (roff).
    Man,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Write .git/hooks/pre-commit to run `knobs lint --staged`; an existing
    /// hook is kept and run first (its old file is backed up).
    Install {
        /// Replace an existing hook instead of chaining it (it is still backed up)
        #[arg(long)]
        force: bool,
    },
    /// Remove the hook knobs wrote, restoring the hook it chained, if any.
    Uninstall,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
}

#[derive(Debug, Args)]
pub struct LintArgs {
    /// Files or folders to lint; `-` reads one file from standard input (with --stdin-filename)
    #[arg(default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// Output format
    #[arg(long, value_enum, default_value_t = crate::report::Format::Human)]
    pub format: crate::report::Format,
    /// Judge every file against this catalogued version, over any version a file pins [default: knobs.toml `[pin] tag`, else the newest] (also `--version TAG`)
    #[arg(long = "tag", value_name = "TAG")]
    pub version: Option<String>,
    /// Also read catalogues from this folder (beside the embedded ones and those beside knobs.toml; it wins for the same tag)
    #[arg(long, value_name = "DIR")]
    pub catalog_dir: Option<PathBuf>,
    /// The lowest severity that makes the exit status 1 [default: knobs.toml, else warning]
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
    /// Exit 1 when a file of a kind knobs reads is passed over in a folder walk because it is binary (a NUL byte) or
    /// over the size cap: its findings, if any, are not seen (without it, such a file is a warning and exit 0)
    #[arg(long)]
    pub fail_on_skipped: bool,
    /// Lint the content staged in the git index, not the working tree
    #[arg(long, conflicts_with = "changed_since")]
    pub staged: bool,
    /// Lint only files changed since this git ref (committed, staged, unstaged or untracked)
    #[arg(long, value_name = "REF")]
    pub changed_since: Option<String>,
    /// Run only these rules (codes or names, comma-separated) [default: knobs.toml `[lint] select`, else all]
    #[arg(long, value_name = "RULES", value_delimiter = ',')]
    pub select: Vec<String>,
    /// Never run these rules (codes or names, comma-separated), besides knobs.toml `[lint] ignore`
    #[arg(long, value_name = "RULES", value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Exit 0 even when there are findings (errors in knobs itself still exit 2)
    #[arg(long)]
    pub exit_zero: bool,
    /// Print how many findings each rule has, instead of the findings
    #[arg(long, conflicts_with_all = ["fix", "diff"])]
    pub statistics: bool,
    /// The name of the file read from `-` (standard input): its kind and folder
    #[arg(long, value_name = "PATH")]
    pub stdin_filename: Option<PathBuf>,
    /// Rewrite what has one right answer: a flag renamed between catalogued versions, a metric under the wrong prefix
    #[arg(long, conflicts_with_all = ["staged", "diff"])]
    pub fix: bool,
    /// Print the fixes `--fix` would make, as a unified diff, and change nothing
    #[arg(long, conflicts_with = "staged")]
    pub diff: bool,
    /// Leave out the findings this file records until their line changes [default: knobs.toml `[lint] baseline`]
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Record every current finding in this file (the baseline `--baseline` reads), report none, exit 0
    #[arg(long, value_name = "FILE", conflicts_with_all = ["fix", "diff", "staged", "statistics", "baseline"])]
    pub write_baseline: Option<PathBuf>,
    /// The old spelling of `--tag TAG`; bare (no tag), knobs' version, as after any other program
    #[arg(long = "version", value_name = "TAG", num_args = 0..=1, default_missing_value = "", hide = true, conflicts_with = "version")]
    pub version_word: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExplainFormat {
    Human,
    Json,
    Markdown,
}

#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// A flag (`--busy-prefill-chunk` or `busy-prefill-chunk`), an env key
    /// (`BUSY_PREFILL_CHUNK`), a metric, or a rule (`KNB002`, `invented-member`).
    /// After `--`, a name is always an engine flag: `knobs explain -- --format`.
    #[arg(allow_hyphen_values = true, value_name = "SUBJECT")]
    pub subject: String,
    #[arg(long, value_enum, default_value_t = ExplainFormat::Human)]
    pub format: ExplainFormat,
    /// Explain against this catalogued version [default: knobs.toml `[pin] tag`, else the newest] (also `--version TAG`)
    #[arg(long = "tag", value_name = "TAG")]
    pub version: Option<String>,
    /// Also read catalogues and `<engine>/semantics.toml` from this folder (it wins for the same tag)
    #[arg(long, value_name = "DIR")]
    pub catalog_dir: Option<PathBuf>,
    /// The old spelling of `--tag TAG`; bare (no tag), knobs' version, as after any other program
    #[arg(long = "version", value_name = "TAG", num_args = 0..=1, default_missing_value = "", hide = true, conflicts_with = "version")]
    pub version_word: Option<String>,
    /// List every change of the flag with the tag that made it (added, kind, default or members changed, renamed, removed), from the engine's history, else across the catalogued versions
    #[arg(long)]
    pub history: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum VerifyFormat {
    Human,
    Json,
}

/// `knobs verify --cmdline PID --metrics URL --knob FLAG`: exit 0 when every
/// named knob is in argv with a valid value and engaged (and argv and the
/// metric shape check out), 1 when not, 2 when an input cannot be read.
#[derive(Debug, Args)]
#[command(
    after_help = "Exit status: 0 verified, 1 a knob absent, invalid or not engaged (or argv or the metric shape wrong), 2 an input that cannot be read."
)]
pub struct VerifyArgs {
    /// The engine's argv: a PID (reads /proc/PID/cmdline) or a file holding a copy of one (NUL-separated)
    #[arg(long, value_name = "FILE|PID")]
    pub cmdline: String,
    /// The engine's metrics: a URL to GET (http; e.g. http://127.0.0.1:8000/metrics) or a file saved from one
    #[arg(long, value_name = "URL|FILE")]
    pub metrics: String,
    /// An earlier scrape: a knob is then engaged when its meter moved between the two, not merely above zero
    #[arg(long, value_name = "URL|FILE")]
    pub metrics_before: Option<String>,
    /// A knob to prove engaged, repeatable: `--knob --prefill-interleave`, `--knob prefill-interleave` or its env key
    #[arg(long, value_name = "FLAG", allow_hyphen_values = true)]
    pub knob: Vec<String>,
    /// Judge against this catalogued version [default: knobs.toml `[pin] tag`, else the newest] (also `--version TAG`)
    #[arg(long = "tag", value_name = "TAG")]
    pub version: Option<String>,
    /// Also read catalogues and `<engine>/semantics.toml` from this folder (it wins for the same tag)
    #[arg(long, value_name = "DIR")]
    pub catalog_dir: Option<PathBuf>,
    /// Seconds to wait for each HTTP scrape, connection included
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub timeout: f64,
    /// Output format (`-q` prints only the verdict in human format)
    #[arg(long, value_enum, default_value_t = VerifyFormat::Human)]
    pub format: VerifyFormat,
    /// The old spelling of `--tag TAG`; bare (no tag), knobs' version, as after any other program
    #[arg(long = "version", value_name = "TAG", num_args = 0..=1, default_missing_value = "", hide = true, conflicts_with = "version")]
    pub version_word: Option<String>,
}

#[derive(Debug, Args)]
pub struct FlagsArgs {
    /// List the flags of this catalogued version [default: knobs.toml `[pin] tag`, else the newest] (also `--version TAG`)
    #[arg(long = "tag", value_name = "TAG")]
    pub version: Option<String>,
    /// Also read catalogues from this folder (beside the embedded ones and those beside knobs.toml; it wins for the same tag)
    #[arg(long, value_name = "DIR")]
    pub catalog_dir: Option<PathBuf>,
    /// The old spelling of `--tag TAG`; bare (no tag), knobs' version, as after any other program
    #[arg(long = "version", value_name = "TAG", num_args = 0..=1, default_missing_value = "", hide = true, conflicts_with = "version")]
    pub version_word: Option<String>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Check against this catalogued version [default: knobs.toml `[pin] tag`, else the newest] (also `--version TAG`)
    #[arg(long = "tag", value_name = "TAG")]
    pub version: Option<String>,
    /// Also read catalogues and `<engine>/semantics.toml` from this folder (it wins for the same tag)
    #[arg(long, value_name = "DIR")]
    pub catalog_dir: Option<PathBuf>,
    /// The old spelling of `--tag TAG`; bare (no tag), knobs' version, as after any other program
    #[arg(long = "version", value_name = "TAG", num_args = 0..=1, default_missing_value = "", hide = true, conflicts_with = "version")]
    pub version_word: Option<String>,
}

#[derive(Debug, Args)]
pub struct SyncArgs {
    /// Repository URL or path [default: knobs.toml `[pin] repo`]
    #[arg(long, value_name = "URL|PATH")]
    pub repo: Option<String>,
    /// Tag to read [default: knobs.toml `[pin] tag`]
    #[arg(long, conflicts_with_all = ["all_tags", "tags"])]
    pub tag: Option<String>,
    /// Build the engine's history from every tag of the repository (`<engine>/history.json`); a later run reads only the tags it has not seen
    #[arg(long, conflicts_with = "tags")]
    pub all_tags: bool,
    /// Build or extend the history from the tags PATTERN names: a glob (`b4*`) or an inclusive range in tag order (`b4000..b5000`, either end optional)
    #[arg(long, value_name = "PATTERN")]
    pub tags: Option<String>,
    /// Write the history with help texts left out: the facts knobs may embed (names, kinds, members, defaults, env keys, scopes, spans)
    #[arg(long)]
    pub facts_only: bool,
    /// Folder to write `<engine>/<tag>.toml` (or `<engine>/history.json`) into [default: knobs.toml `[catalog] dir` (`catalog/` beside knobs.toml), else `catalog/` in the working directory]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Fetch the tag again even if the cache has it (a cached tag is never rechecked: one moved upstream needs this)
    #[arg(long)]
    pub refresh: bool,
    /// Write the history even when a tag read less than half the options of the tag before it (without it, such a sync writes nothing and exits 1)
    #[arg(long)]
    pub accept_collapse: bool,
}

#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// What changed between two catalogued versions.
    Diff(DiffArgs),
    /// A catalogue (any tag, a history's too) as a table, JSON, a Markdown page, or its TOML file.
    Show(ShowArgs),
    /// Check the semantics overlay against a catalogue: every name it uses must exist.
    Check(CheckArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    Human,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShowFormat {
    Human,
    Json,
    Markdown,
    Toml,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The older tag
    #[arg(required_unless_present = "embedded")]
    pub from: Option<String>,
    /// The newer tag
    #[arg(required_unless_present = "embedded")]
    pub to: Option<String>,
    /// The synced catalogue of TAG against the one embedded in knobs: what the source says that the embedded one did not
    #[arg(long, value_name = "TAG", conflicts_with_all = ["from", "to"])]
    pub embedded: Option<String>,
    /// Also read catalogues from this folder (beside the embedded ones and those beside knobs.toml; it wins for the same tag)
    #[arg(long, value_name = "DIR")]
    pub catalog_dir: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = DiffFormat::Human)]
    pub format: DiffFormat,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// Tag to show [default: the pinned tag, else the newest catalogued]
    pub tag: Option<String>,
    /// Also read catalogues from this folder (beside the embedded ones and those beside knobs.toml; it wins for the same tag)
    #[arg(long, value_name = "DIR")]
    pub catalog_dir: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = ShowFormat::Human)]
    pub format: ShowFormat,
}

impl Command {
    /// A subcommand's catalogue tag (`--tag`) and the old spelling that
    /// also names it (`--version TAG`; bare, knobs' version). `None`: the
    /// subcommand takes no tag.
    pub fn tag_options(&mut self) -> Option<(&mut Option<String>, &mut Option<String>)> {
        match self {
            Command::Lint(a) => Some((&mut a.version, &mut a.version_word)),
            Command::Explain(a) => Some((&mut a.version, &mut a.version_word)),
            Command::Flags(a) => Some((&mut a.version, &mut a.version_word)),
            Command::Verify(a) => Some((&mut a.version, &mut a.version_word)),
            Command::Catalog(CatalogCommand::Check(a)) => Some((&mut a.version, &mut a.version_word)),
            _ => None,
        }
    }
}

/// True when the innermost subcommand is given a bare `--version` (no
/// tag): the user asks for knobs' version, as after any program. Read with
/// the subcommands' required arguments relaxed, so `knobs explain
/// --version` is the version, not "SUBJECT is required".
pub fn asks_version(args: &[std::ffi::OsString]) -> bool {
    use clap::CommandFactory;
    let cmd = Cli::command()
        .mut_subcommand("explain", |c| c.mut_arg("subject", |a| a.required(false)))
        .mut_subcommand("verify", |c| {
            c.mut_arg("cmdline", |a| a.required(false)).mut_arg("metrics", |a| a.required(false))
        });
    let Ok(m) = cmd.try_get_matches_from(args) else { return false };
    let mut m = &m;
    while let Some((_, sub)) = m.subcommand() {
        m = sub;
    }
    matches!(m.try_get_one::<String>("version_word"), Ok(Some(w)) if w.is_empty())
}
