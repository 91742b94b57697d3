//! Did-you-mean: the one place that says which known names are close to a
//! name nobody knows. Lint rules, the overlay check and `knobs.toml` ask
//! for the one closest name within a typo's reach; explain lists a few;
//! the source lists the tags most like a missing one. They differ only in
//! how far a candidate may be and how many are shown, which the callers
//! pass.

/// How many edits a typo of `name` may make: 1 up to 4 characters, 2 up
/// to 11, 3 beyond.
pub(crate) fn typo_limit(name: &str) -> usize {
    match name.chars().count() {
        0..=4 => 1,
        5..=11 => 2,
        _ => 3,
    }
}

/// The closest candidate to `name`, when it is close enough to be a typo
/// ([`typo_limit`] edits).
pub fn suggest<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    suggest_within(name, candidates, typo_limit(name))
}

/// The closest candidate other than `name` itself at most `limit` edits
/// from it; of equally close ones, the first in byte order.
pub fn suggest_within<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>, limit: usize) -> Option<&'c str> {
    within(name, candidates.into_iter().filter(|c| *c != name), limit).min().map(|(_, c)| c)
}

/// Every candidate at most `limit` edits from `name` (`name` itself
/// included), closest first, then in byte order, each once.
pub fn ranked<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>, limit: usize) -> Vec<&'c str> {
    let mut scored: Vec<(usize, &str)> = within(name, candidates, limit).collect();
    scored.sort_unstable();
    scored.dedup();
    scored.into_iter().map(|(_, c)| c).collect()
}

/// The `n` candidates most like `name` by edits relative to their length,
/// however far: for listing what there is (the tags of a repository) rather
/// than guessing a typo.
pub fn most_similar(name: &str, candidates: impl IntoIterator<Item = String>, n: usize) -> Vec<String> {
    let mut scored: Vec<(f64, String)> =
        candidates.into_iter().map(|c| (strsim::normalized_damerau_levenshtein(&c, name), c)).collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    scored.into_iter().take(n).map(|(_, c)| c).collect()
}

/// The candidates at most `limit` edits from `name`, with their distance.
/// Two cheap bounds come first, each computed for `name` once: lengths
/// further apart than the limit, and characters one has that the other
/// lacks ([`bag_within`]); only what passes both has its distance worked out.
fn within<'a, 'c>(
    name: &'a str,
    candidates: impl IntoIterator<Item = &'c str> + 'a,
    limit: usize,
) -> impl Iterator<Item = (usize, &'c str)> + 'a {
    let len = name.chars().count();
    let bag = Bag::of(name);
    candidates
        .into_iter()
        // Lengths further apart than the limit cannot be within it.
        .filter(move |c| c.len().abs_diff(name.len()) <= limit * 4 && c.chars().count().abs_diff(len) <= limit)
        .filter(move |c| bag_within(bag.as_ref(), c, limit))
        .map(move |c| (strsim::damerau_levenshtein(name, c), c))
        .filter(move |(d, _)| *d <= limit)
}

/// How many of each ASCII character a name holds (none for a name that is
/// not ASCII: the bound is then not used).
struct Bag {
    counts: [u32; 128],
    len: usize,
}

impl Bag {
    fn of(s: &str) -> Option<Bag> {
        if !s.is_ascii() {
            return None;
        }
        let mut counts = [0u32; 128];
        for c in s.bytes() {
            counts[usize::from(c)] += 1;
        }
        Some(Bag { counts, len: s.len() })
    }
}

/// Whether the bag distance of the name counted in `bag` and `b` — a lower
/// bound of the edit distance: how many characters one has that the other
/// lacks (each insertion, deletion or substitution changes that by at most
/// one; a transposition not at all) — is within `limit`.
fn bag_within(bag: Option<&Bag>, b: &str, limit: usize) -> bool {
    let Some(bag) = bag else { return true };
    if !b.is_ascii() {
        return true;
    }
    // What the two share, as a multiset: the rest of each is what it has
    // that the other lacks.
    let (mut counts, mut shared) = (bag.counts, 0usize);
    for c in b.bytes() {
        let n = &mut counts[usize::from(c)];
        if *n > 0 {
            *n -= 1;
            shared += 1;
        }
    }
    (bag.len - shared).max(b.len() - shared) <= limit
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos() {
        assert_eq!(suggest("--checkpoint-polcy", ["--checkpoint-policy", "--port"]), Some("--checkpoint-policy"));
        assert_eq!(suggest("--cpuset-cpus", ["--checkpoint-policy", "--port"]), None);
        assert_eq!(suggest("port", ["port", "pork"]), Some("pork"), "a name is not its own typo");
        assert_eq!(suggest_within("abcd", ["abdc", "abce"], 1), Some("abce"), "a transposition is one edit");
    }

    #[test]
    fn rankings() {
        assert_eq!(ranked("port", ["pork", "port", "pork", "fort", "sort-x"], 1), ["port", "fort", "pork"]);
        let tags = ["v1.2.0", "v1.2.1", "v2.0.0"].map(String::from);
        assert_eq!(most_similar("v1.2.2", tags, 2), ["v1.2.0", "v1.2.1"]);
    }

    /// Over 100,000 candidates made to pass the length bound (many of them
    /// anagrams of the name), the prefilter keeps exactly what the full
    /// distance keeps.
    #[test]
    fn the_prefilter_agrees_with_the_distance_over_many_candidates() {
        let name = "--checkpoint-polcy";
        let mut names: Vec<String> = Vec::new();
        for i in 0..100_000u32 {
            let mut b: Vec<u8> = name.bytes().collect();
            let (x, y) = (2 + (i as usize * 7) % 16, 2 + (i as usize * 13) % 16);
            b.swap(x, y);
            b[2 + (i as usize % 16)] = b"abcdefghijklmnopqrstuvwxyz-"[(i / 16 % 27) as usize];
            names.push(String::from_utf8(b).unwrap_or_default());
        }
        names.push("--checkpoint-policy".into());
        for limit in 1..4 {
            let mut want: Vec<(usize, &str)> = names
                .iter()
                .map(|n| (strsim::damerau_levenshtein(name, n), n.as_str()))
                .filter(|(d, _)| *d <= limit)
                .collect();
            want.sort();
            want.dedup();
            let want: Vec<&str> = want.into_iter().map(|(_, n)| n).collect();
            assert_eq!(ranked(name, names.iter().map(String::as_str), limit), want, "within {limit}");
        }
        let best = names
            .iter()
            .filter(|n| n.as_str() != name)
            .map(|n| (strsim::damerau_levenshtein(name, n), n.as_str()))
            .filter(|(d, _)| *d <= typo_limit(name))
            .min()
            .map(|(_, n)| n);
        assert_eq!(suggest(name, names.iter().map(String::as_str)), best);
    }

    /// The cheap bounds drop only candidates the full distance would drop:
    /// `ranked` is every candidate within the limit, sorted and deduplicated.
    #[test]
    fn the_bounds_drop_nothing_within_the_limit() {
        let alphabet: Vec<char> = "ab-_xé𝄞".chars().collect();
        let mut seed = 0x2545_f491_u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            usize::try_from(seed % u64::try_from(n).unwrap_or(1)).unwrap_or(0)
        };
        let word = |next: &mut dyn FnMut(usize) -> usize| -> String {
            let len = next(9);
            (0..len).map(|_| alphabet[next(alphabet.len())]).collect()
        };
        for _ in 0..300 {
            let name = word(&mut next);
            let names: Vec<String> = (0..40).map(|_| word(&mut next)).collect();
            for limit in 0..5 {
                let mut want: Vec<(usize, &str)> = names
                    .iter()
                    .map(|n| (strsim::damerau_levenshtein(&name, n), n.as_str()))
                    .filter(|(d, _)| *d <= limit)
                    .collect();
                want.sort();
                want.dedup();
                let want: Vec<&str> = want.into_iter().map(|(_, n)| n).collect();
                assert_eq!(ranked(&name, names.iter().map(String::as_str), limit), want, "{name} within {limit}");
            }
        }
    }
}
