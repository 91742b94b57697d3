//! `knobs lint`: discover files, lint each against the pinned catalogue,
//! render the findings, and map them to an exit status.

use std::collections::HashMap;

use miette::{IntoDiagnostic, Result};

use super::{Io, Outcome};
use crate::catalog::model::Catalog;
use crate::catalog::store::Store;
use crate::cli::{FailOn, LintArgs};
use crate::config::Config;
use crate::lint::rules::Severity;
use crate::lint::{lint_files, Settings, DEFAULT_MAX_FILE_SIZE};
use crate::report::{self, Format};

pub fn run(args: &LintArgs, cfg: &Config, io: &mut Io<'_>) -> Result<Outcome> {
    let store = Store::open(args.catalog_dir.as_ref().map(|d| io.cwd.join(d)).as_deref())?;
    let catalog = store.select(&cfg.engine, args.version.as_deref().or(cfg.tag.as_deref()))?;
    let all: Vec<Catalog> = store.catalogs.iter().filter(|c| c.source.engine == cfg.engine).cloned().collect();
    let mut engine_commands = vec![cfg.engine.clone()];
    engine_commands.extend(cfg.engine_commands.iter().cloned());
    let settings = Settings {
        catalog,
        all: &all,
        engine_commands,
        serve_scripts: cfg.serve_scripts.clone(),
        env_files: cfg.env_files.clone(),
        severity: cfg.severity.iter().copied().collect::<HashMap<_, _>>(),
        max_file_size: cfg.max_file_size.unwrap_or(DEFAULT_MAX_FILE_SIZE),
    };
    let walked = crate::walk::discover(&args.paths, &io.cwd, &settings.env_files)?;
    let mut report = lint_files(&walked.files, &io.cwd, &settings);
    report.skipped.extend(walked.skipped);
    let build = format!("{} {}", catalog.source.engine, catalog.source.tag);
    let color = args.format == Format::Human && io.color;
    let text = report::render(&report, args.format, &report::Context { build: &build, color });
    io.out.write_all(text.as_bytes()).into_diagnostic()?;
    if args.format == Format::Human {
        for s in &report.skipped {
            writeln!(io.err, "note: skipped {}: {}", s.path.display(), s.reason).into_diagnostic()?;
        }
    }
    for n in &report.notes {
        writeln!(io.err, "note: {n}").into_diagnostic()?;
    }
    let fail_on = match args.fail_on {
        Some(FailOn::Error) => Severity::Error,
        Some(FailOn::Warning) => Severity::Warning,
        None if cfg.fail_on.as_deref() == Some("error") => Severity::Error,
        None => Severity::Warning,
    };
    Ok(if report.findings().any(|f| f.severity >= fail_on) { Outcome::Findings } else { Outcome::Clean })
}
