//! Metric names anywhere in text, under the engine's prefixes (from its
//! profile), including inside PromQL (`rate(vllm:num_preemptions_total[5m])`).
//! A name written as a pattern (`radiance:engine_steps_*`, a regex in
//! `{__name__=~"…"}` or `grep -E`) is reported as a pattern, to be matched
//! against the catalogue rather than judged as a name.

use aho_corasick::AhoCorasick;

use crate::lint::refs::Ref;
use crate::lint::span::Span;

/// Built once per run from the engine's metric prefixes.
#[derive(Debug, Clone)]
pub struct Matcher {
    /// Finds where any prefix starts; `None` when the engine has none.
    finder: Option<AhoCorasick>,
    prefixes: Vec<String>,
    /// Each prefix with its separator written as `_` (`vllm_` for `vllm:`).
    variants: Vec<String>,
    /// The last byte every prefix ends with, when they share one.
    last_byte: Option<u8>,
    /// True when no prefix ends another (`m:` and `vm:`): each place of
    /// the shared last byte then ends at most one prefix, and the prefixes
    /// are found from that byte alone, without the automaton.
    by_last_byte: bool,
}

/// Characters that, just before a prefix, make it part of another word
/// (`https://radiance:8000`, `ghcr.io/x/radiance:1.8.1`).
fn joins_name(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '/' | '.' | '@' | '-')
}

fn name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b':'
}

/// True when the text after a name goes on as a word a metric cannot hold:
/// a `-` and a letter or digit, behind a closing quote or not
/// (`radiance:stats-port`, `"radiance:overview"-panel`): the name was cut
/// at a character no metric has, so it is a word of prose, not a metric.
fn cut_word(after: &str) -> bool {
    let b = after.trim_start_matches(['"', '\'']).as_bytes();
    b.first() == Some(&b'-') && b.get(1).is_some_and(u8::is_ascii_alphanumeric)
}

/// The pattern syntax after a name (`*`, `.*`, `(a|b)`, `[…]`, `+`, `?`, a
/// sentence's `.`, more name characters): where it ends, from `i`.
fn tail_end(b: &[u8], mut i: usize) -> usize {
    loop {
        let rest = &b[i..];
        let step = match rest.first() {
            Some(b'.') if matches!(rest.get(1), Some(b'*' | b'+')) => 2,
            Some(b'*' | b'+' | b'?' | b'.') => 1,
            Some(b'(') => match rest[1..].iter().position(|c| !(c.is_ascii_alphanumeric() || *c == b'_' || *c == b'|'))
            {
                Some(k) if rest[1 + k] == b')' => k + 2,
                _ => 0,
            },
            Some(b'[') => match rest[1..].iter().position(|c| *c == b']' || c.is_ascii_whitespace()) {
                Some(k) if rest[1 + k] == b']' => k + 2,
                _ => 0,
            },
            Some(c) if name_byte(*c) => rest.iter().position(|c| !name_byte(*c)).unwrap_or(rest.len()),
            _ => 0,
        };
        if step == 0 {
            return i;
        }
        i += step;
    }
}

impl Matcher {
    pub fn new(prefixes: &[String]) -> Matcher {
        let prefixes: Vec<String> = prefixes.iter().filter(|p| !p.is_empty()).cloned().collect();
        let finder = (!prefixes.is_empty()).then(|| AhoCorasick::new(&prefixes).ok()).flatten();
        let last_byte = prefixes
            .first()
            .and_then(|p| p.bytes().last())
            .filter(|b| prefixes.iter().all(|p| p.bytes().last() == Some(*b)));
        let variants = crate::catalog::profile::separator_variants(&prefixes).map(|(v, _)| v).collect();
        let ends_another = prefixes.iter().enumerate().any(|(i, p)| {
            prefixes.iter().enumerate().any(|(j, q)| i != j && q.len() >= p.len() && q.ends_with(p.as_str()))
        });
        let by_last_byte = last_byte.is_some() && !ends_another;
        Matcher { finder, prefixes, variants, last_byte, by_last_byte }
    }

    /// True when `name` starts with one of the engine's metric prefixes.
    pub fn is_metric_name(&self, name: &str) -> bool {
        self.prefixes.iter().any(|p| name.starts_with(p.as_str()))
    }

    /// True when a query's selector `name` is the engine's to judge: under
    /// one of its prefixes, or under one with its separator written as `_`
    /// (`vllm_num_requests_running`), which only the engine's name can fix.
    pub fn is_selector_name(&self, name: &str) -> bool {
        self.is_metric_name(name) || self.variants.iter().any(|v| name.starts_with(v.as_str()))
    }

    /// True when `text` holds a prefix or a variant of one anywhere: a
    /// quick test before a text is read as queries.
    pub fn mentions(&self, text: &str) -> bool {
        let has = |p: &String| memchr::memmem::find(text.as_bytes(), p.as_bytes()).is_some();
        self.prefixes.iter().any(has) || self.variants.iter().any(has)
    }

    /// The next name at or after `from`: its range and where its pattern
    /// tail ends. `last` is where the previous name's text ended.
    fn next(&self, text: &str, mut from: usize, last: usize) -> Option<(usize, usize, usize)> {
        let b = text.as_bytes();
        // Where the search for the shared last byte goes on (past the last one read).
        let mut byte_from = from;
        while from < b.len() {
            let s = match self.last_byte.filter(|_| self.by_last_byte) {
                Some(end) => self.start_ending_at_byte(b, end, from, &mut byte_from)?,
                None => self.finder.as_ref()?.find(aho_corasick::Input::new(text).span(from..text.len()))?.start(),
            };
            from = s + 1;
            // A prefix stands alone: at the start, or after a character that
            // does not join it to another word (and was not part of the last name).
            if s > 0 {
                let Some(prev) = text[..s].chars().next_back() else { continue };
                if joins_name(prev) || s - prev.len_utf8() < last {
                    continue;
                }
            }
            for p in &self.prefixes {
                if !text[s..].starts_with(p.as_str()) {
                    continue;
                }
                let first = s + p.len();
                if !b.get(first).is_some_and(|c| c.is_ascii_alphabetic() || *c == b'_') {
                    continue;
                }
                let end = first + 1 + b[first + 1..].iter().position(|c| !name_byte(*c)).unwrap_or(b.len() - first - 1);
                return Some((s, end, tail_end(b, end)));
            }
        }
        None
    }

    /// Finds metric names in `text`; `span` maps a byte range of `text` to a span.
    pub fn scan(&self, text: &str, span: &dyn Fn(usize, usize) -> Span, out: &mut Vec<Ref>) {
        if self.last_byte.is_some_and(|last| memchr::memchr(last, text.as_bytes()).is_none()) {
            return;
        }
        let mut from = 0;
        let mut last = 0;
        while let Some((start, end, tail)) = self.next(text, from, last) {
            from = tail.max(start + 1);
            last = tail;
            let name = &text[start..end];
            // `radiance:1.8.1` is an image tag, not a metric.
            let prefix_len = self.prefixes.iter().find(|p| name.starts_with(p.as_str())).map_or(0, |p| p.len());
            if name[prefix_len..].starts_with(|c: char| c.is_ascii_digit()) || name.len() == prefix_len {
                continue;
            }
            let tail = &text[end..tail];
            // A trailing `.` ends a sentence, and `[5m]` is a PromQL range;
            // anything else makes a pattern.
            let is_range = tail.starts_with('[')
                && tail[1..]
                    .split(']')
                    .next()
                    .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit() || "smhdwy:".contains(c)));
            let pattern_tail = if is_range { "" } else { tail.trim_end_matches('.') };
            if pattern_tail.is_empty() && cut_word(&text[end..]) {
                continue;
            }
            if pattern_tail.is_empty() {
                out.push(Ref::Metric { name: name.to_string(), span: span(start, end), pattern: false, usage: None });
            } else {
                let end = end + pattern_tail.len();
                out.push(Ref::Metric {
                    name: text[start..end].to_string(),
                    span: span(start, end),
                    pattern: true,
                    usage: None,
                });
            }
        }
    }
}

impl Matcher {
    /// The start of the first prefix that starts at or after `from` and
    /// ends at a byte `end` at or after `*byte_from` (which moves past it):
    /// what the automaton finds first, when no prefix ends another.
    fn start_ending_at_byte(&self, b: &[u8], end: u8, from: usize, byte_from: &mut usize) -> Option<usize> {
        loop {
            let e = *byte_from + memchr::memchr(end, b.get(*byte_from..)?)?;
            *byte_from = e + 1;
            let ends_here = |p: &&String| {
                let n = p.len();
                e + 1 >= n + from && &b[e + 1 - n..=e] == p.as_bytes()
            };
            if let Some(p) = self.prefixes.iter().find(ends_here) {
                return Some(e + 1 - p.len());
            }
        }
    }
}

impl Matcher {
    /// Metric names in a sentence: as [`Matcher::scan`], but a name with no
    /// `_` after its prefix is a word of the sentence (a board called
    /// "radiance:overview", the image `radiance:latest`), not a metric —
    /// exported names carry a unit or a `_total` suffix, so they have one. A
    /// pattern (`radiance:engine_*`) is kept.
    pub fn scan_prose(&self, text: &str, span: &dyn Fn(usize, usize) -> Span, out: &mut Vec<Ref>) {
        let from = out.len();
        self.scan(text, span, out);
        let found = out.split_off(from);
        out.extend(found.into_iter().filter(|r| match r {
            Ref::Metric { name, pattern: false, .. } => {
                let prefix = self.prefixes.iter().filter(|p| name.starts_with(p.as_str())).map(String::len).max();
                name.get(prefix.unwrap_or(0)..).is_some_and(|rest| rest.contains('_'))
            }
            _ => true,
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(String, bool)> {
        let m = Matcher::new(&["radiance:".to_string(), "vllm:".to_string()]);
        let mut out = Vec::new();
        m.scan(text, &|_, _| Span::default(), &mut out);
        out.into_iter()
            .filter_map(|r| match r {
                Ref::Metric { name, pattern, .. } => Some((name, pattern)),
                _ => None,
            })
            .collect()
    }

    fn names(text: &str) -> Vec<String> {
        found(text).into_iter().map(|(n, _)| n).collect()
    }

    /// The names and places a matcher finds in `text`.
    fn places(m: &Matcher, text: &str) -> Vec<(String, bool, usize, usize)> {
        let mut out = Vec::new();
        m.scan(text, &|s, e| Span { line: 1, col: s, end_line: 1, end_col: e }, &mut out);
        out.into_iter()
            .filter_map(|r| match r {
                Ref::Metric { name, pattern, span, .. } => Some((name, pattern, span.col, span.end_col)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_last_byte_search_finds_what_the_automaton_finds() {
        let prefixes = ["radiance:".to_string(), "vllm:".to_string(), "sglang:".to_string()];
        let fast = Matcher::new(&prefixes);
        assert!(fast.by_last_byte, "no prefix ends another: the fast path is taken");
        let automaton = Matcher { by_last_byte: false, ..fast.clone() };
        let texts = [
            "rate(radiance:engine_steps_total[5m]) / vllm:num_requests_running",
            "radiance:radiance:x_total vllm:vllm:y radiance::z_total ::: vllm:",
            "https://radiance:8000 ghcr.io/x/radiance:1.8.1 radiance:1.8 `vllm:num_preemptions_total`.",
            "sglang:num_running_reqs,sglang:token_usage radiance:engine_*_total vllm:(a|b)_total",
            "é radiance:ünïcode_total «vllm:gpu_cache_usage_perc» :radiance:x_y vllm:x-y radiance:",
            "",
            ":",
            "vllm",
        ];
        for text in texts {
            assert_eq!(places(&fast, text), places(&automaton, text), "on {text:?}");
        }
        // A prefix that ends another keeps the automaton.
        assert!(!Matcher::new(&["m:".to_string(), "vm:".to_string()]).by_last_byte);
        assert!(!Matcher::new(&["vllm:".to_string(), "tgi_".to_string()]).by_last_byte);
        // And what it finds is still found.
        assert_eq!(names("a radiance:engine_steps_total b"), vec!["radiance:engine_steps_total".to_string()]);
    }

    #[test]
    fn a_name_without_an_underscore_in_a_sentence_is_a_word() {
        let m = Matcher::new(&["radiance:".to_string(), "vllm:".to_string()]);
        let prose = |text: &str| {
            let mut out = Vec::new();
            m.scan_prose(text, &|_, _| Span::default(), &mut out);
            out.into_iter()
                .filter_map(|r| match r {
                    Ref::Metric { name, .. } => Some(name),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        assert!(prose("the board is called \"radiance:overview\" in Grafana").is_empty());
        assert!(prose("pull radiance:latest first").is_empty());
        assert_eq!(prose("watch radiance:engine_steps_total and vllm:time"), ["radiance:engine_steps_total"]);
        assert_eq!(prose("every radiance:engine_* counter"), ["radiance:engine_*"]);
        // Outside a sentence (code, queries) every name is still a metric.
        assert_eq!(names("rate(radiance:overview[5m])"), ["radiance:overview"]);
    }

    #[test]
    fn finds_metric_names() {
        assert_eq!(names("rate(vllm:num_preemptions_total[5m])"), ["vllm:num_preemptions_total"]);
        assert_eq!(names("`radiance:engine_steps_held_total` moved"), ["radiance:engine_steps_held_total"]);
        assert_eq!(names("watch radiance:engine_steps_total."), ["radiance:engine_steps_total"]);
        assert_eq!(
            names("histogram_quantile(0.9, vllm:time_to_first_token_seconds_bucket)"),
            ["vllm:time_to_first_token_seconds_bucket"]
        );
        assert!(names("image ghcr.io/x/radiance:1.8.1").is_empty());
        assert!(names("a `radiance:`-only query").is_empty());
        assert!(names("https://radiance:8000/metrics").is_empty());
        // Prose: a word cut at `-`, a quoted name that goes on as a word.
        assert!(names("the radiance:stats-port setting").is_empty());
        assert!(names("see the \"radiance:overview\"-dashboard").is_empty());
        assert_eq!(names("radiance:engine_steps_total - 1"), ["radiance:engine_steps_total"]);
        assert_eq!(names("\"radiance:engine_steps_total\"-"), ["radiance:engine_steps_total"]);
    }

    #[test]
    fn patterns_are_marked() {
        assert_eq!(found("radiance:engine_steps_*"), [("radiance:engine_steps_*".to_string(), true)]);
        assert_eq!(
            found(r#"{__name__=~"radiance:engine_steps_.*"}"#),
            [("radiance:engine_steps_.*".to_string(), true)]
        );
        assert_eq!(
            found("grep -E '^radiance:engine_steps_(held|decode)_total'"),
            [("radiance:engine_steps_(held|decode)_total".to_string(), true)]
        );
    }

    /// The regular expression this scanner replaced, kept as its oracle.
    fn by_regex(text: &str) -> Vec<(String, bool)> {
        static RE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(
            r"(?:^|[^A-Za-z0-9_:/.@-])((?:radiance:|vllm:)[A-Za-z_][A-Za-z0-9_:]*[A-Za-z0-9_]?)((?:\.\*|\.\+|\*|\([A-Za-z0-9_|]*\)|\[[^\]\s]*\]|\+|\?|\.|[A-Za-z0-9_:]+)*)",
            )
            .expect("regex")
        });
        let mut out = Vec::new();
        for cap in RE.captures_iter(text) {
            let (Some(m), Some(t)) = (cap.get(1), cap.get(2)) else { continue };
            let name = m.as_str();
            let prefix = if name.starts_with("vllm:") { 5 } else { 9 };
            if name[prefix..].starts_with(|c: char| c.is_ascii_digit()) {
                continue;
            }
            let tail = t.as_str();
            let is_range = tail.starts_with('[')
                && tail[1..]
                    .split(']')
                    .next()
                    .is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit() || "smhdwy:".contains(c)));
            let pattern_tail = if is_range { "" } else { tail.trim_end_matches('.') };
            let end = m.end() + pattern_tail.len();
            // A word cut at `-` (after a closing quote or not) is prose.
            static CUT: std::sync::LazyLock<regex::Regex> =
                std::sync::LazyLock::new(|| regex::Regex::new(r#"^["']*-[A-Za-z0-9]"#).expect("regex"));
            if pattern_tail.is_empty() && CUT.is_match(&text[m.end()..]) {
                continue;
            }
            out.push((text[m.start()..end].to_string(), !pattern_tail.is_empty()));
        }
        out
    }

    /// The scanner reads every text as the regular expression did: the
    /// tests' own strings, then 20,000 strings drawn from the characters that
    /// matter to it.
    #[test]
    fn agrees_with_the_regex() {
        let mut texts: Vec<String> = [
            "rate(vllm:num_preemptions_total[5m]) + radiance:a*radiance:b",
            "x radiance:engine_steps_(held|decode)_total] radiance:x[5m]radiance:y",
            "radiance:a.radiance:b radiance:c. radiance:(x radiance:d[ e] é radiance:f",
            "https://radiance:8000 -radiance:x _radiance:y vllm:vllm:z ,vllm:_q.+?",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let alphabet: Vec<&str> = vec![
            "radiance:",
            "vllm:",
            "a",
            "Z",
            "_",
            "1",
            ":",
            ".",
            "*",
            "+",
            "?",
            "(",
            ")",
            "|",
            "[",
            "]",
            " ",
            "5m",
            "/",
            "-",
            "é",
            "\n",
            "{",
            "\"",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            let mut t = String::new();
            for _ in 0..12 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                t.push_str(alphabet[(seed % alphabet.len() as u64) as usize]);
            }
            texts.push(t);
        }
        for t in &texts {
            assert_eq!(found(t), by_regex(t), "{t:?}");
        }
    }
}
