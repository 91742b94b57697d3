//! `knobs sync`: pinned tag → blobs → extractor → `catalog/<engine>/<tag>.toml`;
//! with `--all-tags` or `--tags PATTERN`, every tag named → the engine's
//! history, `catalog/<engine>/history.json`.

use std::path::PathBuf;

use miette::{miette, IntoDiagnostic, Result};

use super::{Outcome, Run};
use crate::catalog::history::{self, History, TagPattern};
use crate::catalog::tag::compare_tags;
use crate::cli::SyncArgs;
use crate::config::Config;
use crate::extract::history::{first_reasons, Report, Request};
use crate::fsutil::{self, Mode};
use crate::source::{cache_root, Origin, PinnedTree, TaggedRepo};

/// How many extraction warnings a history sync prints.
const WARNINGS_SHOWN: usize = 5;

/// The repository to sync from, and the folder a relative path in it is
/// relative to.
fn repository(args: &SyncArgs, cfg: &Config, io: &Run<'_>) -> Result<(String, PathBuf)> {
    // A path on the command line is relative to the working directory; one
    // in knobs.toml, to the folder holding knobs.toml.
    match (&args.repo, &cfg.repo) {
        (Some(r), _) => Ok((r.clone(), io.cwd.clone())),
        (None, Some(r)) => Ok((r.clone(), cfg.dir().unwrap_or_else(|| io.cwd.clone()))),
        (None, None) => Err(miette!(
            help = "pass --repo URL|PATH or set `repo` under [pin] in knobs.toml",
            "no repository to sync from"
        )),
    }
}

/// The user's queries, each checked where it is written.
fn queries(cfg: &Config) -> Result<Vec<String>> {
    // The queries are text in knobs.toml; they are checked where they are used.
    for (i, q) in cfg.queries.iter().enumerate() {
        if let Err(problem) = crate::extract::cpp::queries::check(&q.value) {
            if problem.costly {
                let n = i + 1;
                return Err(cfg
                    .error_at(
                        q.span.clone(),
                        format!("[[extract.query]] number {n} in knobs.toml {}; nothing was written", problem.message),
                        "this query",
                        Some(
                            "a group that may match nothing cannot be repeated; keep queries short and shallow".into(),
                        ),
                    )
                    .into());
            }
            return Err(cfg
                .error_at(
                    q.span.clone(),
                    format!("invalid [[extract.query]] flags query: {}", problem.message),
                    "this query",
                    Some("captures: @flag (required), @metavar, @default, @help, @alias, @kind; see the tree-sitter query syntax".into()),
                )
                .into());
        }
    }
    Ok(cfg.queries.iter().map(|q| q.value.clone()).collect())
}

/// Where `<engine>/NAME` is written: `--out` (relative to the working
/// directory), else the catalogue folder beside knobs.toml (`[catalog]
/// dir`), else `catalog/` — and then only inside the project.
fn destination(args: &SyncArgs, cfg: &Config, io: &Run<'_>, engine: &str, name: &str) -> Result<PathBuf> {
    let out = match &args.out {
        Some(o) => io.cwd.join(o),
        None => cfg.catalog_dir().unwrap_or_else(|| io.cwd.join(crate::config::DEFAULT_CATALOG_DIR)),
    };
    let path = out.join(engine).join(name);
    // The folder knobs.toml names, or `catalog/` without one, is the
    // project's: written only inside it (a symlinked `catalog/<engine>` must
    // not send the catalogue elsewhere, knobs.toml or none).
    if args.out.is_none() {
        let root = crate::confine::project_root(&cfg.dir().unwrap_or_else(|| io.cwd.clone()));
        crate::confine::inside(&root, &path).map_err(|e| {
            let shown = crate::pictures::visible(&path.display().to_string()).into_owned();
            miette!("cannot write {shown}: {e}; nothing was written (name a folder with --out)")
        })?;
    }
    Ok(path)
}

pub fn run(args: &SyncArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    if args.all_tags || args.tags.is_some() {
        return run_history(args, cfg, io);
    }
    if args.facts_only {
        return Err(miette!(
            help = "a single tag's catalogue keeps its help texts; --facts-only is for the history",
            "--facts-only writes a history: pass --all-tags or --tags PATTERN"
        ));
    }
    let (repo, base) = repository(args, cfg, io)?;
    let tag = args
        .tag
        .clone()
        .or_else(|| cfg.tag.clone())
        .ok_or_else(|| miette!(help = "pass --tag TAG or set `tag` under [pin] in knobs.toml", "no tag to sync"))?;
    if !crate::config::valid_tag(&tag) {
        return Err(miette!(
            help = "a tag names one catalogue file: no `/`, no whitespace, not starting with `.`",
            "`{tag}` cannot name a catalogue"
        ));
    }
    let engine = cfg.engine_name(None).to_string();
    let profile = cfg.profile(&engine);
    let queries = queries(cfg)?;
    let tree = PinnedTree::open(&repo, &base, &tag, &cache_root(), args.refresh)?;
    if let Some(fetched) = tree.fetched.filter(|_| io.verbosity > 0) {
        writeln!(io.err, "note: {fetched} from `{}`", tree.origin).map_err(super::OutputError)?;
    }
    let built = crate::extract::one_tag::catalogue(&tree, &profile, &queries)?;
    for w in &built.warnings {
        writeln!(io.err, "warning: {}", crate::pictures::visible(w)).map_err(super::OutputError)?;
    }
    let catalog = built.catalog;
    let path = destination(args, cfg, io, &engine, &format!("{tag}.toml"))?;
    let text = catalog.to_toml().into_diagnostic()?;
    fsutil::write_atomic(&path, &text, Mode::LessUmask(0o666)).map_err(|e| miette!("{e}"))?;
    let shown = path.strip_prefix(&io.cwd).unwrap_or(&path);
    if io.verbosity < 0 {
        return Ok(Outcome::Clean);
    }
    writeln!(
        io.out,
        "{}: {} flags ({} enums), {}{} metrics — {} {} @ {}{}",
        shown.display(),
        catalog.flags.len(),
        catalog.enum_count(),
        // The engine-wide env keys, when the build reads any (Ollama is
        // configured by nothing else).
        match catalog.env_keys.len() {
            0 => String::new(),
            1 => "1 env key, ".to_string(),
            n => format!("{n} env keys, "),
        },
        catalog.metrics.len(),
        engine,
        tag,
        catalog.source.short_commit(),
        match tree.how {
            Origin::Fetched => "",
            Origin::Cached => " (cached)",
            Origin::Local => " (read in place)",
        }
    )
    .map_err(super::OutputError)?;
    // A tag knobs embeds a catalogue of: what the source says that the
    // embedded one (a reconstruction) did not.
    let embedded = crate::catalog::store::Store::embedded(&engine)?;
    if let Ok(before) = embedded.get(&engine, &tag) {
        let d = crate::catalog::diff::diff(before, &catalog);
        if !d.is_empty() {
            let text = crate::catalog::render::embedded_lead(&catalog) + &crate::catalog::render::diff_human(&d);
            writeln!(io.out, "\n{text}\n(`knobs catalog diff --embedded {tag}` shows this again.)")
                .map_err(super::OutputError)?;
        }
    }
    Ok(Outcome::Clean)
}

/// Bytes as people read a file's size.
fn size(bytes: usize) -> String {
    if bytes >= 1024 * 1024 {
        format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
    } else if bytes >= 1024 {
        format!("{:.1} KiB", bytes as f64 / 1024.0)
    } else {
        format!("{bytes} bytes")
    }
}

fn how(o: Origin) -> &'static str {
    match o {
        Origin::Fetched => "",
        Origin::Cached => " (cached)",
        Origin::Local => " (read in place)",
    }
}

/// The tags `--all-tags` or `--tags PATTERN` names, oldest first; none is
/// an error naming the nearest tags.
/// The names a repository lists that git refuses, passed over.
type Refused = Vec<String>;

fn selected(
    args: &SyncArgs,
    repo: &str,
    base: &std::path::Path,
    releases: &crate::catalog::profile::HistorySpec,
) -> Result<(Vec<crate::source::TagRef>, Refused, Vec<String>)> {
    let pattern = match &args.tags {
        Some(p) => Some(TagPattern::parse(p).map_err(|e| miette!("{e}"))?),
        None => None,
    };
    // A remote's tags come from its ref list: nothing is fetched to choose.
    let listed = crate::source::list_tags(repo, base)?;
    let refused = listed.invalid;
    let mut all: Vec<crate::source::TagRef> =
        listed.tags.into_iter().map(|t| crate::source::TagRef { name: t.name, commit: t.commit }).collect();
    all.sort_by(|a, b| compare_tags(&a.name, &b.name));
    let names: Vec<String> = all.iter().map(|t| t.name.clone()).collect();
    let shown = crate::pictures::visible(&crate::source::redact(repo)).into_owned();
    let Some(pattern) = pattern else {
        // `--all-tags`: the releases by the profile's `[history] tags`; the
        // rest (a fork's `test/20250421`) only when `--tags` names them.
        let (all, left): (Vec<_>, Vec<_>) = all.into_iter().partition(|t| releases.release(&t.name));
        if all.is_empty() {
            return Err(miette!("`{shown}` has no tags to build a history from"));
        }
        return Ok((all, refused, left.into_iter().map(|t| t.name).collect()));
    };
    let chosen: Vec<_> = all.into_iter().filter(|t| pattern.matches(&t.name)).collect();
    if chosen.is_empty() {
        let nearest = pattern.nearest(&names, 6);
        let text = args.tags.as_deref().unwrap_or_default();
        return Err(if nearest.is_empty() {
            miette!("--tags `{text}` names no tag of `{shown}`: it has no tags")
        } else {
            miette!(
                help = "a glob such as `b4*`, or a range in tag order such as `b4000..b5000` (either end optional)",
                "--tags `{text}` names no tag of `{shown}`; nearest tags: {}",
                nearest.join(", ")
            )
        });
    }
    Ok((chosen, refused, Vec::new()))
}

/// The note for the tags `--all-tags` leaves out as no release of the
/// profile's `[history] tags`: the count and the first ten.
fn left_out(left: &[String]) -> String {
    let shown: Vec<String> = left.iter().take(10).map(|n| format!("`{}`", crate::pictures::visible(n))).collect();
    let more = if left.len() > 10 { format!(" and {} more", left.len() - 10) } else { String::new() };
    let what = if left.len() == 1 { "1 tag that is".to_string() } else { format!("{} tags that are", left.len()) };
    format!(
        "left out {what} not a release by the profile's [history] tags (name them with --tags to read them): {}{more}",
        shown.join(", ")
    )
}

/// The warning for the tag names a repository lists that git refuses: the
/// count, and the first ten in pictures, each cut at 100 characters.
fn refused_warning(repo: &str, refused: &[String]) -> String {
    let shown: Vec<String> = refused
        .iter()
        .take(10)
        .map(|n| {
            let cut: String = n.chars().take(100).collect();
            let more = if cut.len() < n.len() { "…" } else { "" };
            format!("`{}{more}`", crate::pictures::visible(&cut))
        })
        .collect();
    let more = if refused.len() > 10 { format!(" and {} more", refused.len() - 10) } else { String::new() };
    let what = if refused.len() == 1 { "1 tag whose name" } else { "tags whose names" };
    let count = if refused.len() == 1 { String::new() } else { format!("{} ", refused.len()) };
    format!(
        "`{}` lists {count}{what} git refuses as a reference name; passed over: {}{more}",
        crate::pictures::visible(&crate::source::redact(repo)),
        shown.join(", ")
    )
}

/// The history already at `path`, as `lint` reads one: a regular file (a
/// FIFO is refused without waiting for a writer, a device or a folder is
/// refused), at most [`bounded::CONFIG`](crate::bounded::CONFIG) bytes,
/// UTF-8. It comes with the tree, so `/dev/zero` must not be read to the end.
fn old_history(path: &std::path::Path) -> std::io::Result<String> {
    let limit = crate::bounded::CONFIG;
    let file = crate::bounded::open(path, false)?;
    if file.metadata()?.len() > limit {
        return Err(crate::bounded::too_large(limit));
    }
    let bytes = crate::bounded::read_from(file, limit)?;
    String::from_utf8(bytes).map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "it is not UTF-8 text"))
}

/// `--all-tags` / `--tags PATTERN`: builds or extends the history.
fn run_history(args: &SyncArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    let (repo, base) = repository(args, cfg, io)?;
    let engine = cfg.engine_name(None).to_string();
    let profile = cfg.profile(&engine);
    let queries = queries(cfg)?;
    let path = destination(args, cfg, io, &engine, history::FILE_NAME)?;
    let shown = path.strip_prefix(&io.cwd).unwrap_or(&path).display().to_string();
    let (tags, refused, left) = selected(args, &repo, &base, &profile.history)?;
    if !refused.is_empty() && io.verbosity >= 0 {
        writeln!(io.err, "warning: {}", refused_warning(&repo, &refused)).map_err(super::OutputError)?;
    }
    if !left.is_empty() && io.verbosity >= 0 {
        writeln!(io.err, "note: {}", left_out(&left)).map_err(super::OutputError)?;
    }
    // A history that cannot be read is rebuilt, and said so.
    let (before, previous, unreadable) = match old_history(&path) {
        Ok(text) => match History::parse(&path, &text) {
            Ok(h) => (Some(text), Some(h), None),
            Err(e) => (Some(text), None, Some(e.to_string())),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (None, None, None),
        Err(e) => return Err(miette!("cannot read {}: {e}", crate::pictures::visible(&path.display().to_string()))),
    };
    // From a remote, only the chosen tags the history does not hold at the
    // same commit are fetched (each at depth 1); a history that will be
    // rebuilt holds none.
    let origin = crate::source::redact(&repo);
    let extendable = previous.as_ref().filter(|h| {
        crate::extract::history::incompatible_with(h, &profile, &queries, &origin, args.facts_only).is_none()
    });
    let positions = extendable.map(History::positions).unwrap_or_default();
    let held = |t: &crate::source::TagRef| {
        let entry = positions.get(t.name.trim_start_matches('v')).and_then(|i| extendable?.tags.get(*i));
        entry.is_some_and(|e| e.commit == t.commit)
    };
    let wanted: Vec<String> = tags.iter().filter(|t| args.refresh || !held(t)).map(|t| t.name.clone()).collect();
    let tagged = TaggedRepo::open(&repo, &base, &cache_root(), args.refresh, &wanted)?;
    let mut report = crate::extract::history::build(Request {
        repo: &tagged,
        profile: &profile,
        queries: &queries,
        tags,
        previous,
        facts_only: args.facts_only,
    })?;
    let history = if args.facts_only {
        report.history.facts_only()
    } else {
        std::mem::replace(&mut report.history, History::new("", ""))
    };
    let text = history.to_json().into_diagnostic()?;
    // A tag read now whose options collapsed against the tag before it is
    // said loudly; the history is not written unless told to accept it.
    let collapsed: Vec<history::Collapse> =
        history::collapses(&history).into_iter().filter(|c| wanted.contains(&c.tag)).collect();
    for c in &collapsed {
        writeln!(io.err, "warning: {}", crate::pictures::visible(&c.message())).map_err(super::OutputError)?;
    }
    if !collapsed.is_empty() && !args.accept_collapse {
        writeln!(
            io.err,
            "error: {shown} was not written: {} read far fewer options than the tag before (pass --accept-collapse \
             to write it as read)",
            if collapsed.len() == 1 { "1 tag".to_string() } else { format!("{} tags", collapsed.len()) }
        )
        .map_err(super::OutputError)?;
        return Ok(Outcome::Findings);
    }
    // Written only when it changed: "nothing new" leaves the file alone.
    if before.as_deref() != Some(text.as_str()) {
        fsutil::write_atomic(&path, &text, Mode::LessUmask(0o666)).map_err(|e| miette!("{e}"))?;
    }
    if io.verbosity < 0 {
        return Ok(Outcome::Clean);
    }
    for (tag, w) in report.warnings.iter().take(WARNINGS_SHOWN) {
        let (tag, w) = (crate::pictures::visible(tag), crate::pictures::visible(w));
        writeln!(io.err, "warning: {tag}: {w}").map_err(super::OutputError)?;
    }
    if report.warnings.len() > WARNINGS_SHOWN {
        writeln!(
            io.err,
            "warning: and {} more distinct warnings (`knobs sync --tag TAG` shows one tag's)",
            report.warnings.len() - WARNINGS_SHOWN
        )
        .map_err(super::OutputError)?;
    }
    if let Some(why) = unreadable.or_else(|| report.rebuilt.clone()) {
        writeln!(io.out, "{shown}: rebuilt, not extended: {why}").map_err(super::OutputError)?;
    }
    writeln!(io.out, "{}", summary(&shown, &history, &report, text.len(), tagged.how)).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

/// The line a history sync ends with: the file, its tags and states, what
/// was extracted now, shared and skipped, and its size.
fn summary(shown: &str, h: &History, r: &Report, bytes: usize, origin: Origin) -> String {
    let skipped = match r.skipped.len() {
        0 => String::new(),
        n => format!(", {n} skipped ({})", first_reasons(&r.skipped)),
    };
    let facts = if h.facts_only { ", facts only" } else { "" };
    let held = format!("{} tags, {} states", h.tags.len(), h.states.len());
    if r.nothing_new() {
        format!("{shown}: nothing new ({held}{skipped}; {}{facts}){}", size(bytes), how(origin))
    } else {
        format!(
            "{shown}: {held}; {} extracted now ({} flag sets, {} metric sets read), {} shared{skipped}; {}{facts}{}",
            r.extracted,
            r.flag_sets,
            r.metric_sets,
            r.shared,
            size(bytes),
            how(origin)
        )
    }
}
