//! Tags as people and catalogues write them: `v1.0.13` before `v1.8.1` before
//! `v1.10.0`, and `1.8.1` the same tag as `v1.8.1`. The store sorts versions
//! by it, a profile's renames apply from a tag by it, and an image pin names a
//! catalogue by it.

use std::cmp::Ordering;

/// Orders tags such as `v1.0.13` < `v1.8.1` < `v1.10.0` by their numbers.
pub fn compare_tags(a: &str, b: &str) -> Ordering {
    fn parts(t: &str) -> Vec<u64> {
        t.trim_start_matches(|c: char| !c.is_ascii_digit())
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|p| p.parse().ok())
            .collect()
    }
    parts(a).cmp(&parts(b)).then_with(|| a.cmp(b))
}

/// `1.8.1` and `v1.8.1` name the same tag.
pub fn same_tag(a: &str, b: &str) -> bool {
    a == b || a.trim_start_matches('v') == b.trim_start_matches('v')
}
