//! Tags as people and catalogues write them: `v1.0.13` before `v1.8.1` before
//! `v1.10.0`, and `1.8.1` the same tag as `v1.8.1`. The store sorts versions
//! by it, a profile's renames apply from a tag by it, and an image pin names a
//! catalogue by it.

use std::cmp::Ordering;

/// Orders tags such as `v1.0.13` < `v1.8.1` < `v1.10.0` by their numbers; a
/// pre-release (`v0.20.1rc0`, `v0.9.0.dev1`, `1.2.0-beta.2`) comes before its
/// release.
pub fn compare_tags(a: &str, b: &str) -> Ordering {
    /// The release's numbers, then the pre-release's (none: a release).
    fn parts(t: &str) -> (Vec<u64>, Option<Vec<u64>>) {
        let t = t.trim_start_matches(|c: char| !c.is_ascii_digit());
        let cut = t
            .char_indices()
            .find(|&(i, c)| c.is_ascii_alphabetic() && (i == 0 || !t[..i].ends_with(|p: char| p.is_ascii_alphabetic())))
            .map_or(t.len(), |(i, _)| i);
        let numbers =
            |s: &str| -> Vec<u64> { s.split(|c: char| !c.is_ascii_digit()).filter_map(|p| p.parse().ok()).collect() };
        let (release, pre) = t.split_at(cut);
        (numbers(release), (!pre.is_empty()).then(|| numbers(pre)))
    }
    let ((ra, pa), (rb, pb)) = (parts(a), parts(b));
    ra.cmp(&rb)
        .then_with(|| match (pa, pb) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Greater,
            (Some(_), None) => Ordering::Less,
            (Some(x), Some(y)) => x.cmp(&y),
        })
        .then_with(|| a.cmp(b))
}

/// `1.8.1` and `v1.8.1` name the same tag.
pub fn same_tag(a: &str, b: &str) -> bool {
    a == b || a.trim_start_matches('v') == b.trim_start_matches('v')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pre_release_comes_before_its_release() {
        let mut tags = vec!["v0.20.1", "v0.20.1rc0", "v0.20.0", "v0.20.2rc0", "v0.9.0.dev1", "v0.9.0", "v0.10.0"];
        tags.sort_by(|a, b| compare_tags(a, b));
        assert_eq!(tags, ["v0.9.0.dev1", "v0.9.0", "v0.10.0", "v0.20.0", "v0.20.1rc0", "v0.20.1", "v0.20.2rc0"]);
        assert_eq!(compare_tags("b3716", "b10573"), Ordering::Less);
        assert_eq!(compare_tags("1.2.0-beta.2", "1.2.0-beta.10"), Ordering::Less);
        assert_eq!(compare_tags("1.2.0-beta.10", "1.2.0"), Ordering::Less);
    }
}
