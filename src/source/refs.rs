//! What a repository says before anything is fetched: its tags, each
//! peeled to the commit it names, read from the ref list a server sends
//! on connecting; the refspecs that fetch a few tags and nothing else; and
//! what a fetch brought. Plain data, so that the cache, the fetch and the
//! callers share it without importing each other.

use std::collections::BTreeMap;
use std::fmt;

/// A tag as a repository lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteTag {
    /// The tag's name (`b4567`, `v1.8.1`): `refs/tags/` left off.
    pub name: String,
    /// The full id of the commit the tag peels to. An annotated tag is
    /// peeled (a server lists `refs/tags/T^{}` beside `refs/tags/T`); when
    /// a server does not say what an annotated tag peels to, this is the
    /// tag object's id.
    pub commit: String,
}

/// What one fetch received, as libgit2 counts it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Transfer {
    /// Objects received (commits, trees, blobs, tag objects).
    pub objects: usize,
    /// Bytes of pack data received.
    pub bytes: usize,
}

impl fmt::Display for Transfer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fetched {} objects, {} bytes", self.objects, self.bytes)
    }
}

/// A repository's tags, and the names in its ref list that git does not
/// take for a reference name (a server may list any bytes): those are
/// passed over, each named once, so that one of them does not fail a sync
/// of all the others.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listed {
    /// The tags, sorted by name.
    pub tags: Vec<RemoteTag>,
    /// The names passed over (`refs/tags/` left off), sorted.
    pub invalid: Vec<String>,
}

/// Whether git takes `name` for a tag's name: `refs/tags/<name>` a valid
/// reference name by git's rules (`git check-ref-format`): no control
/// character, space or any of `~^:?*[\`, no `..`, `@{` or `//`, no part
/// starting with `.` or ending in `.lock`, not ending in `/` or `.`. Written out rather than asked of libgit2, whose check leaves its
/// message behind as the thread's last error.
pub(super) fn valid_name(name: &str) -> bool {
    let bad_char = |c: char| c.is_ascii_control() || " ~^:?*[\\".contains(c);
    !name.is_empty()
        && !name.contains(bad_char)
        && !name.contains("..")
        && !name.contains("@{")
        && !name.ends_with('.')
        && name.split('/').all(|part| !part.is_empty() && !part.starts_with('.') && !part.ends_with(".lock"))
}

/// The tags in a ref list of `(ref name, object id)`, sorted by name, each
/// once: `refs/tags/T^{}`, when listed, gives what `refs/tags/T` peels to.
/// A name git would refuse is passed over into `invalid`.
pub(super) fn tags_of(heads: &[(String, String)]) -> Listed {
    let mut tags: BTreeMap<&str, (String, bool)> = BTreeMap::new();
    let mut invalid = std::collections::BTreeSet::new();
    for (name, id) in heads {
        let Some(tag) = name.strip_prefix("refs/tags/") else { continue };
        if !valid_name(tag.strip_suffix("^{}").unwrap_or(tag)) {
            invalid.insert(tag.strip_suffix("^{}").unwrap_or(tag).to_string());
            continue;
        }
        match tag.strip_suffix("^{}") {
            Some(peeled) => {
                tags.insert(peeled, (id.clone(), true));
            }
            None => {
                tags.entry(tag).or_insert_with(|| (id.clone(), false));
            }
        }
    }
    Listed {
        tags: tags.into_iter().map(|(name, (commit, _))| RemoteTag { name: name.to_string(), commit }).collect(),
        invalid: invalid.into_iter().collect(),
    }
}

/// The refspec that fetches tag `tag` into the same name, and nothing else.
pub(super) fn refspec(tag: &str) -> String {
    format!("+refs/tags/{tag}:refs/tags/{tag}")
}

/// The tags of `listed` most like `tag`, for the help of a tag not there.
pub(super) fn nearest(tag: &str, listed: &[RemoteTag]) -> Vec<String> {
    crate::suggest::most_similar(tag, listed.iter().map(|t| t.name.clone()), 5)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heads(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(n, i)| (n.to_string(), i.to_string())).collect()
    }

    #[test]
    fn annotated_tags_are_peeled_and_branches_left_out() {
        // A server lists the tag object, then what it peels to; a
        // lightweight tag names its commit; HEAD and branches are no tags.
        let listed = tags_of(&heads(&[
            ("HEAD", "c3"),
            ("refs/heads/main", "c3"),
            ("refs/tags/v2", "t2"),
            ("refs/tags/v2^{}", "c2"),
            ("refs/tags/v1", "c1"),
            ("refs/tags/v3", "t3"),
        ]));
        let pairs: Vec<(&str, &str)> = listed.tags.iter().map(|t| (t.name.as_str(), t.commit.as_str())).collect();
        assert_eq!(pairs, [("v1", "c1"), ("v2", "c2"), ("v3", "t3")]);
    }

    /// A server may list any bytes: a name git refuses (a control
    /// character, `..`, `@{`, a trailing `.lock`) is passed over and named,
    /// its peeled line too, and the other tags are kept.
    #[test]
    fn a_name_git_refuses_is_passed_over_and_named() {
        let listed = tags_of(&heads(&[
            ("refs/tags/v1", "c1"),
            ("refs/tags/v1\u{1b}[31m", "c1"),
            ("refs/tags/v1..2", "c1"),
            ("refs/tags/v1..2^{}", "c1"),
            ("refs/tags/v@{1", "c1"),
            ("refs/tags/v3.lock", "c1"),
            ("refs/tags/v2", "c2"),
            ("refs/tags/release/v4", "c4"),
        ]));
        let names: Vec<&str> = listed.tags.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["release/v4", "v1", "v2"]);
        // As libgit2 judges them.
        for name in [
            "v1",
            "release/v4",
            "v1..2",
            "v1\u{1b}[31m",
            "v@{1",
            "v3.lock",
            "a b",
            "x/",
            ".x",
            "x.",
            "a//b",
            "@",
            "a~1",
        ] {
            assert_eq!(valid_name(name), git2::Reference::is_valid_name(&format!("refs/tags/{name}")), "{name}");
        }
        assert_eq!(listed.invalid, ["v1\u{1b}[31m", "v1..2", "v3.lock", "v@{1"]);
    }

    #[test]
    fn a_peeled_entry_listed_first_still_wins() {
        let listed = tags_of(&heads(&[("refs/tags/v2^{}", "c2"), ("refs/tags/v2", "t2")]));
        assert_eq!(listed.tags, [RemoteTag { name: "v2".into(), commit: "c2".into() }]);
    }

    #[test]
    fn a_refspec_names_one_tag_and_a_transfer_reads_as_counts() {
        assert_eq!(refspec("b4567"), "+refs/tags/b4567:refs/tags/b4567");
        assert_eq!(Transfer { objects: 12, bytes: 3456 }.to_string(), "fetched 12 objects, 3456 bytes");
    }
}
