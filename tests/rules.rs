//! Each rule on its fixtures (`fixtures/lint/rules/<CODE>/bad.*` and
//! `good.*`): the bad one is caught, the good one is clean.

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
