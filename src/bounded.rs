//! Reads with a ceiling. A file knobs is handed — `knobs.toml`, a catalogue,
//! an overlay, a scrape or argv copy, standard input — is read up to a
//! limit, so that `/dev/zero` or a runaway file is an error naming the file,
//! not all the memory; and a FIFO is opened without waiting for a writer,
//! then refused where a file is wanted.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The open flag that keeps opening a FIFO from waiting for a writer.
#[cfg(target_os = "linux")]
const O_NONBLOCK: i32 = 0o4000;
#[cfg(all(unix, not(target_os = "linux")))]
const O_NONBLOCK: i32 = 0x0004;

/// Opens `path` for reading without waiting on a FIFO; with `any_kind`
/// false only a regular file is accepted, else anything but a FIFO (a
/// device such as `/dev/stdin` a user names).
pub fn open(path: &Path, any_kind: bool) -> io::Result<File> {
    let file = open_any(path)?;
    let kind = file.metadata()?.file_type();
    if kind.is_file() || (any_kind && !is_fifo(&kind) && !kind.is_dir()) {
        return Ok(file);
    }
    Err(io::Error::new(io::ErrorKind::InvalidInput, format!("it is {}, not a regular file", kind_name(&kind))))
}

/// Opens whatever is at `path` for reading, a FIFO without waiting for a
/// writer; the caller judges its kind.
pub fn open_any(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(O_NONBLOCK);
    }
    options.open(path)
}

#[cfg(unix)]
fn is_fifo(kind: &std::fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    kind.is_fifo()
}

#[cfg(not(unix))]
fn is_fifo(_: &std::fs::FileType) -> bool {
    false
}

fn kind_name(kind: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    if kind.is_dir() {
        "a folder"
    } else {
        "not a file"
    }
}

/// The most read from a configuration file, a catalogue or an overlay
/// (the largest real catalogue is a few hundred kilobytes).
pub const CONFIG: u64 = 16 * 1024 * 1024;

/// The most read from a scrape (a file or a response body).
pub const SCRAPE: u64 = 64 * 1024 * 1024;

/// The most read from a copy of an argv (Linux caps one near 2 MiB).
pub const ARGV: u64 = 4 * 1024 * 1024;

/// Everything `reader` gives, up to `limit` bytes; more is an error.
pub fn read_from(reader: impl Read, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(limit));
    }
    Ok(bytes)
}

/// The bytes of the file at `path`, up to `limit`. A FIFO is refused
/// rather than waited on; a device (`/dev/stdin`) is read to the limit.
pub fn read(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let file = open(path, true)?;
    if file.metadata()?.len() > limit {
        return Err(too_large(limit));
    }
    read_from(file, limit)
}

/// The error for a file over `limit`.
pub fn too_large(limit: u64) -> io::Error {
    io::Error::new(io::ErrorKind::FileTooLarge, format!("larger than {}, the most knobs reads of it", size(limit)))
}

/// `16 MiB`, `4 KiB`, `100 bytes`.
pub fn size(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_stream_stops_at_the_limit() {
        let e = read_from(io::repeat(b'x'), 1000).expect_err("over");
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(e.to_string(), "larger than 1000 bytes, the most knobs reads of it");
        assert_eq!(read_from(&b"abc"[..], 3).expect("at the limit"), b"abc");
    }

    #[test]
    fn a_device_of_endless_zeros_is_refused() {
        // `/dev/zero` reports a length of 0: the limit is what stops it.
        let e = read(Path::new("/dev/zero"), CONFIG).expect_err("over");
        assert_eq!(e.to_string(), "larger than 16 MiB, the most knobs reads of it");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_not_waited_on() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let fifo = tmp.path().join("f");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
        assert!(made.success());
        let e = read(&fifo, CONFIG).expect_err("fifo");
        assert_eq!(e.to_string(), "it is a FIFO, not a regular file");
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!([size(SCRAPE), size(4096), size(1000)], ["64 MiB", "4 KiB", "1000 bytes"]);
    }
}
