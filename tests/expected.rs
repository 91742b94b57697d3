//! The radiance catalogues against expectations written by hand.
//!
//! `fixtures/radiance/expected/<tag>.toml` says, flag by flag and metric by
//! metric, what the reconstructed source at that tag declares — read from the
//! C++ and from shared/radiance.md, never from knobs' output. Both the
//! catalogue `knobs sync` writes from the fixture repository and the one
//! committed (and embedded) under `catalog/radiance/` must match it; a
//! difference is reported by field, so a wrong extraction cannot be blessed.

use std::collections::BTreeMap;

use knobs::catalog::model::{Catalog, Flag, Metric};
use knobs::catalog::store::Store;
use serde::Deserialize;

use crate::support::{self, knobs};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    tag: String,
    flag: Vec<ExpectedFlag>,
    metric: Vec<ExpectedMetric>,
}

#[derive(Debug, Deserialize)]
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
    auto_means: Option<String>,
    #[serde(default)]
    members: Vec<String>,
    members_origin: Option<String>,
    members_at: Option<String>,
    members_closed: Option<bool>,
    #[serde(default)]
    negated: Vec<String>,
    #[serde(default)]
    env: Vec<String>,
    #[serde(default)]
    scopes: Vec<String>,
    #[serde(default)]
    excludes: Vec<String>,
    removed: Option<String>,
    arity: Option<u8>,
    #[serde(default)]
    list: bool,
    /// Compared only where the expectation gives it.
    help: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectedMetric {
    name: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    labels: Vec<String>,
}

fn expected(tag: &str) -> Expected {
    expected_of("radiance", tag)
}

fn expected_of(engine: &str, tag: &str) -> Expected {
    let path = support::fixtures().join(engine).join("expected").join(format!("{tag}.toml"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let e: Expected = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(e.tag, tag, "{} names another tag", path.display());
    e
}

/// Every way `got` differs from `want`, one line each, naming the item and field.
fn differences(want: &Expected, got: &Catalog) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = |item: &str, name: &str, want: String, got: String| {
        if want != got {
            out.push(format!("{item} {name}: expected {want}, got {got}"));
        }
    };
    let flags: BTreeMap<&str, &Flag> = got.flags.iter().map(|f| (f.name.as_str(), f)).collect();
    for w in &want.flag {
        let Some(g) = flags.get(w.name.as_str()) else {
            field(&format!("flag {}", w.name), "presence", "present".into(), "missing".into());
            continue;
        };
        let item = format!("flag {}", w.name);
        let sorted = |v: &[String]| {
            let mut v = v.to_vec();
            v.sort();
            format!("{v:?}")
        };
        field(&item, "aliases", sorted(&w.aliases), format!("{:?}", g.aliases));
        field(&item, "negated", sorted(&w.negated), format!("{:?}", g.negated));
        field(&item, "env", sorted(&w.env), format!("{:?}", g.env));
        field(&item, "scopes", sorted(&w.scopes), format!("{:?}", g.scopes));
        field(&item, "excludes", sorted(&w.excludes), format!("{:?}", g.excludes));
        field(&item, "removed", format!("{:?}", w.removed), format!("{:?}", g.removed));
        field(&item, "arity", format!("{:?}", w.arity), format!("{:?}", g.arity));
        field(&item, "list", w.list.to_string(), g.list.to_string());
        if let Some(help) = &w.help {
            field(&item, "help", format!("{help:?}"), format!("{:?}", g.help));
        }
        field(&item, "metavar", format!("{:?}", w.metavar), format!("{:?}", g.metavar));
        field(&item, "kind", w.kind.clone(), g.kind.as_str().to_string());
        field(&item, "default", format!("{:?}", w.default), format!("{:?}", g.default));
        field(&item, "auto_means", format!("{:?}", w.auto_means), format!("{:?}", g.auto_means));
        field(&item, "members", format!("{:?}", w.members), format!("{:?}", g.members));
        let from = g.members_from.as_ref();
        field(&item, "members origin", format!("{:?}", w.members_origin), format!("{:?}", from.map(|m| &m.origin)));
        field(&item, "members location", format!("{:?}", w.members_at), format!("{:?}", from.map(|m| &m.location)));
        field(&item, "members closed", format!("{:?}", w.members_closed), format!("{:?}", from.map(|m| m.closed)));
    }
    for g in &got.flags {
        if !want.flag.iter().any(|w| w.name == g.name) {
            field(&format!("flag {}", g.name), "presence", "absent".into(), "extracted".into());
        }
    }
    let metrics: BTreeMap<&str, &Metric> = got.metrics.iter().map(|m| (m.name.as_str(), m)).collect();
    for w in &want.metric {
        let item = format!("metric {}", w.name);
        let Some(g) = metrics.get(w.name.as_str()) else {
            field(&item, "presence", "present".into(), "missing".into());
            continue;
        };
        field(&item, "type", w.kind.clone(), g.kind.as_str().to_string());
        field(&item, "labels", format!("{:?}", w.labels), format!("{:?}", g.labels));
    }
    for g in &got.metrics {
        if !want.metric.iter().any(|w| w.name == g.name) {
            field(&format!("metric {}", g.name), "presence", "absent".into(), "extracted".into());
        }
    }
    out
}

fn assert_matches(want: &Expected, got: &Catalog, what: &str) {
    let diff = differences(want, got);
    assert!(diff.is_empty(), "{what} differs from the hand-written expectation:\n  {}", diff.join("\n  "));
}

/// A fresh sync of the fixture repository matches the hand-written facts.
#[test]
fn synced_catalogues_match_the_hand_written_expectations() {
    let tmp = tempfile::tempdir().expect("tempdir");
    support::radiance_repo(tmp.path());
    for tag in ["v1.0.13", "v1.8.1"] {
        let want = expected(tag);
        let r = knobs(tmp.path(), &["sync", "--repo", "fixtures/radiance.git", "--tag", tag, "--out", "out"]);
        assert_eq!(r.code, 0, "sync {tag}: {}", r.stderr);
        let path = tmp.path().join("out/radiance").join(format!("{tag}.toml"));
        let got: Catalog = toml::from_str(&std::fs::read_to_string(&path).expect("written")).expect("catalogue");
        assert_matches(&want, &got, &format!("the catalogue synced from fixtures/radiance/{tag}"));
    }
}

/// The committed catalogues (what the binary embeds and every lint and
/// explain test judges against) match them too: a hand edit of a default or
/// a member fails here, whatever the other tests were blessed with.
#[test]
fn committed_catalogues_match_the_hand_written_expectations() {
    for tag in ["v1.0.13", "v1.8.1"] {
        let want = expected(tag);
        let path = support::root().join("catalog/radiance").join(format!("{tag}.toml"));
        let got: Catalog = toml::from_str(&std::fs::read_to_string(&path).expect("committed")).expect("catalogue");
        assert_matches(&want, &got, &format!("catalog/radiance/{tag}.toml"));
        let embedded = Store::embedded("radiance").expect("embedded");
        assert_matches(&want, embedded.get("radiance", tag).expect("embedded"), &format!("the embedded {tag}"));
    }
}

/// The llama.cpp idiom (knobs' own fixture in that shape) through
/// `knobs sync --engine llama.cpp`: options, negated spellings, env keys,
/// scopes, members from comparisons, predicates, tables and another file's
/// validator, a removed option, metrics printed behind a prefix.
#[test]
fn llama_cpp_idiom_matches_its_hand_written_expectation() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let repo = tmp.path().join("llama.git");
    support::build_repo(&repo, &[("b4100", support::fixtures().join("llama.cpp/b4100"))]);
    let want = expected_of("llama.cpp", "b4100");
    let r =
        knobs(tmp.path(), &["sync", "--engine", "llama.cpp", "--repo", "llama.git", "--tag", "b4100", "--out", "out"]);
    assert_eq!(r.code, 0, "sync: {}", r.stderr);
    assert_eq!(r.stderr, "", "no warnings expected");
    let path = tmp.path().join("out/llama.cpp/b4100.toml");
    let got: Catalog = toml::from_str(&std::fs::read_to_string(&path).expect("written")).expect("catalogue");
    assert_eq!(got.source.engine, "llama.cpp");
    assert_matches(&want, &got, "the catalogue synced from fixtures/llama.cpp/b4100");
}

/// The comparison itself can fail, and says what differs.
#[test]
fn the_comparison_names_each_difference() {
    let want = expected("v1.8.1");
    let mut got = Store::embedded("radiance").expect("embedded").get("radiance", "v1.8.1").expect("v1.8.1").clone();
    let policy = got.flags.iter_mut().find(|f| f.name == "--checkpoint-policy").expect("policy");
    policy.members.push("floor".into());
    policy.default = "tip-only".into();
    got.flags.retain(|f| f.name != "--prefill-span");
    got.metrics.retain(|m| m.name != "vllm:num_preemptions_total");
    let diff = differences(&want, &got);
    assert_eq!(
        diff,
        [
            "flag --prefill-span presence: expected present, got missing",
            "flag --checkpoint-policy default: expected \"geometric-backoff\", got \"tip-only\"",
            "flag --checkpoint-policy members: expected [\"geometric-backoff\", \"tip-only\", \"keep-all\"], got [\"geometric-backoff\", \"tip-only\", \"keep-all\", \"floor\"]",
            "metric vllm:num_preemptions_total presence: expected present, got missing",
        ]
    );
}
