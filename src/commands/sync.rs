//! `knobs sync`: pinned tag → blobs → extractor → `catalog/<engine>/<tag>.toml`.

use std::io::Write as _;
use std::path::Path;

use miette::{miette, IntoDiagnostic, Result};

use super::{Io, Outcome};
use crate::catalog::model::{Catalog, Provenance, SCHEMA_VERSION};
use crate::cli::SyncArgs;
use crate::config::Config;
use crate::extract::{extract_flags_with, extract_metrics, SourceFile};
use crate::source::{cache_root, Origin, PinnedTree};

pub fn run(args: &SyncArgs, cfg: &Config, io: &mut Io<'_>) -> Result<Outcome> {
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
    let engine = args.engine.clone().unwrap_or_else(|| cfg.engine.clone());
    let tree = PinnedTree::open(&repo, &base, &tag, &cache_root())?;
    let catalog = build(&tree, &engine, cfg, io)?;
    // --out is relative to the working directory; its default, `catalog/`,
    // sits beside knobs.toml when there is one.
    let out = match &args.out {
        Some(o) => io.cwd.join(o),
        None => cfg.dir().unwrap_or_else(|| io.cwd.clone()).join("catalog"),
    };
    let path = out.join(&engine).join(format!("{tag}.toml"));
    write_atomic(&path, &catalog.to_toml().into_diagnostic()?)?;
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
        &catalog.source.commit[..catalog.source.commit.len().min(12)],
        match tree.how {
            Origin::Fetched => "",
            Origin::Cached => " (cached)",
            Origin::Local => " (read in place)",
        }
    )
    .map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

/// Extracts a catalogue from a pinned tree; warnings go to stderr.
pub fn build(tree: &PinnedTree, engine: &str, cfg: &Config, io: &mut Io<'_>) -> Result<Catalog> {
    let config = SourceFile::new(cfg.config_path.clone(), tree.require(&cfg.config_path)?);
    let mut headers = Vec::new();
    for h in &cfg.headers {
        if let Some(text) = tree.read(h)? {
            headers.push(SourceFile::new(h.clone(), text));
        }
    }
    let (flags, mut warnings) = extract_flags_with(&config, &headers, &cfg.queries)?;
    let (files, missing) = tree.cpp_sources()?;
    let sources: Vec<SourceFile> = files.into_iter().map(|(path, text)| SourceFile::new(path, text)).collect();
    let (metrics, metric_warnings) = extract_metrics(&sources)?;
    warnings.extend(metric_warnings);
    for w in &warnings {
        writeln!(io.err, "warning: {w}").map_err(super::OutputError)?;
    }
    if !missing.is_empty() {
        writeln!(
            io.err,
            "warning: {} at {} {} not in the repository (a partial clone?) and {} not read for metrics: {}",
            if missing.len() == 1 { "1 C++ file".to_string() } else { format!("{} C++ files", missing.len()) },
            tree.tag,
            if missing.len() == 1 { "is" } else { "are" },
            if missing.len() == 1 { "was" } else { "were" },
            missing.join(", ")
        )
        .map_err(super::OutputError)?;
    }
    let mut catalog = Catalog {
        schema: SCHEMA_VERSION,
        source: Provenance {
            engine: engine.to_string(),
            repo: tree.origin.clone(),
            tag: tree.tag.clone(),
            commit: tree.commit.clone(),
            knobs_version: env!("CARGO_PKG_VERSION").to_string(),
        },
        flags,
        metrics,
    };
    catalog.normalise();
    Ok(catalog)
}

/// Writes through a temporary file in the same folder, so a reader never
/// sees half a catalogue and a failure leaves the old one in place.
pub fn write_atomic(path: &Path, text: &str) -> Result<()> {
    let dir = path.parent().ok_or_else(|| miette!("{} has no parent folder", path.display()))?;
    std::fs::create_dir_all(dir).map_err(|e| miette!("cannot create {}: {e}", dir.display()))?;
    let mut tmp =
        tempfile::NamedTempFile::new_in(dir).map_err(|e| miette!("cannot write in {}: {e}", dir.display()))?;
    tmp.write_all(text.as_bytes()).map_err(|e| miette!("cannot write {}: {e}", path.display()))?;
    tmp.persist(path).map_err(|e| miette!("cannot write {}: {}", path.display(), e.error))?;
    Ok(())
}
