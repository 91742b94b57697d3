//! `knobs catalog show` and `knobs catalog diff`.

use miette::{IntoDiagnostic, Result};

use super::{Outcome, Run};
use crate::catalog::{diff, render};
use crate::cli::{DiffArgs, DiffFormat, ShowArgs, ShowFormat};
use crate::config::Config;

pub fn show(args: &ShowArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    let e = super::engine(cfg, args.catalog_dir.as_ref(), io)?;
    let catalog = e.catalog(cfg.engine_name(None), args.tag.as_deref(), cfg)?;
    let text = match args.format {
        ShowFormat::Human => render::human(catalog),
        ShowFormat::Markdown => render::markdown(catalog),
        ShowFormat::Json => serde_json::to_string_pretty(catalog).into_diagnostic()? + "\n",
    };
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

pub fn diff(args: &DiffArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    let e = super::engine(cfg, args.catalog_dir.as_ref(), io)?;
    let engine = cfg.engine_name(None);
    let from = e.store.get(engine, &args.from)?;
    let to = e.store.get(engine, &args.to)?;
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
pub fn check(args: &crate::cli::CheckArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    use crate::catalog::semantics::check;
    let e = super::engine(cfg, args.catalog_dir.as_ref(), io)?;
    let sem = &e.semantics;
    let catalog = e.catalog(cfg.engine_name(None), args.version.as_deref(), cfg)?;
    let problems = check(sem, catalog, &e.profile);
    for p in &problems {
        writeln!(io.err, "warning: {}/semantics.toml {}: {}", catalog.source.engine, p.at, p.message)
            .map_err(super::OutputError)?;
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
