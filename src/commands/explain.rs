//! `knobs explain`, `knobs flags` and `knobs rules`.

use miette::Result;

use super::{Outcome, Run};
use crate::cli::{ExplainArgs, ExplainFormat, FlagsArgs};
use crate::config::Config;
use crate::explain;
use crate::lint::rules::RULES;

pub fn run(args: &ExplainArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    let e = super::engine(cfg, args.catalog_dir.as_ref(), io)?;
    let name = cfg.engine_name(None);
    let catalog = e.catalog(name, args.version.as_deref(), cfg)?;
    let project = project(cfg, &e, catalog, io);
    let subject = explain::explain(&args.subject, catalog, &e.store.catalogs, &e.semantics, &e.profile, &project)?;
    let text = match args.format {
        ExplainFormat::Human => explain::human(&subject),
        ExplainFormat::Markdown => explain::markdown(&subject),
        ExplainFormat::Json => explain::json(&subject),
    };
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

pub fn flags(args: &FlagsArgs, cfg: &Config, io: &mut Run<'_>) -> Result<Outcome> {
    let e = super::engine(cfg, args.catalog_dir.as_ref(), io)?;
    let catalog = e.catalog(cfg.engine_name(None), args.version.as_deref(), cfg)?;
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

pub fn rules(io: &mut Run<'_>) -> Result<Outcome> {
    let mut text = String::new();
    let width = RULES.iter().map(|r| r.name.len()).max().unwrap_or(0);
    for r in RULES {
        text.push_str(&format!("{}  {:<width$}  {:<7}  {}\n", r.code, r.name, r.severity.as_str(), r.summary()));
    }
    io.out.write_all(text.as_bytes()).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

/// The env keys the project's serve scripts read (`--max-num-seqs
/// "${MAX_SEQS:-2}"`), from the folder holding knobs.toml, else the working
/// directory: what a key means in this project, and which key a rollback uses.
pub(crate) fn project(
    cfg: &Config,
    e: &super::Engine,
    catalog: &crate::catalog::model::Catalog,
    io: &Run<'_>,
) -> explain::Project {
    use crate::lint::{scan, Disk, Input, Settings};
    use crate::walk::FileKind;
    let root = cfg.dir().unwrap_or_else(|| io.cwd.clone());
    let patterns: Vec<String> = cfg.exclude.iter().map(|x| x.value.clone()).collect();
    let Ok(exclude) = crate::walk::globs(&patterns) else { return explain::Project::default() };
    let Ok(walked) = crate::walk::discover(std::slice::from_ref(&root), &root, &cfg.env_files, &exclude) else {
        return explain::Project::default();
    };
    let mut extra = cfg.engine_commands.clone();
    extra.extend(cfg.serve_scripts.iter().cloned());
    let settings = Settings::new(&e.profile, catalog, &e.store.catalogs, extra);
    let disk = Disk { cwd: root.clone(), max_file_size: crate::lint::DEFAULT_MAX_FILE_SIZE };
    let mut out = explain::Project::default();
    for (path, kind) in walked.files.iter().filter(|(_, k)| *k == FileKind::Shell) {
        let Ok(text) = disk.read(path) else { continue };
        for (key, flag) in scan(&text.text, *kind, &settings, catalog).env_flags {
            if !out.env_keys.iter().any(|(k, f, _)| *k == key && *f == flag) {
                let shown = root.join(path);
                let shown = shown.strip_prefix(&io.cwd).unwrap_or(&shown).display().to_string();
                out.env_keys.push((key, flag, shown));
            }
        }
    }
    out
}
