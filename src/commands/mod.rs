//! One module per subcommand: raw clap arguments in, output and an exit
//! status out.

pub mod catalog;
pub mod explain;
pub mod hook;
pub mod lint;
pub mod meta;
pub mod sync;
pub mod verify;

use std::io::Write;
use std::path::PathBuf;

use crate::catalog::model::Catalog;
use crate::catalog::profile::Profile;
use crate::catalog::semantics::Semantics;
use crate::catalog::store::Store;
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

/// The engine a command works on: its profile, its catalogues (embedded,
/// synced beside knobs.toml, and `--catalog-dir`), and its overlay.
pub struct Engine {
    pub profile: Profile,
    pub store: Store,
    pub semantics: Semantics,
}

/// The folders synced catalogues are read from, in rising precedence.
pub fn catalog_dirs(cfg: &Config, extra: Option<&PathBuf>, io: &Run<'_>) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = cfg.catalog_dir().into_iter().collect();
    dirs.extend(extra.map(|d| io.cwd.join(d)));
    dirs
}

impl Engine {
    /// The catalogue a command judges against: the version the command line
    /// names, else knobs.toml's `[pin] tag`, else the newest. A pin with no
    /// catalogue points at the pin in knobs.toml.
    pub fn catalog(&self, engine: &str, arg: Option<&str>, cfg: &Config) -> miette::Result<&Catalog> {
        let tag = arg.or(cfg.tag.as_deref());
        pin_error(arg, cfg, self.store.select(engine, tag).map(|c| (c, false))).map(|(c, _)| c)
    }

    /// The catalogue a build is judged against, as [`Engine::catalog`]
    /// finds it, except that a tag with no catalogue of its own that
    /// follows a tag of the history (an untagged build, `v1.9.7-12-gabc`)
    /// is judged by the nearest earlier tag; then the note that says so.
    pub fn judged(&self, engine: &str, arg: Option<&str>, cfg: &Config) -> miette::Result<(&Catalog, Option<String>)> {
        let found = match arg.or(cfg.tag.as_deref()) {
            Some(tag) => self.store.judged_by(engine, tag),
            None => self.store.newest(engine).map(|c| (c, false)),
        };
        let (c, nearest) = pin_error(arg, cfg, found)?;
        let tag = arg.or(cfg.tag.as_deref()).unwrap_or_default();
        let note = nearest.then(|| {
            format!(
                "{engine} {tag} has no catalogue of its own: judged against {}, the nearest earlier tag",
                c.source.tag
            )
        });
        Ok((c, note))
    }

    /// The versions read beside `pinned` (history, another version's flag,
    /// the shape's comparison): the catalogues in use, and `pinned`.
    pub fn all(&self, pinned: &Catalog) -> &[Catalog] {
        self.store.all(pinned)
    }

    /// The build as a summary names it: `radiance v1.8.1`, or `embedded
    /// radiance v1.0.13` for an embedded catalogue used beside catalogues
    /// synced from another repository (the tag stays the last word).
    pub fn build(&self, c: &Catalog) -> String {
        let embedded = if self.store.is_foreign(c) { "embedded " } else { "" };
        format!("{embedded}{} {}", c.source.engine, c.source.tag)
    }
}

/// A store's answer for the pinned tag, its unknown-tag error pointing
/// at the pin in knobs.toml when the pin is knobs.toml's.
fn pin_error<'s>(
    arg: Option<&str>,
    cfg: &Config,
    found: Result<(&'s Catalog, bool), crate::catalog::store::StoreError>,
) -> miette::Result<(&'s Catalog, bool)> {
    match found {
        Ok(c) => Ok(c),
        Err(e @ crate::catalog::store::StoreError::UnknownTag { .. }) if arg.is_none() && cfg.path.is_some() => {
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

/// Loads the engine the configuration (and `--engine`) names.
pub fn engine(cfg: &Config, extra: Option<&PathBuf>, io: &Run<'_>) -> miette::Result<Engine> {
    let name = cfg.engine_name(None);
    let dirs = catalog_dirs(cfg, extra, io);
    let store = Store::open(name, &dirs)?;
    // The overlay is a hint, never a gate: what it names that a version
    // lacks is left out for that version (`knobs catalog check` lists it).
    let semantics = Semantics::open(name, &dirs)?;
    Ok(Engine { profile: cfg.profile(name), store, semantics })
}
