//! Where a project's `knobs.toml` is and how it is read: the nearest one
//! above a folder (one another user owns is passed over), confined to the
//! project with its catalogue folder; or the one `--config` names.

use std::path::{Path, PathBuf};

use super::{error, parse, Config, CODE, FILE_NAME};
use crate::diag::FileError;

/// Finds `knobs.toml` in `start` or the nearest folder above it. One owned
/// by neither this user nor root is passed over with a warning naming it,
/// as git refuses a repository another user owns: whoever can write a
/// folder above the work tree would otherwise configure knobs.
/// Each one passed over is said in `passed_over`.
pub fn find(start: &Path, passed_over: &mut Vec<String>) -> Option<PathBuf> {
    start.ancestors().map(|d| d.join(FILE_NAME)).filter(|p| p.is_file()).find(|p| match foreign_owner(p) {
        Some(uid) => {
            let shown = crate::pictures::visible(&p.display().to_string()).into_owned();
            let why = format!(
                "{shown} is owned by user {uid}, not by you or root: it is ignored (name it with --config to use it)"
            );
            if !passed_over.contains(&why) {
                passed_over.push(why);
            }
            false
        }
        None => true,
    })
}

/// The owner of `path` when it is neither this process's user nor root.
#[cfg(target_os = "linux")]
fn foreign_owner(path: &Path) -> Option<u32> {
    use std::os::unix::fs::MetadataExt;
    // `/proc/self` belongs to the process's effective user.
    let me = std::fs::metadata("/proc/self").ok()?.uid();
    let owner = std::fs::metadata(path).ok()?.uid();
    (owner != me && owner != 0).then_some(owner)
}

#[cfg(not(target_os = "linux"))]
fn foreign_owner(_: &Path) -> Option<u32> {
    None
}

/// Reads the nearest `knobs.toml`, or the defaults when there is none.
pub fn load_from(start: &Path) -> Result<Config, Box<FileError>> {
    let mut passed_over = Vec::new();
    let mut cfg = match find(start, &mut passed_over) {
        Some(path) => load(&path)?,
        None => Config::default(),
    };
    cfg.passed_over = passed_over;
    Ok(cfg)
}

/// Reads a `knobs.toml` found in the tree: it is the project's, so it and
/// its catalogue folder must lie inside the project (the git work tree
/// holding it, else its folder) — not reached through a symlink that
/// leaves it, not a FIFO or a device — and it must be text.
pub fn load(path: &Path) -> Result<Config, Box<FileError>> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let root = crate::confine::project_root(dir);
    let text = crate::confine::read_to_string(&root, path, crate::bounded::CONFIG).map_err(|e| unreadable(path, &e))?;
    let cfg = parse(path, &text)?;
    if let Some(catalogs) = cfg.catalog_dir() {
        if let Err(e) = crate::confine::inside(&root, &catalogs) {
            let span = cfg.catalog_dir.as_ref().and_then(|_| crate::diag::find_key(&text, "dir"));
            return Err(Box::new(error(
                path,
                &text,
                span,
                format!("the catalogue folder {} is not inside the project: {e}", catalogs.display()),
                "the catalogue folder",
                Some(
                    "a catalogue folder is read and written inside the project; name another with --catalog-dir".into(),
                ),
            )));
        }
    }
    Ok(cfg)
}

/// Reads the `knobs.toml` the user named with `--config`: trusted where it
/// is, but a FIFO is refused rather than waited on, and it must be text.
pub fn load_named(path: &Path) -> Result<Config, Box<FileError>> {
    let text = crate::confine::read_named(path, crate::bounded::CONFIG).map_err(|e| unreadable(path, &e))?;
    parse(path, &text)
}

fn unreadable(path: &Path, e: &std::io::Error) -> Box<FileError> {
    Box::new(
        FileError::unreadable(
            path,
            format!("cannot read {}: {e}", crate::pictures::visible(&path.display().to_string())),
        )
        .with_code(CODE),
    )
}
