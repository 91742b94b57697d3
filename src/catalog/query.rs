//! Questions about a catalogue that lint, explain, verify and the overlay
//! check all ask: which flag an env key sets, which metric a name is, which
//! prefix pairs with which, whether a written value is acceptable. They live
//! here, below every user, and read the engine's profile rather than naming
//! an engine.

use std::collections::HashMap;

use super::model::{Catalog, EnvKey, Flag, Metric, MetricType};
use super::profile::Profile;

mod env_kind;
mod value;

pub use env_kind::{env_kind_phrase, env_value_fits};
pub use value::{fits_kind, is_placeholder, judge, kind_phrase, members_list, value_parts, Verdict};

/// Every spelling of every flag of a catalogue.
pub fn flag_names(c: &Catalog) -> impl Iterator<Item = &str> {
    c.flags.iter().flat_map(Flag::spellings)
}

/// `--checkpoint-policy` → `CHECKPOINT_POLICY`: the key a flag's env line
/// uses by convention.
pub fn env_key_of(flag: &str) -> String {
    flag.trim_start_matches('-').replace('-', "_").to_ascii_uppercase()
}

/// The env key to show for a flag: the one its source declares, else the
/// convention's (when the profile has one).
pub fn env_key_for(flag: &Flag, profile: &Profile) -> Option<String> {
    match flag.env.first() {
        Some(k) => Some(k.clone()),
        None if profile.env.convention => Some(env_key_of(&flag.name)),
        None => None,
    }
}

/// A flag looked up by a written spelling, as the engine would read it
/// (`--ctx_size` is `--ctx-size` where the profile says so).
/// Where the profile takes abbreviations, a unique prefix of a long
/// option is that option (`--max-model` is `--max-model-len`); a spelling
/// the profile says the parser rewrites is the option it becomes, where
/// the build has no such spelling of its own.
pub fn flag<'c>(catalog: &'c Catalog, profile: &Profile, spelling: &str) -> Option<&'c Flag> {
    let dashed = (profile.argv.underscores && spelling.starts_with("--") && spelling.contains('_'))
        .then(|| spelling.replace('_', "-"));
    let read = dashed.as_deref().unwrap_or(spelling);
    catalog
        .flag(spelling)
        .or_else(|| dashed.as_deref().and_then(|d| catalog.flag(d)))
        .or_else(|| match abbreviated(catalog, profile, read).as_slice() {
            [(_, f)] => Some(*f),
            _ => None,
        })
        // A spelling the parser rewrites first (`-O` → `--optimization-level`).
        .or_else(|| profile.argv.rewrites.get(spelling).and_then(|to| catalog.flag(to)))
}

/// The flags a written prefix of a long option could be, where the profile
/// takes abbreviations: each with the first of its spellings that the
/// prefix starts; empty where it takes none or the word is a whole spelling.
pub fn abbreviated<'c>(catalog: &'c Catalog, profile: &Profile, written: &str) -> Vec<(&'c str, &'c Flag)> {
    if !profile.argv.abbreviations || !written.starts_with("--") || written.len() < 3 || catalog.flag(written).is_some()
    {
        return Vec::new();
    }
    let mut out: Vec<(&str, &Flag)> = Vec::new();
    for f in &catalog.flags {
        if let Some(s) = f.spellings().find(|s| s.starts_with("--") && s.starts_with(written)) {
            out.push((s, f));
        }
    }
    out
}

/// An env key the engine reads for itself (its catalogue's `[[env_key]]`
/// table), by name; env keys are case-sensitive.
pub fn env_key<'c>(catalog: &'c Catalog, key: &str) -> Option<&'c EnvKey> {
    catalog.env_keys.iter().find(|k| k.name == key)
}

/// True when the catalogue's engine-wide env keys are the whole set of
/// keys with the profile's env prefix that this key is judged against: the
/// catalogue holds such a table and the key carries the prefix.
pub fn env_key_judged(catalog: &Catalog, profile: &Profile, key: &str) -> bool {
    let as_read = profile.env.alias_of(key);
    let key = as_read.as_deref().unwrap_or(key);
    !catalog.env_keys.is_empty() && profile.env.prefix.as_deref().is_some_and(|p| key.starts_with(p))
}

/// What an env key sets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EnvTarget<'c> {
    pub flag: &'c Flag,
    /// The key turns the flag off (`LLAMA_ARG_NO_MMAP`): any value does.
    pub negated: bool,
}

/// The flag an env key sets in `catalog`: by a serve script's mapping
/// (`env_flags`), by a key the source declares (and its negated form where
/// the profile derives one), else — where the profile has the convention —
/// an optional service prefix stripped, lower-cased, `_`→`-`
/// (`FRANK_ARCHON_PREFILL_INTERLEAVE` → `--prefill-interleave`). A stripped
/// key must keep at least two words, so `FRANK_PORT` does not read as `--port`.
pub fn env_target<'c>(
    key: &str,
    catalog: &'c Catalog,
    profile: &Profile,
    env_flags: &HashMap<String, String>,
) -> Option<EnvTarget<'c>> {
    if let Some(f) = env_flags.get(key).and_then(|f| catalog.flag(f)) {
        return Some(EnvTarget { flag: f, negated: false });
    }
    if let Some(f) = catalog.flag_by_env(key) {
        return Some(EnvTarget { flag: f, negated: false });
    }
    if let Some([from, to]) = &profile.env.negated {
        if let Some(rest) = key.strip_prefix(to.as_str()) {
            let positive = format!("{from}{rest}");
            if let Some(f) = catalog.flag_by_env(&positive).filter(|f| !f.negated.is_empty()) {
                return Some(EnvTarget { flag: f, negated: true });
            }
        }
    }
    if !profile.env.convention {
        return None;
    }
    let words: Vec<&str> = key.split('_').filter(|w| !w.is_empty()).collect();
    (0..words.len())
        .filter(|&i| i == 0 || words.len() - i >= 2)
        .find_map(|i| catalog.flag(&format!("--{}", words[i..].join("-").to_ascii_lowercase())))
        .map(|f| EnvTarget { flag: f, negated: false })
}

/// The metric a name refers to, allowing histogram and summary series
/// suffixes (`_bucket`, `_sum`, `_count`) and every series the source says
/// a metric exposes (`…_created`).
pub fn find_metric<'c>(catalog: &'c Catalog, name: &str) -> Option<&'c Metric> {
    if let Some(m) = catalog.metric(name) {
        return Some(m);
    }
    for suffix in ["_bucket", "_sum", "_count"] {
        if let Some(m) = name.strip_suffix(suffix).and_then(|base| catalog.metric(base)) {
            if matches!(m.kind, MetricType::Histogram | MetricType::Summary) || suffix != "_bucket" {
                return Some(m);
            }
        }
    }
    catalog.metrics.iter().find(|m| !m.samples.is_empty() && m.series().any(|s| s == name))
}

/// The metrics a glob (`radiance:engine_steps_*`) or regex
/// (`radiance:engine_steps_(held|decode)_total`, `…_.*`) written over names
/// matches, histogram and summary series included.
pub fn matching_metrics<'c>(catalog: &'c Catalog, pattern: &str) -> Vec<&'c Metric> {
    let regexy = pattern.contains(".*") || pattern.contains(".+") || pattern.contains(['(', '[', '+', '?', '|']);
    let source = if regexy { pattern.to_string() } else { regex::escape(pattern).replace("\\*", ".*") };
    let Ok(re) = pattern_regex(&format!("^(?:{source})$")) else { return Vec::new() };
    catalog
        .metrics
        .iter()
        .filter(|m| {
            re.is_match(&m.name)
                || (matches!(m.kind, MetricType::Histogram | MetricType::Summary)
                    && ["_bucket", "_sum", "_count"].iter().any(|s| re.is_match(&format!("{}{s}", m.name))))
        })
        .collect()
}

/// The most a pattern written in a linted file may compile to. Real
/// patterns over metric names are a few kilobytes; `\\w{500}` (59 bytes of
/// PromQL) is over ten megabytes and took a third of a second to refuse.
pub const PATTERN_SIZE: usize = 256 * 1024;

/// Compiled patterns remembered per thread before the memory is cleared.
const PATTERNS_CACHED: usize = 1024;

thread_local! {
    static PATTERNS: std::cell::RefCell<std::collections::HashMap<String, Result<regex::Regex, String>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// `source` compiled within [`PATTERN_SIZE`], once per thread for each
/// distinct text (a runbook repeats its patterns). The error says why:
/// over the bound, or not a regex.
pub fn pattern_regex(source: &str) -> Result<regex::Regex, String> {
    if let Some(known) = PATTERNS.with(|c| c.borrow().get(source).cloned()) {
        return known;
    }
    let compiled =
        regex::RegexBuilder::new(source).size_limit(PATTERN_SIZE).dfa_size_limit(PATTERN_SIZE).build().map_err(|e| {
            match e {
                regex::Error::CompiledTooBig(_) => {
                    format!("compiles to more than {PATTERN_SIZE} bytes, the most knobs reads")
                }
                e => e.to_string(),
            }
        });
    PATTERNS.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= PATTERNS_CACHED {
            c.clear();
        }
        c.insert(source.to_string(), compiled.clone());
    });
    compiled
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::model::{Kind, MembersFrom};
    use crate::catalog::profile;

    pub(super) fn flag(name: &str, kind: Kind, metavar: &str, members: &[&str], closed: bool) -> Flag {
        Flag {
            name: name.into(),
            aliases: vec![],
            metavar: metavar.into(),
            kind,
            default: String::new(),
            auto_means: None,
            members: members.iter().map(|m| m.to_string()).collect(),
            members_from: (!members.is_empty()).then(|| MembersFrom {
                origin: "validator-comparisons".into(),
                location: "x.cpp:1".into(),
                closed,
            }),
            help: String::new(),
            location: "x.cpp:1".into(),
            negated: vec![],
            env: vec![],
            scopes: vec![],
            excludes: vec![],
            removed: None,
            arity: None,
            nargs: None,
            list: false,
            deprecated: false,
            successors: Vec::new(),
        }
    }

    #[test]
    fn value_parts_and_env_keys() {
        assert_eq!(value_parts("0→1"), ["0", "1"]);
        assert_eq!(env_key_of("--checkpoint-policy"), "CHECKPOINT_POLICY");
    }

    #[test]
    fn env_keys_by_declaration_convention_and_negation() {
        let mut mmap = flag("--mmap", Kind::Switch, "", &[], false);
        mmap.negated = vec!["--no-mmap".into()];
        mmap.env = vec!["LLAMA_ARG_MMAP".into()];
        let ctx = flag("--ctx-size", Kind::Int, "N", &[], false);
        let catalog = Catalog::new(
            crate::catalog::model::Provenance {
                engine: "e".into(),
                repo: "r".into(),
                tag: "t".into(),
                commit: "c".into(),
                knobs_version: "0".into(),
            },
            vec![mmap, ctx],
            vec![],
        );
        let llama = profile::builtin("llama.cpp").expect("llama.cpp");
        let radiance = profile::builtin("radiance").expect("radiance");
        let none = HashMap::new();
        let t = env_target("LLAMA_ARG_NO_MMAP", &catalog, &llama, &none).expect("negated key");
        assert!(t.negated && t.flag.name == "--mmap");
        assert!(env_target("LLAMA_ARG_MMAP", &catalog, &llama, &none).is_some_and(|t| !t.negated));
        // No convention for llama.cpp: CTX_SIZE is not a key its source reads.
        assert!(env_target("CTX_SIZE", &catalog, &llama, &none).is_none());
        assert!(env_target("SVC_CTX_SIZE", &catalog, &radiance, &none).is_some());
        assert!(flag_underscored(&catalog, &llama));
    }

    fn flag_underscored(c: &Catalog, p: &Profile) -> bool {
        super::flag(c, p, "--ctx_size").is_some()
            && super::flag(c, &profile::builtin("radiance").expect("r"), "--ctx_size").is_none()
    }

    #[test]
    fn a_unique_prefix_is_its_option_where_the_profile_says() {
        let mut vllm = Profile::bare("v");
        vllm.argv.abbreviations = true;
        vllm.argv.underscores = true;
        let plain = Profile::bare("r");
        let mut c = Catalog::new(
            crate::catalog::model::Provenance {
                engine: "v".into(),
                repo: String::new(),
                tag: "1".into(),
                commit: String::new(),
                knobs_version: String::new(),
            },
            vec![
                flag("--max-model-len", Kind::Int, "", &[], false),
                flag("--max-num-seqs", Kind::Int, "", &[], false),
                flag("--max-num-batched-tokens", Kind::Int, "", &[], false),
            ],
            Vec::new(),
        );
        c.normalise();
        let name = |p: &Profile, w: &str| super::flag(&c, p, w).map(|f| f.name.clone());
        assert_eq!(name(&vllm, "--max-model").as_deref(), Some("--max-model-len"));
        assert_eq!(name(&vllm, "--max_model").as_deref(), Some("--max-model-len"), "underscores first");
        assert_eq!(name(&vllm, "--max-num"), None, "ambiguous");
        assert_eq!(abbreviated(&c, &vllm, "--max-num").len(), 2);
        assert_eq!(name(&plain, "--max-model"), None, "a profile without abbreviations");
        assert!(abbreviated(&c, &plain, "--max-num").is_empty());
        assert!(abbreviated(&c, &vllm, "--max-num-seqs").is_empty(), "a whole name is no prefix");
    }
}
