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

/// Why `--fix` did not rewrite a file; each names the file being fixed
/// (never only the temporary copy) and leaves it as it was.
#[derive(Debug, thiserror::Error)]
pub enum FixWriteError {
    /// The file changed between the check and the write: a symlink or
    /// another file was put in its place, or it is no longer a lone regular
    /// file.
    #[error("{} changed after it was checked ({why}); not fixed", path.display())]
    Swapped { path: PathBuf, why: String },
    #[error("cannot fix {}: its folder {} is not writable, so no copy can be made beside it ({cause}); nothing was changed", path.display(), dir.display())]
    Folder { path: PathBuf, dir: PathBuf, cause: std::io::Error },
    #[error("cannot fix {}: {cause}; nothing was changed", path.display())]
    Copy { path: PathBuf, cause: std::io::Error },
    #[error("cannot fix {}: {cause} (the fixed text is kept in {})", path.display(), kept.display())]
    Write { path: PathBuf, cause: std::io::Error, kept: PathBuf },
}

/// The file `--fix` checked: which file it is (device and inode), so that
/// what is opened to be written can be compared with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checked {
    dev: u64,
    ino: u64,
}

impl Checked {
    /// What `meta` (of the file checked, symlinks followed) says it is.
    #[cfg(unix)]
    pub fn of(meta: &std::fs::Metadata) -> Checked {
        use std::os::unix::fs::MetadataExt;
        Checked { dev: meta.dev(), ino: meta.ino() }
    }

    #[cfg(not(unix))]
    pub fn of(_: &std::fs::Metadata) -> Checked {
        Checked { dev: 0, ino: 0 }
    }
}

/// Opens the file at `path` to be rewritten: never through a symlink
/// (`O_NOFOLLOW`: a link swapped in after the check fails the open), and
/// only when the handle is a regular file with one link, the very file
/// `checked` describes. Everything after is done through the handle, never
/// by name again.
pub fn open_checked(path: &Path, checked: Checked) -> Result<std::fs::File, FixWriteError> {
    let swapped = |why: String| FixWriteError::Swapped { path: path.to_path_buf(), why };
    let mut options = std::fs::OpenOptions::new();
    options.read(true).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(O_NOFOLLOW | O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| {
        let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        swapped(if link { "it is now a symlink".into() } else { format!("it cannot be opened: {e}") })
    })?;
    let meta = file.metadata().map_err(|e| swapped(e.to_string()))?;
    if !meta.is_file() {
        return Err(swapped("it is no longer a regular file".into()));
    }
    if Checked::of(&meta) != checked {
        return Err(swapped("another file is in its place".into()));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.nlink() > 1 {
            return Err(swapped(format!("it now has {} hard links", meta.nlink())));
        }
    }
    Ok(file)
}

#[cfg(target_os = "linux")]
const O_NOFOLLOW: i32 = 0o400000;
#[cfg(all(unix, not(target_os = "linux")))]
const O_NOFOLLOW: i32 = 0x0100;
#[cfg(target_os = "linux")]
const O_NONBLOCK: i32 = 0o4000;
#[cfg(all(unix, not(target_os = "linux")))]
const O_NONBLOCK: i32 = 0x0004;

/// Writes `bytes` into `file` (opened by [`open_checked`] from `path`) in
/// place, keeping its inode and so its owner, mode and links. A copy is
/// written beside it first, in `path`'s folder, and read back; if writing
/// the file itself then fails, the error names the copy, which is kept.
pub fn write_in_place(file: &mut std::fs::File, path: &Path, bytes: &[u8]) -> Result<(), FixWriteError> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    write_with_copy_in(file, path, dir, bytes)
}

/// [`write_in_place`] with the copy made in `dir` (a test gives a folder
/// that cannot hold one: as root, permissions do not refuse it).
fn write_with_copy_in(file: &mut std::fs::File, path: &Path, dir: &Path, bytes: &[u8]) -> Result<(), FixWriteError> {
    use std::io::{Read as _, Seek as _};
    let copy_error = |cause| FixWriteError::Copy { path: path.to_path_buf(), cause };
    let mut copy = tempfile::Builder::new().prefix(".knobs-fix").tempfile_in(dir).map_err(|e| {
        // tempfile names its random file in the error: the user's is named instead.
        let cause = std::io::Error::new(e.kind(), std::io::Error::from(e.kind()).to_string());
        FixWriteError::Folder { path: path.to_path_buf(), dir: dir.to_path_buf(), cause }
    })?;
    copy.write_all(bytes).map_err(copy_error)?;
    copy.as_file().sync_all().map_err(copy_error)?;
    let mut back = Vec::with_capacity(bytes.len());
    copy.rewind().map_err(copy_error)?;
    copy.read_to_end(&mut back).map_err(copy_error)?;
    if back != bytes {
        return Err(copy_error(std::io::Error::other("the copy written beside it did not read back the same")));
    }
    let written = file.set_len(0).and_then(|()| {
        file.rewind()?;
        file.write_all(bytes)?;
        file.sync_all()
    });
    if let Err(cause) = written {
        let kept = copy.keep().map(|(_, p)| p).unwrap_or_default();
        return Err(FixWriteError::Write { path: path.to_path_buf(), cause, kept });
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

#[cfg(test)]
mod tests {
    use super::*;

    fn checked(path: &Path) -> Checked {
        Checked::of(&std::fs::metadata(path).expect("metadata"))
    }

    /// The open helper refuses a symlink (even to the very file checked),
    /// another file put in the place of the one checked, and a folder.
    #[test]
    fn open_checked_refuses_a_link_or_a_swapped_file() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (run, other, link) = (tmp.path().join("run.md"), tmp.path().join("other.md"), tmp.path().join("link.md"));
        std::fs::write(&run, "a\n").expect("write");
        std::fs::write(&other, "b\n").expect("write");
        assert!(open_checked(&run, checked(&run)).is_ok());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&run, &link).expect("symlink");
            let e = open_checked(&link, checked(&run)).expect_err("a symlink is not opened");
            assert!(e.to_string().contains("link.md changed after it was checked (it is now a symlink)"), "{e}");
            let e = open_checked(&other, checked(&run)).expect_err("another file");
            assert!(e.to_string().contains("another file is in its place"), "{e}");
            std::fs::hard_link(&run, tmp.path().join("second")).expect("link");
            let e = open_checked(&run, checked(&run)).expect_err("two links");
            assert!(e.to_string().contains("it now has 2 hard links"), "{e}");
        }
        let e = open_checked(tmp.path(), checked(tmp.path())).expect_err("a folder");
        assert!(e.to_string().contains("changed after it was checked"), "{e}");
    }

    /// A folder that cannot hold the copy: the error names the file being
    /// fixed and its folder, never the temporary name, and the file is as
    /// it was.
    #[test]
    fn a_folder_without_room_for_the_copy_names_the_file() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let run = tmp.path().join("run.md");
        std::fs::write(&run, "old\n").expect("write");
        let not_a_folder = tmp.path().join("plain");
        std::fs::write(&not_a_folder, "").expect("write");
        let mut file = open_checked(&run, checked(&run)).expect("open");
        let e = write_with_copy_in(&mut file, &run, &not_a_folder, b"new\n").expect_err("no copy");
        let text = e.to_string();
        assert!(
            text.starts_with(&format!(
                "cannot fix {}: its folder {} is not writable",
                run.display(),
                not_a_folder.display()
            )),
            "{text}"
        );
        assert!(text.ends_with("nothing was changed"), "{text}");
        assert!(!text.contains(".knobs-fix"), "{text}");
        assert_eq!(std::fs::read_to_string(&run).expect("read"), "old\n");
        write_in_place(&mut file, &run, b"new\n").expect("write");
        assert_eq!(std::fs::read_to_string(&run).expect("read"), "new\n");
        assert_eq!(std::fs::read_dir(tmp.path()).expect("dir").count(), 2, "no copy left behind");
    }
}
