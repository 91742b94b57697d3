//! Broken configuration, catalogues and overlays: exit 2 with the file and
//! line named (and a did-you-mean where one is near), never a panic.

use crate::support::{self, flat, run_in, tree};

#[test]
fn a_bad_lint_setting_points_into_knobs_toml() {
    let t = tree(&[("knobs.toml", b"[lint.severity]\ninvented-flagg = \"off\"\n")]);
    let r = run_in(t.path(), &["lint"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("[lint.severity] names no rule `invented-flagg`"), "{}", r.stderr);
    assert!(r.stderr.contains("knobs.toml:2:1"), "{}", r.stderr);
}

#[test]
fn a_catalogue_of_the_wrong_types_or_schema_points_at_the_place() {
    let t = tree(&[
        ("run.md", b"`--port 1`\n"),
        ("knobs.toml", b"[catalog]\ndir = \"cats\"\n"),
        (
            "cats/radiance/v9.toml",
            b"schema = 2\n[source]\nengine = \"radiance\"\nrepo = \"x\"\ntag = \"v9\"\ncommit = 5\n",
        ),
    ]);
    let r = run_in(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains("cats/radiance/v9.toml is not a valid catalogue"), "{}", r.stderr);
    assert!(r.stderr.contains("v9.toml:6:10]"), "{}", r.stderr);
    assert!(r.stderr.contains("invalid type: integer `5`, expected a string"), "{}", r.stderr);
    std::fs::write(t.path().join("cats/radiance/v9.toml"), "# synced later\nschema = 99\n").expect("write");
    let r = run_in(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains("v9.toml has schema 99"), "{}", r.stderr);
    assert!(r.stderr.contains("v9.toml:2:1]") && r.stderr.contains("this knobs reads schema 5 and older"));
}

#[test]
fn an_overlay_naming_an_unknown_flag_or_metric_is_a_hint_and_check_names_it() {
    let head = "schema = 1\nengine = \"radiance\"\n\n";
    let t = tree(&[
        ("run.md", b"`--port 1`\n"),
        ("knobs.toml", b"[catalog]\ndir = \"cats\"\n"),
        (
            "cats/radiance/semantics.toml",
            format!("{head}[flag.\"--prot\"]\nrole = \"listener\"\ndoes = \"the port\"\n").as_bytes(),
        ),
    ]);
    // The overlay is a hint, never a gate (issue 21): lint and explain run;
    // `knobs catalog check` names the entry, with the nearest flag.
    for args in [&["lint"][..], &["explain", "--port"][..]] {
        let r = run_in(t.path(), args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    }
    let r = run_in(t.path(), &["catalog", "check"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "warning: radiance/semantics.toml flag.\"--prot\": `--prot` is not a flag of radiance v1.8.1 (did you mean `--port`?)\n"
    );
    std::fs::write(
        t.path().join("cats/radiance/semantics.toml"),
        format!("{head}[metric.\"radiance:engine_steps_hold_total\"]\nmeasures = \"x\"\n"),
    )
    .expect("write");
    let r = run_in(t.path(), &["lint"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let r = run_in(t.path(), &["catalog", "check"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("(did you mean `radiance:engine_steps_held_total`?)"), "{}", r.stderr);
    // An overlay that is not TOML at all, or has unknown fields.
    std::fs::write(t.path().join("cats/radiance/semantics.toml"), format!("{head}[flag.\"--port\"]\npurpose = 1\n"))
        .expect("write");
    let r = run_in(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains("semantics.toml is not a valid overlay"), "{}", r.stderr);
    assert!(r.stderr.contains("unknown field `purpose`"), "{}", r.stderr);
    // A newer schema is refused, as a catalogue's is; an empty file says why.
    std::fs::write(t.path().join("cats/radiance/semantics.toml"), "schema = 5\nengine = \"radiance\"\n")
        .expect("write");
    let r = run_in(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains("semantics.toml has schema 5"), "{}", r.stderr);
    assert!(flat(&r.stderr).contains("this knobs reads schema 1 and older"), "{}", r.stderr);
    std::fs::write(t.path().join("cats/radiance/semantics.toml"), "").expect("write");
    std::fs::write(t.path().join("cats/radiance/v1.8.1.toml"), "\n").expect("write");
    for file in ["v1.8.1.toml", "semantics.toml"] {
        let r = run_in(t.path(), &["lint"]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        let what = if file == "semantics.toml" { "overlay" } else { "catalogue" };
        assert!(
            flat(&r.stderr)
                .contains(&format!("{file} is not a valid {what}: missing field `schema` (the file is empty)")),
            "{}",
            r.stderr
        );
        std::fs::remove_file(t.path().join("cats/radiance").join(file)).expect("rm");
    }
}

#[test]
fn a_pin_without_a_catalogue_or_a_misnamed_catalogue_points_at_the_place() {
    let t = tree(&[("run.md", b"`--port 1`\n"), ("knobs.toml", b"[pin]\ntag = \"v9.9.9\"\n")]);
    let r = run_in(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains("no catalogue for radiance v9.9.9; known: v1.0.13, v1.8.1"), "{}", r.stderr);
    assert!(r.stderr.contains("knobs.toml:2:1]") && r.stderr.contains("pinned here"), "{}", r.stderr);
    // The command line's version is not knobs.toml's fault.
    std::fs::write(t.path().join("knobs.toml"), "[catalog]\ndir = \"cats\"\n").expect("write");
    let r = run_in(t.path(), &["lint", "--version", "v9.9.9"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(!r.stderr.contains("pinned here"), "{}", r.stderr);
    // A catalogue of v1.8.1 saved as v7.7.7.toml would be read as v7.7.7.
    let v181 = std::fs::read_to_string(support::fixtures().join("../catalog/radiance/v1.8.1.toml")).expect("catalogue");
    std::fs::create_dir_all(t.path().join("cats/radiance")).expect("mkdir");
    std::fs::write(t.path().join("cats/radiance/v7.7.7.toml"), v181).expect("write");
    let r = run_in(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(flat(&r.stderr).contains("v7.7.7.toml holds tag v1.8.1, not v7.7.7"), "{}", r.stderr);
    assert!(r.stderr.contains("rename it v1.8.1.toml"), "{}", r.stderr);
}

#[test]
fn an_unknown_knobs_toml_key_gets_a_did_you_mean() {
    let t = tree(&[("run.md", b"`--port 1`\n"), ("knobs.toml", b"[pin]\ntga = \"v1.8.1\"\n")]);
    let r = run_in(t.path(), &["lint"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("knobs.toml:2:1]"), "{}", r.stderr);
    assert!(r.stderr.contains("help: did you mean `tag`?"), "{}", r.stderr);
}
