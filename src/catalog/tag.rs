//! Tags as people and catalogues write them: `v1.0.13` before `v1.8.1` before
//! `v1.10.0`, and `1.8.1` the same tag as `v1.8.1`. The store sorts versions
//! by it, a profile's renames apply from a tag by it, and an image pin names a
//! catalogue by it.

use std::cmp::Ordering;

/// Orders tags such as `v1.0.13` < `v1.8.1` < `v1.10.0` by their numbers; a
/// pre-release (`v0.20.1rc0`, `v0.9.0.dev1`, `1.2.0-beta.2`) comes before its
/// release.
pub fn compare_tags(a: &str, b: &str) -> Ordering {
    compare_versions(a, b).then_with(|| a.cmp(b))
}

/// Tag order without its last tie-break (the names themselves): equal for
/// tags of one version, such as `1.8.1` and `v1.8.1`, which [`same_tag`]
/// takes for one. In a list sorted by [`compare_tags`] the tags of one
/// version stand together, so a binary search finds them.
pub fn compare_versions(a: &str, b: &str) -> Ordering {
    #[cfg(test)]
    tests::LOOKS.with(|n| n.set(n.get() + 1));
    /// The release's numbers, then what follows them: a pre-release ranked
    /// below the release (`dev` < `a`/`alpha` < `b`/`beta` < `rc`, then its
    /// numbers), a post-release (`.post1`) above it.
    fn parts(t: &str) -> (Vec<u64>, (i8, u8, Vec<u64>)) {
        let t = t.trim_start_matches(|c: char| !c.is_ascii_digit());
        let cut = t
            .char_indices()
            .find(|&(i, c)| c.is_ascii_alphabetic() && (i == 0 || !t[..i].ends_with(|p: char| p.is_ascii_alphabetic())))
            .map_or(t.len(), |(i, _)| i);
        let numbers =
            |s: &str| -> Vec<u64> { s.split(|c: char| !c.is_ascii_digit()).filter_map(|p| p.parse().ok()).collect() };
        let (release, rest) = t.split_at(cut);
        let label: String = rest.chars().take_while(char::is_ascii_alphabetic).collect::<String>().to_ascii_lowercase();
        let suffix = match label.as_str() {
            "" => (0, 0, Vec::new()),
            "post" => (1, 0, numbers(rest)),
            "dev" => (-1, 0, numbers(rest)),
            "a" | "alpha" => (-1, 1, numbers(rest)),
            "b" | "beta" => (-1, 2, numbers(rest)),
            "rc" | "c" | "pre" | "preview" => (-1, 3, numbers(rest)),
            // Another word (a build name): before the release, after the known labels.
            _ => (-1, 4, numbers(rest)),
        };
        (numbers(release), suffix)
    }
    let ((ra, sa), (rb, sb)) = (parts(a), parts(b));
    ra.cmp(&rb).then_with(|| sa.cmp(&sb))
}

/// `1.8.1` and `v1.8.1` name the same tag.
pub fn same_tag(a: &str, b: &str) -> bool {
    #[cfg(test)]
    tests::LOOKS.with(|n| n.set(n.get() + 1));
    a == b || a.trim_start_matches('v') == b.trim_start_matches('v')
}

/// `tag` spelled as the engine's repository spells its tags, `known` being
/// one of them: `0.9.0` is `v0.9.0` where the tags are `v0.10.0`, and
/// `v1.2.0` is `1.2.0` where they are `1.3.0`. A tag of another shape is
/// left as it is.
pub fn spelled_like(tag: &str, known: &str) -> String {
    let v_number = |t: &str| t.strip_prefix('v').is_some_and(|r| r.starts_with(|c: char| c.is_ascii_digit()));
    let number = |t: &str| t.starts_with(|c: char| c.is_ascii_digit());
    if v_number(known) && number(tag) {
        format!("v{tag}")
    } else if number(known) && v_number(tag) {
        tag[1..].to_string()
    } else {
        tag.to_string()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    thread_local! {
        /// How many times this thread compared two tags (a cost counted,
        /// not timed).
        pub(crate) static LOOKS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    #[test]
    fn a_pre_release_comes_before_its_release() {
        let mut tags = vec!["v0.20.1", "v0.20.1rc0", "v0.20.0", "v0.20.2rc0", "v0.9.0.dev1", "v0.9.0", "v0.10.0"];
        tags.sort_by(|a, b| compare_tags(a, b));
        assert_eq!(tags, ["v0.9.0.dev1", "v0.9.0", "v0.10.0", "v0.20.0", "v0.20.1rc0", "v0.20.1", "v0.20.2rc0"]);
        assert_eq!(compare_tags("b3716", "b10573"), Ordering::Less);
        assert_eq!(compare_tags("1.2.0-beta.2", "1.2.0-beta.10"), Ordering::Less);
        assert_eq!(compare_tags("1.2.0-beta.10", "1.2.0"), Ordering::Less);
        // A post-release after its release, labels in their order.
        let mut v = vec!["v0.8.5.post1", "v0.8.5", "v0.8.6", "v0.8.5rc1", "v0.8.5a2", "v0.8.5.dev3"];
        v.sort_by(|a, b| compare_tags(a, b));
        assert_eq!(v, ["v0.8.5.dev3", "v0.8.5a2", "v0.8.5rc1", "v0.8.5", "v0.8.5.post1", "v0.8.6"]);
        assert_eq!(compare_tags("1.2.0-alpha.5", "1.2.0-beta.2"), Ordering::Less);
    }

    #[test]
    fn a_tag_is_spelled_as_the_repository_spells_its_tags() {
        assert_eq!(spelled_like("0.9.0", "v0.10.0"), "v0.9.0");
        assert_eq!(spelled_like("v0.9.0", "v0.10.0"), "v0.9.0");
        assert_eq!(spelled_like("v1.2.0", "1.3.0"), "1.2.0");
        assert_eq!(spelled_like("1.2.0", "1.3.0"), "1.2.0");
        assert_eq!(spelled_like("b4100", "b4200"), "b4100");
        assert_eq!(spelled_like("latest", "v1.0.0"), "latest");
        assert_eq!(spelled_like("vnext", "1.0.0"), "vnext");
    }
}
