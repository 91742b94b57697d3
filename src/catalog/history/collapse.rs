//! A tag whose reading collapsed against the tag before it: a source that
//! moved its options where the profile does not look (SGLang's v0.5.14
//! generated 406 of its options from dataclass fields) reads as a build
//! that lost most of them, and every real flag would then be an error. A
//! history sync says so loudly, naming what was not read.

use super::History;

/// The fewest options a tag must have for a fall from it to count: a
/// catalogue of a handful of options may halve for real.
const MIN_BEFORE: usize = 20;

/// How many of the options not read a collapse names.
const NAMED: usize = 8;

/// One tag that read less than half the options of the tag before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collapse {
    pub tag: String,
    pub options: usize,
    pub before: String,
    pub before_options: usize,
    /// The first options of the tag before that this one did not read.
    pub missing: Vec<String>,
    /// How many options of the tag before this one did not read.
    pub missing_count: usize,
}

impl Collapse {
    /// The warning: the two tags, their counts and what was not read.
    pub fn message(&self) -> String {
        let more = self.missing_count.saturating_sub(self.missing.len());
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        format!(
            "{} read {} options where {} read {}: the source likely moved its options where the profile does not \
             look; not read: {}{more}",
            self.tag,
            self.options,
            self.before,
            self.before_options,
            self.missing.join(", ")
        )
    }
}

/// The tags of `h` (in its tag order) whose options fell below half of the
/// tag before them.
pub fn collapses(h: &History) -> Vec<Collapse> {
    let names = |i: usize| -> Vec<&str> {
        let Some(state) = h.tags.get(i).and_then(|t| h.states.get(t.state as usize)) else { return Vec::new() };
        state.flags.iter().filter_map(|r| h.flags.get(r[0] as usize)).map(|f| f.name.as_str()).collect()
    };
    let mut out = Vec::new();
    let mut before = names(0);
    for i in 1..h.tags.len() {
        let now = names(i);
        if before.len() >= MIN_BEFORE && now.len() * 2 < before.len() {
            let missing: Vec<&str> = before.iter().copied().filter(|n| !now.contains(n)).collect();
            out.push(Collapse {
                tag: h.tags[i].tag.clone(),
                options: now.len(),
                before: h.tags[i - 1].tag.clone(),
                before_options: before.len(),
                missing: missing.iter().take(NAMED).map(|s| s.to_string()).collect(),
                missing_count: missing.len(),
            });
        }
        before = now;
    }
    out
}
