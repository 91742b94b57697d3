//! Eras of an engine's source: the files that hold its options moved
//! between versions (llama.cpp read `common/common.cpp` before it grew
//! `common/arg.cpp`), so a profile may say, as data, which files a build
//! older than some tag reads. A profile's own `[extract]` is the newest
//! era; each `[[era]]` is an older one, oldest first, ending just before
//! its `until` tag.

use serde::{Deserialize, Serialize};

use super::commands::CommandSpec;
use super::env::SwitchWords;
use super::extract_spec::ExtractSpec;
use crate::catalog::tag::compare_tags;

/// An older era: every tag at or after the previous era's `until` (the
/// first era: every older tag) and before this one's `until` reads
/// `extract` instead of the profile's own files, and runs its binaries as
/// `commands` say.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Era {
    /// The first tag that no longer belongs to this era.
    pub until: String,
    /// The files read in this era (the profile's `[extract]` keys); none
    /// named: those of the next era (the profile's own after the last).
    #[serde(default)]
    pub extract: ExtractSpec,
    /// The binaries as this era's builds have them (`[[era.command]]`):
    /// each replaces the profile's command of its name, or adds one (a
    /// binary the era had, an old name); the others are the profile's.
    #[serde(default, rename = "command")]
    pub commands: Vec<CommandSpec>,
    /// Scopes that in this era do not inherit the common one, beside the
    /// profile's `[scopes] not_inheriting` (a binary with a parser of its
    /// own, scoped to the options that parser reads).
    #[serde(default)]
    pub not_inheriting: Vec<String>,
    /// How this era's env reading takes a switch's value (`[era.env]`);
    /// none: the next era's that says, or the profile's own.
    #[serde(default)]
    pub env: EraEnv,
}

/// An era's `[era.env]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EraEnv {
    /// `[era.env.switch]`: the words a switch's env key takes in this era.
    #[serde(default)]
    pub switch: Option<SwitchWords>,
}

/// The switch words of the era at `i`: its own, or the next era's that
/// names some; None: the profile's own.
pub fn switch_of(eras: &[Era], i: usize) -> Option<&SwitchWords> {
    eras.get(i..)?.iter().find_map(|e| e.env.switch.as_ref())
}

impl Era {
    /// True when the era runs its builds otherwise than the profile's own
    /// (binaries, inheritance, env words), not only reading other files.
    pub fn changes_running(&self) -> bool {
        !self.commands.is_empty() || !self.not_inheriting.is_empty() || self.env.switch.is_some()
    }
}

/// The position of `tag`'s era among `eras` (oldest first, validated):
/// the first whose `until` comes after it. None: the newest era, the
/// profile's own files. A tag of another shape than the boundaries (a
/// branch, a commit) cannot be dated by them and reads the newest files.
pub fn index_of(eras: &[Era], tag: &str) -> Option<usize> {
    eras.iter().position(|e| comparable(tag, &e.until) && compare_tags(tag, &e.until) == std::cmp::Ordering::Less)
}

/// The files `tag` reads: its era's, or (an era that names none) the next
/// era's that does; None: the profile's own.
pub fn files_of<'e>(eras: &'e [Era], tag: &str) -> Option<&'e ExtractSpec> {
    let i = index_of(eras, tag)?;
    eras[i..].iter().map(|e| &e.extract).find(|x| !x.config.is_empty())
}

/// The letters before a release tag's first digit (`b` of `b3716`, none
/// for `v1.8.1` or `1.8.1`), or None when there is no digit right after
/// them (`master`, `main`).
fn prefix(tag: &str) -> Option<&str> {
    let start = tag.find(|c: char| c.is_ascii_digit())?;
    let p = &tag[..start];
    p.chars().all(|c| c.is_ascii_alphabetic()).then(|| p.strip_prefix(['v', 'V']).unwrap_or(p))
}

/// True when `tag` is a release tag of the same shape as `boundary`, so
/// that their order means something.
fn comparable(tag: &str, boundary: &str) -> bool {
    matches!((prefix(tag), prefix(boundary)), (Some(a), Some(b)) if a.eq_ignore_ascii_case(b))
}

/// Checks a profile's eras: each has a release tag for `until` and at least
/// one option-table file, and they are listed oldest first with no two
/// ending at the same tag. The message names the era (1 is the first).
pub fn validate(eras: &[Era]) -> Result<(), String> {
    for (i, e) in eras.iter().enumerate() {
        let n = i + 1;
        if e.until.trim().is_empty() {
            return Err(format!("era {n}: `until` is empty; it names the first tag after the era"));
        }
        if prefix(&e.until).is_none() {
            return Err(format!(
                "era {n} (until `{}`): `until` must be a release tag such as `b3716` or `v1.5.0`",
                e.until
            ));
        }
        if e.extract.config.is_empty() && !e.changes_running() {
            return Err(format!(
                "era {n} (until `{}`): names neither a `config` file ([era.extract]) nor a [[era.command]]",
                e.until
            ));
        }
        if e.commands.iter().any(|c| c.name.trim().is_empty()) {
            return Err(format!("era {n} (until `{}`): a [[era.command]] has an empty name", e.until));
        }
        check_scoped(&e.extract).map_err(|m| format!("era {n} (until `{}`): {m}", e.until))?;
        if let Some(prev) = i.checked_sub(1).map(|j| &eras[j]) {
            if !comparable(&e.until, &prev.until) {
                return Err(format!(
                    "era {n} (until `{}`): its tag is not of the same shape as era {i}'s `{}`",
                    e.until, prev.until
                ));
            }
            if compare_tags(&e.until, &prev.until) != std::cmp::Ordering::Greater {
                return Err(format!(
                    "era {n} (until `{}`) must end after era {i} (until `{}`): list eras oldest first, \
                     with no two ending at the same tag",
                    e.until, prev.until
                ));
            }
        }
    }
    Ok(())
}

/// A `scoped` file must be one of the `config` files it scopes.
pub fn check_scoped(spec: &ExtractSpec) -> Result<(), String> {
    match spec.scoped.keys().find(|path| !spec.config.contains(path)) {
        Some(path) => Err(format!("scoped file `{path}` is not one of its `config` files")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn era(until: &str) -> Era {
        Era {
            until: until.into(),
            extract: ExtractSpec { config: vec!["a.cpp".into()], ..ExtractSpec::default() },
            commands: Vec::new(),
            ..Era::default()
        }
    }

    #[test]
    fn a_tag_falls_in_the_first_era_that_ends_after_it() {
        let eras = [era("b3183"), era("b3716")];
        let until = |t: &str| index_of(&eras, t).map(|i| eras[i].until.as_str());
        assert_eq!(until("b2002"), Some("b3183"));
        assert_eq!(until("b3182"), Some("b3183"));
        assert_eq!(until("b3183"), Some("b3716"), "until is exclusive");
        assert_eq!(until("b3715"), Some("b3716"));
        assert_eq!(until("b3716"), None, "the profile's own files");
        assert_eq!(until("b10573"), None);
        assert_eq!(until("master"), None, "a branch cannot be dated");
        assert_eq!(until("d775b8967a46"), None, "nor a commit");
        let semver = [era("v1.5.0")];
        assert_eq!(index_of(&semver, "1.0.13"), Some(0));
        assert_eq!(index_of(&semver, "v1.10.0"), None);
    }

    #[test]
    fn bad_eras_are_refused_by_number() {
        assert_eq!(validate(&[era("b3183"), era("b3716")]), Ok(()));
        assert_eq!(
            validate(&[era("b3716"), era("b3183")]).err().as_deref(),
            Some(
                "era 2 (until `b3183`) must end after era 1 (until `b3716`): list eras oldest first, \
                 with no two ending at the same tag"
            )
        );
        assert!(validate(&[era("b3716"), era("b3716")]).is_err(), "two eras ending at one tag overlap");
        assert_eq!(
            validate(&[era("")]).err().as_deref(),
            Some("era 1: `until` is empty; it names the first tag after the era")
        );
        assert_eq!(
            validate(&[era("master")]).err().as_deref(),
            Some("era 1 (until `master`): `until` must be a release tag such as `b3716` or `v1.5.0`")
        );
        assert_eq!(
            validate(&[era("b3183"), era("v2.0")]).err().as_deref(),
            Some("era 2 (until `v2.0`): its tag is not of the same shape as era 1's `b3183`")
        );
        let mut stray = era("b1");
        stray.extract.scoped.insert("server.cpp".into(), "SERVER".into());
        assert_eq!(
            validate(&[stray]).err().as_deref(),
            Some("era 1 (until `b1`): scoped file `server.cpp` is not one of its `config` files")
        );
        let empty = Era { until: "b1".into(), ..Era::default() };
        assert_eq!(
            validate(&[empty]).err().as_deref(),
            Some("era 1 (until `b1`): names neither a `config` file ([era.extract]) nor a [[era.command]]")
        );
        let nameless = Era { until: "b1".into(), commands: vec![CommandSpec::default()], ..Era::default() };
        assert_eq!(
            validate(&[nameless]).err().as_deref(),
            Some("era 1 (until `b1`): a [[era.command]] has an empty name")
        );
    }

    /// An era that changes only its binaries reads the files of the next
    /// era that names some, or the profile's own after the last.
    #[test]
    fn an_era_without_files_reads_the_next_eras() {
        let only = |until: &str| Era {
            until: until.into(),
            commands: vec![CommandSpec { name: "x".into(), ..CommandSpec::default() }],
            ..Era::default()
        };
        let eras = [era("b10"), only("b20"), era("b30"), only("b40")];
        assert_eq!(validate(&eras), Ok(()));
        let files = |t: &str| files_of(&eras, t).map(|x| x.config.clone());
        assert_eq!(files("b5"), Some(vec!["a.cpp".to_string()]));
        assert_eq!(files("b15"), Some(vec!["a.cpp".to_string()]), "b20's era reads b30's files");
        assert_eq!(files("b35"), None, "the last era reads the profile's own");
        assert_eq!(index_of(&eras, "b35"), Some(3));
        assert_eq!(index_of(&eras, "b40"), None);
    }

    /// llama.cpp's eras as data, read in its source: the env loop of
    /// common/arg.cpp runs a switch's handler on `1` or `true` from b3687
    /// and on `is_truthy`'s words from b7376; before b3183 the server
    /// parsed its own argv, inheriting no common option and reading no `_`
    /// as `-`.
    #[test]
    fn llama_cpp_s_eras_carry_env_words_inheritance_and_underscores() {
        let p = crate::catalog::profile::builtin("llama.cpp").expect("llama.cpp");
        let at = |tag: &str| p.era_index(tag).and_then(|i| p.in_era(i)).unwrap_or_else(|| p.clone());
        let on = |tag: &str| at(tag).env.switch.map(|w| w.on).unwrap_or_default();
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(on("b3687"), words(&["1", "true"]));
        assert_eq!(on("b6000"), words(&["1", "true"]));
        assert_eq!(on("b7356"), words(&["1", "true"]));
        assert_eq!(on("b7376"), words(&["on", "enabled", "true", "1"]));
        assert_eq!(on("b10573"), words(&["on", "enabled", "true", "1"]));
        let old = at("b2400");
        assert!(!old.underscores_of("server") && old.underscores_of("main"));
        let common = ["LLAMA_EXAMPLE_COMMON".to_string()];
        assert!(!old.accepts(&common, &[], Some("LLAMA_EXAMPLE_SERVER")), "the old server inherits nothing");
        assert!(old.accepts(&common, &[], Some("LLAMA_EXAMPLE_COMMON")));
        assert!(old.accepts(&[], &[], Some("LLAMA_EXAMPLE_SERVER")), "an option no file scoped is not refused");
        assert!(!old.accepts(&[], &[], Some("LLAMA_EXAMPLE_DOWNLOAD")), "the profile's own rule stands");
        let new = at("b3183");
        assert!(new.underscores_of("llama-server") && new.accepts(&common, &[], Some("LLAMA_EXAMPLE_SERVER")));
    }
}
