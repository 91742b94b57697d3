//! Each C++ idiom in `fixtures/idioms/` through the whole pipeline — a tagged
//! git repository, `knobs sync`, the written catalogue — against catalogue
//! entries written by hand.

use knobs::catalog::model::{Catalog, Flag};
use serde::Deserialize;

use crate::support;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    flag: Vec<ExpectedFlag>,
}

/// A flag as the fixture's author read it from the C++; locations are
/// checked separately (they must point at the flag's line).
#[derive(Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
struct ExpectedFlag {
    name: String,
    #[serde(default)]
    aliases: Vec<String>,
    /// Spellings that turn the option off (a second list of names).
    #[serde(default)]
    negated: Vec<String>,
    #[serde(default)]
    metavar: String,
    kind: String,
    #[serde(default)]
    default: String,
    #[serde(default)]
    auto_means: Option<String>,
    #[serde(default)]
    members: Vec<String>,
    #[serde(default)]
    members_origin: Option<String>,
    help: String,
}

fn observed(f: &Flag) -> ExpectedFlag {
    ExpectedFlag {
        name: f.name.clone(),
        aliases: f.aliases.clone(),
        negated: f.negated.clone(),
        metavar: f.metavar.clone(),
        kind: f.kind.as_str().to_string(),
        default: f.default.clone(),
        auto_means: f.auto_means.clone(),
        members: f.members.clone(),
        members_origin: f.members_from.as_ref().map(|m| m.origin.clone()),
        help: f.help.clone(),
    }
}

/// Runs one idiom folder through sync; `Err` says what differs.
fn check(dir: &std::path::Path) -> Result<(), String> {
    let idiom = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let text = std::fs::read_to_string(dir.join("config.cpp")).map_err(|e| format!("{idiom}: config.cpp: {e}"))?;
    let expected: Expected = toml::from_str(
        &std::fs::read_to_string(dir.join("expected.toml")).map_err(|e| format!("{idiom}: expected.toml: {e}"))?,
    )
    .map_err(|e| format!("{idiom}: expected.toml: {e}"))?;
    let tmp = tempfile::tempdir().expect("tempdir");
    let tree = tmp.path().join("tree");
    std::fs::create_dir_all(tree.join("core")).expect("mkdir");
    std::fs::write(tree.join("core/config.cpp"), &text).expect("write");
    support::build_repo(&tmp.path().join("engine.git"), &[("v1.0.0", tree)]);
    let engine = idiom.replace('_', "-");
    let r = support::knobs(tmp.path(), &["sync", "--repo", "engine.git", "--tag", "v1.0.0", "--engine", &engine]);
    if r.code != 0 {
        return Err(format!("{idiom}: sync exited {}: {}", r.code, r.stderr));
    }
    if !r.stderr.is_empty() {
        return Err(format!("{idiom}: unexpected warnings {}", r.stderr));
    }
    let written = std::fs::read_to_string(tmp.path().join("catalog").join(&engine).join("v1.0.0.toml"))
        .map_err(|e| format!("{idiom}: catalogue: {e}"))?;
    let flags = toml::from_str::<Catalog>(&written).map_err(|e| format!("{idiom}: {e}"))?.flags;
    let got: Vec<ExpectedFlag> = flags.iter().map(observed).collect();
    if got != expected.flag {
        return Err(format!("{idiom}: extracted\n{got:#?}\nexpected\n{:#?}", expected.flag));
    }
    let lines: Vec<&str> = text.lines().collect();
    for f in &flags {
        let line: usize = f.location.rsplit(':').next().and_then(|l| l.parse().ok()).unwrap_or(0);
        let bare = f.name.trim_start_matches('-');
        if !lines.get(line.wrapping_sub(1)).is_some_and(|l| l.contains(bare)) {
            return Err(format!("{idiom}: {} points at line {line}, which does not name it", f.name));
        }
    }
    Ok(())
}

/// The idiom folders directly under `dir` (each with a config.cpp).
fn idiom_dirs(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .expect("idioms folder")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("config.cpp").is_file())
        .collect();
    out.sort();
    out
}

/// Every idiom folder, and every one waiting in `unseen/` (see the README:
/// a new shape goes there first, is run as written, and its result recorded).
#[test]
fn every_idiom_matches_its_hand_written_expectation() {
    let root = support::fixtures().join("idioms");
    let mut dirs = idiom_dirs(&root);
    assert!(dirs.len() >= 12, "the idiom fixtures went missing from {}", root.display());
    if root.join("unseen").is_dir() {
        dirs.extend(idiom_dirs(&root.join("unseen")));
    }
    let failures: Vec<String> = dirs.iter().filter_map(|d| check(d).err()).collect();
    assert!(failures.is_empty(), "{} of {} idioms differ:\n{}", failures.len(), dirs.len(), failures.join("\n\n"));
}
