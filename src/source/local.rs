//! A `file://` remote copied by hand at depth 1. libgit2's local transport
//! refuses a shallow fetch, and without depth it packs the tag's whole
//! history itself (25 s for a tag of a 1,000-commit repository, to read one
//! tree). So the objects each tag needs — its tag objects, its commit and
//! the commit's tree — that the cache lacks are packed from the source
//! repository into one pack in the cache, the refs set and the commits
//! recorded as shallow, as a depth-1 fetch over the network leaves them.

use std::collections::HashSet;
use std::io::Write;
use std::path::Path;

use git2::{ObjectType, Oid, Repository};

use super::ceiling::{Reached, Tally};
use super::chain::PackIndex;

/// The largest pack index read to follow a delta chain (a million objects
/// take 28 MB).
pub(super) const MAX_INDEX: u64 = 256 * 1024 * 1024;
use super::error::SourceError;
use super::refs::{valid_name, Listed, RemoteTag, Transfer};

/// The repository a `file://` URL names, when it opens as one; `None`
/// leaves the URL to libgit2's local transport.
pub(super) fn source(url: &str) -> Option<Repository> {
    let path = url.strip_prefix("file://").filter(|p| p.starts_with('/'))?;
    Repository::open_ext(Path::new(path), git2::RepositoryOpenFlags::NO_SEARCH, std::iter::empty::<&str>()).ok()
}

/// The tags of a local repository, peeled as a server would list them.
pub(super) fn local_tags(git: &Repository) -> Result<Listed, SourceError> {
    let mut tags = Vec::new();
    let mut invalid = Vec::new();
    for r in git.references_glob("refs/tags/*")? {
        let r = r?;
        let Some(name) = r.name().ok().and_then(|n| n.strip_prefix("refs/tags/")) else { continue };
        if !valid_name(name) {
            invalid.push(name.to_string());
            continue;
        }
        let id = r.peel(git2::ObjectType::Commit).map(|c| c.id()).ok().or_else(|| r.target());
        if let Some(id) = id {
            tags.push(RemoteTag { name: name.to_string(), commit: id.to_string() });
        }
    }
    tags.sort_by(|a, b| a.name.cmp(&b.name));
    invalid.sort();
    Ok(Listed { tags, invalid })
}

/// What one copy gathers: the objects the cache lacks, in the order they
/// are met, each checked against the ceilings by its header before any is
/// read whole.
struct Copy<'s> {
    have: git2::Odb<'s>,
    from: git2::Odb<'s>,
    wanted: Vec<(Oid, ObjectType)>,
    seen: HashSet<Oid>,
    tally: Tally,
    chain: PackIndex,
}

/// A copy that could not be made: git's error, or a ceiling reached.
pub(super) enum CopyError {
    Git(git2::Error),
    Ceiling(Reached),
}

impl From<git2::Error> for CopyError {
    fn from(e: git2::Error) -> CopyError {
        CopyError::Git(e)
    }
}

impl Copy<'_> {
    fn add(&mut self, id: Oid) -> Result<bool, CopyError> {
        if !self.seen.insert(id) || self.have.exists(id) {
            return Ok(false);
        }
        let (size, kind) = self.from.read_header(id)?;
        let size = u64::try_from(size).unwrap_or(u64::MAX);
        // A delta's header declares its result only: its chain's links,
        // read from the source's packs, are what reading it inflates.
        let cost = self.chain.cost(id).unwrap_or(size).max(size);
        self.tally.object(cost, cost).map_err(CopyError::Ceiling)?;
        self.wanted.push((id, kind));
        Ok(true)
    }

    /// A tree and everything under it that the cache lacks; a folder the
    /// cache has is there whole (it came in one pack), so it is not entered.
    fn add_tree(&mut self, src: &Repository, root: Oid, go_on: &dyn Fn() -> bool) -> Result<(), CopyError> {
        let mut stack = vec![root];
        while let Some(id) = stack.pop() {
            if !self.add(id)? {
                continue;
            }
            if !go_on() {
                return Err(git2::Error::from_str("the copy was stopped").into());
            }
            for entry in src.find_tree(id)?.iter() {
                match entry.kind() {
                    Some(ObjectType::Tree) => stack.push(entry.id()),
                    Some(ObjectType::Blob) => {
                        self.add(entry.id())?;
                    }
                    // A submodule's commit is not in this repository.
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// Streams the objects gathered into one pack in the cache, one object
    /// in memory at a time; the pack is indexed and kept only when whole.
    fn write(&self, go_on: &dyn Fn() -> bool) -> Result<usize, CopyError> {
        if self.wanted.is_empty() {
            return Ok(0);
        }
        let io = |e: std::io::Error| git2::Error::from_str(&e.to_string());
        let mut pack = PackOut {
            writer: self.have.packwriter()?,
            sha: ring::digest::Context::new(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY),
            bytes: 0,
        };
        let count =
            u32::try_from(self.wanted.len()).map_err(|_| CopyError::Ceiling(Reached::Objects(self.tally.objects())))?;
        pack.put(b"PACK").map_err(io)?;
        pack.put(&2u32.to_be_bytes()).map_err(io)?;
        pack.put(&count.to_be_bytes()).map_err(io)?;
        for (id, kind) in &self.wanted {
            if !go_on() {
                return Err(git2::Error::from_str("the copy was stopped").into());
            }
            let object = self.from.read(*id)?;
            pack.put(&entry_header(*kind, object.len())).map_err(io)?;
            let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
            z.write_all(object.data()).map_err(io)?;
            pack.put(&z.finish().map_err(io)?).map_err(io)?;
        }
        let sum = pack.sha.finish();
        pack.writer.write_all(sum.as_ref()).map_err(io)?;
        pack.writer.commit()?;
        Ok(pack.bytes + sum.as_ref().len())
    }
}

/// A pack being written, with its running SHA-1 (its trailer).
struct PackOut<'o> {
    writer: git2::OdbPackwriter<'o>,
    sha: ring::digest::Context,
    bytes: usize,
}

impl PackOut<'_> {
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.sha.update(bytes);
        self.bytes += bytes.len();
        self.writer.write_all(bytes)
    }
}

/// A pack entry's header: its kind and inflated size, 4 bits then 7 a byte.
fn entry_header(kind: ObjectType, size: usize) -> Vec<u8> {
    let code: u8 = match kind {
        ObjectType::Commit => 1,
        ObjectType::Tree => 2,
        ObjectType::Blob => 3,
        _ => 4,
    };
    let mut size = size as u64;
    let mut out = vec![(code << 4) | (size & 0x0f) as u8];
    size >>= 4;
    while size > 0 {
        if let Some(last) = out.last_mut() {
            *last |= 0x80;
        }
        out.push((size & 0x7f) as u8);
        size >>= 7;
    }
    out
}

/// Copies `tags` of `src` into the bare repository `dst` at depth 1 (see
/// the module's doc). `go_on` is called as the copy progresses; false stops
/// it. The objects are counted against the fetch's ceilings by their
/// headers before any is copied, and streamed into one pack: nothing is
/// added to `dst` unless all of it is. The counts are those of the pack.
pub(super) fn copy_tags(
    src: &Repository,
    dst: &Repository,
    tags: &[String],
    go_on: &dyn Fn() -> bool,
) -> Result<Transfer, CopyError> {
    let mut copy = Copy {
        have: dst.odb()?,
        from: src.odb()?,
        wanted: Vec::new(),
        seen: HashSet::new(),
        tally: Tally::default(),
        chain: PackIndex::open(src.path(), MAX_INDEX),
    };
    let mut refs = Vec::new();
    let mut shallow = Vec::new();
    for tag in tags {
        let target = src.find_reference(&format!("refs/tags/{tag}"))?.resolve()?;
        let target = target.target().ok_or_else(|| git2::Error::from_str("a tag without a target"))?;
        refs.push((tag, target));
        // A tag of a tag of … a commit: each object on the way.
        let mut next = Some(target);
        while let Some(id) = next.take() {
            // Its kind from its header: nothing is read before its size is
            // counted.
            match copy.from.read_header(id)?.1 {
                ObjectType::Tag => {
                    copy.add(id)?;
                    next = Some(src.find_tag(id)?.target_id());
                }
                ObjectType::Commit => {
                    copy.add(id)?;
                    shallow.push(id);
                    let tree = src.find_commit(id)?.tree_id();
                    copy.add_tree(src, tree, go_on)?;
                }
                ObjectType::Tree => copy.add_tree(src, id, go_on)?,
                _ => {
                    copy.add(id)?;
                }
            }
        }
    }
    let objects = copy.wanted.len();
    let bytes = copy.write(go_on)?;
    // The commits are shallow roots: their parents were not copied.
    let file = dst.path().join("shallow");
    let mut roots: Vec<String> =
        std::fs::read_to_string(&file).unwrap_or_default().lines().map(str::to_string).collect();
    roots.extend(shallow.iter().map(Oid::to_string));
    roots.sort();
    roots.dedup();
    std::fs::write(&file, roots.iter().map(|r| format!("{r}\n")).collect::<String>())
        .map_err(|e| git2::Error::from_str(&format!("cannot write {}: {e}", file.display())))?;
    for (tag, target) in refs {
        dst.reference(&format!("refs/tags/{tag}"), target, true, "knobs sync")?;
    }
    Ok(Transfer { objects, bytes })
}
