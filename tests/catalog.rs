//! `knobs catalog show|diff` on the embedded catalogues, and the facts the
//! runbooks record about radiance 1.8.1 checked against the committed one.

use knobs::catalog::model::{Catalog, Kind, MetricType};
use knobs::catalog::store::Store;

use crate::support::{self, run_in};

fn embedded(tag: &str) -> Catalog {
    Store::embedded("radiance").expect("embedded").get("radiance", tag).expect("catalogued").clone()
}

#[test]
fn show_human_defaults_to_the_newest_embedded() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let r = run_in(tmp.path(), &["catalog", "show"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // The newest embedded build, with the members radiance.md records.
    assert!(r.stdout.contains("v1.8.1"), "{}", r.stdout);
    let policy = r.stdout.lines().find(|l| l.contains("--checkpoint-policy")).expect("--checkpoint-policy listed");
    assert!(policy.contains("geometric-backoff") && policy.contains("keep-all"), "{policy}");
    insta::assert_snapshot!(r.stdout);
}

#[test]
fn show_markdown_reference_page() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let r = run_in(tmp.path(), &["catalog", "show", "v1.0.13", "--format", "markdown"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // 1.0.13 still had --prefill-chunk and no --prefill-interleave.
    assert!(r.stdout.starts_with("# radiance v1.0.13"), "{}", r.stdout);
    assert!(r.stdout.contains("`--prefill-chunk`") && !r.stdout.contains("--prefill-interleave"), "{}", r.stdout);
    insta::assert_snapshot!(r.stdout);
}

#[test]
fn show_json_is_the_catalogue() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let r = run_in(tmp.path(), &["catalog", "show", "1.8.1", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let parsed: Catalog = serde_json::from_str(&r.stdout).expect("json catalogue");
    assert_eq!(parsed, embedded("v1.8.1"));
}

#[test]
fn diff_human_and_json() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let r = run_in(tmp.path(), &["catalog", "diff", "v1.0.13", "v1.8.1"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("--prefill-chunk") && r.stdout.contains("--busy-prefill-chunk"), "{}", r.stdout);
    assert!(r.stdout.contains("keep-all"), "{}", r.stdout);
    insta::assert_snapshot!(r.stdout);
    let r = run_in(tmp.path(), &["catalog", "diff", "v1.0.13", "v1.8.1", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["flags_renamed"][0]["from"], "--prefill-chunk");
    assert_eq!(v["flags_renamed"][0]["to"], "--busy-prefill-chunk");
    assert_eq!(v["flags_removed"], serde_json::json!(["--swap-space"]));
    let policy = v["flags_changed"].as_array().expect("changes").iter().find(|c| c["flag"] == "--checkpoint-policy");
    assert_eq!(policy.expect("policy changed")["members_added"], serde_json::json!(["keep-all"]));
    assert!(v["metrics_added"].as_array().expect("added").iter().any(|m| m == "radiance:engine_steps_held_total"));
    // 1.0.13 registered the prefix-hit counter without its `reason` label.
    assert_eq!(
        v["metrics_changed"],
        serde_json::json!([{"metric": "radiance:prefix_hit_cut_tokens_total", "labels_added": ["reason"]}])
    );
}

#[test]
fn unknown_tag_lists_the_known_ones() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let r = run_in(tmp.path(), &["catalog", "show", "v9.9.9"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no catalogue for radiance v9.9.9; known: v1.0.13, v1.8.1"), "{}", r.stderr);
}

#[test]
fn catalog_dir_reads_from_disk_and_rejects_bad_files() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("cats/radiance");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let mut c = embedded("v1.8.1");
    c.source.tag = "v2.0.0".into();
    std::fs::write(dir.join("v2.0.0.toml"), c.to_toml().expect("toml")).expect("write");
    let r = run_in(tmp.path(), &["catalog", "show", "--catalog-dir", "cats", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("\"tag\": \"v2.0.0\""));
    std::fs::write(dir.join("broken.toml"), "schema = 1\n[[flag]]\nname = 3\n").expect("write");
    let r = run_in(tmp.path(), &["catalog", "show", "--catalog-dir", "cats"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("broken.toml is not a valid catalogue"), "{}", r.stderr);
    // The error points at the value of the wrong type, on its line.
    assert!(r.stderr.contains("broken.toml:3:8"), "{}", r.stderr);
    std::fs::write(dir.join("broken.toml"), "schema = 99\n").expect("write");
    let r = run_in(tmp.path(), &["catalog", "show", "--catalog-dir", "cats"]);
    assert!(r.stderr.contains("has schema 99"), "{}", r.stderr);
}

/// Every flag, member, default and metric the runbooks name for 1.8.1.
#[test]
fn radiance_1_8_1_facts() {
    let c = embedded("v1.8.1");
    let flag = |n: &str| c.flag(n).unwrap_or_else(|| panic!("{n} missing from v1.8.1"));
    assert_eq!(flag("--prefill-interleave").kind, Kind::Int);
    assert_eq!(flag("--prefill-interleave").default, "0");
    assert_eq!(flag("--busy-prefill-chunk").kind, Kind::AutoOrInt);
    assert_eq!(flag("--busy-prefill-chunk").default, "auto");
    assert!(flag("--busy-prefill-chunk").auto_means.as_deref().is_some_and(|a| a.contains("1+spec rows")));
    assert_eq!(flag("--prefill-span").kind, Kind::Int);
    let policy = flag("--checkpoint-policy");
    assert_eq!(policy.members, ["geometric-backoff", "tip-only", "keep-all"]);
    assert_eq!(policy.default, "geometric-backoff");
    let from = policy.members_from.as_ref().expect("members source");
    assert!(from.closed && from.origin == "validator-message" && from.location.starts_with("core/config.cpp:"));
    assert!(!policy.members.iter().any(|m| m == "floor"), "floor is the known invented member");
    assert_eq!(flag("--checkpoint-interval").default, "2048");
    assert_eq!(flag("--checkpoint-slots").kind, Kind::AutoOrInt);
    assert_eq!(flag("--checkpoint-slots").default, "auto");
    assert_eq!(flag("--max-num-batched-tokens").kind, Kind::Int);
    assert_eq!(flag("--max-num-seqs").kind, Kind::Int);
    assert_eq!(flag("--stats-port").default, "7770");
    for (name, ty) in [
        ("radiance:engine_steps_total", MetricType::Counter),
        ("radiance:engine_steps_decode_total", MetricType::Counter),
        ("radiance:engine_step_seconds_total", MetricType::Counter),
        ("radiance:engine_step_seconds_decode_total", MetricType::Counter),
        ("radiance:engine_steps_held_total", MetricType::Counter),
        ("radiance:engine_prefill_chunks_capped_total", MetricType::Counter),
        ("radiance:prefix_hit_cut_tokens_total", MetricType::Counter),
        ("radiance:decode_tokens_per_second", MetricType::Gauge),
        ("radiance:prefill_tokens_per_second", MetricType::Gauge),
        ("radiance:num_requests_preempted", MetricType::Gauge),
        ("radiance:prefill_steps_duration", MetricType::Histogram),
        ("radiance:prefill_step_tokens", MetricType::Histogram),
        ("radiance:token_queue_wait", MetricType::Histogram),
        ("vllm:num_preemptions_total", MetricType::Counter),
        ("vllm:num_requests_running", MetricType::Gauge),
        ("vllm:num_requests_waiting", MetricType::Gauge),
        ("vllm:time_to_first_token_seconds", MetricType::Histogram),
    ] {
        let m = c.metric(name).unwrap_or_else(|| panic!("{name} missing from v1.8.1"));
        assert_eq!(m.kind, ty, "{name}");
    }
    assert_eq!(c.metric("radiance:prefix_hit_cut_tokens_total").map(|m| m.labels.clone()), Some(vec!["reason".into()]));
    // The classic prefix mistakes must not exist.
    assert!(c.metric("radiance:num_preemptions_total").is_none());
    assert!(c.metric("radiance:time_to_first_token_seconds").is_none());
}

/// 1.0.13 lacked the step counters and had a smaller policy set.
#[test]
fn radiance_1_0_13_is_older() {
    let c = embedded("v1.0.13");
    assert!(c.metric("radiance:engine_steps_held_total").is_none());
    assert!(c.metric("radiance:engine_prefill_chunks_capped_total").is_none());
    assert!(c.flag("--prefill-interleave").is_none());
    assert_eq!(
        c.flag("--checkpoint-policy").map(|f| f.members.clone()),
        Some(vec!["geometric-backoff".into(), "tip-only".into()])
    );
    assert_eq!(c.flag("-m").map(|f| f.name.as_str()), Some("--model"));
    let _ = support::root();
}
