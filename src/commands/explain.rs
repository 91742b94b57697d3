//! `knobs explain`, `knobs flags` and `knobs rules`.

use miette::Result;

use super::{Io, Outcome};
use crate::cli::{ExplainArgs, ExplainFormat, FlagsArgs};
use crate::config::Config;
use crate::explain;
use crate::lint::rules::RULES;

pub fn run(args: &ExplainArgs, cfg: &Config, io: &mut Io<'_>) -> Result<Outcome> {
    let e = super::engine(cfg, args.catalog_dir.as_ref(), io)?;
    let name = cfg.engine_name(None);
    let catalog = e.store.select(name, args.version.as_deref().or(cfg.tag.as_deref()))?;
    let subject = explain::explain(&args.subject, catalog, &e.store.catalogs, &e.semantics, &e.profile)?;
    let text = match args.format {
        ExplainFormat::Human => explain::human(&subject),
        ExplainFormat::Markdown => explain::markdown(&subject),
        ExplainFormat::Json => explain::json(&subject),
    };
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

pub fn flags(args: &FlagsArgs, cfg: &Config, io: &mut Io<'_>) -> Result<Outcome> {
    let e = super::engine(cfg, args.catalog_dir.as_ref(), io)?;
    let catalog = e.store.select(cfg.engine_name(None), args.version.as_deref().or(cfg.tag.as_deref()))?;
    let width = catalog.flags.iter().map(|f| f.name.len()).max().unwrap_or(0);
    let mut text = String::new();
    for f in &catalog.flags {
        let default = if f.default.is_empty() { "-" } else { &f.default };
        let role = match (&f.removed, e.semantics.flag.get(&f.name)) {
            (Some(_), _) => "removed",
            (None, Some(s)) => s.role.as_str(),
            (None, None) => "",
        };
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
