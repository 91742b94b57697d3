//! Which tags `knobs sync --tags PATTERN` reads: a glob (`b4*`, `v1.?.0`)
//! or an inclusive range in tag order (`b4000..b10573`, `b4000..`,
//! `..v1.8.1`), and, when a pattern names no tag, the tags nearest to it.

use super::super::tag::{compare_tags, same_tag};

/// A `--tags` pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TagPattern {
    /// `*` any run of characters, `?` one character, `[0-2]`/`[abc]` one of
    /// a set (`[!…]` one not in it), the rest literal.
    Glob(String),
    /// Both ends included; an end left out is open.
    Range { from: Option<String>, to: Option<String> },
}

/// A pattern that cannot name tags.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    #[error("--tags needs a pattern: a glob such as `b4*` or a range such as `b4000..b5000`")]
    Empty,
    #[error("--tags `{0}` has more than one `..`: a range is FROM..TO, either end optional")]
    TwoRanges(String),
    #[error("--tags `{0}`: an end of a range is a tag, not a glob (`*`, `?` and `[…]` are for globs)")]
    GlobInRange(String),
    #[error("--tags `{pattern}`: {from} comes after {to} in tag order; write the older tag first")]
    Reversed { pattern: String, from: String, to: String },
}

impl TagPattern {
    pub fn parse(text: &str) -> Result<TagPattern, PatternError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(PatternError::Empty);
        }
        let Some((from, to)) = text.split_once("..") else { return Ok(TagPattern::Glob(text.to_string())) };
        if to.contains("..") {
            return Err(PatternError::TwoRanges(text.to_string()));
        }
        if text.contains(['*', '?', '[']) {
            return Err(PatternError::GlobInRange(text.to_string()));
        }
        let end = |s: &str| (!s.is_empty()).then(|| s.to_string());
        let (from, to) = (end(from), end(to));
        if let (Some(f), Some(t)) = (&from, &to) {
            if compare_tags(f, t).is_gt() && !same_tag(f, t) {
                return Err(PatternError::Reversed { pattern: text.to_string(), from: f.clone(), to: t.clone() });
            }
        }
        Ok(TagPattern::Range { from, to })
    }

    /// True when the pattern names `tag`.
    pub fn matches(&self, tag: &str) -> bool {
        match self {
            TagPattern::Glob(g) => glob(g.as_bytes(), tag.as_bytes()),
            TagPattern::Range { from, to } => {
                let after = |f: &String| same_tag(f, tag) || compare_tags(f, tag).is_le();
                let before = |t: &String| same_tag(t, tag) || compare_tags(tag, t).is_le();
                from.as_ref().is_none_or(after) && to.as_ref().is_none_or(before)
            }
        }
    }

    /// The tags of `sorted` (in tag order) nearest to what the pattern
    /// names, `n` at most: for a range, those around its ends; for a glob,
    /// the most similar to its literal part.
    pub fn nearest(&self, sorted: &[String], n: usize) -> Vec<String> {
        match self {
            TagPattern::Glob(g) => {
                let literal: String = g.chars().filter(|c| !"*?[]!".contains(*c)).collect();
                let mut near = crate::suggest::most_similar(&literal, sorted.iter().cloned(), n);
                near.sort_by(|a, b| compare_tags(a, b));
                near
            }
            TagPattern::Range { from, to } => {
                let Some(end) = from.as_ref().or(to.as_ref()) else { return Vec::new() };
                let at = sorted.partition_point(|t| compare_tags(t, end).is_lt());
                let lo = at.saturating_sub(n / 2);
                let hi = (lo + n).min(sorted.len());
                sorted[hi.saturating_sub(n)..hi].to_vec()
            }
        }
    }
}

/// `*`, `?` and `[…]` over bytes (tags are ASCII in practice; a
/// multi-byte character is matched by `*`, or byte by byte). A `[` with no
/// closing `]` is a literal `[`.
fn glob(p: &[u8], s: &[u8]) -> bool {
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        let step = match p.get(pi) {
            Some(b'*') => {
                star = Some((pi, si));
                pi += 1;
                continue;
            }
            Some(b'?') => Some(1),
            Some(b'[') => match class(&p[pi..], s[si]) {
                Some((true, len)) => Some(len),
                Some((false, _)) => None,
                None => (s[si] == b'[').then_some(1),
            },
            Some(c) => (*c == s[si]).then_some(1),
            None => None,
        };
        match (step, star) {
            (Some(len), _) => {
                pi += len;
                si += 1;
            }
            (None, Some((sp, ss))) => {
                pi = sp + 1;
                si = ss + 1;
                star = Some((sp, ss + 1));
            }
            (None, None) => return false,
        }
    }
    p[pi.min(p.len())..].iter().all(|c| *c == b'*')
}

/// A `[…]` set at the start of `p` against `c`: whether `c` is in it and
/// the set's length; `None` when there is no closing `]`.
fn class(p: &[u8], c: u8) -> Option<(bool, usize)> {
    let negated = p.get(1) == Some(&b'!');
    let start = if negated { 2 } else { 1 };
    // A `]` first in the set is one of its members.
    let close = start + 1 + p.get(start + 1..)?.iter().position(|b| *b == b']')?;
    let set = p.get(start..close)?;
    let mut found = false;
    let mut i = 0;
    while i < set.len() {
        if set.get(i + 1) == Some(&b'-') && i + 2 < set.len() {
            found |= (set[i]..=set[i + 2]).contains(&c);
            i += 3;
        } else {
            found |= set[i] == c;
            i += 1;
        }
    }
    Some((found != negated, close + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_and_ranges_name_tags_in_tag_order() {
        let g = TagPattern::parse("b4*").expect("glob");
        assert!(g.matches("b4") && g.matches("b4999") && !g.matches("b5000") && !g.matches("xb4"));
        let q = TagPattern::parse("v1.?.0").expect("glob");
        assert!(q.matches("v1.8.0") && !q.matches("v1.10.0"));
        let c = TagPattern::parse("v0.1[0-2].*").expect("glob");
        assert!(c.matches("v0.10.0") && c.matches("v0.12.1rc1") && !c.matches("v0.13.0") && !c.matches("v0.1.0"));
        let not = TagPattern::parse("b[!4]*").expect("glob");
        assert!(not.matches("b5000") && !not.matches("b4000"));
        assert!(TagPattern::parse("v[1").expect("glob").matches("v[1"), "an open `[` is literal");
        let r = TagPattern::parse("b999..b4100").expect("range");
        assert!(
            r.matches("b999") && r.matches("b4100") && r.matches("b1000") && !r.matches("b4101") && !r.matches("b99")
        );
        let open = TagPattern::parse("v1.8.1..").expect("open");
        assert!(open.matches("1.8.1") && open.matches("v1.10.0") && !open.matches("v1.0.13"));
        assert!(TagPattern::parse("..v1.0.13").expect("open").matches("v1.0.13"));
        assert!(TagPattern::parse("..").expect("all").matches("anything"));
    }

    #[test]
    fn a_bad_pattern_says_why() {
        assert_eq!(TagPattern::parse(" "), Err(PatternError::Empty));
        assert_eq!(TagPattern::parse("a..b..c"), Err(PatternError::TwoRanges("a..b..c".into())));
        assert_eq!(TagPattern::parse("b4*..b5"), Err(PatternError::GlobInRange("b4*..b5".into())));
        assert_eq!(TagPattern::parse("b[4]..b5"), Err(PatternError::GlobInRange("b[4]..b5".into())));
        let e = TagPattern::parse("b5000..b4000").err().map(|e| e.to_string()).unwrap_or_default();
        assert_eq!(e, "--tags `b5000..b4000`: b5000 comes after b4000 in tag order; write the older tag first");
    }

    #[test]
    fn the_nearest_tags_of_a_pattern_naming_none() {
        let tags: Vec<String> = ["b1", "b2", "b3", "b10", "b20"].iter().map(|t| t.to_string()).collect();
        let r = TagPattern::parse("b11..b15").expect("range");
        assert_eq!(r.nearest(&tags, 2), ["b10", "b20"]);
        assert_eq!(TagPattern::parse("b30..").expect("range").nearest(&tags, 2), ["b10", "b20"]);
        assert!(TagPattern::parse("c2*").expect("glob").nearest(&tags, 3).contains(&"b2".to_string()));
    }
}
