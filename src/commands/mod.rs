//! One module per subcommand: raw clap arguments in, output and an exit
//! status out.

pub mod catalog;
pub mod explain;
pub mod hook;
pub mod lint;
pub mod meta;
pub mod server;
pub mod sync;
pub mod verify;

use std::io::Write;
use std::path::PathBuf;

use crate::catalog::model::Catalog;
use crate::catalog::pinned::{Known, Pinned};
use crate::catalog::store::StoreError;
use crate::config::Config;

/// One run of knobs: where a command writes (so tests can capture it
/// in-process), the working folder and the global options.
pub struct Run<'a> {
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
    pub cwd: std::path::PathBuf,
    /// True when colour may be used (a terminal, and no NO_COLOR).
    pub color: bool,
    /// -1 quiet, 0 normal, 1 and up verbose.
    pub verbosity: i8,
    /// `--engine`, which wins over every knobs.toml's pin.
    pub engine: Option<String>,
    /// `--config`: one knobs.toml for every path.
    pub config_file: Option<PathBuf>,
}

/// Applies `--engine` to a configuration: it wins over `[pin] engine`, and a
/// pinned tag of another engine no longer applies.
pub fn apply_engine(cfg: &mut Config, engine: Option<&str>) {
    if let Some(engine) = engine {
        if cfg.engine.as_deref() != Some(engine) {
            cfg.engine = Some(engine.to_string());
            cfg.tag = None;
        }
    }
}

/// How a command ended, short of a tool error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Clean,
    Findings,
}

/// Writing output failed (for `knobs lint | head`, a broken pipe, which is
/// not an error).
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("cannot write output: {0}")]
#[diagnostic(code(knobs::output))]
pub struct OutputError(#[from] pub std::io::Error);

/// The folders synced catalogues are read from, in rising precedence.
pub fn catalog_dirs(cfg: &Config, extra: Option<&PathBuf>, io: &Run<'_>) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = cfg.catalog_dir().into_iter().collect();
    dirs.extend(extra.map(|d| io.cwd.join(d)));
    dirs
}

/// Loads the engine the configuration (and `--engine`) names: its profile,
/// its catalogues (embedded, synced beside knobs.toml, and `--catalog-dir`),
/// and its overlay.
pub fn known(cfg: &Config, extra: Option<&PathBuf>, io: &Run<'_>) -> miette::Result<Known> {
    let name = cfg.engine_name(None);
    Ok(Known::open(name, &catalog_dirs(cfg, extra, io), cfg.profile(name))?)
}

/// The build a command judges against: the version the command line names,
/// else knobs.toml's `[pin] tag`, else the newest (a tag with no catalogue
/// of its own judged by the nearest earlier one). Its note is written
/// unless `--quiet`.
pub fn judged<'k>(known: &'k Known, cfg: &Config, arg: Option<&str>, io: &mut Run<'_>) -> miette::Result<Pinned<'k>> {
    let pinned = pin_error(arg, cfg, known.judged(arg.or(cfg.tag.as_deref())))?;
    for (path, build) in known.store.differing().iter().filter(|_| io.verbosity >= 0) {
        let shown = path.strip_prefix(&io.cwd).unwrap_or(path).display().to_string();
        let n = format!("{shown} is used for {build}, and it differs from the catalogue knobs embeds for that tag");
        writeln!(io.err, "note: {}", crate::pictures::visible(&n)).map_err(OutputError)?;
    }
    if let Some(n) = pinned.note().filter(|_| io.verbosity >= 0) {
        writeln!(io.err, "note: {}", crate::pictures::visible(n)).map_err(OutputError)?;
    }
    Ok(pinned)
}

/// The catalogue of exactly the version the command line names, else
/// knobs.toml's `[pin] tag`, else the newest.
pub fn exact<'k>(known: &'k Known, cfg: &Config, arg: Option<&str>) -> miette::Result<&'k Catalog> {
    pin_error(arg, cfg, known.exact(arg.or(cfg.tag.as_deref())))
}

/// A store's answer for the pinned tag, its unknown-tag error pointing
/// at the pin in knobs.toml when the pin is knobs.toml's.
fn pin_error<T>(arg: Option<&str>, cfg: &Config, found: Result<T, StoreError>) -> miette::Result<T> {
    match found {
        Ok(c) => Ok(c),
        Err(e @ StoreError::UnknownTag { .. }) if arg.is_none() && cfg.path.is_some() => {
            let span = crate::diag::find_key(&cfg.text, "tag").unwrap_or(0..0);
            Err(cfg
                .error_at(
                    span,
                    e.to_string(),
                    "pinned here",
                    Some("run `knobs sync --tag TAG` to catalogue it (it writes beside knobs.toml), or pin a known version".into()),
                )
                .into())
        }
        Err(e) => Err(e.into()),
    }
}
