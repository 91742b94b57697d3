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
use crate::verify::meters::{KnobVerdict, Status};
use crate::verify::{argv, fetch, meters, parse_scrape, render, shape, Verification};

pub fn run(args: &VerifyArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    if !(args.timeout.is_finite() && args.timeout > 0.0 && args.timeout <= 3600.0) {
        return Err(miette::miette!(
            help = "give a number of seconds above 0 and at most 3600, e.g. `--timeout 10`",
            "`--timeout {}` is not a usable timeout",
            args.timeout
        ));
    }
    let timeout = Duration::from_secs_f64(args.timeout);
    let e = super::engine(cfg, args.catalog_dir.as_ref(), io)?;
    let engine = cfg.engine_name(None);
    let catalog = e.catalog(engine, args.version.as_deref(), cfg)?;
    let build = format!("{} {}", catalog.source.engine, catalog.source.tag);
    let all = e.all(catalog);
    let label = e.store.label(catalog);

    // Knob names first: a typo is the user's to fix before anything is read.
    let project = if args.knob.iter().any(|k| k.chars().any(|c| c.is_ascii_uppercase())) {
        explain::project::discover(cfg, &e.profile, catalog, all, &io.cwd)
    } else {
        explain::Project::default()
    };
    let mut named = Vec::new();
    for k in &args.knob {
        match explain::resolve_flag(k, catalog, all, &e.profile, &project) {
            Some((f, from)) => {
                // A flag only another catalogued version has.
                let elsewhere = (!std::ptr::eq(from, catalog)).then(|| from.source.tag.clone());
                if !named.iter().any(|(n, _)| *n == f.name) {
                    named.push((f.name.clone(), elsewhere));
                }
            }
            None => {
                // A meter named where a knob is wanted: say which knobs it meters.
                if let Some(m) = crate::catalog::query::find_metric(catalog, k) {
                    let knobs: Vec<String> = e.semantics.metered_by(&m.name).iter().map(|f| format!("`{f}`")).collect();
                    let which = if knobs.is_empty() {
                        "no knob's meter in the overlay".to_string()
                    } else {
                        format!("the meter of {}", knobs.join(", "))
                    };
                    return Err(miette::miette!(
                        help = "name the knob: `--knob FLAG`; its meters are read from the overlay",
                        "`{k}` is a metric, not a knob: it is {which}"
                    ));
                }
                return Err(explain::unknown_subject(k, catalog, &e.profile).into());
            }
        }
    }

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

    let judge = ArgvJudge::new(&e.profile, catalog, all, engine_commands(cfg));
    let argv = argv::judge(&cmd, &judge, catalog, &e.semantics);
    let shape = shape::compare(&after_e, catalog, all, &e.profile);
    let mut knobs = Vec::new();
    for (flag, elsewhere) in named {
        if let Some(tag) = elsewhere {
            knobs.push(KnobVerdict {
                flag: flag.clone(),
                status: Status::Invalid,
                value: None,
                default: None,
                meters: Vec::new(),
                why: format!("`{flag}` is not a flag of {build} (it is one of {} {tag})", catalog.source.engine),
                left_out: None,
            });
            continue;
        }
        let meters = e.semantics.flag.get(&flag).map(|s| s.meters.clone()).unwrap_or_default();
        let scrapes = meters::Scrapes { after: &after_e, before: before.as_ref().map(|(b, _)| b) };
        knobs.push(meters::judge(&flag, &meters, &argv, scrapes, catalog, &label));
    }
    let v = Verification {
        build,
        provenance: e.store.mark(catalog),
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
