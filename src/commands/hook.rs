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

/// The name an existing hook is kept under, beside the hook.
const BACKUP: &str = "pre-commit.knobs-backup";

/// Where an existing hook is kept.
fn backup_of(path: &Path) -> PathBuf {
    path.with_file_name(BACKUP)
}

/// The hook's text. A chained hook is found at run time beside this one
/// (`$0`'s folder), so no path is written into the script: moving the
/// repository breaks nothing, and a folder named `$(…)` or holding quotes
/// is never read as shell.
fn script(chained: bool) -> String {
    let chain = if chained {
        format!(
            "# The hook that was here before, run first; its failure stops the commit.\n\"$(dirname -- \"$0\")/{BACKUP}\" \"$@\" || exit $?\n"
        )
    } else {
        String::new()
    };
    format!(
        "#!/bin/sh\n{MARKER}: lints the runbooks, env files and serve scripts this commit changes.\n# Set KNOBS to the binary's path if knobs is not on PATH.\n{chain}exec \"${{KNOBS:-knobs}}\" lint --staged\n"
    )
}

/// True when the hook's bytes (text or not) are knobs's own.
fn ours(bytes: &[u8]) -> bool {
    bytes.windows(MARKER.len()).any(|w| w == MARKER.as_bytes())
}

/// True when something is at `path`, a dangling link included.
fn present(path: &Path) -> bool {
    path.symlink_metadata().is_ok()
}

/// Writes the hook (atomically) and makes it executable before it is in place.
fn write_hook(path: &Path, text: &str) -> Result<()> {
    crate::fsutil::write_atomic(path, text, crate::fsutil::Mode::LessUmask(0o755)).map_err(|e| miette::miette!("{e}"))
}

pub fn install(force: bool, io: &mut Run<'_>) -> Result<Outcome> {
    let tree = Worktree::discover(&io.cwd)?;
    let hooks = tree.hooks_dir();
    let dir = hooks.path;
    let path = dir.join("pre-commit");
    std::fs::create_dir_all(&dir).map_err(|e| miette!("cannot create {}: {e}", dir.display()))?;
    let backup = backup_of(&path);
    let mut chained = None;
    // Read as bytes: a hook that is not UTF-8 is still a hook, and kept. A
    // hook that cannot be read (a dangling link) is kept too, not chained:
    // it cannot run.
    let existing = std::fs::read(&path);
    let kept_or_ours = match &existing {
        Ok(bytes) if ours(bytes) => None,
        Ok(_) => Some(!force),
        Err(_) if present(&path) => Some(false),
        Err(_) => None,
    };
    if let Some(chain) = kept_or_ours {
        if present(&backup) {
            return Err(miette!(
                help = "remove or restore it, then run `knobs hook install` again",
                "{} exists and so does {}: knobs will not overwrite a backup",
                path.display(),
                backup.display()
            ));
        }
        std::fs::rename(&path, &backup).map_err(|e| miette!("cannot back up {}: {e}", path.display()))?;
        if chain {
            chained = Some(backup.clone());
        }
    } else if existing.is_ok() && backup.exists() && !force {
        // Re-installing over our own hook keeps the chain it had.
        chained = Some(backup.clone());
    }
    write_hook(&path, &script(chained.is_some()))?;
    let mut what = match (&chained, present(&backup)) {
        (Some(b), _) => format!("; the hook that was there runs first (kept as {})", b.display()),
        (None, true) => format!("; the hook that was there is kept as {}", backup.display()),
        (None, false) => String::new(),
    };
    if let Some(config) = hooks.shared {
        let outside = if hooks.outside { ", outside the repository" } else { "" };
        what.push_str(&format!(
            "; core.hooksPath in {config} points at {}{outside}, so every repository that uses it runs this hook",
            dir.display()
        ));
    }
    writeln!(io.out, "installed {}: `git commit` now runs `knobs lint --staged`{what}", path.display())
        .map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

pub fn uninstall(io: &mut Run<'_>) -> Result<Outcome> {
    let tree = Worktree::discover(&io.cwd)?;
    let path = tree.hooks_dir().path.join("pre-commit");
    let backup = backup_of(&path);
    match std::fs::read(&path) {
        Ok(existing) if ours(&existing) => {}
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
    if present(&backup) {
        std::fs::rename(&backup, &path).map_err(|e| miette!("cannot restore {}: {e}", backup.display()))?;
        writeln!(io.out, "removed the knobs hook; restored the hook it had kept ({})", path.display())
            .map_err(super::OutputError)?;
    } else {
        std::fs::remove_file(&path).map_err(|e| miette!("cannot remove {}: {e}", path.display()))?;
        writeln!(io.out, "removed {}", path.display()).map_err(super::OutputError)?;
    }
    Ok(Outcome::Clean)
}
