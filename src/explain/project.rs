//! What the project's own serve scripts say a key means: `--max-num-seqs
//! "${MAX_SEQS:-2}"` makes `MAX_SEQS` a name of `--max-num-seqs` here, and
//! the key a rollback should set. Explain and verify read names this way.
//!
//! The project has an explicit root — the folder of the knobs.toml in use,
//! else the git work tree holding the working folder, else none — so a run
//! from `/` or from an unrelated folder reads no serve scripts at all,
//! instead of walking the whole file system.

use std::path::{Path, PathBuf};

use crate::catalog::pinned::Pinned;
use crate::config::Config;
use crate::lint::{engine_commands, scan, Disk, Input, Settings};
use crate::source::Worktree;

/// What the project's own files say: the env keys its serve scripts read,
/// each with the flag it sets and the script that reads it.
#[derive(Debug, Default, Clone)]
pub struct Project {
    pub env_keys: Vec<(String, String, String)>,
}

/// The folder the project's serve scripts are read from: the folder of the
/// knobs.toml in use, else the git work tree holding `cwd`, else none.
fn root(cfg: &Config, cwd: &Path) -> Option<PathBuf> {
    cfg.dir().or_else(|| Worktree::root_of(cwd))
}

/// The env keys the project's serve scripts read, from its [`root`]
/// (nothing without one); scripts are named relative to `cwd`.
pub(crate) fn discover(cfg: &Config, pinned: &Pinned<'_>, cwd: &Path) -> Project {
    let Some(root) = root(cfg, cwd) else { return Project::default() };
    let patterns: Vec<String> = cfg.exclude.iter().map(|x| x.value.clone()).collect();
    let Ok(exclude) = crate::walk::globs(&patterns) else { return Project::default() };
    let Ok(walked) = crate::walk::discover(std::slice::from_ref(&root), &root, &cfg.env_files, &exclude) else {
        return Project::default();
    };
    let settings = Settings::new(pinned.profile, pinned.catalog, pinned.all, engine_commands(cfg));
    let disk = Disk { cwd: root.clone(), max_file_size: crate::lint::DEFAULT_MAX_FILE_SIZE };
    let mut out = Project::default();
    for (path, kind) in walked.files.iter().filter(|(_, k)| k.serve_script()) {
        let Ok(text) = disk.read(path) else { continue };
        for (key, flag) in scan(&text.text, *kind, &settings, pinned.catalog).env_flags {
            if !out.env_keys.iter().any(|(k, f, _)| *k == key && *f == flag) {
                let shown = root.join(path);
                let shown = shown.strip_prefix(cwd).unwrap_or(&shown).display().to_string();
                out.env_keys.push((key, flag, shown));
            }
        }
    }
    out
}
