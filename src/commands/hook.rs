//! `knobs hook install` and `knobs hook uninstall`: a git pre-commit hook
//! that lints what the commit changes. A hook that is already there is never
//! overwritten silently: it is backed up and run first (chained), or, with
//! `--force`, backed up and replaced; uninstall puts it back.

use std::path::{Path, PathBuf};

use miette::{miette, Result};

use super::{Outcome, Run};
use crate::source::Worktree;

/// The line that marks a hook as written by knobs.
pub const MARKER: &str = "# installed by `knobs hook install`";

/// Where an existing hook is kept.
fn backup_of(path: &Path) -> PathBuf {
    path.with_file_name("pre-commit.knobs-backup")
}

fn script(chained: Option<&Path>) -> String {
    let chain = match chained {
        Some(b) => format!(
            "# The hook that was here before, run first; its failure stops the commit.\n\"{}\" \"$@\" || exit $?\n",
            b.display()
        ),
        None => String::new(),
    };
    format!(
        "#!/bin/sh\n{MARKER}: lints the runbooks, env files and serve scripts this commit changes.\n# Set KNOBS to the binary's path if knobs is not on PATH.\n{chain}exec \"${{KNOBS:-knobs}}\" lint --staged\n"
    )
}

/// Writes the hook (atomically) and makes it executable before it is in place.
fn write_hook(path: &Path, text: &str) -> Result<()> {
    crate::fsutil::write_atomic(path, text, crate::fsutil::Mode::LessUmask(0o755)).map_err(|e| miette::miette!("{e}"))
}

pub fn install(force: bool, io: &mut Run<'_>) -> Result<Outcome> {
    let tree = Worktree::discover(&io.cwd)?;
    let dir = tree.hooks_dir();
    let path = dir.join("pre-commit");
    std::fs::create_dir_all(&dir).map_err(|e| miette!("cannot create {}: {e}", dir.display()))?;
    let backup = backup_of(&path);
    let mut chained = None;
    if let Ok(existing) = std::fs::read_to_string(&path) {
        if !existing.contains(MARKER) {
            if backup.exists() {
                return Err(miette!(
                    help = "remove or restore it, then run `knobs hook install` again",
                    "{} exists and so does {}: knobs will not overwrite a backup",
                    path.display(),
                    backup.display()
                ));
            }
            std::fs::rename(&path, &backup).map_err(|e| miette!("cannot back up {}: {e}", path.display()))?;
            if !force {
                chained = Some(backup.clone());
            }
        } else if backup.exists() && !force {
            // Re-installing over our own hook keeps the chain it had.
            chained = Some(backup.clone());
        }
    }
    write_hook(&path, &script(chained.as_deref()))?;
    let what = match (&chained, backup.exists()) {
        (Some(b), _) => format!("; the hook that was there runs first (kept as {})", b.display()),
        (None, true) => format!("; the hook that was there is kept as {}", backup.display()),
        (None, false) => String::new(),
    };
    writeln!(io.out, "installed {}: `git commit` now runs `knobs lint --staged`{what}", path.display())
        .map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

pub fn uninstall(io: &mut Run<'_>) -> Result<Outcome> {
    let tree = Worktree::discover(&io.cwd)?;
    let path = tree.hooks_dir().join("pre-commit");
    let backup = backup_of(&path);
    match std::fs::read_to_string(&path) {
        Ok(existing) if existing.contains(MARKER) => {}
        Ok(_) => {
            return Err(miette!(
                help = "knobs removes only the hook it wrote",
                "{} was not written by knobs; left as it is",
                path.display()
            ))
        }
        Err(_) => {
            writeln!(io.out, "no knobs hook at {}", path.display()).map_err(super::OutputError)?;
            return Ok(Outcome::Clean);
        }
    }
    if backup.exists() {
        std::fs::rename(&backup, &path).map_err(|e| miette!("cannot restore {}: {e}", backup.display()))?;
        writeln!(io.out, "removed the knobs hook; restored the hook it had kept ({})", path.display())
            .map_err(super::OutputError)?;
    } else {
        std::fs::remove_file(&path).map_err(|e| miette!("cannot remove {}: {e}", path.display()))?;
        writeln!(io.out, "removed {}", path.display()).map_err(super::OutputError)?;
    }
    Ok(Outcome::Clean)
}
