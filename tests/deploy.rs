//! Deployment files and PromQL (issue 13): `fixtures/deploy` holds one folder
//! per format with planted defects and traps. `expected.txt` lists, by hand,
//! every finding (`path:line:column CODE`) and every note (`path:line`); the
//! lint must report exactly those and nothing else.

use std::collections::BTreeSet;

use crate::support::{self, run_in};

struct Expected {
    findings: BTreeSet<String>,
    notes: BTreeSet<String>,
}

fn expected() -> Expected {
    let text = std::fs::read_to_string(support::fixtures().join("deploy/expected.txt")).expect("expected.txt");
    let (findings, notes) = text.split_once("# notes\n").expect("expected.txt has a `# notes` section");
    let lines = |s: &str| s.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_string).collect();
    Expected { findings: lines(findings), notes: lines(notes) }
}

/// `path:line:col: CODE message` → `path:line:col CODE`.
fn finding_key(line: &str) -> String {
    let (place, rest) = line.split_once(": ").unwrap_or((line, ""));
    let code = rest.split_whitespace().next().unwrap_or("");
    format!("{place} {code}")
}

#[test]
fn every_planted_defect_is_found_and_nothing_else() {
    let dir = support::fixtures().join("deploy");
    let want = expected();
    // Seven formats, each with defects: the hand count is 47 findings.
    assert_eq!(want.findings.len(), 47, "expected.txt changed: recount by hand");
    let r = run_in(&dir, &["lint", "--format", "short", "."]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let got: BTreeSet<String> = r.stdout.lines().map(finding_key).collect();
    assert_eq!(r.stdout.lines().count(), got.len(), "a finding reported twice:\n{}", r.stdout);
    let missing: Vec<_> = want.findings.difference(&got).collect();
    let extra: Vec<_> = got.difference(&want.findings).collect();
    assert!(missing.is_empty() && extra.is_empty(), "missing: {missing:#?}\nnot expected: {extra:#?}\n{}", r.stdout);
    for folder in ["systemd", "quadlet", "compose", "kubernetes", "dockerfile", "helm", "promql"] {
        assert!(got.iter().any(|f| f.starts_with(&format!("{folder}/"))), "{folder}: no finding");
    }
}

#[test]
fn a_file_that_does_not_parse_is_a_note_naming_its_line() {
    let dir = support::fixtures().join("deploy");
    let want = expected();
    let r = run_in(&dir, &["lint", "--format", "short", "."]);
    let notes: Vec<&str> = r.stderr.lines().filter(|l| l.starts_with("warning: ")).collect();
    assert_eq!(notes.len(), want.notes.len(), "{}", r.stderr);
    for n in &want.notes {
        let (path, line) = n.rsplit_once(':').expect("path:line");
        let prefix = format!("warning: {path}: line {line}: ");
        assert!(notes.iter().any(|l| l.starts_with(&prefix)), "no note {prefix}…\n{}", r.stderr);
    }
    // YAML that does not parse says so; a PromQL block that does not parse says so.
    assert!(r.stderr.contains("kubernetes/broken.yaml: line 15: not read, the YAML does not parse ("), "{}", r.stderr);
    assert!(r.stderr.contains("promql/runbook.md: line 84: this PromQL query does not parse ("), "{}", r.stderr);
}

#[test]
fn one_file_alone_is_judged_as_in_its_folder() {
    // A Quadlet file pins its own version by its Image= line: alone, it is
    // still judged against 1.0.13 (keep-all is not a member there).
    let dir = support::fixtures().join("deploy/quadlet");
    let r = run_in(&dir, &["lint", "--format", "short", "radiance-legacy.container"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let got: Vec<String> = r.stdout.lines().map(finding_key).collect();
    let want: Vec<String> = expected()
        .findings
        .iter()
        .filter_map(|f| f.strip_prefix("quadlet/"))
        .filter(|f| f.starts_with("radiance-legacy.container:"))
        .map(str::to_string)
        .collect();
    assert_eq!(want.len(), 3);
    assert_eq!(got, want);
}

const VALUES: &str = "image:\n  repository: ghcr.io/acme/radiance\n  tag: \"1.8.1\"\nengine:\n  args:\n    - --checkpoint-policy\n    - floor\n";

#[test]
fn helm_args_names_the_key_that_holds_the_extra_args() {
    // Under a key knobs does not know, the list is the chart's business...
    let t = support::tree(&[("chart/values.yaml", VALUES.as_bytes())]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    // ...until knobs.toml names it.
    let t = support::tree(&[
        ("chart/values.yaml", VALUES.as_bytes()),
        ("knobs.toml", "[lint]\nhelm_args = [\"engine.args\"]\n".as_bytes()),
    ]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(r.stdout.lines().map(finding_key).collect::<Vec<_>>(), ["chart/values.yaml:7:7 KNB002"]);
}

#[test]
fn target_labels_are_the_labels_a_scrape_adds() {
    let md = "```promql\nsum(rate(radiance:prefix_hit_cut_tokens_total{reason=\"budget\", cluster=\"eu\"}[5m]))\n```\n";
    // `cluster` is neither registered (the metric has `reason`) nor a default target label.
    let t = support::tree(&[("panel.md", md.as_bytes())]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(r.stdout.lines().map(finding_key).collect::<Vec<_>>(), ["panel.md:2:64 KNB015"]);
    assert!(r.stdout.contains("`cluster` is not a label of `radiance:prefix_hit_cut_tokens_total`"), "{}", r.stdout);
    // Named in knobs.toml, it is allowed.
    let t = support::tree(&[
        ("panel.md", md.as_bytes()),
        ("knobs.toml", "[lint]\ntarget_labels = [\"cluster\", \"job\"]\n".as_bytes()),
    ]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
}

#[test]
fn each_service_and_container_is_judged_against_its_own_image() {
    let compose = "services:
  old:
    image: ghcr.io/x/radiance:1.0.13
    command: [\"--prefill-chunk\", \"512\", \"--checkpoint-policy\", \"keep-all\"]
  new:
    image: ghcr.io/x/radiance:1.8.1
    command: [\"--busy-prefill-chunk\", \"512\", \"--checkpoint-policy\", \"keep-all\", \"--swap-space\", \"4\"]
  web:
    image: nginx:1.27
    environment:
      - CHECKPOINT_POLICY=floor
  exporter:
    image: ghcr.io/x/radiance:1.8.1
    entrypoint: [\"/usr/local/bin/radiance-export\"]
    command: [\"--listen\", \":9100\"]
";
    let pod = "apiVersion: v1
kind: Pod
metadata: {name: two}
spec:
  containers:
    - name: old
      image: ghcr.io/x/radiance:1.0.13
      args: [\"--prefill-chunk\", \"512\", \"--checkpoint-policy\", \"keep-all\"]
    - name: new
      image: ghcr.io/x/radiance:1.8.1
      args: [\"--busy-prefill-chunk\", \"512\"]
    - name: proxy
      image: envoyproxy/envoy:v1.31
      env:
        - {name: CHECKPOINT_POLICY, value: floor}
";
    let t = support::tree(&[("compose.yaml", compose.as_bytes()), ("pod.yaml", pod.as_bytes())]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    // keep-all is not a 1.0.13 member; --swap-space is gone in 1.8.1. The
    // 1.8.1 service's --busy-prefill-chunk and keep-all are fine; nginx's and
    // envoy's env and the exporter (its own entrypoint) are not the engine.
    assert_eq!(
        r.stdout.lines().map(finding_key).collect::<Vec<_>>(),
        ["compose.yaml:4:65 KNB002", "compose.yaml:7:82 KNB007", "pod.yaml:8:64 KNB002"]
    );
}

#[test]
fn the_env_file_a_unit_names_is_read_as_an_env_file() {
    let unit = "[Service]
EnvironmentFile=-/etc/radiance/engine.conf
ExecStart=/usr/local/bin/radiance --port 8000
";
    let relay = "[Service]
EnvironmentFile=/etc/radiance/relay.conf
ExecStart=/usr/local/bin/radiance-relay --port 9901
";
    let t = support::tree(&[
        ("units/radiance.service", unit.as_bytes()),
        ("units/engine.conf", b"PREFILL_INTERLEAVE=2k\nCHECKPOINT_POLICY=floor\n"),
        // Another program's unit: its env file is its own.
        ("units/radiance-relay.service", relay.as_bytes()),
        ("units/relay.conf", b"CHECKPOINT_POLICY=floor\n"),
    ]);
    let r = run_in(t.path(), &["-v", "lint", "--format", "short"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        r.stdout
            .lines()
            .filter(|l| !l.starts_with("Found") && l.contains(": KNB"))
            .map(finding_key)
            .collect::<Vec<_>>(),
        ["units/engine.conf:1:20 KNB003", "units/engine.conf:2:19 KNB002"]
    );
    // Linted, so not "skipped"; the relay's file is not an env file of the engine's.
    assert!(!r.stderr.contains("skipped units/engine.conf"), "{}", r.stderr);
    assert!(r.stderr.contains("skipped units/relay.conf"), "{}", r.stderr);
}

#[test]
fn one_broken_document_leaves_the_others_judged() {
    let manifest = "apiVersion: apps/v1
kind: Deployment
metadata: {name: engine}
spec:
  template:
    spec:
      containers:
        - name: engine
          image: ghcr.io/x/radiance:1.8.1
          args: [\"--checkpoint-policy\", \"floor\"]
---
apiVersion: v1
kind: Service
metadata:
\tname: engine
";
    let t = support::tree(&[("deploy.yaml", manifest.as_bytes())]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(r.stdout.lines().map(finding_key).collect::<Vec<_>>(), ["deploy.yaml:10:42 KNB002"]);
    assert!(r.stderr.contains("warning: deploy.yaml: line 15: not read, the YAML does not parse ("), "{}", r.stderr);
}

#[test]
fn a_script_in_a_block_scalar_points_at_its_own_lines() {
    let pod = "apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers:
    - name: engine
      image: ghcr.io/x/radiance:1.8.1
      command: [\"/bin/sh\", \"-c\"]
      args:
        - |
          exec radiance --model /m \\
            --checkpoint-policy floor \\
            --prefill-interleave 2k
";
    let t = support::tree(&[("pod.yaml", pod.as_bytes())]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        r.stdout.lines().map(finding_key).collect::<Vec<_>>(),
        ["pod.yaml:12:33 KNB002", "pod.yaml:13:34 KNB003"]
    );
}

#[test]
fn a_sidecars_extra_args_are_the_sidecars() {
    let values = "image:
  repository: ghcr.io/acme/radiance
  tag: \"1.8.1\"
extraArgs:
  - --checkpoint-policy
  - floor
sidecar:
  image: envoyproxy/envoy:v1.31
  extraArgs:
    - --log-level
    - trace
";
    let t = support::tree(&[("values.yaml", values.as_bytes())]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    // The engine's list is judged; envoy's `--log-level trace` is not.
    assert_eq!(r.stdout.lines().map(finding_key).collect::<Vec<_>>(), ["values.yaml:6:5 KNB002"]);
}

#[test]
fn grouping_labels_must_be_the_metrics_own() {
    // `by`/`without` name labels the series must carry; label_replace makes
    // its own, and `le` is a histogram's.
    let panel = r#"```promql
sum by (reasons) (rate(radiance:prefix_hit_cut_tokens_total[5m]))
```

```promql
sum by (reason, pod) (rate(radiance:prefix_hit_cut_tokens_total[5m]))
```

```promql
sum(rate(radiance:prefix_hit_cut_tokens_total[5m])) without (cause)
```

```promql
sum by (dst) (label_replace(radiance:prefix_hit_cut_tokens_total, "dst", "$1", "reason", "(.*)"))
```

```promql
histogram_quantile(0.9, sum by (le) (rate(vllm:time_to_first_token_seconds_bucket[5m])))
```
"#;
    let t = support::tree(&[("panel.md", panel.as_bytes())]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(r.stdout.lines().map(finding_key).collect::<Vec<_>>(), ["panel.md:2:9 KNB015", "panel.md:10:62 KNB015"]);
    assert!(r.stdout.contains("`reasons` is not a label of `radiance:prefix_hit_cut_tokens_total`"), "{}", r.stdout);
}
