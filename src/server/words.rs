//! The words of a line the editor points at: the subject under the cursor
//! (a flag, member, env key, metric or rule code), the word being typed,
//! and the word before it.

/// True for a character that may be part of a subject: `--max-num-seqs`,
/// `RADIANCE_X`, `radiance:steps_total`, `KNB001`, `tip-only`, `v1.8`.
pub fn is_subject_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':')
}

/// The subject around the character index `at` of `line`, with its
/// character range (trailing `.` and `:` of prose left out).
pub fn subject_at(line: &str, at: usize) -> Option<(String, usize, usize)> {
    let chars: Vec<char> = line.chars().collect();
    let mut start = at.min(chars.len());
    while start > 0 && is_subject_char(chars[start - 1]) {
        start -= 1;
    }
    let mut end = at.min(chars.len());
    while end < chars.len() && is_subject_char(chars[end]) {
        end += 1;
    }
    while end > start && matches!(chars[end - 1], '.' | ':') {
        end -= 1;
    }
    (end > start).then(|| (chars[start..end].iter().collect(), start, end))
}

/// The word before character index `start` of `line`: `--flag` in
/// `--flag value` and in `--flag=value`.
pub fn word_before(line: &str, start: usize) -> Option<String> {
    let before: String = line.chars().take(start).collect();
    let before = before.strip_suffix('=').unwrap_or(before.trim_end());
    let word: String = before.chars().rev().take_while(|c| is_subject_char(*c)).collect();
    let word: String = word.chars().rev().collect();
    (!word.is_empty()).then_some(word)
}

/// The word being typed before character index `at` (possibly empty), and
/// where it starts.
pub fn typed_before(line: &str, at: usize) -> (String, usize) {
    let chars: Vec<char> = line.chars().take(at).collect();
    let mut start = chars.len();
    while start > 0 && is_subject_char(chars[start - 1]) {
        start -= 1;
    }
    (chars[start..].iter().collect(), start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_subject_under_the_cursor_and_the_word_before_it() {
        let line = "radiance --checkpoint-policy=tip-only `RADIANCE_X`.";
        assert_eq!(subject_at(line, 12).map(|s| s.0), Some("--checkpoint-policy".into()));
        assert_eq!(subject_at(line, 31), Some(("tip-only".into(), 29, 37)));
        assert_eq!(word_before(line, 29), Some("--checkpoint-policy".into()));
        assert_eq!(subject_at(line, 41).map(|s| s.0), Some("RADIANCE_X".into()));
        assert_eq!(typed_before("radiance --che", 14), ("--che".into(), 9));
        assert_eq!(typed_before("radiance --x ", 13), (String::new(), 13));
        assert_eq!(word_before("radiance --x ", 13), Some("--x".into()));
        assert_eq!(subject_at("   ", 1), None);
    }
}
