//! Safe writes. A file knobs creates (a catalogue, the git hook) goes
//! through a temporary file in the same folder, synced and given its mode
//! before a rename puts it in place, so a reader never sees half of it and
//! a failure leaves the old one untouched. A file `--fix` rewrites is the
//! user's: it keeps its inode — owner, mode, hard links — so its new bytes
//! go into it in place, after a temporary copy is written and read back.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The mode a written file gets.
pub enum Mode {
    /// These bits less the umask (`0o666` for a file the team commits,
    /// `0o755` for a hook).
    LessUmask(u32),
}

/// Which step of an atomic write failed; the text names the file.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("{} has no parent folder", .0.display())]
    NoParent(PathBuf),
    #[error("cannot create {}: {cause}", dir.display())]
    CreateDir { dir: PathBuf, cause: std::io::Error },
    #[error("cannot write in {}: {cause}", dir.display())]
    TempFile { dir: PathBuf, cause: std::io::Error },
    #[error("cannot write {}: {cause}", path.display())]
    Write { path: PathBuf, cause: std::io::Error },
    #[error("cannot set the mode of {}: {cause}", path.display())]
    Mode { path: PathBuf, cause: std::io::Error },
}

/// Writes `text` to `path` atomically with `mode`, creating the folder if
/// it is missing.
pub fn write_atomic(path: &Path, text: &str, mode: Mode) -> Result<(), WriteError> {
    let dir = path.parent().ok_or_else(|| WriteError::NoParent(path.to_path_buf()))?;
    let write = |cause| WriteError::Write { path: path.to_path_buf(), cause };
    std::fs::create_dir_all(dir).map_err(|cause| WriteError::CreateDir { dir: dir.to_path_buf(), cause })?;
    let mut tmp =
        tempfile::NamedTempFile::new_in(dir).map_err(|cause| WriteError::TempFile { dir: dir.to_path_buf(), cause })?;
    tmp.write_all(text.as_bytes()).map_err(write)?;
    tmp.as_file().sync_all().map_err(write)?;
    let perms = match mode {
        #[cfg(unix)]
        Mode::LessUmask(bits) => {
            use std::os::unix::fs::PermissionsExt;
            Some(std::fs::Permissions::from_mode(bits & !umask()))
        }
        #[cfg(not(unix))]
        Mode::LessUmask(_) => None,
    };
    if let Some(perms) = perms {
        std::fs::set_permissions(tmp.path(), perms)
            .map_err(|cause| WriteError::Mode { path: path.to_path_buf(), cause })?;
    }
    tmp.persist(path).map_err(|e| write(e.error))?;
    Ok(())
}

/// Writes `bytes` into the existing file at `path` in place, keeping its
/// inode and so its owner, mode and links. A copy is written beside it
/// first and read back; if writing the file itself then fails, the error
/// names the copy, which is kept.
pub fn write_in_place(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Read as _;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut copy = tempfile::Builder::new().prefix(".knobs-fix").tempfile_in(dir)?;
    copy.write_all(bytes)?;
    copy.as_file().sync_all()?;
    let mut back = Vec::with_capacity(bytes.len());
    std::fs::File::open(copy.path())?.read_to_end(&mut back)?;
    if back != bytes {
        return Err(std::io::Error::other("the copy written beside it did not read back the same"));
    }
    let written = std::fs::OpenOptions::new().write(true).truncate(true).open(path).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    if let Err(e) = written {
        let kept = copy.keep().map(|(_, p)| p.display().to_string()).unwrap_or_default();
        return Err(std::io::Error::new(e.kind(), format!("{e} (the fixed text is kept in {kept})")));
    }
    Ok(())
}

/// The process's umask, read without changing it for longer than a moment.
#[cfg(unix)]
fn umask() -> u32 {
    // /proc/self/status says it on Linux; elsewhere assume the usual 022.
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("Umask:").map(|v| v.trim().to_string())))
        .and_then(|v| u32::from_str_radix(&v, 8).ok())
        .unwrap_or(0o022)
}

/// A path with its `.` and `..` steps resolved by name (the file system is
/// not asked: the path may not exist yet, and the paths compared are both
/// built from one folder).
pub(crate) fn normalized(path: &std::path::Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out = std::path::PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c.as_os_str()),
        }
    }
    out
}
