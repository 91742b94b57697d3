//! `knobs explain`, `knobs flags` and `knobs rules`.

use miette::Result;

use super::{Io, Outcome};
use crate::catalog::model::Catalog;
use crate::catalog::semantics::Semantics;
use crate::catalog::store::Store;
use crate::cli::{ExplainArgs, ExplainFormat, FlagsArgs};
use crate::config::Config;
use crate::explain;
use crate::lint::rules::RULES;

pub fn run(args: &ExplainArgs, cfg: &Config, io: &mut Io<'_>) -> Result<Outcome> {
    let dir = args.catalog_dir.as_ref().map(|d| io.cwd.join(d));
    let store = Store::open(dir.as_deref())?;
    let sem = Semantics::open(dir.as_deref())?;
    let catalog = store.select(&cfg.engine, args.version.as_deref().or(cfg.tag.as_deref()))?;
    let all: Vec<Catalog> = store.catalogs.iter().filter(|c| c.source.engine == cfg.engine).cloned().collect();
    let subject = explain::explain(&args.subject, catalog, &all, &sem)?;
    let text = match args.format {
        ExplainFormat::Human => explain::human(&subject),
        ExplainFormat::Markdown => explain::markdown(&subject),
        ExplainFormat::Json => explain::json(&subject),
    };
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

pub fn flags(args: &FlagsArgs, cfg: &Config, io: &mut Io<'_>) -> Result<Outcome> {
    let dir = args.catalog_dir.as_ref().map(|d| io.cwd.join(d));
    let store = Store::open(dir.as_deref())?;
    let sem = Semantics::open(dir.as_deref())?;
    let catalog = store.select(&cfg.engine, args.version.as_deref().or(cfg.tag.as_deref()))?;
    let width = catalog.flags.iter().map(|f| f.name.len()).max().unwrap_or(0);
    let mut text = String::new();
    for f in &catalog.flags {
        let default = if f.default.is_empty() { "-" } else { &f.default };
        let role = sem.flag.get(&f.name).map_or("", |s| s.role.as_str());
        let line = format!("{:width$}  {:<11}  {:<17}  {role}", f.name, f.kind.as_str(), default);
        text.push_str(line.trim_end());
        text.push('\n');
    }
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

pub fn rules(io: &mut Io<'_>) -> Result<Outcome> {
    let mut text = String::new();
    for r in RULES {
        text.push_str(&format!("{}  {:<20}  {:<7}  {}\n", r.code, r.name, r.severity.as_str(), r.summary()));
    }
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}
