//! `knobs explain`, `knobs flags` and `knobs rules`.

use miette::Result;

use super::{Outcome, Run};
use crate::cli::{ExplainArgs, ExplainFormat, FlagsArgs};
use crate::config::Config;
use crate::explain;

pub fn run(args: &ExplainArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    let e = super::engine(cfg, args.catalog_dir.as_ref(), io)?;
    let name = cfg.engine_name(None);
    let (catalog, note) = e.judged(name, args.version.as_deref(), cfg)?;
    if let Some(n) = note.filter(|_| io.verbosity >= 0) {
        writeln!(io.err, "note: {}", crate::pictures::visible(&n)).map_err(super::OutputError)?;
    }
    let all = e.all(catalog);
    let project = explain::project::discover(cfg, &e.profile, catalog, all, &io.cwd);
    let build = explain::Build {
        name: format!("{} {}", catalog.source.engine, catalog.source.tag),
        label: e.store.label(catalog),
        mark: e.store.mark(catalog),
        facts_only: e.store.from_history(catalog) && e.store.history().is_some_and(|h| h.facts_only),
    };
    let history = e.store.history();
    let topic = explain::explain(&args.subject, catalog, all, history, &e.semantics, &e.profile, &project, &build)?;
    if args.history {
        return changes(&topic, args, history, all, io);
    }
    let text = match args.format {
        ExplainFormat::Human => explain::human(&topic),
        ExplainFormat::Markdown => explain::markdown(&topic),
        ExplainFormat::Json => explain::json(&topic),
    };
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

/// `knobs explain FLAG --history`: the flag's every change, with its tag.
fn changes(
    topic: &explain::Topic,
    args: &ExplainArgs,
    history: Option<&crate::catalog::history::History>,
    all: &[crate::catalog::model::Catalog],
    io: &mut Run<'_>,
) -> Result<Outcome> {
    let Some((e, steps)) = explain::changes::changes(topic) else {
        return Err(miette::miette!(
            help = "give a flag: `knobs explain --history -- --FLAG`",
            "`--history` lists the changes of a flag, and `{}` is not one",
            crate::pictures::visible(&args.subject)
        ));
    };
    let over = match history {
        Some(h) => format!(
            "{}'s history ({} tags, {}–{})",
            h.engine,
            h.tags.len(),
            h.tag(0).unwrap_or("?"),
            h.tag(h.tags.len().saturating_sub(1)).unwrap_or("?")
        ),
        None => {
            let tags: Vec<&str> = all.iter().map(|c| c.source.tag.as_str()).collect();
            let engine = all.first().map_or("", |c| c.source.engine.as_str());
            format!("the catalogued versions of {engine} ({})", tags.join(", "))
        }
    };
    let text = match args.format {
        ExplainFormat::Json => explain::changes::json(e, &steps, &over),
        ExplainFormat::Human => explain::changes::human(e, &steps, &over),
        ExplainFormat::Markdown => explain::changes::markdown(e, &steps, &over),
    };
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

pub fn flags(args: &FlagsArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    let e = super::engine(cfg, args.catalog_dir.as_ref(), io)?;
    let (catalog, note) = e.judged(cfg.engine_name(None), args.version.as_deref(), cfg)?;
    if let Some(n) = note.filter(|_| io.verbosity >= 0) {
        writeln!(io.err, "note: {}", crate::pictures::visible(&n)).map_err(super::OutputError)?;
    }
    let text = explain::listing::flags(catalog, &e.semantics);
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

pub fn rules(io: &mut Run<'_>) -> Result<Outcome> {
    let text = explain::listing::rules();
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}
