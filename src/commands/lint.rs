//! `knobs lint`: discover files, lint each against the pinned catalogue of
//! the project it belongs to, render the findings (after applying their
//! fixes under `--fix`: what remains is reported), and map them to an exit
//! status (`--diff`: 1 when it would change something).
//!
//! Each path is judged under the `knobs.toml` found from it upward (as ruff
//! and git find theirs); `--config` names one for all.

use std::path::{Path, PathBuf};

use miette::Result;

use super::{Outcome, Run};
use crate::cli::{FailOn, LintArgs};
use crate::config::Config;
use crate::lint::baseline::Baseline;
use crate::lint::rules::Severity;
use crate::lint::{input, lint_files, lint_walk, Disk, Overrides, Report, Settings};
use crate::report::{self, Format};
use crate::walk::Skipped;

pub fn run(args: &LintArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    let overrides = Overrides {
        keep_text: args.fix || args.diff,
        keep_clean: io.verbosity > 1,
        cwd: io.cwd.clone(),
        fail_on: args.fail_on.map(|f| match f {
            FailOn::Error => Severity::Error,
            FailOn::Warning => Severity::Warning,
        }),
        tag: args.version.is_some(),
        ..Overrides::new(&args.select, &args.ignore)?
    };
    let mut merged = Report::default();
    let mut builds: Vec<String> = Vec::new();
    // The same, as the summary names them (an embedded catalogue used beside
    // synced ones of another repository is marked).
    let mut shown: Vec<String> = Vec::new();
    let mut fail_on = Severity::Warning;
    let mut fixed = 0usize;
    // The files named on the command line: one that cannot be read at all
    // is an error, not a note (CI must not pass on a file it never read).
    let mut named: Vec<PathBuf> = Vec::new();
    let (groups, passed_over) = groups(args, cfg, io)?;
    for why in &passed_over {
        writeln!(io.err, "warning: {why}").map_err(super::OutputError)?;
    }
    for group in groups {
        if !args.staged {
            named.extend(group.paths.iter().cloned());
        }
        let cfg = &group.cfg;
        let known = super::known(cfg, args.catalog_dir.as_ref(), io)?;
        let pinned = super::judged(&known, cfg, args.version.as_deref(), io)?;
        let settings = Settings::resolve(cfg, &overrides, &pinned)?;
        if let Some(mark) = pinned.mark().filter(|_| io.verbosity > 0) {
            writeln!(io.err, "note: {}", crate::pictures::visible(&mark)).map_err(super::OutputError)?;
        }
        // Findings the baseline records are left out before anything else
        // (`--fix` too leaves them as they are).
        let baseline = baseline_of(args, cfg, io)?;
        let tag = &pinned.catalog.source.tag;
        let known = |mut r: Report| {
            if let Some(b) = &baseline {
                r.baselined += b.filter(&mut r, &io.cwd, tag);
            }
            r
        };
        let report = if args.staged {
            let (files, staged) = input::staged(&group.paths, &settings, &io.cwd)?;
            known(lint_files(&files, &staged, &settings))
        } else if group.paths.iter().any(|p| p == Path::new("-")) {
            let (stdin, kind) = input::stdin(args.stdin_filename.clone(), &settings, &io.cwd)?;
            known(lint_files(&[(stdin.name.clone(), kind)], &stdin, &settings))
        } else {
            let changed = args.changed_since.as_deref().map(|rev| input::changed_since(rev, &io.cwd)).transpose()?;
            let disk = Disk { cwd: io.cwd.clone(), max_file_size: settings.max_file_size };
            let walk = || lint_walk(&group.paths, &disk, &settings, changed.as_deref(), cfg.path.as_deref()).map(known);
            let mut report = walk()?;
            if args.fix || args.diff {
                let n = crate::lint::fix::apply(&report, &disk, &io.cwd, args.diff, io.out).map_err(|e| match e {
                    crate::lint::fix::FixError::Output(e) => miette::Report::new(super::OutputError(e)),
                    e => miette::Report::new(e),
                })?;
                fixed += n;
                // What is left after fixing is what the run reports (as ruff does).
                if args.fix && n > 0 {
                    report = walk()?;
                }
            }
            report
        };
        let build = pinned.name();
        if !builds.contains(&build) {
            builds.push(build);
            shown.push(pinned.build());
        }
        fail_on = fail_on.max(settings.fail_on);
        merged.absorb(report);
    }
    let report = merged;
    if let Some(file) = &args.write_baseline {
        let n = crate::lint::baseline::write(&report, &io.cwd.join(file), &io.cwd)?;
        if io.verbosity >= 0 {
            let what = if n == 1 { "finding" } else { "findings" };
            let shown = crate::pictures::visible(&file.display().to_string()).into_owned();
            writeln!(io.err, "wrote {n} {what} to {shown}").map_err(super::OutputError)?;
        }
        return Ok(Outcome::Clean);
    }
    if args.fix && io.verbosity >= 0 {
        writeln!(io.err, "fixed {fixed} {}", if fixed == 1 { "finding" } else { "findings" })
            .map_err(super::OutputError)?;
    }
    // `--diff` prints only the diff; it exits 1 when it would change something.
    if args.diff {
        return Ok(if fixed > 0 && !args.exit_zero { Outcome::Findings } else { Outcome::Clean });
    }
    let text = if args.statistics {
        report::statistics(&report)
    } else {
        let color = args.format == Format::Human && io.color;
        let build = shown.join("; ");
        report::render(&report, args.format, &report::Context { build: &build, color, summary: io.verbosity >= 0 })
    };
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    let unreadable: Vec<&Skipped> =
        report.skipped.iter().filter(|s| s.named_error() && named.contains(&s.path)).collect();
    let notes = report::notes(&report, &unreadable, io.verbosity, builds.first().map(String::as_str));
    io.err.write_all(notes.as_bytes()).map_err(super::OutputError)?;
    let outcome = outcome(&report, &unreadable, args, fail_on);
    drop(unreadable);
    crate::ending::release(report);
    outcome
}

/// The baseline a group's run leaves out: `--baseline` (from the working
/// directory), else knobs.toml's `[lint] baseline` (from its folder); none
/// while `--write-baseline` records a new one.
fn baseline_of(args: &LintArgs, cfg: &Config, io: &Run<'_>) -> Result<Option<Baseline>> {
    if args.write_baseline.is_some() {
        return Ok(None);
    }
    let dir = cfg.dir().unwrap_or_default();
    let (path, project) = match (&args.baseline, &cfg.baseline) {
        (Some(p), _) => (io.cwd.join(p), None),
        (None, Some(b)) => (dir.join(&b.value), Some(crate::confine::project_root(&dir))),
        (None, None) => return Ok(None),
    };
    Ok(Some(Baseline::load(&path, project.as_deref())?))
}

/// The exit: an error when a named file could not be read or knobs failed
/// on one (a bug), else findings at or above `fail_on` or, with
/// `--fail-on-skipped`, a file passed over unread (unless `--exit-zero`).
fn outcome(report: &Report, unreadable: &[&Skipped], args: &LintArgs, fail_on: Severity) -> Result<Outcome> {
    if let Some(first) = unreadable.first() {
        let others = match unreadable.len() - 1 {
            0 => String::new(),
            n => format!(" (and {} more named file{})", n, if n == 1 { "" } else { "s" }),
        };
        return Err(miette::miette!(
            help = "the other files were linted; a folder named instead passes over what it cannot read, with a note",
            "cannot lint {}, named on the command line: {}{others}",
            crate::pictures::visible(&first.path.display().to_string()),
            crate::pictures::visible(&first.reason)
        ));
    }
    if !report.failed.is_empty() {
        return Err(miette::miette!(
            help = "the other files were linted; please report this with the file that triggers it",
            "{}",
            failed_message(&report.failed)
        ));
    }
    if args.exit_zero {
        return Ok(Outcome::Clean);
    }
    let passed_over = args.fail_on_skipped && report.skipped.iter().any(Skipped::hides_findings);
    Ok(if passed_over || report.findings().any(|f| f.severity >= fail_on) { Outcome::Findings } else { Outcome::Clean })
}

/// One project's share of a run: its configuration and the paths under it.
struct Group {
    cfg: Config,
    paths: Vec<PathBuf>,
}

/// Groups the paths by the knobs.toml each is judged under, with the
/// knobs.toml files the search passed over (beside the working directory's).
fn groups(args: &LintArgs, cfg: &Config, io: &Run<'_>) -> Result<(Vec<Group>, Vec<String>)> {
    if io.config_file.is_some() || args.staged || args.paths.iter().any(|p| p == Path::new("-")) {
        return Ok((vec![Group { cfg: cfg.clone(), paths: args.paths.clone() }], Vec::new()));
    }
    let mut out: Vec<Group> = Vec::new();
    let mut warned: Vec<String> = Vec::new();
    for p in &args.paths {
        let abs = io.cwd.join(p);
        let start = if abs.is_dir() { abs.clone() } else { abs.parent().map(Path::to_path_buf).unwrap_or_default() };
        let mut passed_over = Vec::new();
        let found = crate::config::find(&start, &mut passed_over);
        passed_over.retain(|w| !cfg.passed_over.contains(w) && !warned.contains(w));
        warned.extend(passed_over);
        let this = match &found {
            Some(path) if Some(path) != cfg.path.as_ref() => {
                let mut c = crate::config::load(path).map_err(|e| miette::Report::new(*e))?;
                super::apply_engine(&mut c, io.engine.as_deref());
                c
            }
            Some(_) => cfg.clone(),
            // No knobs.toml above the path: the one from the working directory, if any.
            None => cfg.clone(),
        };
        match out.iter_mut().find(|g| g.cfg.path == this.path) {
            Some(g) => g.paths.push(p.clone()),
            None => out.push(Group { cfg: this, paths: vec![p.clone()] }),
        }
    }
    Ok((out, warned))
}

/// The error when knobs itself failed on some files (a bug met and caught).
fn failed_message(failed: &[(std::path::PathBuf, String)]) -> String {
    let files: Vec<String> = failed.iter().map(|(p, _)| p.display().to_string()).collect();
    let n = if files.len() == 1 { "1 file".to_string() } else { format!("{} files", files.len()) };
    format!("knobs failed on {n} ({}): a bug", files.join(", "))
}

#[cfg(test)]
mod tests {
    #[test]
    fn failed_files_are_named() {
        let one = [("a.md".into(), "x".to_string())];
        assert_eq!(super::failed_message(&one), "knobs failed on 1 file (a.md): a bug");
        let two = [("a.md".into(), "x".to_string()), ("b/c.sh".into(), "y".to_string())];
        assert_eq!(super::failed_message(&two), "knobs failed on 2 files (a.md, b/c.sh): a bug");
    }
}
