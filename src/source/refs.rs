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

/// The tags in a ref list of `(ref name, object id)`, sorted by name, each
/// once: `refs/tags/T^{}`, when listed, gives what `refs/tags/T` peels to.
pub(super) fn tags_of(heads: &[(String, String)]) -> Vec<RemoteTag> {
    let mut tags: BTreeMap<&str, (String, bool)> = BTreeMap::new();
    for (name, id) in heads {
        let Some(tag) = name.strip_prefix("refs/tags/") else { continue };
        match tag.strip_suffix("^{}") {
            Some(peeled) => {
                tags.insert(peeled, (id.clone(), true));
            }
            None => {
                tags.entry(tag).or_insert_with(|| (id.clone(), false));
            }
        }
    }
    tags.into_iter().map(|(name, (commit, _))| RemoteTag { name: name.to_string(), commit }).collect()
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
        let pairs: Vec<(&str, &str)> = listed.iter().map(|t| (t.name.as_str(), t.commit.as_str())).collect();
        assert_eq!(pairs, [("v1", "c1"), ("v2", "c2"), ("v3", "t3")]);
    }

    #[test]
    fn a_peeled_entry_listed_first_still_wins() {
        let listed = tags_of(&heads(&[("refs/tags/v2^{}", "c2"), ("refs/tags/v2", "t2")]));
        assert_eq!(listed, [RemoteTag { name: "v2".into(), commit: "c2".into() }]);
    }

    #[test]
    fn a_refspec_names_one_tag_and_a_transfer_reads_as_counts() {
        assert_eq!(refspec("b4567"), "+refs/tags/b4567:refs/tags/b4567");
        assert_eq!(Transfer { objects: 12, bytes: 3456 }.to_string(), "fetched 12 objects, 3456 bytes");
    }
}
