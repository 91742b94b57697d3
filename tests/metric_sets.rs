//! Each build's whole metric set, from its source (issue 30): the vLLM
//! profile names a folder, so every registration file of a tag is read
//! (one added in a later tag too); each metric keeps its type, labels and
//! the series a scrape shows, what turns it on when it is hidden, its
//! deprecation and successor; lint says when a metric is exported.
//! Expectations are read by hand from `fixtures/vllm/metrics/`.

use std::path::Path;

use knobs::catalog::model::{Catalog, Metric};

use crate::support;

/// Three tags in vLLM's registration idioms: v0.1.0 the early engine
/// (classes by name, an Info, `_created` turned off), v0.2.0 the later
/// logger with files of its own (hidden, gated, deprecated metrics),
/// v0.3.0 the hidden ones gone and a new registration file.
fn repo(dir: &Path) {
    let at = |t: &str| support::fixtures().join("vllm/metrics").join(t);
    support::build_repo(
        &dir.join("vllm.git"),
        &[("v0.1.0", at("v0.1.0")), ("v0.2.0", at("v0.2.0")), ("v0.3.0", at("v0.3.0"))],
    );
}

fn sync(dir: &Path, tag: &str) -> (Catalog, String) {
    let r = support::knobs(dir, &["sync", "--engine", "vllm", "--repo", "vllm.git", "--tag", tag, "--out", "catalog"]);
    assert_eq!(r.code, 0, "sync {tag}: {}", r.stderr);
    let text = std::fs::read_to_string(dir.join(format!("catalog/vllm/{tag}.toml"))).expect("written");
    (toml::from_str(&text).expect("a catalogue"), r.stderr)
}

fn metric<'c>(c: &'c Catalog, name: &str) -> &'c Metric {
    c.metrics.iter().find(|m| m.name == name).unwrap_or_else(|| panic!("{name} missing from {}", c.source.tag))
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn every_registration_file_of_a_tag_is_read() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let names = |c: &Catalog| c.metrics.iter().map(|m| m.name.clone()).collect::<Vec<_>>();
    let (a, _) = sync(tmp.path(), "v0.1.0");
    assert_eq!(
        names(&a),
        [
            "vllm:cache_config_info",
            "vllm:gpu_cache_usage_perc",
            "vllm:prompt_tokens_total",
            "vllm:time_per_output_token_seconds"
        ]
    );
    let (b, warnings) = sync(tmp.path(), "v0.2.0");
    // loggers.py (8), spec_decode/metrics.py (2), realtime/metrics.py (1);
    // reader.py only compares a name.
    assert_eq!(
        names(&b),
        [
            "vllm:cache_config_info",
            "vllm:corrupted_requests_total",
            "vllm:gpu_cache_usage_perc",
            "vllm:inter_token_latency_seconds",
            "vllm:kv_cache_usage_perc",
            "vllm:lora_requests_info",
            "vllm:prompt_tokens_total",
            "vllm:spec_decode_num_accepted_tokens_per_pos_total",
            "vllm:spec_decode_num_drafts_total",
            "vllm:time_per_output_token_seconds",
            "vllm:websocket_connections_active",
        ]
    );
    // `labelnames=metrics_info.keys()`: known when the engine runs.
    assert!(
        warnings
            .contains("vllm/v1/metrics/loggers.py: the labels of vllm:cache_config_info are known only at run time"),
        "{warnings}"
    );
    assert!(
        warnings.contains(
            "vllm/v1/spec_decode/metrics.py: the labels of vllm:spec_decode_num_drafts_total and 1 more metrics are known only at run time"
        ),
        "{warnings}"
    );
    let (c, _) = sync(tmp.path(), "v0.3.0");
    let c_names = names(&c);
    // The file new in v0.3.0, in a folder the profile does not name.
    assert!(c_names.contains(&"vllm:kv_offload_transfer_seconds".to_string()), "{c_names:?}");
    assert_eq!(strs(&metric(&c, "vllm:kv_offload_transfer_seconds").labels), ["model_name", "engine", "direction"]);
    assert!(!c_names.contains(&"vllm:gpu_cache_usage_perc".to_string()), "{c_names:?}");
    assert_eq!(c_names.len(), 10, "{c_names:?}");
}

#[test]
fn each_metric_keeps_type_labels_and_the_series_it_shows() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let (a, _) = sync(tmp.path(), "v0.1.0");
    // `Info(name="vllm:cache_config")` is scraped as `vllm:cache_config_info`.
    assert_eq!(metric(&a, "vllm:cache_config_info").kind.as_str(), "info");
    assert!(metric(&a, "vllm:cache_config_info").samples.is_empty());
    // disable_created_metrics(): no `_created` series in v0.1.0.
    assert_eq!(
        strs(&metric(&a, "vllm:time_per_output_token_seconds").samples),
        [
            "vllm:time_per_output_token_seconds_bucket",
            "vllm:time_per_output_token_seconds_sum",
            "vllm:time_per_output_token_seconds_count"
        ]
    );
    assert!(metric(&a, "vllm:prompt_tokens_total").samples.is_empty(), "the name alone");
    let (b, _) = sync(tmp.path(), "v0.2.0");
    let prompt = metric(&b, "vllm:prompt_tokens_total");
    assert_eq!((prompt.kind.as_str(), strs(&prompt.labels)), ("counter", vec!["model_name", "engine"]));
    assert_eq!(strs(&prompt.samples), ["vllm:prompt_tokens_total", "vllm:prompt_tokens_created"]);
    let itl = metric(&b, "vllm:inter_token_latency_seconds");
    assert_eq!(
        strs(&itl.samples),
        [
            "vllm:inter_token_latency_seconds_bucket",
            "vllm:inter_token_latency_seconds_sum",
            "vllm:inter_token_latency_seconds_count",
            "vllm:inter_token_latency_seconds_created"
        ]
    );
    // `labelnames + ["position"]` over the caller's labels: known at run time,
    // not "no labels".
    let per_pos = metric(&b, "vllm:spec_decode_num_accepted_tokens_per_pos_total");
    assert!(per_pos.labels.is_empty() && !per_pos.unlabelled);
    // A labelled metric and an Info (its keys are given when it is set) are not unlabelled.
    assert!(!metric(&b, "vllm:lora_requests_info").unlabelled && !metric(&a, "vllm:cache_config_info").unlabelled);
    assert_eq!(
        strs(&metric(&b, "vllm:lora_requests_info").labels),
        ["max_lora", "waiting_lora_adapters", "running_lora_adapters"]
    );
    let ws = metric(&b, "vllm:websocket_connections_active");
    assert_eq!((ws.kind.as_str(), ws.help.as_str()), ("gauge", "Open websocket sessions."));
    // Registered with no `labelnames` (nor a third argument): no labels at
    // all, told from labels not read, and the catalogue says schema 5.
    assert!(ws.labels.is_empty() && ws.unlabelled, "{ws:?}");
    assert_eq!(b.schema, 5);
}

#[test]
fn hidden_and_deprecated_metrics_say_what_shows_them_and_what_replaced_them() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let (b, _) = sync(tmp.path(), "v0.2.0");
    let gpu = metric(&b, "vllm:gpu_cache_usage_perc");
    assert_eq!(gpu.shown_by.as_deref(), Some("--show-hidden-metrics-for-version"));
    assert_eq!(gpu.deprecated.as_deref(), Some("DEPRECATED: read vllm:kv_cache_usage_perc instead."));
    assert_eq!(gpu.successor.as_deref(), Some("vllm:kv_cache_usage_perc"));
    let tpot = metric(&b, "vllm:time_per_output_token_seconds");
    assert_eq!(tpot.shown_by.as_deref(), Some("--show-hidden-metrics-for-version"));
    assert_eq!(tpot.successor.as_deref(), Some("vllm:inter_token_latency_seconds"));
    // Behind an env key the engine reads.
    assert_eq!(metric(&b, "vllm:corrupted_requests_total").shown_by.as_deref(), Some("VLLM_COMPUTE_NANS_IN_LOGITS"));
    // Always exported, never deprecated.
    let kv = metric(&b, "vllm:kv_cache_usage_perc");
    assert_eq!((kv.shown_by.as_deref(), kv.deprecated.as_deref(), kv.successor.as_deref()), (None, None, None));
    // In v0.1.0 the same name was exported with no flag and no deprecation.
    let (a, _) = sync(tmp.path(), "v0.1.0");
    let old = metric(&a, "vllm:gpu_cache_usage_perc");
    assert_eq!((old.shown_by.as_deref(), old.deprecated.as_deref()), (None, None));
}

/// A runbook's queries judged at each pin: not yet, no longer (with the
/// successor), never.
#[test]
fn lint_says_when_a_metric_is_exported() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    for tag in ["v0.1.0", "v0.2.0", "v0.3.0"] {
        sync(tmp.path(), tag);
    }
    let queries = "# Queries\n\n```promql\nvllm:gpu_cache_usage_perc\nrate(vllm:inter_token_latency_seconds_bucket[5m])\nvllm:time_per_output_token_seconds_sum\nvllm:prompt_tokens_created\nvllm:made_up_seconds\n```\n";
    std::fs::write(tmp.path().join("runbook.md"), queries).expect("write");
    let lint = |tag: &str| {
        let toml = format!("[pin]\nengine = \"vllm\"\ntag = \"{tag}\"\n\n[catalog]\ndir = \"catalog\"\n");
        std::fs::write(tmp.path().join("knobs.toml"), toml).expect("write");
        let r = support::knobs(tmp.path(), &["lint", "--format", "json", "runbook.md"]);
        let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap_or_else(|_| panic!("json: {}", r.stderr));
        v["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter(|f| f["code"] == "KNB004")
            .map(|f| (f["line"].as_u64().unwrap_or(0), f["message"].as_str().unwrap_or("").to_string()))
            .collect::<Vec<_>>()
    };
    let s = |l: u64, m: &str| (l, m.to_string());
    assert_eq!(
        lint("v0.1.0"),
        [
            s(5, "`vllm:inter_token_latency_seconds_bucket` is not exported yet by vllm v0.1.0 (from v0.2.0)"),
            s(7, "`vllm:prompt_tokens_created` is not exported yet by vllm v0.1.0 (from v0.2.0)"),
            s(8, "`vllm:made_up_seconds` is not exported by vllm v0.1.0"),
        ]
    );
    assert_eq!(
        lint("v0.3.0"),
        [
            s(4, "`vllm:gpu_cache_usage_perc` is no longer exported by vllm v0.3.0 (last v0.2.0; use `vllm:kv_cache_usage_perc`)"),
            s(
                6,
                "`vllm:time_per_output_token_seconds_sum` is no longer exported by vllm v0.3.0 (last v0.2.0; use `vllm:inter_token_latency_seconds`)"
            ),
            s(8, "`vllm:made_up_seconds` is not exported by vllm v0.3.0"),
        ]
    );
}

/// `knobs explain` shows what the source says of a metric: its series, what
/// shows it, its deprecation and successor.
#[test]
fn explain_shows_series_gate_deprecation_and_successor() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    sync(tmp.path(), "v0.2.0");
    let toml = "[pin]\nengine = \"vllm\"\ntag = \"v0.2.0\"\n\n[catalog]\ndir = \"catalog\"\n";
    std::fs::write(tmp.path().join("knobs.toml"), toml).expect("write");
    let r = support::knobs(tmp.path(), &["explain", "vllm:gpu_cache_usage_perc"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for line in [
        "  exported    only with --show-hidden-metrics-for-version",
        "  deprecated  DEPRECATED: read vllm:kv_cache_usage_perc instead.",
        "  successor   vllm:kv_cache_usage_perc",
    ] {
        assert!(r.stdout.lines().any(|l| l == line), "{line:?} missing:\n{}", r.stdout);
    }
    let r = support::knobs(tmp.path(), &["explain", "vllm:prompt_tokens_total"]);
    assert!(
        r.stdout.lines().any(|l| l == "  series      vllm:prompt_tokens_total, vllm:prompt_tokens_created"),
        "{}",
        r.stdout
    );
}
