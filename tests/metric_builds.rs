//! Which build judges a monitoring file, and what else issue 30 reads:
//! a dashboard judged by the engine image its repository runs (a compose
//! service, a Helm chart's `appVersion`), several builds in reach judging
//! nothing, a fleet (`[metrics] builds`) whose shared dashboard is judged
//! against each build ("panels empty on …"), a matcher on a metric with no
//! labels, and queries in the string literals of code. The fixtures are in
//! `fixtures/vllm/reach`, `fixtures/vllm/fleet` and `fixtures/vllm/code`,
//! judged against the hand-written catalogues of `fixtures/vllm/catalog`;
//! every expectation is written from vLLM's source at those tags:
//! `vllm:inter_token_latency_seconds` and
//! `vllm:request_time_per_output_token_seconds` are first registered after
//! v0.10.0 (in v0.11.0), `vllm:gpu_cache_usage_perc` and
//! `vllm:time_per_output_token_seconds` are gone by v0.20.1,
//! `vllm:num_requests_swapped` is registered by none of them, and
//! `vllm:websocket_connections_active` (v0.20.1's realtime API) is
//! registered with no labels.

use crate::support::{self, run_in};

/// (file, line, column, rule) of every finding of a short report, in order.
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

/// Lints with `-v`: each file's build, and why, on standard error.
fn lint(path: &str) -> crate::support::Output {
    run_in(&support::root(), &["lint", "-v", "--format", "short", path])
}

fn at(file: &str, list: &[(usize, usize, &str)]) -> Vec<(String, usize, usize, String)> {
    list.iter().map(|(l, c, r)| (file.to_string(), *l, *c, r.to_string())).collect()
}

#[test]
fn a_dashboard_is_judged_by_the_image_its_compose_file_runs() {
    let file = "fixtures/vllm/reach/compose/monitoring/grafana/serving.json";
    let r = lint(file);
    // At v0.10.0 `vllm:gpu_cache_usage_perc` is exported (at v0.20.1, the
    // default, it would be reported); the inter-token histogram is not yet.
    assert_eq!(found(&r.stdout), at(file, &[(16, 61, "KNB004")]), "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("is not exported yet by vllm v0.10.0"), "{}", r.stdout);
    assert!(
        r.stderr.contains(&format!(
            "note: {file}: judged against vllm v0.10.0, the build fixtures/vllm/reach/compose/compose.yaml runs\n"
        )),
        "{}",
        r.stderr
    );
}

#[test]
fn a_chart_s_dashboard_is_judged_by_its_app_version_when_the_values_name_no_tag() {
    let file = "fixtures/vllm/reach/chart/dashboards/engine.json";
    let r = lint(file);
    // v0.9.2 still registers the per-token histogram and not yet the per-request one.
    assert_eq!(found(&r.stdout), at(file, &[(15, 61, "KNB004")]), "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("is not exported yet by vllm v0.9.2"), "{}", r.stdout);
    assert!(
        r.stderr.contains(&format!(
            "note: {file}: judged against vllm v0.9.2, the build fixtures/vllm/reach/chart/Chart.yaml runs\n"
        )),
        "{}",
        r.stderr
    );
}

#[test]
fn several_builds_in_reach_are_each_judged_and_only_what_all_lack_is_said() {
    let file = "fixtures/vllm/reach/mixed/grafana/shared.json";
    let r = run_in(&support::root(), &["lint", "-vv", "--format", "short", file]);
    // v0.9.2 exports `vllm:gpu_cache_usage_perc` (v0.20.1 does not): one of
    // the builds around it fills the panel, so nothing is said.
    assert_eq!(found(&r.stdout), [], "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains(&format!("note: {file}: judged against vllm v0.20.1, and each build the files around it run (v0.9.2 in fixtures/vllm/reach/mixed/a/compose.yaml, v0.20.1 in fixtures/vllm/reach/mixed/b/compose.yaml)\n")),
        "{}",
        r.stderr
    );
    // A name neither build exports is still said.
    let t = support::tree(&[
        ("knobs.toml", b"[pin]\nengine = \"vllm\"\n"),
        (
            "catalog/vllm/v0.9.2.toml",
            &std::fs::read(support::root().join("fixtures/vllm/catalog/vllm/v0.9.2.toml")).expect("catalogue"),
        ),
        (
            "catalog/vllm/v0.20.1.toml",
            &std::fs::read(support::root().join("fixtures/vllm/catalog/vllm/v0.20.1.toml")).expect("catalogue"),
        ),
        ("a/compose.yaml", b"services:\n  old:\n    image: vllm/vllm-openai:v0.9.2\n"),
        ("b/compose.yaml", b"services:\n  new:\n    image: vllm/vllm-openai:v0.20.1\n"),
        ("grafana/a.json", b"{\"panels\": [{\"targets\": [{\"expr\": \"max(vllm:num_requests_swapped)\"}]}]}\n"),
    ]);
    let r = support::run::knobs(t.path(), &["lint", "--format", "short", "grafana/a.json"]);
    assert_eq!(found(&r.stdout), at("grafana/a.json", &[(1, 40, "KNB004")]), "{}{}", r.stdout, r.stderr);
}

#[test]
fn knobs_toml_s_pin_and_the_command_line_s_tag_win_over_the_build_in_reach() {
    let file = "fixtures/vllm/reach/compose/monitoring/grafana/serving.json";
    let r = run_in(&support::root(), &["lint", "-v", "--format", "short", "--tag", "v0.20.1", file]);
    // At v0.20.1 the cache gauge is gone and the inter-token histogram exported.
    assert_eq!(found(&r.stdout), at(file, &[(9, 40, "KNB004")]), "{}{}", r.stdout, r.stderr);
    assert!(!r.stderr.contains("judged against vllm v0.10.0"), "{}", r.stderr);
    // knobs.toml's `[pin] tag` says the same for every file of the project.
    let cat = |t: &str| {
        std::fs::read(support::root().join(format!("fixtures/vllm/catalog/vllm/{t}.toml"))).expect("catalogue")
    };
    let (old, new) = (cat("v0.10.0"), cat("v0.20.1"));
    let t = support::tree(&[
        ("knobs.toml", b"[pin]\nengine = \"vllm\"\ntag = \"v0.20.1\"\n"),
        ("catalog/vllm/v0.10.0.toml", &old),
        ("catalog/vllm/v0.20.1.toml", &new),
        ("deploy/compose.yaml", b"services:\n  engine:\n    image: vllm/vllm-openai:v0.10.0\n"),
        ("grafana/a.json", b"{\"panels\": [{\"targets\": [{\"expr\": \"max(vllm:gpu_cache_usage_perc)\"}]}]}\n"),
    ]);
    let r = support::run::knobs(t.path(), &["lint", "--format", "short", "grafana/a.json"]);
    assert_eq!(found(&r.stdout), at("grafana/a.json", &[(1, 40, "KNB004")]), "{}{}", r.stdout, r.stderr);
}

#[test]
fn a_fleet_s_dashboard_is_judged_against_each_build() {
    let file = "fixtures/vllm/fleet/grafana/fleet.json";
    let r = lint(file);
    assert_eq!(
        found(&r.stdout),
        at(file, &[(14, 23, "KNB004"), (22, 61, "KNB004"), (29, 23, "KNB004"), (30, 49, "KNB015")]),
        "{}{}",
        r.stdout,
        r.stderr
    );
    let line = |n: &str| r.stdout.lines().find(|l| l.contains(n)).unwrap_or_default().to_string();
    assert!(
        line(":14:23:").contains(
            "`vllm:gpu_cache_usage_perc`: panels empty on vllm v0.20.1 (last exported by v0.10.0); v0.10.0 exports it"
        ),
        "{}",
        r.stdout
    );
    assert!(
        line(":22:61:").contains(
            "`vllm:inter_token_latency_seconds_bucket`: panels empty on vllm v0.10.0 (exported from v0.20.1); v0.20.1 exports it"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains(&format!("note: {file}: judged against vllm v0.10.0, and each build of the fleet, `[metrics] builds`: v0.10.0, v0.20.1\n")),
        "{}",
        r.stderr
    );
    // Missing from every build: one finding, as a single build says it.
    assert!(line(":29:23:").contains("`vllm:num_requests_swapped` is not exported by vllm v0.10.0"), "{}", r.stdout);
    let json = run_in(&support::root(), &["lint", "--format", "json", file]);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("json");
    let helps: Vec<&str> = v["findings"].as_array().into_iter().flatten().filter_map(|f| f["help"].as_str()).collect();
    assert!(
        helps.contains(&"`vllm:kv_cache_usage_perc or vllm:gpu_cache_usage_perc` serves every build of the fleet"),
        "{helps:?}"
    );
}

#[test]
fn a_fleet_naming_a_build_with_no_catalogue_is_an_error_in_knobs_toml() {
    // Only v0.20.1 is catalogued: v0.10.0 has no catalogue, nor a build before it.
    let newest = std::fs::read(support::root().join("fixtures/vllm/catalog/vllm/v0.20.1.toml")).expect("catalogue");
    let t = support::tree(&[
        ("knobs.toml", b"[pin]\nengine = \"vllm\"\n\n[metrics]\nbuilds = [\"v0.20.1\", \"v0.10.0\"]\n"),
        ("catalog/vllm/v0.20.1.toml", &newest),
        ("grafana/a.json", b"{\"panels\": []}\n"),
    ]);
    let r = support::run::knobs(t.path(), &["lint", "grafana/a.json"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("[metrics] builds: no catalogue of vllm v0.10.0 or of a build before it"),
        "{}",
        r.stderr
    );
    let bad = support::tree(&[("knobs.toml", b"[metrics]\nbuilds = [\"v1 0\"]\n")]);
    let r = support::run::knobs(bad.path(), &["lint", "."]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("invalid [metrics] builds"), "{}", r.stderr);
}

#[test]
fn a_matcher_on_a_metric_registered_with_no_labels_matches_nothing() {
    let file = "fixtures/vllm/monitoring/grafana/realtime.json";
    let r = lint(file);
    // `sum by (pod)` groups by a label the scrape adds: no finding.
    assert_eq!(found(&r.stdout), at(file, &[(8, 57, "KNB015")]), "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains(
            "`model_name` is not a label of `vllm:websocket_connections_active` in vllm v0.20.1: it has no labels"
        ),
        "{}",
        r.stdout
    );
}

#[test]
fn queries_in_code_are_read_and_registered_names_are_the_file_s_own() {
    let r = lint("fixtures/vllm/code");
    let d = "fixtures/vllm/code/";
    let mut expected = Vec::new();
    // Terraform: a heredoc's query.
    expected.extend(at(&format!("{d}alerts.tf"), &[(24, 15, "KNB004")]));
    // Go: a const query with a printf placeholder, a query handed to
    // api.Query with `_` for the separator; the scaler's own gauge is its.
    expected.extend(at(&format!("{d}autoscaler.go"), &[(15, 22, "KNB004"), (23, 34, "KNB005")]));
    // A console template: a drilldown's query (the prose with an apostrophe is not read).
    expected.extend(at(&format!("{d}consoles/vllm.html"), &[(6, 125, "KNB004")]));
    // Python: a name read whole, an f-string's label, a `query` parameter's counter.
    expected.extend(at(&format!("{d}probe.py"), &[(8, 14, "KNB004"), (19, 53, "KNB015"), (20, 79, "KNB004")]));
    // TypeScript: a gauge read with `_total`.
    expected.extend(at(&format!("{d}web/metrics.ts"), &[(5, 12, "KNB004")]));
    assert_eq!(found(&r.stdout), expected, "{}{}", r.stdout, r.stderr);
    assert!(!r.stdout.contains("router_metrics.py"), "{}", r.stdout);
}

/// A router that exports series of its own under the engine's prefix (one
/// argument a line, as formatters write it), and a dashboard beside it that
/// reads them: the router's names are known to the whole project, even one
/// vLLM no longer exports (`vllm:num_requests_swapped`); the Python client
/// exports a counter `x` as `x_total` only; a name nobody registers is
/// still judged. Copies of the engine's own registration files (under the
/// profile's metric folder, `vllm/`) are the engine's, not the project's.
#[test]
fn series_the_project_s_code_registers_are_known_to_its_dashboards() {
    let cat = |t: &str| {
        std::fs::read(support::root().join(format!("fixtures/vllm/catalog/vllm/{t}.toml"))).expect("catalogue")
    };
    let (old, new) = (cat("v0.10.0"), cat("v0.20.1"));
    let router = b"from prometheus_client import Counter, Gauge\n\nqps = Gauge(\"vllm:router_qps\", \"Requests per second.\", [\"server\"])\nrouted = Counter(\n    \"vllm:router_routed_requests\",\n    \"Requests routed.\",\n    [\"server\"],\n)\nswapped = Gauge(\n    \"vllm:num_requests_swapped\",\n    \"Swapped requests the router saw.\",\n    [\"server\"],\n)\n";
    let vendored =
        b"from prometheus_client import Gauge\n\ng = Gauge(\"vllm:gpu_cache_usage_perc\", \"GPU KV-cache usage.\")\n";
    let board = br#"{"panels": [{"targets": [
  {"expr": "sum by (server) (vllm:router_qps)"},
  {"expr": "sum(rate(vllm:router_routed_requests_total[5m]))"},
  {"expr": "sum(rate(vllm:router_routed_requests[5m]))"},
  {"expr": "sum(vllm:num_requests_swapped)"},
  {"expr": "max(vllm:gpu_cache_usage_perc)"}
]}]}
"#;
    let t = support::tree(&[
        ("knobs.toml", b"[pin]\nengine = \"vllm\"\n"),
        ("catalog/vllm/v0.10.0.toml", &old),
        ("catalog/vllm/v0.20.1.toml", &new),
        ("src/router/metrics.py", router),
        ("third_party/vllm/v1/metrics/loggers.py", vendored),
        ("dashboards/router.json", board),
    ]);
    let r = support::run::knobs(t.path(), &["lint", "--format", "short", "dashboards/router.json"]);
    // Line 4: the counter's bare name is no series; line 6: gone at v0.20.1.
    assert_eq!(
        found(&r.stdout),
        at("dashboards/router.json", &[(4, 22, "KNB004"), (6, 17, "KNB004")]),
        "{}{}",
        r.stdout,
        r.stderr
    );
}

/// An engine image written under a key of a chart's own (`images.default`,
/// one per accelerator), not under `image:`, still says the build the
/// chart runs to the dashboards beside it.
#[test]
fn an_engine_image_under_any_key_of_a_values_file_pins_the_dashboards_around_it() {
    let cat = |t: &str| {
        std::fs::read(support::root().join(format!("fixtures/vllm/catalog/vllm/{t}.toml"))).expect("catalogue")
    };
    let (old, new) = (cat("v0.9.2"), cat("v0.20.1"));
    let t = support::tree(&[
        ("knobs.toml", b"[pin]\nengine = \"vllm\"\n"),
        ("catalog/vllm/v0.9.2.toml", &old),
        ("catalog/vllm/v0.20.1.toml", &new),
        (
            "charts/serving/values.yaml",
            b"modelServers:\n  vllm:\n    images:\n      default: \"vllm/vllm-openai:v0.9.2\"\n",
        ),
        ("dashboards/a.json", b"{\"panels\": [{\"targets\": [{\"expr\": \"max(vllm:gpu_cache_usage_perc)\"}]}]}\n"),
    ]);
    // v0.9.2 exports the cache gauge (v0.20.1, the default, does not).
    let r = support::run::knobs(t.path(), &["lint", "-v", "--format", "short", "dashboards/a.json"]);
    assert_eq!(found(&r.stdout), [], "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains(
            "note: dashboards/a.json: judged against vllm v0.9.2, the build charts/serving/values.yaml runs\n"
        ),
        "{}",
        r.stderr
    );
}

/// The project a monitoring file is in, with no knobs.toml and no git work
/// tree to mark its top: the climb for the code that registers series goes
/// no higher than the working directory, and for a file outside it no
/// higher than the file's own folder (it once listed `/tmp` and `/`, and
/// read the code files it met there). A marked top is reached from anywhere.
#[test]
fn a_climb_without_a_marked_top_stays_in_the_working_directory_or_the_file_s_folder() {
    let exporter = b"from prometheus_client import Gauge\n\nqps = Gauge(\"vllm:router_qps\", \"Requests per second.\", [\"server\"])\n";
    let board = br#"{"panels": [{"targets": [{"expr": "sum by (server) (vllm:router_qps)"}]}]}
"#;
    // The board sits four folders down: a climb of four from it reaches the project.
    let t = support::tree(&[("project/exporter/metrics.py", exporter), ("project/ops/a/b/boards/router.json", board)]);
    let project = t.path().join("project");
    let catalogs = support::root().join("fixtures/vllm/catalog").to_string_lossy().into_owned();
    let lint = |cwd: &std::path::Path, path: &str| {
        run_in(cwd, &["lint", "--engine", "vllm", "--catalog-dir", &catalogs, "--format", "short", path])
    };
    // From the project: its code is in reach, the exporter's gauge is known.
    let inside = lint(&project, "ops/a/b/boards/router.json");
    assert_eq!(inside.code, 0, "{}{}", inside.stdout, inside.stderr);
    // From elsewhere, by its absolute path: only the board's own folder.
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let board_path = project.join("ops/a/b/boards/router.json").to_string_lossy().into_owned();
    let outside = lint(elsewhere.path(), &board_path);
    assert_eq!(found(&outside.stdout), at(&board_path, &[(1, 53, "KNB004")]), "{}{}", outside.stdout, outside.stderr);
    // With a git work tree marking the project, the climb reaches its top
    // from anywhere: from outside by the absolute path, from a sibling by `..`.
    std::fs::create_dir(project.join(".git")).expect("mkdir .git");
    let outside = lint(elsewhere.path(), &board_path);
    assert_eq!(outside.code, 0, "{}{}", outside.stdout, outside.stderr);
    let sibling = lint(&project.join("exporter"), "../ops/a/b/boards/router.json");
    assert_eq!(sibling.code, 0, "{}{}", sibling.stdout, sibling.stderr);
}
