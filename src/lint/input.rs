//! Where linted texts come from, behind one trait, [`Input`]: the disk, or
//! the git index (`--staged`).
//! Bytes are decoded once here: a byte-order mark is kept (the scanners
//! step over it), CRLF is kept (spans count characters), invalid UTF-8 is
//! decoded lossily with a note, and a file with NUL bytes is passed over as
//! binary.

use std::path::{Path, PathBuf};

/// A file's text, and anything the user should know about how it was read.
#[derive(Debug, Clone)]
pub struct Text {
    pub text: String,
    pub note: Option<String>,
}

/// Where texts are read from.
pub trait Input: Sync {
    /// The text of a file, or why it is skipped.
    fn read(&self, path: &Path) -> Result<Text, String>;
    /// The files in the same folder that `wanted` accepts by name (for a
    /// folder's env context); only those are listed.
    fn siblings(&self, path: &Path, wanted: &dyn Fn(&Path) -> bool) -> Vec<PathBuf>;
}

/// Files on disk, relative to a working directory.
pub struct Disk {
    pub cwd: PathBuf,
    pub max_file_size: u64,
}

impl Input for Disk {
    fn read(&self, path: &Path) -> Result<Text, String> {
        let path = self.cwd.join(path);
        let file = std::fs::File::open(&path).map_err(|e| format!("cannot read: {e}"))?;
        let meta = file.metadata().map_err(|e| format!("cannot read: {e}"))?;
        if !meta.is_file() {
            return Err(crate::walk::NOT_REGULAR.into());
        }
        if meta.len() > self.max_file_size {
            return Err(format!("larger than {} bytes", self.max_file_size));
        }
        // Read the length the file had when opened: bytes appended while it
        // is read are not linted, and a file that shrinks gives what is left.
        use std::io::Read;
        let len = usize::try_from(meta.len()).unwrap_or(0);
        let mut bytes = vec![0u8; len];
        let mut got = 0;
        while got < len {
            match (&file).read(&mut bytes[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(format!("cannot read: {e}")),
            }
        }
        bytes.truncate(got);
        decode(bytes, self.max_file_size)
    }

    fn siblings(&self, path: &Path, wanted: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
        let Some(dir) = path.parent() else { return Vec::new() };
        let Ok(entries) = std::fs::read_dir(self.cwd.join(dir)) else { return Vec::new() };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| dir.join(e.file_name()))
            .filter(|p| wanted(p))
            .collect();
        paths.sort();
        paths
    }
}

/// Files as staged in the index, by path as shown.
pub struct StagedFiles {
    pub files: Vec<(PathBuf, Vec<u8>)>,
    pub max_file_size: u64,
}

impl Input for StagedFiles {
    fn read(&self, path: &Path) -> Result<Text, String> {
        let bytes = self.files.iter().find(|(p, _)| p == path).map(|(_, b)| b.clone()).ok_or("not staged")?;
        decode(bytes, self.max_file_size)
    }

    fn siblings(&self, path: &Path, wanted: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
        let dir = path.parent();
        self.files.iter().filter(|(p, _)| p.parent() == dir && wanted(p)).map(|(p, _)| p.clone()).collect()
    }
}

/// Text of a file's bytes, or why it is skipped.
pub fn decode(bytes: Vec<u8>, max: u64) -> Result<Text, String> {
    if bytes.len() as u64 > max {
        return Err(format!("larger than {max} bytes"));
    }
    if memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some() {
        return Err("binary (it holds NUL bytes)".into());
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Text { text, note: None }),
        Err(e) => {
            let bytes = e.into_bytes();
            let at = std::str::from_utf8(&bytes).err().map_or(0, |e| e.valid_up_to());
            Ok(Text {
                text: String::from_utf8_lossy(&bytes).into_owned(),
                note: Some(format!(
                    "not valid UTF-8 (first bad byte at offset {at}); read with replacement characters"
                )),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding() {
        assert!(decode(b"a\0b".to_vec(), 100).is_err());
        assert!(decode(vec![b'a'; 10], 5).is_err());
        let t = decode(b"ok \xff\xfe end".to_vec(), 100).expect("lossy");
        assert!(t.text.contains("ok") && t.text.contains("end"));
        assert!(t.note.is_some_and(|n| n.contains("offset 3")));
        let bom = decode("\u{feff}X=1\r\n".as_bytes().to_vec(), 100).expect("bom");
        assert!(bom.note.is_none() && bom.text.starts_with('\u{feff}'));
    }
}
