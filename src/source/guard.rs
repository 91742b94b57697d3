//! The pack a remote sends, judged as it arrives. libgit2 writes it to a
//! temporary file in the cache (`objects/pack/pack_git2_*`) and reports
//! progress; at each report the entries it has taken whole are read here,
//! from that file, for what git's counts do not say: the size each object
//! inflates to (a delta's from the head of its instructions), and what
//! indexing will cost — a delta is rebuilt from its base, and its base from
//! its own, so its chain is counted again. The entry libgit2 is still
//! reading is judged by its header alone (its declared size), before it is
//! inflated. Reaching a ceiling stops the fetch; libgit2 then removes the
//! temporary pack, so the cache is left as it was.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::ceiling::{Reached, Tally, MAX_OBJECT};

/// Kinds of pack entry.
const OFS_DELTA: u8 = 6;
const REF_DELTA: u8 = 7;

/// An entry's header: its kind, declared size, where its data starts, and
/// for an offset delta where its base starts.
struct Header {
    kind: u8,
    size: u64,
    data: u64,
    base: Option<u64>,
}

pub(super) struct PackGuard {
    dir: PathBuf,
    before: Vec<OsString>,
    file: Option<File>,
    /// Where the next entry not yet read starts (after the 12-byte header).
    next: u64,
    /// Entries read.
    read: usize,
    /// What rebuilding each entry read costs, by its offset (for the
    /// deltas based on it).
    costs: HashMap<u64, u64>,
    largest: u64,
    tally: Tally,
}

impl PackGuard {
    /// A guard for a fetch into the bare repository at `git_dir`.
    pub(super) fn new(git_dir: &Path) -> PackGuard {
        let dir = git_dir.join("objects").join("pack");
        let before = names(&dir);
        PackGuard {
            dir,
            before,
            file: None,
            next: 12,
            read: 0,
            costs: HashMap::new(),
            largest: 0,
            tally: Tally::default(),
        }
    }

    /// Reads the entries up to the `received`th (libgit2 has taken them
    /// whole), then the header of the one after, when the pack declares
    /// one more (`total`); after the last comes the pack's checksum.
    pub(super) fn judge(&mut self, received: usize, total: usize) -> Result<(), Reached> {
        if self.file.is_none() {
            self.file = self.find();
        }
        let Some(mut file) = self.file.take() else { return Ok(()) };
        let judged = self.judge_in(&mut file, received, total);
        self.file = Some(file);
        judged
    }

    fn judge_in(&mut self, file: &mut File, received: usize, total: usize) -> Result<(), Reached> {
        while self.read < received {
            let Ok(Some(h)) = header(file, self.next) else { return Ok(()) };
            let start = self.next;
            if h.size > MAX_OBJECT {
                return Err(Reached::Object(h.size));
            }
            let Ok((end, head)) = inflate(file, h.data, h.size) else { return Ok(()) };
            let (size, cost) = if h.kind == OFS_DELTA || h.kind == REF_DELTA {
                let result = delta_result(&head);
                let base = match h.base {
                    Some(at) => self.costs.get(&at).copied().unwrap_or(MAX_OBJECT),
                    // A base named by id: the dearest entry so far stands in.
                    None => self.largest.max(result),
                };
                (result, h.size.saturating_add(result).saturating_add(base))
            } else {
                (h.size, h.size)
            };
            self.tally.object(size, cost)?;
            self.largest = self.largest.max(cost);
            self.costs.insert(start, cost);
            self.next = end;
            self.read += 1;
        }
        // The entry being read: its declared size, before it is inflated.
        if self.read >= total {
            return Ok(());
        }
        if let Ok(Some(h)) = header(file, self.next) {
            if h.size > MAX_OBJECT {
                return Err(Reached::Object(h.size));
            }
        }
        Ok(())
    }

    /// The temporary pack libgit2 is writing: one that was not there before.
    fn find(&self) -> Option<File> {
        let name = names(&self.dir)
            .into_iter()
            .find(|n| n.to_string_lossy().starts_with("pack_git2_") && !self.before.contains(n))?;
        File::open(self.dir.join(name)).ok()
    }
}

fn names(dir: &Path) -> Vec<OsString> {
    std::fs::read_dir(dir).map(|d| d.filter_map(Result::ok).map(|e| e.file_name()).collect()).unwrap_or_default()
}

/// The header of the entry at `at`; `None` when its bytes are not all there.
fn header(file: &mut File, at: u64) -> std::io::Result<Option<Header>> {
    let mut buf = [0u8; 64];
    file.seek(SeekFrom::Start(at))?;
    let n = read_some(file, &mut buf)?;
    let bytes = &buf[..n];
    let Some(&first) = bytes.first() else { return Ok(None) };
    let kind = (first >> 4) & 7;
    let mut size = u64::from(first & 0x0f);
    let mut shift = 4u32;
    let mut i = 1;
    let mut c = first;
    while c & 0x80 != 0 {
        let Some(&b) = bytes.get(i) else { return Ok(None) };
        c = b;
        size = if shift >= 64 {
            u64::MAX
        } else {
            size.saturating_add(u64::from(c & 0x7f).checked_shl(shift).unwrap_or(u64::MAX))
        };
        shift += 7;
        i += 1;
    }
    let mut base = None;
    if kind == OFS_DELTA {
        let Some(&b) = bytes.get(i) else { return Ok(None) };
        let (mut c, mut off) = (b, u64::from(b & 0x7f));
        i += 1;
        while c & 0x80 != 0 {
            let Some(&b) = bytes.get(i) else { return Ok(None) };
            c = b;
            off = off.saturating_add(1).checked_shl(7).unwrap_or(u64::MAX) | u64::from(c & 0x7f);
            i += 1;
        }
        base = Some(at.saturating_sub(off));
    } else if kind == REF_DELTA {
        if bytes.len() < i + 20 {
            return Ok(None);
        }
        i += 20;
    }
    Ok(Some(Header { kind, size, data: at + i as u64, base }))
}

/// Reads as much of `buf` as the file holds.
fn read_some(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// Inflates the zlib stream at `at` (its object declared `size` bytes) to
/// its end: where the next entry starts, and its first 32 bytes. An error
/// when the stream is not whole or inflates past `size`.
fn inflate(file: &mut File, at: u64, size: u64) -> std::io::Result<(u64, Vec<u8>)> {
    let bad = |m: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, m.to_string());
    file.seek(SeekFrom::Start(at))?;
    let mut z = flate2::Decompress::new(true);
    let mut input = vec![0u8; 64 * 1024];
    let mut out = vec![0u8; 64 * 1024];
    let mut head = Vec::new();
    let (mut have, mut used) = (0usize, 0usize);
    loop {
        if used == have {
            have = file.read(&mut input)?;
            used = 0;
            if have == 0 {
                return Err(bad("the entry is not whole"));
            }
        }
        let (before_in, before_out) = (z.total_in(), z.total_out());
        let status = z
            .decompress(&input[used..have], &mut out, flate2::FlushDecompress::None)
            .map_err(|e| bad(&e.to_string()))?;
        let took = usize::try_from(z.total_in() - before_in).unwrap_or(usize::MAX);
        let gave = usize::try_from(z.total_out() - before_out).unwrap_or(usize::MAX);
        used += took;
        if head.len() < 32 {
            head.extend_from_slice(&out[..gave.min(32 - head.len())]);
        }
        if z.total_out() > size {
            return Err(bad("the entry inflates past its size"));
        }
        if status == flate2::Status::StreamEnd {
            return Ok((at + z.total_in(), head));
        }
        if took == 0 && gave == 0 && used < have {
            return Err(bad("the entry does not inflate"));
        }
    }
}

/// The size a delta's result declares: the second number of its head (the
/// first is its base's size), 7 bits a byte.
fn delta_result(head: &[u8]) -> u64 {
    let mut numbers = [0u64; 2];
    let mut i = 0;
    for n in &mut numbers {
        let mut shift = 0u32;
        loop {
            let Some(&b) = head.get(i) else { return u64::MAX };
            i += 1;
            *n |= u64::from(b & 0x7f).checked_shl(shift).unwrap_or(u64::MAX);
            shift += 7;
            if b & 0x80 == 0 {
                break;
            }
            if shift >= 64 {
                return u64::MAX;
            }
        }
    }
    numbers[1]
}

/// One entry of a pack at rest, as a delta chain is walked through it.
pub(super) enum Entry {
    /// An object stored whole, of this size.
    Whole(u64),
    /// A delta on the entry at `base`, rebuilding `result` bytes.
    OfsDelta { result: u64, base: u64 },
    /// A delta on the object `base`, rebuilding `result` bytes.
    RefDelta { result: u64, base: [u8; 20] },
}

/// The entry at `at`: its header, and for a delta the head of its
/// instructions (a delta's instructions over the ceiling of one object are
/// not inflated: it reads as that size, whole).
pub(super) fn entry_at(file: &mut File, at: u64) -> std::io::Result<Entry> {
    let incomplete = || std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the entry is not whole");
    let h = header(file, at)?.ok_or_else(incomplete)?;
    if h.kind != OFS_DELTA && h.kind != REF_DELTA || h.size > MAX_OBJECT {
        return Ok(Entry::Whole(h.size));
    }
    let (_, head) = inflate(file, h.data, h.size)?;
    let result = delta_result(&head);
    match h.base {
        Some(base) => Ok(Entry::OfsDelta { result, base }),
        None => {
            let mut id = [0u8; 20];
            file.seek(SeekFrom::Start(h.data - 20))?;
            file.read_exact(&mut id)?;
            Ok(Entry::RefDelta { result, base: id })
        }
    }
}
