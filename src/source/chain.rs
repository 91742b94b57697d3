//! What reading one object of a local repository's packs costs. An
//! object's header declares its own size only: a 1 KB file stored as a
//! delta of a 2 GB base inflates the base to be read. So the delta chain
//! is walked in the pack first (found through the pack's index), each link
//! judged by its header and a delta by the head of its instructions,
//! nothing inflated past them.

use std::fs::File;
use std::path::{Path, PathBuf};

use git2::Oid;

use super::guard::{entry_at, Entry};

/// A chain longer than this is taken for a loop.
const MAX_LINKS: usize = 10_000;

/// The version-2 pack indexes of a repository, read once.
pub(super) struct PackIndex {
    packs: Vec<(Vec<u8>, PathBuf)>,
}

impl std::fmt::Debug for PackIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.packs.iter().map(|(_, p)| p)).finish()
    }
}

/// What rebuilding an object costs: every link's size in all, and the
/// largest link (what must be held at once, twice over).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Cost {
    pub(super) total: u64,
    pub(super) largest: u64,
}

impl PackIndex {
    /// The indexes under `git_dir/objects/pack` (an index over `cap`
    /// bytes, or not of version 2, is left out).
    pub(super) fn open(git_dir: &Path, cap: u64) -> PackIndex {
        let dir = git_dir.join("objects").join("pack");
        let mut packs = Vec::new();
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "idx") {
                continue;
            }
            let Ok(bytes) = crate::bounded::read(&path, cap) else { continue };
            if bytes.get(..8) == Some(&[0xff, b't', b'O', b'c', 0, 0, 0, 2][..]) && bytes.len() >= 8 + 1024 {
                packs.push((bytes, path.with_extension("pack")));
            }
        }
        PackIndex { packs }
    }

    /// Where `id` is: which pack, at which offset.
    fn find(&self, id: &[u8]) -> Option<(usize, u64)> {
        let word =
            |b: &[u8], at: usize| -> Option<u32> { Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?)) };
        for (p, (idx, _)) in self.packs.iter().enumerate() {
            let first = *id.first()? as usize;
            let lo = if first == 0 { 0 } else { word(idx, 8 + 4 * (first - 1))? as usize };
            let hi = word(idx, 8 + 4 * first)? as usize;
            let n = word(idx, 8 + 4 * 255)? as usize;
            let names = 8 + 1024;
            let (mut a, mut b) = (lo, hi.min(n));
            while a < b {
                let mid = (a + b) / 2;
                let name = idx.get(names + 20 * mid..names + 20 * mid + 20)?;
                match name.cmp(id) {
                    std::cmp::Ordering::Less => a = mid + 1,
                    std::cmp::Ordering::Greater => b = mid,
                    std::cmp::Ordering::Equal => {
                        let offsets = names + 24 * n;
                        let small = word(idx, offsets + 4 * mid)?;
                        if small & 0x8000_0000 == 0 {
                            return Some((p, u64::from(small)));
                        }
                        let at = offsets + 4 * n + 8 * (small & 0x7fff_ffff) as usize;
                        return Some((p, u64::from_be_bytes(idx.get(at..at + 8)?.try_into().ok()?)));
                    }
                }
            }
        }
        None
    }

    /// What reading `id` costs, `None` when no pack holds it (a loose
    /// object is stored whole: its header is its cost). A chain that cannot
    /// be followed, or loops, costs `u64::MAX`.
    pub(super) fn cost(&self, id: Oid) -> Option<u64> {
        self.chain(id).map(|c| c.total.max(c.largest))
    }

    /// Every link's size in all, and the largest (`None` when no pack
    /// holds `id`; a chain that cannot be followed costs `u64::MAX`).
    pub(super) fn chain(&self, id: Oid) -> Option<Cost> {
        let broken = Cost { total: u64::MAX, largest: u64::MAX };
        let (mut pack, mut at) = self.find(id.as_bytes())?;
        let mut cost = Cost { total: 0, largest: 0 };
        let mut file = match File::open(&self.packs[pack].1) {
            Ok(f) => f,
            Err(_) => return Some(broken),
        };
        for _ in 0..MAX_LINKS {
            let Ok(entry) = entry_at(&mut file, at) else { return Some(broken) };
            let (size, next) = match entry {
                Entry::Whole(size) => (size, None),
                Entry::OfsDelta { result, base } if base < at => (result, Some((pack, base))),
                Entry::RefDelta { result, base } => match self.find(&base) {
                    Some(found) => (result, Some(found)),
                    None => return Some(broken),
                },
                Entry::OfsDelta { .. } => return Some(broken),
            };
            cost.total = cost.total.saturating_add(size);
            cost.largest = cost.largest.max(size);
            let Some((p, base)) = next else { return Some(cost) };
            if p != pack {
                file = match File::open(&self.packs[p].1) {
                    Ok(f) => f,
                    Err(_) => return Some(broken),
                };
                pack = p;
            }
            at = base;
        }
        Some(broken)
    }
}
