//! `knobs sync --all-tags` / `--tags`: an engine's history built from a
//! tagged fixture repository (fixtures/history, radiance's idiom), extended,
//! rebuilt, written with facts only, and read back by `catalog show`, lint
//! and explain.
//!
//! The fixture, by hand: v1.0.0 declares --model, --port, --threads,
//! --log-format (text|json), --mode (fast|safe) and --help, and registers
//! radiance:requests_total and radiance:queue_depth; v1.0.1 has the same
//! blobs; v1.1.0 renames --log-format to --log-style; v1.2.0 adds `turbo` to
//! --mode and drops --threads; v1.3.0 has no core/config.cpp; v1.4.0 has
//! v1.2.0's config.cpp and one metric more (radiance:tokens_total).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{self, knobs};

const TAGS: [&str; 6] = ["v1.0.0", "v1.0.1", "v1.1.0", "v1.2.0", "v1.3.0", "v1.4.0"];

/// The fixture repository at `<dir>/history.git`.
fn repo(dir: &Path) -> PathBuf {
    let dest = dir.join("history.git");
    let versions: Vec<(&str, PathBuf)> =
        TAGS.iter().map(|t| (*t, support::fixtures().join("history").join(t))).collect();
    support::build_repo(&dest, &versions);
    dest
}

fn sync(dir: &Path, extra: &[&str]) -> support::Output {
    let mut args = vec!["sync", "--repo", "history.git", "--out", "out"];
    args.extend_from_slice(extra);
    knobs(dir, &args)
}

fn history(dir: &Path) -> Value {
    let text = std::fs::read_to_string(dir.join("out/radiance/history.json")).expect("history written");
    serde_json::from_str(&text).expect("history is JSON")
}

/// The size as the summary prints it, from the file on disk.
fn size_on_disk(dir: &Path) -> String {
    let bytes = std::fs::metadata(dir.join("out/radiance/history.json")).expect("history").len() as f64;
    format!("{:.1} KiB", bytes / 1024.0)
}

fn tags_of(h: &Value) -> Vec<String> {
    h["tags"].as_array().expect("tags").iter().map(|t| t["tag"].as_str().unwrap_or("").to_string()).collect()
}

fn show_toml(dir: &Path, tag: &str) -> String {
    let r = knobs(dir, &["catalog", "show", tag, "--format", "toml", "--catalog-dir", "out"]);
    assert_eq!(r.code, 0, "show {tag}: {}", r.stderr);
    r.stdout
}

#[test]
fn all_tags_builds_a_history_of_shared_states_and_names_the_tag_skipped() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let r = sync(tmp.path(), &["--all-tags"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.is_empty(), "no warnings expected: {}", r.stderr);
    // Flags read three times (v1.0.0, v1.1.0, v1.2.0: v1.4.0 has v1.2.0's
    // config.cpp), metrics four (every tree but v1.0.1's, which is v1.0.0's).
    assert_eq!(
        r.stdout,
        format!(
            "out/radiance/history.json: 5 tags, 4 states; 4 extracted now (3 flag sets, 4 metric sets read), 1 shared, 1 skipped (v1.3.0: no core/config.cpp); {} (read in place)\n",
            size_on_disk(tmp.path())
        )
    );
    let h = history(tmp.path());
    assert_eq!(tags_of(&h), ["v1.0.0", "v1.0.1", "v1.1.0", "v1.2.0", "v1.4.0"]);
    let state = |i: usize| h["tags"][i]["state"].as_u64();
    assert_eq!(state(0), state(1), "v1.0.1 has v1.0.0's blobs");
    assert_ne!(state(3), state(4), "v1.4.0's metrics differ");
    assert_eq!(h["states"].as_array().map(Vec::len), Some(4));
    // --model, --port, --threads, --log-format, --mode (two member sets),
    // --help, --log-style; three metrics.
    assert_eq!(h["flags"].as_array().map(Vec::len), Some(8));
    assert_eq!(h["metrics"].as_array().map(Vec::len), Some(3));
    assert_eq!(h["facts_only"], Value::Bool(false));
    // Each tag reads as its own build.
    let v101 = show_toml(tmp.path(), "v1.0.1");
    assert!(v101.contains("name = \"--log-format\"") && v101.contains("members = [\"fast\", \"safe\"]"), "{v101}");
    assert!(v101.contains("name = \"--threads\"") && !v101.contains("--log-style"), "{v101}");
    let v120 = show_toml(tmp.path(), "v1.2.0");
    assert!(v120.contains("members = [\"fast\", \"safe\", \"turbo\"]") && v120.contains("name = \"--log-style\""));
    assert!(!v120.contains("--threads") && !v120.contains("--log-format"), "{v120}");
    assert!(
        !v120.contains("radiance:tokens_total") && show_toml(tmp.path(), "v1.4.0").contains("radiance:tokens_total")
    );
}

#[test]
fn a_tag_of_the_history_shows_as_the_file_a_single_tag_sync_writes() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    assert_eq!(sync(tmp.path(), &["--all-tags"]).code, 0);
    for tag in ["v1.0.1", "v1.2.0", "v1.4.0"] {
        let r = knobs(tmp.path(), &["sync", "--repo", "history.git", "--tag", tag, "--out", "single"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        let single = std::fs::read_to_string(tmp.path().join(format!("single/radiance/{tag}.toml"))).expect("file");
        assert_eq!(show_toml(tmp.path(), tag), single, "{tag}");
    }
    // `catalog show TAG` of a tag the history lacks names the nearest ones.
    let r = knobs(tmp.path(), &["catalog", "show", "v1.3.0", "--catalog-dir", "out"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no catalogue for radiance v1.3.0"), "{}", r.stderr);
}

#[test]
fn a_second_run_extracts_nothing_and_an_extended_history_is_the_one_built_at_once() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let r = sync(tmp.path(), &["--tags", "v1.0.*"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(tags_of(&history(tmp.path())), ["v1.0.0", "v1.0.1"]);
    assert!(r.stdout.contains(": 2 tags, 1 states; 1 extracted now (1 flag sets, 1 metric sets read), 1 shared;"));
    // Extended: v1.0.0's flags are known, so config.cpp is read for v1.1.0 and v1.2.0 only.
    let r = sync(tmp.path(), &["--all-tags"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(": 5 tags, 4 states; 3 extracted now (2 flag sets, 3 metric sets read), 0 shared, 1 skipped"),
        "{}",
        r.stdout
    );
    let extended = std::fs::read(tmp.path().join("out/radiance/history.json")).expect("history");
    let r = sync(tmp.path(), &["--all-tags"]);
    assert_eq!(
        r.stdout,
        format!(
            "out/radiance/history.json: nothing new (5 tags, 4 states, 1 skipped (v1.3.0: no core/config.cpp); {}) (read in place)\n",
            size_on_disk(tmp.path())
        )
    );
    assert_eq!(std::fs::read(tmp.path().join("out/radiance/history.json")).expect("history"), extended);
    // Built at once, the same bytes.
    let r = knobs(tmp.path(), &["sync", "--repo", "history.git", "--all-tags", "--out", "once"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(std::fs::read(tmp.path().join("once/radiance/history.json")).expect("history"), extended);
}

#[test]
fn a_history_of_another_knobs_version_is_rebuilt_and_said_so() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    assert_eq!(sync(tmp.path(), &["--all-tags"]).code, 0);
    let path = tmp.path().join("out/radiance/history.json");
    let text = std::fs::read_to_string(&path).expect("history");
    let version = format!("\"knobs_version\":\"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(text.contains(&version), "{text}");
    std::fs::write(&path, text.replacen(&version, "\"knobs_version\":\"0.0.1\"", 1)).expect("write");
    let r = sync(tmp.path(), &["--all-tags"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines[0], "out/radiance/history.json: rebuilt, not extended: it was written by knobs 0.0.1");
    assert!(lines[1].contains("5 tags, 4 states; 4 extracted now"), "{}", r.stdout);
    assert_eq!(std::fs::read_to_string(&path).expect("history"), text);
}

#[test]
fn tags_takes_a_glob_or_a_range_in_tag_order() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    for (pattern, expected) in [
        ("v1.1.0..v1.2.0", vec!["v1.1.0", "v1.2.0"]),
        ("..v1.0.1", vec!["v1.0.0", "v1.0.1"]),
        ("v1.3.0..", vec!["v1.4.0"]),
        ("v1.?.0", vec!["v1.0.0", "v1.1.0", "v1.2.0", "v1.4.0"]),
    ] {
        let _ = std::fs::remove_dir_all(tmp.path().join("out"));
        let r = sync(tmp.path(), &["--tags", pattern]);
        assert_eq!(r.code, 0, "{pattern}: {}", r.stderr);
        assert_eq!(tags_of(&history(tmp.path())), expected, "{pattern}");
    }
}

#[test]
fn a_bad_pattern_or_one_naming_nothing_is_an_error_with_the_nearest_tags() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let r = sync(tmp.path(), &["--tags", "v1.2.0..v1.0.0"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("--tags `v1.2.0..v1.0.0`: v1.2.0 comes after v1.0.0 in tag order; write the older tag first"),
        "{}",
        r.stderr
    );
    let r = sync(tmp.path(), &["--tags", "v1.5.0..v1.9.0"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains(
            "--tags `v1.5.0..v1.9.0` names no tag of `history.git`; nearest tags: v1.0.0, v1.0.1, v1.1.0, v1.2.0, v1.3.0, v1.4.0"
        ),
        "{}",
        r.stderr
    );
    let r = sync(tmp.path(), &["--tags", "v2*"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--tags `v2*` names no tag of `history.git`; nearest tags: "), "{}", r.stderr);
    let r = sync(tmp.path(), &["--tags", "a..b..c"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--tags `a..b..c` has more than one `..`"), "{}", r.stderr);
    // Only a tag that cannot be read: nothing to write.
    let r = sync(tmp.path(), &["--tags", "v1.3.0"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no tag of `history.git` could be read: v1.3.0: no core/config.cpp"), "{}", r.stderr);
    assert!(r
        .stderr
        .contains("check the profile's [extract] files (`knobs sync --tag TAG` shows one tag's error in full)"));
    assert!(!tmp.path().join("out/radiance/history.json").exists());
    // --tag names one catalogue; it goes with neither.
    let r = sync(tmp.path(), &["--tag", "v1.0.0", "--all-tags"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("cannot be used with"), "{}", r.stderr);
    let r = sync(tmp.path(), &["--tag", "v1.0.0", "--facts-only"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--facts-only writes a history: pass --all-tags or --tags PATTERN"), "{}", r.stderr);
}

#[test]
fn facts_only_drops_every_help_text_and_keeps_the_facts() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let r = sync(tmp.path(), &["--all-tags", "--facts-only"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains(", facts only (read in place)\n"), "{}", r.stdout);
    let h = history(tmp.path());
    assert_eq!(h["facts_only"], Value::Bool(true));
    assert_eq!(tags_of(&h).len(), 5);
    let flags = h["flags"].as_array().expect("flags");
    assert_eq!(flags.len(), 8);
    assert!(flags.iter().all(|f| f["help"] == ""), "{flags:?}");
    assert!(h["metrics"].as_array().expect("metrics").iter().all(|m| m["help"] == ""));
    let v120 = show_toml(tmp.path(), "v1.2.0");
    assert!(v120.contains("members = [\"fast\", \"safe\", \"turbo\"]") && !v120.contains("scheduling mode"), "{v120}");
    // A history of facts only is rebuilt when help texts are asked for.
    let r = sync(tmp.path(), &["--all-tags"]);
    assert!(r
        .stdout
        .starts_with("out/radiance/history.json: rebuilt, not extended: it holds facts only (no help texts)\n"));
    assert!(show_toml(tmp.path(), "v1.2.0").contains("help = \"scheduling mode\""));
}

#[test]
fn lint_and_explain_judge_by_a_tag_of_the_history() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    assert_eq!(sync(tmp.path(), &["--all-tags"]).code, 0);
    std::fs::write(tmp.path().join("run.md"), "# serve\n\n```sh\nradiance --mode turbo --log-style json\n```\n")
        .expect("write");
    let lint =
        |tag: &str| knobs(tmp.path(), &["lint", "--catalog-dir", "out", "--tag", tag, "--format", "short", "run.md"]);
    let r = lint("v1.2.0");
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    let r = lint("v1.0.0");
    assert_eq!(r.code, 1, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines[0], "run.md:4:17: KNB002 `turbo` is not a member of `--mode`");
    // v1.1.0 renamed `--log-format` to `--log-style`: a later build's flag says from when.
    assert_eq!(lines[1], "run.md:4:23: KNB007 `--log-style` is not a flag of radiance v1.0.0", "{}", r.stdout);
    let r = knobs(tmp.path(), &["lint", "--catalog-dir", "out", "--tag", "v1.0.0", "--format", "json", "run.md"]);
    assert!(r.stdout.contains("`--log-style` exists from v1.1.0; this file pins v1.0.0"), "{}", r.stdout);
    let r = knobs(tmp.path(), &["explain", "--catalog-dir", "out", "--tag", "v1.0.1", "--", "--mode"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("radiance v1.0.1") && r.stdout.contains("members     fast, safe\n"), "{}", r.stdout);
}

#[test]
fn a_remote_is_read_through_the_cache_and_a_tag_pushed_later_is_added() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dest = tmp.path().join("history.git");
    let first: Vec<(&str, PathBuf)> =
        TAGS[..2].iter().map(|t| (*t, support::fixtures().join("history").join(t))).collect();
    support::build_repo(&dest, &first);
    let url = format!("file://{}", dest.display());
    let r = knobs(tmp.path(), &["sync", "--repo", &url, "--all-tags", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains(": 2 tags, 1 states; 1 extracted now"), "{}", r.stdout);
    assert!(!r.stdout.contains("(read in place)"), "fetched: {}", r.stdout);
    assert_eq!(std::fs::read_dir(tmp.path().join(".knobs-cache/repos")).expect("cache").count(), 1);
    assert_eq!(history(tmp.path())["repo"], Value::String(url.clone()));
    // The remote gains tags: the next run fetches and reads only those.
    std::fs::remove_dir_all(&dest).expect("reset");
    repo(tmp.path());
    let r = knobs(tmp.path(), &["sync", "--repo", &url, "--all-tags", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(": 5 tags, 4 states; 3 extracted now (2 flag sets, 3 metric sets read), 0 shared"),
        "{}",
        r.stdout
    );
}

#[test]
fn without_out_the_history_goes_beside_knobs_toml() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    std::fs::write(tmp.path().join("knobs.toml"), "[pin]\nrepo = \"history.git\"\n").expect("write");
    std::fs::create_dir_all(tmp.path().join("docs")).expect("mkdir");
    let r = knobs(&tmp.path().join("docs"), &["sync", "--all-tags"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(tmp.path().join("catalog/radiance/history.json").is_file(), "{}", r.stdout);
    // And every command there reads it: the newest tag is v1.4.0.
    let r = knobs(tmp.path(), &["catalog", "show"]);
    assert!(r.stdout.starts_with("radiance v1.4.0 ("), "{}", r.stdout);
}

/// A repository of `trees` (tag, folder) written under `<dir>/trees`.
fn repo_of(dir: &Path, name: &str, trees: &[(&str, Vec<(&str, String)>)]) {
    let mut versions = Vec::new();
    for (tag, files) in trees {
        let root = dir.join("trees").join(tag);
        for (path, text) in files {
            let p = root.join(path);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(&p, text).expect("write");
        }
        versions.push((*tag, root));
    }
    support::build_repo(&dir.join(name), &versions);
}

fn fixture_text(tag: &str, file: &str) -> String {
    std::fs::read_to_string(support::fixtures().join("history").join(tag).join("core").join(file)).expect("fixture")
}

#[test]
fn a_tag_whose_extraction_fails_is_skipped_with_why_and_warnings_are_counted() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let good = fixture_text("v1.0.0", "config.cpp");
    let metrics = fixture_text("v1.0.0", "metrics.cpp");
    // Seven builds whose config.cpp holds a line tree-sitter cannot read,
    // each at another line (49 + i): seven distinct warnings.
    let mut trees: Vec<(String, Vec<(&str, String)>)> = (0..7)
        .map(|i| {
            let broken = good.replace(
                "  return ConfigError{};",
                &format!("{}  int broken = ;\n  return ConfigError{{}};", "\n".repeat(i)),
            );
            (format!("v2.0.{i}"), vec![("core/config.cpp", broken), ("core/metrics.cpp", metrics.clone())])
        })
        .collect();
    // And one whose config.cpp declares no flag at all.
    trees.push(("v2.1.0".into(), vec![("core/config.cpp", "int config_parse() { return 0; }\n".into())]));
    let trees: Vec<(&str, Vec<(&str, String)>)> = trees.iter().map(|(t, f)| (t.as_str(), f.clone())).collect();
    repo_of(tmp.path(), "odd.git", &trees);
    let r = knobs(tmp.path(), &["sync", "--repo", "odd.git", "--all-tags", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let warnings: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(warnings.len(), 6, "{}", r.stderr);
    assert_eq!(
        warnings[0],
        "warning: v2.0.0: core/config.cpp:49:14: parse error: this region is not C++ that tree-sitter understands; flags in it may be missed"
    );
    assert!(warnings[4].starts_with("warning: v2.0.4: core/config.cpp:53:14: parse error"), "{}", r.stderr);
    assert_eq!(warnings[5], "warning: and 2 more distinct warnings (`knobs sync --tag TAG` shows one tag's)");
    assert!(
        // v2.1.0's tree is read for metrics beside its flags (the two run
        // apart), so eight metric sets were read for seven tags held.
        r.stdout.contains(": 7 tags, 7 states; 7 extracted now (7 flag sets, 8 metric sets read), 0 shared, 1 skipped (v2.1.0: no flags found in core/config.cpp"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_history_that_cannot_be_extended_says_why_it_is_rebuilt() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    assert_eq!(sync(tmp.path(), &["--tags", "v1.0.*"]).code, 0);
    let rebuilt = |r: &support::Output| r.stdout.lines().next().unwrap_or("").to_string();
    // Another spelling of the repository is another provenance.
    let r = knobs(tmp.path(), &["sync", "--repo", "./history.git", "--tags", "v1.0.*", "--out", "out"]);
    assert_eq!(rebuilt(&r), "out/radiance/history.json: rebuilt, not extended: it was synced from history.git");
    // Another profile (here, [extract] headers in knobs.toml) extracts otherwise.
    std::fs::write(tmp.path().join("knobs.toml"), "[extract]\nheaders = [\"core/other.h\"]\n").expect("write");
    let r = knobs(tmp.path(), &["sync", "--repo", "./history.git", "--tags", "v1.0.*", "--out", "out"]);
    assert_eq!(
        rebuilt(&r),
        "out/radiance/history.json: rebuilt, not extended: it was extracted with another profile or other [[extract.query]] queries"
    );
    std::fs::remove_file(tmp.path().join("knobs.toml")).expect("rm");
    // A file that is not a history is replaced.
    std::fs::write(tmp.path().join("out/radiance/history.json"), "{").expect("write");
    let r = knobs(tmp.path(), &["sync", "--repo", "./history.git", "--tags", "v1.0.*", "--out", "out"]);
    assert!(rebuilt(&r).starts_with("out/radiance/history.json: rebuilt, not extended: "), "{}", r.stdout);
    assert!(rebuilt(&r).contains("is not a valid history"), "{}", r.stdout);
    assert_eq!(tags_of(&history(tmp.path())), ["v1.0.0", "v1.0.1"]);
}

#[test]
fn a_repository_without_tags_has_no_history() {
    let tmp = tempfile::tempdir().expect("tempdir");
    git2::Repository::init_bare(tmp.path().join("empty.git")).expect("init");
    let r = knobs(tmp.path(), &["sync", "--repo", "empty.git", "--all-tags", "--out", "out"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("`empty.git` has no tags to build a history from"), "{}", r.stderr);
    let r = knobs(tmp.path(), &["sync", "--repo", "empty.git", "--tags", "v1*", "--out", "out"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--tags `v1*` names no tag of `empty.git`: it has no tags"), "{}", r.stderr);
    assert!(!tmp.path().join("out").exists());
}

#[test]
fn from_a_remote_only_the_chosen_tags_the_history_lacks_are_fetched_each_shallow() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let url = format!("file://{}", tmp.path().join("history.git").display());
    let cached_tags = || -> Vec<String> {
        let dir = std::fs::read_dir(tmp.path().join(".knobs-cache/repos"))
            .expect("cache")
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| p.is_dir())
            .expect("one cached repository");
        let git = git2::Repository::open_bare(&dir).expect("bare cache");
        assert!(git.is_shallow(), "each tag at depth 1");
        let mut tags: Vec<String> =
            git.tag_names(None).expect("tags").iter().flatten().flatten().map(|t| t.to_string()).collect();
        tags.sort();
        tags
    };
    let r = knobs(tmp.path(), &["sync", "--repo", &url, "--tags", "v1.0.*", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(cached_tags(), ["v1.0.0", "v1.0.1"], "only the two the pattern names");
    assert_eq!(tags_of(&history(tmp.path())), ["v1.0.0", "v1.0.1"]);
    // A wider pattern fetches the tags it adds; the two held are not read again.
    let r = knobs(tmp.path(), &["sync", "--repo", &url, "--tags", "..v1.2.0", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(cached_tags(), ["v1.0.0", "v1.0.1", "v1.1.0", "v1.2.0"]);
    assert_eq!(tags_of(&history(tmp.path())), ["v1.0.0", "v1.0.1", "v1.1.0", "v1.2.0"]);
}

#[test]
fn a_history_rebuilt_from_a_remote_fetches_every_tag_again() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let url = format!("file://{}", tmp.path().join("history.git").display());
    let r = knobs(tmp.path(), &["sync", "--repo", &url, "--all-tags", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // Written by another knobs, and the cache gone (a fresh CI machine).
    let path = tmp.path().join("out/radiance/history.json");
    let text = std::fs::read_to_string(&path).expect("history");
    let older = text.replacen(
        &format!("\"knobs_version\":\"{}\"", env!("CARGO_PKG_VERSION")),
        "\"knobs_version\":\"0.0.1\"",
        1,
    );
    assert_ne!(older, text, "the version is in the file");
    std::fs::write(&path, older).expect("write");
    std::fs::remove_dir_all(tmp.path().join(".knobs-cache")).expect("cache");
    let r = knobs(tmp.path(), &["sync", "--repo", &url, "--all-tags", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("rebuilt, not extended: it was written by knobs 0.0.1"), "{}", r.stdout);
    assert!(r.stdout.contains(": 5 tags, 4 states;"), "{}", r.stdout);
}
