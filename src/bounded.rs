//! Reads with a ceiling. A file knobs is handed — `knobs.toml`, a catalogue,
//! an overlay, a scrape or argv copy, standard input — is read up to a
//! limit, so that `/dev/zero` or a runaway file is an error naming the file,
//! not all the memory.

use std::io::{self, Read};
use std::path::Path;

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
    let file = crate::confine::open(path, true)?;
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
