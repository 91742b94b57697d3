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

use super::refs::Transfer;

/// The repository a `file://` URL names, when it opens as one; `None`
/// leaves the URL to libgit2's local transport.
pub(super) fn source(url: &str) -> Option<Repository> {
    let path = url.strip_prefix("file://").filter(|p| p.starts_with('/'))?;
    Repository::open_ext(Path::new(path), git2::RepositoryOpenFlags::NO_SEARCH, std::iter::empty::<&str>()).ok()
}

/// What one copy gathers: the objects the cache lacks, in a pack builder.
struct Copy<'s> {
    have: git2::Odb<'s>,
    pack: git2::PackBuilder<'s>,
    seen: HashSet<Oid>,
}

impl Copy<'_> {
    fn add(&mut self, id: Oid) -> Result<bool, git2::Error> {
        if !self.seen.insert(id) || self.have.exists(id) {
            return Ok(false);
        }
        self.pack.insert_object(id, None)?;
        Ok(true)
    }

    /// A tree and everything under it that the cache lacks; a folder the
    /// cache has is there whole (it came in one pack), so it is not entered.
    fn add_tree(&mut self, src: &Repository, root: Oid, go_on: &dyn Fn() -> bool) -> Result<(), git2::Error> {
        let mut stack = vec![root];
        while let Some(id) = stack.pop() {
            if !self.add(id)? {
                continue;
            }
            if !go_on() {
                return Err(git2::Error::from_str("the copy was stopped"));
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
}

/// Copies `tags` of `src` into the bare repository `dst` at depth 1 (see
/// the module's doc). `go_on` is called as the copy progresses; false stops
/// it. The counts are those of the pack written.
pub(super) fn copy_tags(
    src: &Repository,
    dst: &Repository,
    tags: &[String],
    go_on: &dyn Fn() -> bool,
) -> Result<Transfer, git2::Error> {
    let mut copy = Copy { have: dst.odb()?, pack: src.packbuilder()?, seen: HashSet::new() };
    // As many threads as cores for the delta search.
    copy.pack.set_threads(0);
    let mut refs = Vec::new();
    let mut shallow = Vec::new();
    for tag in tags {
        let target = src.find_reference(&format!("refs/tags/{tag}"))?.resolve()?;
        let target = target.target().ok_or_else(|| git2::Error::from_str("a tag without a target"))?;
        refs.push((tag, target));
        // A tag of a tag of … a commit: each object on the way.
        let mut next = Some(target);
        while let Some(id) = next.take() {
            let object = src.find_object(id, None)?;
            match object.kind() {
                Some(ObjectType::Tag) => {
                    copy.add(id)?;
                    next = object.as_tag().map(|t| t.target_id());
                }
                Some(ObjectType::Commit) => {
                    copy.add(id)?;
                    shallow.push(id);
                    let tree = object.as_commit().map(|c| c.tree_id());
                    if let Some(tree) = tree {
                        copy.add_tree(src, tree, go_on)?;
                    }
                }
                Some(ObjectType::Tree) => copy.add_tree(src, id, go_on)?,
                _ => {
                    copy.add(id)?;
                }
            }
        }
    }
    let objects = copy.pack.object_count();
    let mut buf = git2::Buf::new();
    if objects > 0 {
        copy.pack.write_buf(&mut buf)?;
        let mut writer = copy.have.packwriter()?;
        writer.write_all(&buf).map_err(|e| git2::Error::from_str(&e.to_string()))?;
        writer.commit()?;
    }
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
    Ok(Transfer { objects, bytes: buf.len() })
}
