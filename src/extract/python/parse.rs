//! The Python files of a tag, parsed within a budget of tree nodes. Every
//! tree is kept while the tag is read (a name in one module is traced to
//! another), and a tree costs tens of bytes a node: eight modules of 4 MB
//! of list literals (`[0,0,0,…]`) held 835 MB of trees. The files the
//! profile names (entry, env and metric files) are parsed first; a file
//! whose tree would pass the budget is passed over with a warning naming
//! it, as the walk passes over a file too large to read.

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use super::tree::PyFile;
use crate::extract::ExtractError;

/// The most tree nodes kept for one tag (about 200 MB of trees; vLLM's
/// package, a few hundred thousand lines, takes a fraction of it).
pub const MAX_NODES: usize = 8_000_000;

/// The most tokens one file may hold, counted before it is parsed: parsing
/// takes about 200 bytes a token at its peak (one 4 MB module of
/// `[0,0,0,…]`, 4 million nodes, took 850 MB); vLLM's largest module holds
/// a few tens of thousands.
pub const MAX_FILE_TOKENS: usize = 400_000;

/// Tokens in a Python text, about one per tree node: each run of word
/// characters and each other character that is not space.
pub fn tokens(text: &str) -> usize {
    let mut n = 0;
    let mut in_word = false;
    for b in text.bytes() {
        let word = b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
        if word {
            n += usize::from(!in_word);
        } else if !b.is_ascii_whitespace() {
            n += 1;
        }
        in_word = word;
    }
    n
}

/// How many passed-over files a warning names.
const NAMED: usize = 10;

/// Parses `files`, those `first` accepts ahead of the rest, keeping trees
/// of at most `budget` nodes in all; a warning names the files passed over.
pub fn parse_within(
    files: Vec<(String, String)>,
    first: &dyn Fn(&str) -> bool,
    budget: usize,
    warnings: &mut Vec<String>,
) -> Result<Vec<PyFile>, ExtractError> {
    let (named, rest): (Vec<_>, Vec<_>) = files.into_iter().partition(|(p, _)| first(p));
    let used = AtomicUsize::new(0);
    // The files the profile names take their part of the budget first.
    let mut parsed = parse_part(named, &used, budget)?;
    parsed.extend(parse_part(rest, &used, budget)?);
    let mut kept = Vec::with_capacity(parsed.len());
    let mut passed: Vec<String> = Vec::new();
    for p in parsed {
        match p {
            Ok(f) => kept.push(f),
            Err(path) => passed.push(path),
        }
    }
    if !passed.is_empty() {
        let n = passed.len();
        let files = if n == 1 { "1 Python file was".to_string() } else { format!("{n} Python files were") };
        let mut named = passed[..n.min(NAMED)].join(", ");
        if n > NAMED {
            named.push_str(&format!(" and {} more", n - NAMED));
        }
        warnings.push(format!(
            "{files} passed over: each holds more than {MAX_FILE_TOKENS} tokens, or their syntax trees would pass the {budget} nodes knobs keeps for one tag: {named}"
        ));
    }
    Ok(kept)
}

fn parse_part(
    files: Vec<(String, String)>,
    used: &AtomicUsize,
    budget: usize,
) -> Result<Vec<Result<PyFile, String>>, ExtractError> {
    files
        .into_par_iter()
        .map(|(path, text)| {
            if used.load(Ordering::Relaxed) >= budget || tokens(&text) > MAX_FILE_TOKENS {
                return Ok(Err(path));
            }
            let file = PyFile::parse(&path, text)?;
            let nodes = file.root().descendant_count();
            let before = used.fetch_add(nodes, Ordering::Relaxed);
            Ok(if before.saturating_add(nodes) <= budget { Ok(file) } else { Err(path) })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_past_the_budget_are_passed_over_and_named_first_ones_kept() {
        let dense = format!("X = [{}]\n", "0,".repeat(1000));
        let files: Vec<(String, String)> = (0..5).map(|i| (format!("m{i}.py"), dense.clone())).collect();
        let one = PyFile::parse("x.py", dense.clone()).expect("parses").root().descendant_count();
        let mut warnings = Vec::new();
        let kept = parse_within(files, &|p| p == "m4.py", one * 2, &mut warnings).expect("parsed");
        assert_eq!(kept.len(), 2);
        assert!(kept.iter().any(|f| f.path == "m4.py"), "the named file is parsed first");
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].starts_with(&format!(
                "3 Python files were passed over: each holds more than 400000 tokens, or their syntax trees would pass \
                 the {} nodes knobs keeps for one tag: ",
                one * 2
            )),
            "{warnings:?}"
        );
        assert!(!warnings[0].contains("m4.py"), "{warnings:?}");
        let dense = format!("X = [{}]\n", "0,".repeat(MAX_FILE_TOKENS / 2));
        let mut warnings = Vec::new();
        let kept = parse_within(vec![("d.py".into(), dense)], &|_| true, MAX_NODES, &mut warnings).expect("parsed");
        assert!(kept.is_empty());
        assert!(warnings[0].starts_with("1 Python file was passed over: each holds more than 400000 tokens"));
        assert!(warnings[0].ends_with(": d.py"), "{warnings:?}");
    }

    #[test]
    fn tokens_count_words_and_marks() {
        assert_eq!(tokens("x = [0, 12, abc_d]\n"), 9);
        assert_eq!(tokens("  \n\t"), 0);
    }
}
