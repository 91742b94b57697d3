//! `knobs verify`: reads the engine's argv and its scrapes, judges them
//! against the pinned catalogue and the overlay's meters, and prints the
//! verdict. Inputs are read before anything is judged, so an unreadable
//! one stops the run with exit status 2 and no half report.

use std::time::Duration;

use miette::Result;

use super::{Outcome, Run};
use crate::cli::{VerifyArgs, VerifyFormat};
use crate::config::Config;
use crate::explain;
use crate::lint::{engine_commands, ArgvJudge};
use crate::verify::{argv, fetch, knobs, meters, parse_scrape, render, shape, Verification};

pub fn run(args: &VerifyArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    if !(args.timeout.is_finite() && args.timeout > 0.0 && args.timeout <= 3600.0) {
        return Err(miette::miette!(
            help = "give a number of seconds above 0 and at most 3600, e.g. `--timeout 10`",
            "`--timeout {}` is not a usable timeout",
            args.timeout
        ));
    }
    let timeout = Duration::from_secs_f64(args.timeout);
    let known = super::known(cfg, args.catalog_dir.as_ref(), io)?;
    let pinned = super::judged(&known, cfg, args.version.as_deref(), io)?;
    let (catalog, all, profile, sem) = (pinned.catalog, pinned.all, pinned.profile, pinned.semantics);
    let label = pinned.label();

    // Knob names first: a typo is the user's to fix before anything is read.
    let project = if knobs::needs_project(&args.knob) {
        explain::project::discover(cfg, &pinned, &io.cwd)
    } else {
        explain::Project::default()
    };
    let named = knobs::resolve(&args.knob, &pinned, &project)?;

    let cmd = argv::read(&args.cmdline, &io.cwd)?;
    let after = fetch::read(&args.metrics, &io.cwd, timeout)?;
    let after_e = parse_scrape(&after)?;
    let before = match &args.metrics_before {
        Some(spec) => {
            let scrape = fetch::read(spec, &io.cwd, timeout)?;
            Some((parse_scrape(&scrape)?, scrape.from))
        }
        None => None,
    };

    let judge = ArgvJudge::new(profile, catalog, all, engine_commands(cfg));
    let argv = argv::judge(&cmd, &judge, catalog, sem);
    let shape = shape::compare(&after_e, catalog, all, profile);
    let scrapes = meters::Scrapes { after: &after_e, before: before.as_ref().map(|(b, _)| b) };
    let knobs = knobs::judge(&named, &argv, scrapes, catalog, sem, &label);
    let v = Verification {
        build: pinned.name(),
        provenance: pinned.mark(),
        argv,
        metrics_from: after.from,
        before_from: before.map(|(_, from)| from),
        shape,
        knobs,
    };
    let text = match args.format {
        VerifyFormat::Human if io.verbosity < 0 => render::verdict(&v),
        VerifyFormat::Human => render::human(&v),
        VerifyFormat::Json => render::json(&v),
    };
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(if v.passed() { Outcome::Clean } else { Outcome::Findings })
}
