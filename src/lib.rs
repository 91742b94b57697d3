//! knobs: read the pinned radiance source, never your memory.
//!
//! The library behind the `knobs` binary. [`run`] drives the whole CLI
//! in-process, so tests exercise the same path as users.

pub mod allocator;
mod bounded;
pub mod catalog;
pub mod cli;
pub mod commands;
pub mod config;
mod confine;
pub mod diag;
mod embedded;
pub mod ending;
pub mod explain;
pub mod extract;
mod fsutil;
pub mod kinds;
pub mod lint;
mod pictures;
pub mod report;
pub mod server;
pub mod source;
pub mod suggest;
mod syntax;
pub mod verify;
pub mod walk;

use std::ffi::OsString;
use std::io::Write;

use commands::{Outcome, Run};

/// Exit status: nothing found.
pub const EXIT_CLEAN: u8 = 0;
/// Exit status: findings at or above the fail level.
pub const EXIT_FINDINGS: u8 = 1;
/// Exit status: the tool could not do its job.
pub const EXIT_ERROR: u8 = 2;

/// Runs knobs with `args` (including the program name), writing to `out`
/// and `err`, relative to `cwd`. Returns the exit status. Output is never
/// coloured: use [`run_on`] for a terminal.
pub fn run<I, T>(args: I, out: &mut dyn Write, err: &mut dyn Write, cwd: &std::path::Path) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    run_on(args, out, err, cwd, false)
}

/// Like [`run`]; `terminal` says whether `out` is a terminal, which
/// `--color auto` colours.
pub fn run_on<I, T>(args: I, out: &mut dyn Write, err: &mut dyn Write, cwd: &std::path::Path, terminal: bool) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    use clap::{CommandFactory, FromArgMatches};
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    // `knobs lint --version`: knobs' version, as after any other program
    // (`--version TAG` names a catalogue tag, as `--tag TAG` does).
    if cli::asks_version(&args) {
        let _ = writeln!(out, "knobs {}", commands::meta::version_text());
        return EXIT_CLEAN;
    }
    let parsed = cli::Cli::command()
        .version(commands::meta::version_text())
        .try_get_matches_from(args)
        .and_then(|m| cli::Cli::from_arg_matches(&m));
    let mut cli = match parsed {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_ERROR } else { EXIT_CLEAN };
            let text = e.render().to_string();
            let _ = if e.use_stderr() { err.write_all(text.as_bytes()) } else { out.write_all(text.as_bytes()) };
            return code;
        }
    };
    if let Some((tag, word)) = cli.command.tag_options() {
        if let Some(w) = word.take() {
            *tag = Some(w);
        }
    }
    let color = match cli.color {
        cli::ColorChoice::Always => true,
        cli::ColorChoice::Never => false,
        cli::ColorChoice::Auto => terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    };
    let verbosity = if cli.quiet { -1 } else { i8::try_from(cli.verbose).unwrap_or(i8::MAX) };
    let mut io = Run {
        out,
        err,
        cwd: cwd.to_path_buf(),
        color,
        verbosity,
        engine: cli.engine.clone(),
        config_file: cli.config.clone(),
    };
    match dispatch(&cli, &mut io) {
        Ok(Outcome::Clean) => EXIT_CLEAN,
        Ok(Outcome::Findings) => EXIT_FINDINGS,
        Err(report) => {
            if is_broken_pipe(&report) {
                return EXIT_CLEAN;
            }
            let _ = write!(io.err, "{}", render_error(&report));
            EXIT_ERROR
        }
    }
}

fn dispatch(cli: &cli::Cli, io: &mut Run<'_>) -> miette::Result<Outcome> {
    // These need no configuration, so a broken knobs.toml cannot stop them.
    match &cli.command {
        cli::Command::Completions { shell } => return commands::meta::completions(*shell, io),
        cli::Command::Man => return commands::meta::man(io),
        // The server reads each document's own knobs.toml, as it is opened.
        cli::Command::Server => return commands::server::run(io),
        _ => {}
    }
    let mut cfg = match &cli.config {
        Some(path) => config::load_named(&io.cwd.join(path)),
        None => config::load_from(&io.cwd),
    }
    .map_err(|e| miette::Report::new(*e))?;
    for why in &cfg.passed_over {
        writeln!(io.err, "warning: {why}").map_err(commands::OutputError)?;
    }
    if let Some(engine) = &cli.engine {
        if !catalog::profile::valid_name(engine) {
            return Err(miette::miette!(
                help = "an engine name is letters, digits, `.`, `-` or `_`, e.g. `radiance` or `llama.cpp`",
                "`{engine}` is not an engine name"
            ));
        }
    }
    // The command line wins over knobs.toml's pin.
    commands::apply_engine(&mut cfg, cli.engine.as_deref());
    match &cli.command {
        cli::Command::Completions { .. } | cli::Command::Man | cli::Command::Server => unreachable!("handled above"),
        cli::Command::Lint(a) => commands::lint::run(a, &cfg, io),
        cli::Command::Explain(a) => commands::explain::run(a, &cfg, io),
        cli::Command::Flags(a) => commands::explain::flags(a, &cfg, io),
        cli::Command::Rules => commands::explain::rules(io),
        cli::Command::Sync(a) => commands::sync::run(a, &cfg, io),
        cli::Command::Verify(a) => commands::verify::run(a, &cfg, io),
        cli::Command::Hook(cli::HookCommand::Install { force }) => commands::hook::install(*force, io),
        cli::Command::Hook(cli::HookCommand::Uninstall) => commands::hook::uninstall(io),
        cli::Command::Catalog(cli::CatalogCommand::Check(a)) => commands::catalog::check(a, &cfg, io),
        cli::Command::Catalog(cli::CatalogCommand::Show(a)) => commands::catalog::show(a, &cfg, io),
        cli::Command::Catalog(cli::CatalogCommand::Diff(a)) => commands::catalog::diff(a, &cfg, io),
    }
}

fn is_broken_pipe(report: &miette::Report) -> bool {
    report.downcast_ref::<commands::OutputError>().is_some_and(|e| e.0.kind() == std::io::ErrorKind::BrokenPipe)
}

/// Renders an error as text without colour, unwrapped: a message naming a
/// long path stays one line, whatever the path or the terminal.
pub fn render_error(report: &miette::Report) -> String {
    let handler = miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .with_width(100)
        .with_wrap_lines(false);
    let mut s = String::new();
    if handler.render_report(&mut s, report.as_ref()).is_err() {
        s = format!("error: {report}\n");
    }
    if !s.ends_with('\n') {
        s.push('\n');
    }
    // What an error quotes from a file (its name, its text) reaches the
    // terminal as pictures, never as escape sequences.
    pictures::visible_lines(&s).into_owned()
}
