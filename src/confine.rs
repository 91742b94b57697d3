//! May this project file be read? A file a linted tree names — its
//! knobs.toml, a catalogue or overlay under its catalogue folder, the folder
//! itself — comes with the tree, so it is read only inside the project,
//! never through a symlink that leaves it, never from a FIFO or a device,
//! and only when it is text. One check, used wherever such a file is read
//! or written; paths the user names on the command line are not confined.
//! Nothing in a git folder is project content, whoever names it: `.git/`,
//! where a `.git` file's `gitdir:` points, `$GIT_DIR` (their common folder
//! too) and any folder git would take for one. Its config may hold a token,
//! so no path or symlink that leads there is read, printed or written
//! ([`outside_git`]), the command line's included.

use std::io;
use std::path::{Path, PathBuf};

use crate::bounded::open;

/// The project a knobs.toml in `dir` belongs to: the git work tree that
/// holds `dir`, else `dir` itself.
pub fn project_root(dir: &Path) -> PathBuf {
    let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    dir.ancestors().find(|d| d.join(".git").exists()).map(Path::to_path_buf).unwrap_or(dir)
}

/// Whether `path`, symlinks resolved, lies inside `root`. A path that does
/// not exist yet is judged by the nearest folder above it that does, and
/// what follows must not climb with `..`.
pub fn inside(root: &Path, path: &Path) -> io::Result<()> {
    let root = std::fs::canonicalize(root)?;
    let (existing, rest) = nearest_existing(path);
    let resolved = std::fs::canonicalize(existing)?;
    if resolved.starts_with(&root) && !rest.iter().any(|n| *n == "..") {
        return outside_git(path);
    }
    Err(io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!("it leads outside the project ({}), to {}", root.display(), resolved.display()),
    ))
}

/// The text of a project file at `path`, which must lie inside `root`:
/// a regular file, at most `limit` bytes, UTF-8 text.
pub fn read_to_string(root: &Path, path: &Path, limit: u64) -> io::Result<String> {
    inside(root, path)?;
    read_text(path, limit, false)
}

/// The text of a file the user named (anything but a FIFO or a folder).
pub fn read_named(path: &Path, limit: u64) -> io::Result<String> {
    read_text(path, limit, true)
}

fn read_text(path: &Path, limit: u64, any_kind: bool) -> io::Result<String> {
    outside_git(path)?;
    let file = open(path, any_kind)?;
    if file.metadata()?.len() > limit {
        return Err(crate::bounded::too_large(limit));
    }
    let bytes = crate::bounded::read_from(file, limit)?;
    let text =
        String::from_utf8(bytes).map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "it is not UTF-8 text"))?;
    if !is_text(&text) {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "it is not text (it holds control characters)"));
    }
    Ok(text)
}

/// Refuses `path` when it, or what its symlinks lead to, lies in a git
/// folder: a component named `.git`, the folder a `.git` file above it
/// points to, `$GIT_DIR`, the common folder of each, or a folder holding
/// `HEAD`, `objects/` and `refs/` (a bare repository). A path that does
/// not exist yet is judged by the folder above it.
pub fn outside_git(path: &Path) -> io::Result<()> {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let resolved = resolve(&abs);
    let refuse = |git: &Path| {
        io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("it leads into the git folder {}, which is not project content", git.display()),
        )
    };
    for p in [&abs, &resolved] {
        if let Some(at) = p.ancestors().find(|a| a.file_name().is_some_and(|n| n == ".git")) {
            return Err(refuse(at));
        }
    }
    let mut gits: Vec<PathBuf> = Vec::new();
    if let Some(dir) = std::env::var_os("GIT_DIR").filter(|d| !d.is_empty()) {
        gits.push(PathBuf::from(dir));
    }
    for a in abs.ancestors().chain(resolved.ancestors()) {
        if let Some(dir) = gitdir_file(&a.join(".git")) {
            gits.push(a.join(dir));
        }
    }
    for git in gits {
        let Ok(git) = std::fs::canonicalize(&git) else { continue };
        let common = gitdir_file(&git.join("commondir")).and_then(|c| std::fs::canonicalize(git.join(c)).ok());
        for g in std::iter::once(git).chain(common) {
            if resolved.starts_with(&g) {
                return Err(refuse(&g));
            }
        }
    }
    let looks_like_git = |a: &Path| a.join("HEAD").is_file() && a.join("objects").is_dir() && a.join("refs").is_dir();
    match resolved.ancestors().skip(1).find(|a| looks_like_git(a)) {
        Some(git) => Err(refuse(git)),
        None => Ok(()),
    }
}

/// The nearest part of `path` that exists (a dangling link counts), and
/// the names after it that do not, last first.
fn nearest_existing(path: &Path) -> (&Path, Vec<&std::ffi::OsStr>) {
    let mut existing = path;
    let mut rest = Vec::new();
    while std::fs::symlink_metadata(existing).is_err() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                existing = parent;
            }
            _ => break,
        }
    }
    (existing, rest)
}

/// `path` with its symlinks resolved; the part that does not exist yet is
/// kept as written.
fn resolve(path: &Path) -> PathBuf {
    let (existing, rest) = nearest_existing(path);
    let mut out = std::fs::canonicalize(existing).unwrap_or_else(|_| existing.to_path_buf());
    out.extend(rest.iter().rev());
    out
}

/// The folder a small file of one path names: a `.git` file
/// (`gitdir: PATH`) or a git folder's `commondir` (`PATH`).
fn gitdir_file(file: &Path) -> Option<PathBuf> {
    if !std::fs::symlink_metadata(file).ok()?.is_file() {
        return None;
    }
    let bytes = crate::bounded::read(file, 4096).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let line = text.lines().next()?.trim();
    let dir = line.strip_prefix("gitdir:").map_or(line, str::trim);
    (!dir.is_empty()).then(|| PathBuf::from(dir))
}

/// Text as a configuration file holds it: no control characters but tab,
/// line feed and carriage return (a NUL-separated `/proc/self/environ` is
/// not text, and its bytes are never shown).
pub fn is_text(text: &str) -> bool {
    !text.chars().any(|c| c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symlink_out_of_the_root_is_refused_and_one_inside_is_not() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().join("p");
        std::fs::create_dir_all(root.join("sub")).expect("mkdir");
        std::fs::write(tmp.path().join("secret"), "s = 1\n").expect("write");
        std::fs::write(root.join("sub/a.toml"), "a = 1\n").expect("write");
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(tmp.path().join("secret"), root.join("out.toml")).expect("link");
            std::os::unix::fs::symlink("sub/a.toml", root.join("in.toml")).expect("link");
            let e = read_to_string(&root, &root.join("out.toml"), 100).expect_err("outside");
            assert!(e.to_string().starts_with("it leads outside the project ("), "{e}");
            assert_eq!(read_to_string(&root, &root.join("in.toml"), 100).expect("inside"), "a = 1\n");
        }
        assert!(inside(&root, &root.join("new/x.toml")).is_ok());
        assert!(inside(&root, &root.join("new/../../x.toml")).is_err());
    }

    #[test]
    fn control_characters_are_not_text() {
        assert!(is_text("a = 1\r\n\tb = 2\n"));
        assert!(!is_text("HOME=/root\0TOKEN=x\0"));
        assert!(!is_text("a = \"\u{1b}[2J\"\n"));
    }
}
