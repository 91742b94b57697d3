//! `knobs explain`, `knobs flags` and `knobs rules`.

use miette::Result;

use super::{Outcome, Run};
use crate::catalog::pinned::Pinned;
use crate::cli::{ExplainArgs, ExplainFormat, FlagsArgs};
use crate::config::Config;
use crate::explain;

pub fn run(args: &ExplainArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    let known = super::known(cfg, args.catalog_dir.as_ref(), io)?;
    let pinned = super::judged(&known, cfg, args.version.as_deref(), io)?;
    let project = explain::project::discover(cfg, &pinned, &io.cwd);
    let topic = explain::explain(&args.subject, &pinned, &project)?;
    if args.history {
        return changes(&topic, args, &pinned, io);
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
fn changes(topic: &explain::Topic, args: &ExplainArgs, pinned: &Pinned<'_>, io: &mut Run<'_>) -> Result<Outcome> {
    let Some((e, steps)) = explain::changes::changes(topic) else {
        return Err(miette::miette!(
            help = "give a flag: `knobs explain --history -- --FLAG`",
            "`--history` lists the changes of a flag, and `{}` is not one",
            crate::pictures::visible(&args.subject)
        ));
    };
    let over = explain::changes::over(pinned);
    let text = match args.format {
        ExplainFormat::Json => explain::changes::json(e, &steps, &over),
        ExplainFormat::Human => explain::changes::human(e, &steps, &over),
        ExplainFormat::Markdown => explain::changes::markdown(e, &steps, &over),
    };
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

pub fn flags(args: &FlagsArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    let known = super::known(cfg, args.catalog_dir.as_ref(), io)?;
    let pinned = super::judged(&known, cfg, args.version.as_deref(), io)?;
    let text = explain::listing::flags(pinned.catalog, pinned.semantics);
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

pub fn rules(io: &mut Run<'_>) -> Result<Outcome> {
    let text = explain::listing::rules();
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}
