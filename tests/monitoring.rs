//! Monitoring files (issue 30, the reading side): Grafana dashboards in
//! both schemas (rows, collapsed rows, library panels, template variables,
//! Grafana's variables inside PromQL), Perses dashboards, a dashboard held in a ConfigMap and
//! in a GrafanaDashboard, a PrometheusRule (plain and Helm-templated), KEDA and HPA objects and
//! prometheus-adapter rules, all in `fixtures/vllm/monitoring` and judged
//! against the hand-written catalogues of `fixtures/vllm/catalog` (the
//! newest, v0.20.1, through `fixtures/vllm/knobs.toml`). Every expected
//! finding was written from the fixture's planted text and vLLM's source
//! before knobs was run on it: `vllm:gpu_cache_usage_perc` and
//! `vllm:time_per_output_token_seconds` are gone at v0.20.1,
//! `vllm:num_requests_swapped` is not exported, the series carry
//! `model_name` and `engine` (`finished_reason` on `request_success_total`),
//! a gauge has no `_total`, a counter is read with it, a histogram has no
//! series of its bare name.

use crate::support::{self, run_in};

/// (file, line, column, rule) of every finding, in order.
fn found(out: &str) -> Vec<(String, usize, usize, String)> {
    out.lines()
        .filter_map(|l| {
            let mut parts = l.splitn(4, ':');
            let file = parts.next()?.to_string();
            let line = parts.next()?.parse().ok()?;
            let col = parts.next()?.parse().ok()?;
            let code = parts.next()?.split_whitespace().next()?.to_string();
            Some((file, line, col, code))
        })
        .collect()
}

fn lint(path: &str) -> crate::support::Output {
    run_in(&support::root(), &["lint", "--format", "short", &format!("fixtures/vllm/monitoring/{path}")])
}

fn want(list: &[(&str, usize, usize, &str)]) -> Vec<(String, usize, usize, String)> {
    list.iter().map(|(f, l, c, r)| (format!("fixtures/vllm/monitoring/{f}"), *l, *c, r.to_string())).collect()
}

#[test]
fn planted_metric_defects_of_monitoring_files_are_found_where_they_are_written() {
    let r = lint("");
    assert_eq!(r.code, 1, "{}", r.stderr);
    let expected = want(&[
        // A Helm-templated PrometheusRule: its actions blanked, its rules read.
        ("chart/templates/prometheusrule.yaml", 16, 26, "KNB004"), // num_requests_swapped: not exported
        // Classic schema: panels under `rows`, a collapsed row, `[[var]]` and `$__rate_interval`.
        ("grafana/classic.json", 14, 27, "KNB004"), // a gauge queried with `_total`
        ("grafana/classic.json", 22, 28, "KNB005"), // `vllm_` for `vllm:` (the legend's old name is not read)
        ("grafana/classic.json", 34, 27, "KNB004"), // gpu_cache_usage_perc: v0.9.2's and v0.10.0's, gone
        ("grafana/classic.json", 43, 126, "KNB015"), // label_values(…, model): the label is `model_name`
        // Current schema: a collapsed row's own panels, a library panel, a query object.
        ("grafana/current.json", 30, 66, "KNB004"), // time_per_output_token_seconds: gone at v0.20.1
        ("grafana/current.json", 48, 64, "KNB015"), // `reason`: the label is `finished_reason`
        ("grafana/current.json", 65, 117, "KNB004"), // a counter without `_total`, after escaped quotes
        ("grafana/realtime.json", 8, 57, "KNB015"), // the websocket gauge has no labels at all
        // KEDA's query and an HPA's external metric; the adapter's own name is not judged.
        ("k8s/autoscaling.yaml", 20, 46, "KNB015"),
        ("k8s/autoscaling.yaml", 52, 17, "KNB004"),
        // A dashboard in a ConfigMap and in a GrafanaDashboard: places inside the held JSON.
        ("k8s/dashboard-configmap.yaml", 17, 27, "KNB004"), // num_requests_swapped: not exported
        ("k8s/dashboard-configmap.yaml", 22, 37, "KNB004"),
        ("k8s/dashboard-configmap.yaml", 38, 46, "KNB014"), // a histogram's bare name under a quantile
        // prometheus-adapter: seriesQuery and metricsQuery; `name.as` is the adapter's.
        ("k8s/prometheus-adapter.yaml", 19, 23, "KNB004"),
        ("k8s/prometheus-adapter.yaml", 24, 27, "KNB004"),
        // Perses: a variable's matchers, a panel's query.
        ("perses/dashboard.yaml", 18, 17, "KNB004"), // a misspelt counter
        ("perses/dashboard.yaml", 41, 30, "KNB004"),
        // A PrometheusRule: its recorded series is known; an `or` fallback is no defect.
        ("rules/prometheusrule.yaml", 16, 17, "KNB004"),
    ]);
    assert_eq!(found(&r.stdout), expected, "{}", r.stdout);
}

/// The messages say what the build exports, each written from the facts.
#[test]
fn monitoring_findings_name_the_right_series() {
    let r = lint("grafana/classic.json");
    let lines: Vec<&str> = r.stdout.lines().collect();
    let has = |at: &str, text: &str| lines.iter().any(|l| l.contains(at) && l.contains(text));
    assert!(has(":22:28:", "`vllm_num_preemptions_total` is exported as `vllm:num_preemptions_total`"), "{lines:?}");
    assert!(has(":43:126:", "`model` is not a label of `vllm:num_requests_running`"), "{lines:?}");
    let json = run_in(&support::root(), &["lint", "--format", "json", "fixtures/vllm/monitoring/grafana/classic.json"]);
    let helps = helps(&json.stdout);
    for help in [
        "`vllm:num_requests_running` is a gauge: it has no `_total` series; query `vllm:num_requests_running`",
        "vllm writes its metric names with its own separator, not `_`",
    ] {
        assert!(helps.iter().any(|h| h == help), "{help}\n{helps:?}");
    }
    // gpu_cache_usage_perc: the older catalogues have it, and v0.10.0's names its successor.
    assert!(helps.iter().any(|h| h == "vllm v0.20.1 exports `vllm:kv_cache_usage_perc` in its place"), "{helps:?}");
}

/// The help of every finding of a JSON report.
fn helps(out: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(out).expect("json");
    v["findings"].as_array().into_iter().flatten().filter_map(|f| f["help"].as_str().map(str::to_string)).collect()
}

/// llama.cpp's names on a dashboard, judged against the embedded history's
/// newest tag: `llamacpp_` for `llamacpp:`, `_total` on a gauge, `_bucket`
/// on a counter (the server writes no histogram), and
/// `llamacpp:kv_cache_usage_ratio`, which older tags export and the newest
/// does not (tools/server/server-context.cpp's metrics list at b10573).
#[test]
fn a_llama_cpp_dashboard_is_judged_by_its_names() {
    let board = br#"{
  "panels": [
    {"type": "timeseries", "targets": [
      {"expr": "sum(rate(llamacpp:prompt_tokens_total[$__rate_interval]))"},
      {"expr": "sum(rate(llamacpp_tokens_predicted_total[$__rate_interval]))"},
      {"expr": "max(llamacpp:requests_processing_total)"},
      {"expr": "max(llamacpp:kv_cache_usage_ratio)"},
      {"expr": "histogram_quantile(0.9, rate(llamacpp:prompt_tokens_total_bucket[5m]))"}
    ]}
  ]
}
"#;
    let t = support::tree(&[("knobs.toml", b"[pin]\nengine = \"llama.cpp\"\n"), ("grafana/llama.json", board)]);
    let r = support::run::knobs(t.path(), &["lint", "--format", "short", "grafana/llama.json"]);
    let got: Vec<(usize, usize, String)> = found(&r.stdout).into_iter().map(|(_, l, c, code)| (l, c, code)).collect();
    assert_eq!(
        got,
        [(5, 26, "KNB005".into()), (6, 21, "KNB004".into()), (7, 21, "KNB004".into()), (8, 46, "KNB004".into())],
        "{}{}",
        r.stdout,
        r.stderr
    );
    assert!(r.stdout.contains("is exported as `llamacpp:tokens_predicted_total`"), "{}", r.stdout);
    let json = support::run::knobs(t.path(), &["lint", "--format", "json", "grafana/llama.json"]);
    let helps = helps(&json.stdout);
    for help in [
        "`llamacpp:requests_processing` is a gauge: it has no `_total` series; query `llamacpp:requests_processing`",
        "`llamacpp:prompt_tokens_total` is a counter: only a histogram has `_bucket` series",
        "llama.cpp writes its metric names with its own separator, not `_`",
    ] {
        assert!(helps.iter().any(|h| h == help), "{help}\n{helps:?}");
    }
}
