//! Each rule on its fixtures (`fixtures/lint/rules/<CODE>/bad.*` and
//! `good.*`): the bad one is caught where its markers say and nowhere else,
//! the good one is clean.
//!
//! The markers, written by hand from the planted text: each planted line of
//! a bad fixture ends in a comment of the file's own syntax — `# …` in an
//! env file, a shell script, YAML, and a fenced shell or PromQL block;
//! `<!-- … -->` in Markdown prose — holding `expect:` and one `CODE@COLUMN`
//! per finding on that line, in column order (`# expect: KNB003@37
//! KNB003@61`): a finding of rule CODE on that line, at that column (in
//! characters, from 1). A marker comes after everything knobs reads on its
//! line, so it changes no finding. A good fixture has no marker.

use crate::support;
use crate::support::rule_fixtures::{fixture, fixture_args, lint, lint_fixture};

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

/// `expect: CODE@COLUMN` markers in a fixture: (code, line, column), in order.
fn markers(text: &str) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some((_, rest)) = line.split_once("expect: ") else { continue };
        for word in rest.split_whitespace().take_while(|w| w.contains('@')) {
            let (code, col) = word.split_once('@').expect("CODE@COLUMN");
            let col = col.parse().unwrap_or_else(|_| panic!("line {}: `{word}` is not CODE@COLUMN", i + 1));
            out.push((code.to_string(), i + 1, col));
        }
    }
    out
}

/// (code, line, column) of each `path:line:column: CODE message` line.
fn findings(out: &str) -> Vec<(String, usize, usize)> {
    out.lines()
        .map(|l| {
            let (place, message) = l.split_once(": ").unwrap_or_else(|| panic!("not a finding: {l}"));
            let mut at = place.rsplitn(3, ':').map(|n| n.parse::<usize>().ok());
            let (Some(Some(col)), Some(Some(line))) = (at.next(), at.next()) else { panic!("not a finding: {l}") };
            (message.split_whitespace().next().unwrap_or("").to_string(), line, col)
        })
        .collect()
}

#[test]
fn each_finding_is_where_the_fixture_marks_it() {
    for rule in knobs::lint::rules::RULES {
        let bad = fixture(rule.code, "bad");
        let want = markers(&std::fs::read_to_string(support::root().join(&bad)).expect("fixture"));
        assert!(want.iter().any(|(code, _, _)| code == rule.code), "{bad}: no `expect: {}@…` marker", rule.code);
        let r = lint_fixture(rule.code, "bad");
        assert_eq!(findings(&r.stdout), want, "{bad}: the findings are not the marked ones\n{}{}", r.stdout, r.stderr);
        let good = fixture(rule.code, "good");
        let text = std::fs::read_to_string(support::root().join(&good)).expect("fixture");
        assert_eq!(markers(&text), [], "{good}: a good fixture expects no finding");
    }
}

#[test]
fn an_invented_flag_with_no_near_name_points_at_the_flag_list_of_its_build() {
    // radiance v1.8.1 (the embedded default) has no flag near this one.
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("arm.md"), "# Arm\n\n```sh\nradiance --zzyzx-quorum-vortex 3\n```\n")
        .expect("write");
    let r = support::run_in(tmp.path(), &["lint", "--format", "json", "arm.md"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["findings"][0]["code"], "KNB001", "{}", r.stdout);
    assert_eq!(v["findings"][0]["help"], "`knobs flags --tag v1.8.1` lists the flags this build accepts");
}
