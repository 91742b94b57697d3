//! `knobs catalog show` (any tag, a history's too; `--format toml` is the
//! catalogue file of it), `knobs catalog diff` (two versions, or a synced
//! catalogue against the embedded one of its tag) and `knobs catalog check`.

use miette::{miette, IntoDiagnostic, Result};

use super::{Outcome, Run};
use crate::catalog::{diff, render};
use crate::cli::{DiffArgs, DiffFormat, ShowArgs, ShowFormat};
use crate::config::Config;

pub fn show(args: &ShowArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    let known = super::known(cfg, args.catalog_dir.as_ref(), io)?;
    let catalog = super::exact(&known, cfg, args.tag.as_deref())?;
    let text = match args.format {
        ShowFormat::Human => render::human(catalog),
        ShowFormat::Markdown => render::markdown(catalog),
        ShowFormat::Json => serde_json::to_string_pretty(catalog).into_diagnostic()? + "\n",
        // The file `knobs sync --tag TAG` writes, for a tag of the history too.
        ShowFormat::Toml => catalog.to_toml().into_diagnostic()?,
    };
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

pub fn diff(args: &DiffArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    let known = super::known(cfg, args.catalog_dir.as_ref(), io)?;
    let engine = cfg.engine_name(None);
    let (d, lead) = match &args.embedded {
        Some(tag) => {
            let (d, synced) = diff::against_embedded(&known.store, engine, tag)?;
            (d, Some(render::embedded_lead(synced)))
        }
        None => {
            let missing = || miette!("`knobs catalog diff` takes two tags, or --embedded TAG");
            let from = known.store.get(engine, args.from.as_deref().ok_or_else(missing)?)?;
            let to = known.store.get(engine, args.to.as_deref().ok_or_else(missing)?)?;
            let d = diff::diff(from, to);
            if d.repos.is_some() {
                writeln!(io.err, "warning: {}", diff::repos_warning(&known.store, engine, from, to))
                    .map_err(super::OutputError)?;
            }
            (d, None)
        }
    };
    let text = match args.format {
        DiffFormat::Human => lead.unwrap_or_default() + &render::diff_human(&d),
        DiffFormat::Json => serde_json::to_string_pretty(&d).into_diagnostic()? + "\n",
    };
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

/// `knobs catalog check`: the overlay against a catalogue. Problems are
/// warnings, and make the exit status 1.
pub fn check(args: &crate::cli::CheckArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    use crate::catalog::semantics::check;
    let known = super::known(cfg, args.catalog_dir.as_ref(), io)?;
    let pinned = super::judged(&known, cfg, args.version.as_deref(), io)?;
    let (sem, catalog) = (pinned.semantics, pinned.catalog);
    let problems = check(sem, catalog, pinned.profile);
    for p in &problems {
        let message = crate::pictures::visible(&p.message);
        writeln!(
            io.err,
            "warning: {}/semantics.toml {}: {message}",
            catalog.source.engine,
            crate::pictures::visible(&p.at)
        )
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
