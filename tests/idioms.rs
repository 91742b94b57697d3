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
        metavar: f.metavar.clone(),
        kind: f.kind.as_str().to_string(),
        default: f.default.clone(),
        auto_means: f.auto_means.clone(),
        members: f.members.clone(),
        members_origin: f.members_from.as_ref().map(|m| m.origin.clone()),
        help: f.help.clone(),
    }
}

fn check(idiom: &str) {
    let dir = support::fixtures().join("idioms").join(idiom);
    let text = std::fs::read_to_string(dir.join("config.cpp")).expect("config.cpp");
    let expected: Expected =
        toml::from_str(&std::fs::read_to_string(dir.join("expected.toml")).expect("expected.toml")).expect("parse");
    let tmp = tempfile::tempdir().expect("tempdir");
    let tree = tmp.path().join("tree");
    std::fs::create_dir_all(tree.join("core")).expect("mkdir");
    std::fs::write(tree.join("core/config.cpp"), &text).expect("write");
    support::build_repo(&tmp.path().join("engine.git"), &[("v1.0.0", tree)]);
    let r = support::knobs(tmp.path(), &["sync", "--repo", "engine.git", "--tag", "v1.0.0", "--engine", idiom]);
    assert_eq!(r.code, 0, "{idiom}: {}", r.stderr);
    assert!(r.stderr.is_empty(), "{idiom}: unexpected warnings {}", r.stderr);
    let written =
        std::fs::read_to_string(tmp.path().join("catalog").join(idiom).join("v1.0.0.toml")).expect("catalogue");
    let flags = toml::from_str::<Catalog>(&written).expect("valid catalogue").flags;
    let got: Vec<ExpectedFlag> = flags.iter().map(observed).collect();
    assert_eq!(got, expected.flag, "{idiom}");
    let lines: Vec<&str> = text.lines().collect();
    for f in &flags {
        let line: usize = f.location.rsplit(':').next().and_then(|l| l.parse().ok()).expect("line");
        let bare = f.name.trim_start_matches('-');
        assert!(
            lines.get(line - 1).is_some_and(|l| l.contains(bare)),
            "{idiom}: {} points at line {line}, which does not name it",
            f.name
        );
    }
}

#[test]
fn designated_initializers() {
    check("designated");
}

#[test]
fn builder_calls() {
    check("builder");
}

#[test]
fn getopt_table() {
    check("getopt");
}

#[test]
fn strcmp_chain() {
    check("strcmp_chain");
}

#[test]
fn holdout_vector_table() {
    check("holdout_vector_table");
}

#[test]
fn holdout_fluent_builder() {
    check("holdout_fluent_builder");
}

#[test]
fn holdout_view_chain() {
    check("holdout_view_chain");
}

#[test]
fn macro_chain() {
    check("macro_chain");
}

#[test]
fn builder_lambda() {
    check("builder_lambda");
}
