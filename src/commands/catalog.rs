//! `knobs catalog show` and `knobs catalog diff`.

use miette::{IntoDiagnostic, Result};

use super::{Io, Outcome};
use crate::catalog::{diff, render, store::Store};
use crate::cli::{DiffArgs, DiffFormat, ShowArgs, ShowFormat};
use crate::config::Config;

pub fn show(args: &ShowArgs, cfg: &Config, io: &mut Io<'_>) -> Result<Outcome> {
    let store = Store::open(args.catalog_dir.as_ref().map(|d| io.cwd.join(d)).as_deref())?;
    let engine = args.engine.as_deref().unwrap_or(&cfg.engine);
    let catalog = store.select(engine, args.tag.as_deref().or(cfg.tag.as_deref()))?;
    let text = match args.format {
        ShowFormat::Human => render::human(catalog),
        ShowFormat::Markdown => render::markdown(catalog),
        ShowFormat::Json => serde_json::to_string_pretty(catalog).into_diagnostic()? + "\n",
    };
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

pub fn diff(args: &DiffArgs, cfg: &Config, io: &mut Io<'_>) -> Result<Outcome> {
    let store = Store::open(args.catalog_dir.as_ref().map(|d| io.cwd.join(d)).as_deref())?;
    let engine = args.engine.as_deref().unwrap_or(&cfg.engine);
    let from = store.get(engine, &args.from)?;
    let to = store.get(engine, &args.to)?;
    let d = diff::diff(from, to);
    let text = match args.format {
        DiffFormat::Human => render::diff_human(&d),
        DiffFormat::Json => serde_json::to_string_pretty(&d).into_diagnostic()? + "\n",
    };
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

/// `knobs catalog check`: the overlay against a catalogue. Problems are
/// warnings, and make the exit status 1.
pub fn check(args: &crate::cli::CheckArgs, cfg: &Config, io: &mut Io<'_>) -> Result<Outcome> {
    use crate::catalog::semantics::{check, Semantics};
    let dir = args.catalog_dir.as_ref().map(|d| io.cwd.join(d));
    let store = Store::open(dir.as_deref())?;
    let sem = Semantics::open(dir.as_deref())?;
    let catalog = store.select(&cfg.engine, args.version.as_deref().or(cfg.tag.as_deref()))?;
    let problems = check(&sem, catalog);
    for p in &problems {
        writeln!(io.err, "warning: semantics.toml {}: {}", p.at, p.message).map_err(super::OutputError)?;
    }
    writeln!(
        io.out,
        "semantics overlay: {} flags, {} metrics checked against {} {}: {}",
        sem.flag.len(),
        sem.metric.len(),
        catalog.source.engine,
        catalog.source.tag,
        if problems.is_empty() { "no problems".to_string() } else { format!("{} problems", problems.len()) }
    )
    .map_err(super::OutputError)?;
    Ok(if problems.is_empty() { Outcome::Clean } else { Outcome::Findings })
}
