//! The source files of a pinned tree that the extractor reads (C/C++ for
//! metrics, Python for a whole catalogue: by extension), found by a walk that a hostile tree cannot make costly: each blob is read once
//! by its id however many paths point at it, sizes are read from object
//! headers before anything is inflated, and there is a ceiling on each
//! file, on the bytes read in all, on the size of a tree object and on the
//! entries visited. What is passed over is said in a note, never silently.
//! Only the files the caller keeps (those that name a metric prefix) stay
//! in memory.

use std::path::Path;

use git2::{ObjectType, Oid};
use rustc_hash::FxHashSet;

use super::error::SourceError;
use super::tree::{PinnedTree, MAX_FILE};

/// The ceilings of one walk.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest C++ file read.
    pub file: usize,
    /// Most C++ bytes read in all.
    pub total: usize,
    /// Largest tree object (a folder's listing) read.
    pub tree: usize,
    /// Most tree entries visited.
    pub entries: usize,
    /// Longest path followed.
    pub path: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { file: MAX_FILE, total: 256 * 1024 * 1024, tree: 16 * 1024 * 1024, entries: 2_000_000, path: 4096 }
    }
}

/// The C++ files kept, as (path, text), and a note for each kind of thing
/// passed over.
#[derive(Debug, Default)]
pub struct CppSources {
    pub files: Vec<(String, String)>,
    pub notes: Vec<String>,
}

/// What a walk passed over, counted (with the first few paths named).
#[derive(Default)]
struct Passed {
    missing: Vec<String>,
    missing_count: usize,
    large: Vec<String>,
    large_count: usize,
    over_total: usize,
    big_trees: Vec<String>,
    stopped: bool,
    long_paths: usize,
}

/// How many paths a note names before it says "and N more".
const NAMED: usize = 10;

fn push_named(list: &mut Vec<String>, count: &mut usize, path: &str) {
    *count += 1;
    if list.len() < NAMED {
        list.push(path.to_string());
    }
}

fn named(list: &[String], count: usize) -> String {
    let mut out = list.join(", ");
    if count > list.len() {
        out.push_str(&format!(" and {} more", count - list.len()));
    }
    out
}

/// Which files a walk reads, by extension, and how its notes name them.
#[derive(Debug, Clone, Copy)]
pub struct Wanted {
    pub extensions: &'static [&'static str],
    /// The language, as notes name it (`C++`).
    pub noun: &'static str,
    /// What the files are read for, as notes say it (`metrics`).
    pub purpose: &'static str,
}

/// The C/C++ files metrics are read from.
pub const CPP: Wanted = Wanted {
    extensions: &[".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh", ".hxx", ".inc"],
    noun: "C++",
    purpose: "metrics",
};

/// The Python files a Python engine's catalogue is read from.
pub const PYTHON: Wanted = Wanted { extensions: &[".py"], noun: "Python", purpose: "the catalogue" };

fn files(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun} file")
    } else {
        format!("{n} {noun} files")
    }
}

fn mib(bytes: usize) -> String {
    if bytes >= 1024 * 1024 && bytes.is_multiple_of(1024 * 1024) {
        format!("{} MiB", bytes / (1024 * 1024))
    } else {
        format!("{bytes} bytes")
    }
}

impl PinnedTree {
    /// Every C/C++ file at the tag (at or below `under`, when given:
    /// `tools/server/`, `src/metrics.cpp`) whose text `keep` accepts, within
    /// the default ceilings.
    pub fn cpp_sources(&self, under: &[String], keep: &dyn Fn(&str) -> bool) -> Result<CppSources, SourceError> {
        self.sources_within(&CPP, under, keep, Limits::default())
    }

    /// As `cpp_sources`, within `limits`.
    #[cfg(test)]
    pub fn cpp_sources_within(
        &self,
        under: &[String],
        keep: &dyn Fn(&str) -> bool,
        limits: Limits,
    ) -> Result<CppSources, SourceError> {
        self.sources_within(&CPP, under, keep, limits)
    }

    /// The files `wanted` names (by extension) at or below `under`, as
    /// `cpp_sources` reads C/C++, within `limits`.
    pub fn sources_within(
        &self,
        wanted: &Wanted,
        under: &[String],
        keep: &dyn Fn(&str) -> bool,
        limits: Limits,
    ) -> Result<CppSources, SourceError> {
        let root = self.root()?;
        let mut stack: Vec<(String, Oid)> = Vec::new();
        let mut walk = Walk { tree: self, wanted, keep, limits, seen: FxHashSet::default(), read: 0, visited: 0 };
        let mut out = CppSources::default();
        let mut passed = Passed::default();
        if under.is_empty() {
            stack.push((String::new(), root.id()));
        } else {
            for u in under.iter().rev() {
                let path = u.trim_matches('/');
                let entry = match root.get_path(Path::new(path)) {
                    Ok(e) => e,
                    Err(e) if e.code() == git2::ErrorCode::NotFound => continue,
                    Err(e) => return Err(e.into()),
                };
                match entry.kind() {
                    Some(ObjectType::Tree) => stack.push((format!("{path}/"), entry.id())),
                    Some(ObjectType::Blob) => walk.blob(path, entry.id(), &mut out, &mut passed)?,
                    _ => {}
                }
            }
        }
        // Depth first, with a stack of our own: no recursion however deep.
        while let Some((prefix, id)) = stack.pop() {
            match self.header(id)? {
                Some((size, _)) if size > limits.tree => {
                    push_named(&mut passed.big_trees, &mut 0, prefix.trim_end_matches('/'));
                    continue;
                }
                Some(_) => {}
                None => {
                    push_named(&mut passed.missing, &mut passed.missing_count, &prefix);
                    continue;
                }
            }
            let tree = self.git().find_tree(id)?;
            let mut folders = Vec::new();
            for entry in tree.iter() {
                walk.visited += 1;
                if walk.visited > limits.entries {
                    passed.stopped = true;
                    break;
                }
                let Ok(name) = entry.name() else { continue };
                if prefix.len() + name.len() + 1 > limits.path {
                    passed.long_paths += 1;
                    continue;
                }
                match entry.kind() {
                    Some(ObjectType::Tree) => folders.push((format!("{prefix}{name}/"), entry.id())),
                    Some(ObjectType::Blob) => {
                        walk.blob(&format!("{prefix}{name}"), entry.id(), &mut out, &mut passed)?
                    }
                    _ => {}
                }
            }
            if passed.stopped {
                break;
            }
            stack.extend(folders.into_iter().rev());
        }
        out.files.sort();
        out.notes = passed.notes(&self.tag, wanted, &limits, walk.read);
        Ok(out)
    }
}

/// One walk's state: the blobs seen, the bytes read.
struct Walk<'a> {
    tree: &'a PinnedTree,
    wanted: &'a Wanted,
    keep: &'a dyn Fn(&str) -> bool,
    limits: Limits,
    seen: FxHashSet<Oid>,
    read: usize,
    visited: usize,
}

impl Walk<'_> {
    fn blob(&mut self, path: &str, id: Oid, out: &mut CppSources, passed: &mut Passed) -> Result<(), SourceError> {
        // A blob met again under another path is the same text: read once.
        let wanted = self.wanted.extensions.iter().any(|e| path.ends_with(e));
        if !wanted || !self.seen.insert(id) {
            return Ok(());
        }
        let Some((size, _)) = self.tree.header(id)? else {
            push_named(&mut passed.missing, &mut passed.missing_count, path);
            return Ok(());
        };
        if size > self.limits.file {
            push_named(&mut passed.large, &mut passed.large_count, path);
            return Ok(());
        }
        if self.read + size > self.limits.total {
            passed.over_total += 1;
            return Ok(());
        }
        self.tree.judge_chain(path, id)?;
        self.read += size;
        let blob = match self.tree.git().find_blob(id) {
            Ok(b) => b,
            Err(e) if e.code() == git2::ErrorCode::NotFound => {
                push_named(&mut passed.missing, &mut passed.missing_count, path);
                return Ok(());
            }
            Err(e) => return Err(e.into()),
        };
        if blob.is_binary() {
            return Ok(());
        }
        let text = String::from_utf8_lossy(blob.content());
        if (self.keep)(&text) {
            out.files.push((path.to_string(), text.into_owned()));
        }
        Ok(())
    }
}

impl Passed {
    fn notes(&self, tag: &str, wanted: &Wanted, limits: &Limits, read: usize) -> Vec<String> {
        let (noun, purpose) = (wanted.noun, wanted.purpose);
        let files = |n| files(n, noun);
        let mut notes = Vec::new();
        if self.missing_count > 0 {
            let one = self.missing_count == 1;
            notes.push(format!(
                "{} at {tag} {} not in the repository (a partial clone?) and {} not read for {purpose}: {}",
                files(self.missing_count),
                if one { "is" } else { "are" },
                if one { "was" } else { "were" },
                named(&self.missing, self.missing_count)
            ));
        }
        if self.large_count > 0 {
            notes.push(format!(
                "{} at {tag} over {} each {} passed over for {purpose}: {}",
                files(self.large_count),
                mib(limits.file),
                if self.large_count == 1 { "was" } else { "were" },
                named(&self.large, self.large_count)
            ));
        }
        if self.over_total > 0 {
            notes.push(format!(
                "{} at {tag} {} not read for {purpose}: {} of {noun} had been read, and knobs reads at most {} from one tree",
                files(self.over_total),
                if self.over_total == 1 { "was" } else { "were" },
                mib(read),
                mib(limits.total)
            ));
        }
        if !self.big_trees.is_empty() {
            notes.push(format!(
                "folders at {tag} whose listing is over {} were not walked for {purpose}: {}",
                mib(limits.tree),
                self.big_trees.iter().map(|p| if p.is_empty() { "/" } else { p }).collect::<Vec<_>>().join(", ")
            ));
        }
        if self.long_paths > 0 {
            notes.push(format!(
                "{} paths at {tag} longer than {} bytes were not walked for {purpose}",
                self.long_paths, limits.path
            ));
        }
        if self.stopped {
            notes.push(format!(
                "the walk for {purpose} at {tag} stopped after {} entries of the tree; the rest was not read",
                limits.entries
            ));
        }
        notes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use git2::{Repository, Signature};

    /// A repository whose tag `v1` holds `entries` (path → blob content
    /// index into `blobs`), built with git2 in a temp folder.
    fn repo(dir: &Path, blobs: &[&[u8]], entries: &[(&str, usize)]) -> PinnedTree {
        let git = Repository::init_bare(dir.join("r.git")).expect("init");
        let ids: Vec<Oid> = blobs.iter().map(|b| git.blob(b).expect("blob")).collect();
        let mut index = git2::Index::new().expect("index");
        for (path, b) in entries {
            let entry = git2::IndexEntry {
                ctime: git2::IndexTime::new(0, 0),
                mtime: git2::IndexTime::new(0, 0),
                dev: 0,
                ino: 0,
                mode: 0o100644,
                uid: 0,
                gid: 0,
                file_size: 0,
                id: ids[*b],
                flags: 0,
                flags_extended: 0,
                path: path.as_bytes().to_vec(),
            };
            index.add(&entry).expect("add");
        }
        let tree = git.find_tree(index.write_tree_to(&git).expect("tree")).expect("tree");
        let sig = Signature::new("t", "t@t.invalid", &git2::Time::new(0, 0)).expect("sig");
        let id = git.commit(None, &sig, &sig, "x", &tree, &[]).expect("commit");
        git.tag_lightweight("v1", &git.find_object(id, None).expect("obj"), false).expect("tag");
        PinnedTree::open("r.git", dir, "v1", &dir.join("cache"), false).expect("open")
    }

    /// A thousand paths that point at one blob: it is read (and offered to
    /// `keep`) once, under the first path.
    #[test]
    fn one_blob_under_many_paths_is_read_once() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let paths: Vec<String> = (0..1000).map(|i| format!("gen/f{i:04}.cpp")).collect();
        let entries: Vec<(&str, usize)> = paths.iter().map(|p| (p.as_str(), 0)).collect();
        let tree = repo(tmp.path(), &[b"int m;\n"], &entries);
        let offered = std::cell::Cell::new(0);
        let found = tree
            .cpp_sources(&[], &|_| {
                offered.set(offered.get() + 1);
                true
            })
            .expect("walk");
        assert_eq!(offered.get(), 1);
        assert_eq!(found.files, [("gen/f0000.cpp".to_string(), "int m;\n".to_string())]);
        assert!(found.notes.is_empty(), "{:?}", found.notes);
    }

    /// Each ceiling passes files over with a note that counts them and
    /// names the first few; only kept files are held.
    #[test]
    fn each_ceiling_passes_over_with_a_note() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (small, big): (&[u8], Vec<u8>) = (b"a\n", vec![b'x'; 100]);
        let tree = repo(
            tmp.path(),
            &[small, &big, b"b\n", b"c\n", b"d\n", b"notes\n"],
            &[("a.cpp", 0), ("big.cpp", 1), ("b.cpp", 2), ("c.cpp", 3), ("d/e.cpp", 4), ("README", 5)],
        );
        let limits = Limits { file: 50, total: 4, tree: 1 << 20, entries: 100, path: 100 };
        let found = tree.cpp_sources_within(&[], &|t| t != "b\n", limits).expect("walk");
        // Walk order: a.cpp (2 bytes), b.cpp (2, not kept), big.cpp (over 50),
        // c.cpp (over the total of 4 read: a and b), d/e.cpp (over it too).
        assert_eq!(found.files, [("a.cpp".to_string(), "a\n".to_string())]);
        assert_eq!(
            found.notes,
            [
                "1 C++ file at v1 over 50 bytes each was passed over for metrics: big.cpp",
                "2 C++ files at v1 were not read for metrics: 4 bytes of C++ had been read, and knobs reads at most 4 bytes from one tree",
            ]
        );
        let limits = Limits { entries: 3, ..Limits::default() };
        let found = tree.cpp_sources_within(&[], &|_| true, limits).expect("walk");
        assert_eq!(
            found.notes,
            ["the walk for metrics at v1 stopped after 3 entries of the tree; the rest was not read"]
        );
        let limits = Limits { tree: 10, ..Limits::default() };
        let found = tree.cpp_sources_within(&[], &|_| true, limits).expect("walk");
        assert!(found.files.is_empty());
        assert_eq!(found.notes, ["folders at v1 whose listing is over 10 bytes were not walked for metrics: /"]);
    }

    /// A walk for Python keeps only `.py` files, and its notes name them.
    #[test]
    fn a_python_walk_reads_py_files_and_says_so() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let big = vec![b'x'; 100];
        let tree = repo(tmp.path(), &[b"a = 1\n", b"int m;\n", &big], &[("a.py", 0), ("b.cpp", 1), ("c.py", 2)]);
        let limits = Limits { file: 50, ..Limits::default() };
        let found = tree.sources_within(&PYTHON, &[], &|_| true, limits).expect("walk");
        assert_eq!(found.files, [("a.py".to_string(), "a = 1\n".to_string())]);
        assert_eq!(found.notes, ["1 Python file at v1 over 50 bytes each was passed over for the catalogue: c.py"]);
    }
}
