//! `knobs sync`: pinned tag → blobs → extractor → `catalog/<engine>/<tag>.toml`.

use miette::{miette, IntoDiagnostic, Result};

use super::{Outcome, Run};
use crate::cli::SyncArgs;
use crate::config::Config;
use crate::fsutil::{self, Mode};
use crate::source::{cache_root, Origin, PinnedTree};

pub fn run(args: &SyncArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    // A path on the command line is relative to the working directory; one
    // in knobs.toml, to the folder holding knobs.toml.
    let (repo, base) = match (&args.repo, &cfg.repo) {
        (Some(r), _) => (r.clone(), io.cwd.clone()),
        (None, Some(r)) => (r.clone(), cfg.dir().unwrap_or_else(|| io.cwd.clone())),
        (None, None) => {
            return Err(miette!(
                help = "pass --repo URL|PATH or set `repo` under [pin] in knobs.toml",
                "no repository to sync from"
            ))
        }
    };
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
    // The queries are text in knobs.toml; they are checked where they are used.
    for q in &cfg.queries {
        if let Err(problem) = crate::extract::queries::check(&q.value) {
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
    let tree = PinnedTree::open(&repo, &base, &tag, &cache_root(), args.refresh)?;
    if let Some(fetched) = tree.fetched.filter(|_| io.verbosity > 0) {
        writeln!(io.err, "note: {fetched} from `{}`", tree.origin).map_err(super::OutputError)?;
    }
    let queries: Vec<String> = cfg.queries.iter().map(|q| q.value.clone()).collect();
    let built = crate::extract::pinned::catalogue(&tree, &profile, &queries)?;
    for w in &built.warnings {
        writeln!(io.err, "warning: {w}").map_err(super::OutputError)?;
    }
    let catalog = built.catalog;
    // --out is relative to the working directory; its default is the
    // catalogue folder beside knobs.toml (`[catalog] dir`), else `catalog/`.
    let out = match &args.out {
        Some(o) => io.cwd.join(o),
        None => cfg.catalog_dir().unwrap_or_else(|| io.cwd.join(crate::config::DEFAULT_CATALOG_DIR)),
    };
    let path = out.join(&engine).join(format!("{tag}.toml"));
    // The folder knobs.toml names is the project's: written only inside it
    // (a symlinked `catalog/<engine>` must not send the catalogue elsewhere).
    if args.out.is_none() {
        if let Some(dir) = cfg.dir() {
            let root = crate::confine::project_root(&dir);
            crate::confine::inside(&root, &path).map_err(|e| {
                miette!("cannot write {}: {e}; nothing was written (name a folder with --out)", path.display())
            })?;
        }
    }
    let text = catalog.to_toml().into_diagnostic()?;
    fsutil::write_atomic(&path, &text, Mode::LessUmask(0o666)).map_err(|e| miette!("{e}"))?;
    let shown = path.strip_prefix(&io.cwd).unwrap_or(&path);
    if io.verbosity < 0 {
        return Ok(Outcome::Clean);
    }
    writeln!(
        io.out,
        "{}: {} flags ({} enums), {} metrics — {} {} @ {}{}",
        shown.display(),
        catalog.flags.len(),
        catalog.enum_count(),
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
