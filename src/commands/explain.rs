//! `knobs explain`, `knobs flags` and `knobs rules`.

use miette::Result;

use super::{Outcome, Run};
use crate::cli::{ExplainArgs, ExplainFormat, FlagsArgs};
use crate::config::Config;
use crate::explain;

pub fn run(args: &ExplainArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    let e = super::engine(cfg, args.catalog_dir.as_ref(), io)?;
    let name = cfg.engine_name(None);
    let catalog = e.catalog(name, args.version.as_deref(), cfg)?;
    let all = e.all(catalog);
    let project = explain::project::discover(cfg, &e.profile, catalog, all, &io.cwd);
    let build = explain::Build {
        name: format!("{} {}", catalog.source.engine, catalog.source.tag),
        label: e.store.label(catalog),
        mark: e.store.mark(catalog),
    };
    let topic = explain::explain(&args.subject, catalog, all, &e.semantics, &e.profile, &project, &build)?;
    let text = match args.format {
        ExplainFormat::Human => explain::human(&topic),
        ExplainFormat::Markdown => explain::markdown(&topic),
        ExplainFormat::Json => explain::json(&topic),
    };
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

pub fn flags(args: &FlagsArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    let e = super::engine(cfg, args.catalog_dir.as_ref(), io)?;
    let catalog = e.catalog(cfg.engine_name(None), args.version.as_deref(), cfg)?;
    let text = explain::listing::flags(catalog, &e.semantics);
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

pub fn rules(io: &mut Run<'_>) -> Result<Outcome> {
    let text = explain::listing::rules();
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}
