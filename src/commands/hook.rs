//! `knobs hook install`: a git pre-commit hook that lints what is staged.

use miette::{miette, Result};

use super::{Io, Outcome};
use crate::source::Worktree;

/// The line that marks a hook as written by knobs.
pub const MARKER: &str = "# installed by `knobs hook install`";

fn script() -> String {
    format!(
        "#!/bin/sh\n{MARKER}: lints the staged runbooks, env files and serve scripts.\n# Set KNOBS to the binary's path if knobs is not on PATH.\nexec \"${{KNOBS:-knobs}}\" lint --staged\n"
    )
}

pub fn install(force: bool, io: &mut Io<'_>) -> Result<Outcome> {
    let tree = Worktree::discover(&io.cwd)?;
    let dir = tree.hooks_dir();
    let path = dir.join("pre-commit");
    if let Ok(existing) = std::fs::read_to_string(&path) {
        if !existing.contains(MARKER) && !force {
            return Err(miette!(
                help = "pass --force to replace it, or add `knobs lint --staged` to it yourself",
                "{} exists and was not written by knobs; left as it is",
                path.display()
            ));
        }
    }
    std::fs::create_dir_all(&dir).map_err(|e| miette!("cannot create {}: {e}", dir.display()))?;
    crate::commands::sync::write_atomic(&path, &script())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| miette!("cannot make {} executable: {e}", path.display()))?;
    }
    writeln!(io.out, "installed {}: `git commit` now runs `knobs lint --staged`", path.display())
        .map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}
