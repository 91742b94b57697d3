//! First contact with a source that is not the reconstruction: the
//! repository of `fixtures/radiance/upstream/` says 1.8.1 has no
//! `--num-speculative-tokens`, a fourth `--checkpoint-policy` member `lru`,
//! an interval default of 1024, and exports
//! `radiance:prefix_hit_tokens_cut_total` where the reconstruction (and the
//! overlay) name `radiance:prefix_hit_cut_tokens_total`. Synced, it lints,
//! explains and verifies with exit status 0 or 1, never 2 for the overlay;
//! the difference is shown; the embedded catalogues of the reconstruction are
//! not mixed in silently. Every expectation is written from that list, not
//! from knobs' output; each test failed before issue 21.

use std::path::{Path, PathBuf};

use crate::support::{self, build_repo, flat, run_in, short, tree};

/// A project whose knobs.toml pins the repository `R.git`, built beside it
/// from `versions` (tag → tree under `fixtures/radiance/`).
fn project(versions: &[(&str, &str)], knobs_toml: &str) -> tempfile::TempDir {
    let t = tree(&[("knobs.toml", knobs_toml.as_bytes())]);
    let trees: Vec<(&str, PathBuf)> =
        versions.iter().map(|(tag, dir)| (*tag, support::fixtures().join("radiance").join(dir))).collect();
    build_repo(&t.path().join("R.git"), &trees);
    t
}

fn sync(dir: &Path, tag: &str) -> support::Output {
    let r = run_in(dir, &["sync", "--tag", tag]);
    assert_eq!(r.code, 0, "sync {tag}: {}", r.stderr);
    r
}

const PIN_REPO: &str = "[pin]\nrepo = \"R.git\"\n";

/// The reconstruction's 1.0.13 as the same source would have it: the
/// prefix-hit counter under the name upstream 1.8.1 registers.
fn upstream_v1_0_13(dir: &Path) -> PathBuf {
    let to = dir.join("upstream-v1.0.13");
    for e in walkdir::WalkDir::new(support::fixtures().join("radiance/v1.0.13")).into_iter().filter_map(Result::ok) {
        let rel = e.path().strip_prefix(support::fixtures().join("radiance/v1.0.13")).expect("under");
        if e.file_type().is_dir() {
            std::fs::create_dir_all(to.join(rel)).expect("mkdir");
        } else {
            let text = std::fs::read_to_string(e.path()).expect("read");
            let text = text.replace("radiance:prefix_hit_cut_tokens_total", "radiance:prefix_hit_tokens_cut_total");
            std::fs::write(to.join(rel), text).expect("write");
        }
    }
    to
}

/// The issue's setting: both tags of R synced, so no catalogued version
/// registers `radiance:prefix_hit_cut_tokens_total`, which the overlay names.
fn both_synced() -> tempfile::TempDir {
    let t = tree(&[("knobs.toml", PIN_REPO.as_bytes())]);
    let old = upstream_v1_0_13(t.path());
    build_repo(
        &t.path().join("R.git"),
        &[("v1.0.13", old), ("v1.8.1", support::fixtures().join("radiance/upstream/v1.8.1"))],
    );
    sync(t.path(), "v1.0.13");
    sync(t.path(), "v1.8.1");
    t
}

/// The upstream differences, as `catalog diff` prints them (sections in its
/// order: flags removed, flags changed, metrics added, metrics removed).
const DIFFERENCE: &str = "\
flags removed (1):
  - --num-speculative-tokens

flags changed (2):
  * --checkpoint-interval: default 2048 → 1024
  * --checkpoint-policy: members added: lru

metrics added (1):
  + radiance:prefix_hit_tokens_cut_total

metrics removed (1):
  - radiance:prefix_hit_cut_tokens_total
";

/// The issue's reproduction: both tags synced from the user's repository,
/// and the overlay names a meter that no catalogued version has. Before,
/// every command exited 2 on the overlay.
#[test]
fn an_overlay_naming_what_the_source_lacks_is_left_out_and_no_command_fails() {
    let t = both_synced();
    std::fs::write(
        t.path().join("clean.md"),
        "```sh\nradiance --checkpoint-policy lru --checkpoint-interval 1024\n```\n",
    )
    .expect("write");
    std::fs::write(t.path().join("bad.md"), "# Retention\n\n```sh\nradiance --checkpoint-policy floor\n```\n")
        .expect("write");

    // lint: `lru` is a member in the source; `floor` still is not.
    let r = run_in(t.path(), &["lint", "--format", "short", "clean.md"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    let r = run_in(t.path(), &["lint", "--format", "short", "bad.md"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert_eq!(short(&r.stdout), ["bad.md:4:30: KNB002 `floor` is not a member of `--checkpoint-policy`"]);

    // The hook's run (`lint --staged`) refused every commit before.
    let repo = git2::Repository::init(t.path()).expect("git init");
    let mut index = repo.index().expect("index");
    index.add_path(Path::new("clean.md")).expect("stage");
    index.write().expect("write index");
    let r = run_in(t.path(), &["lint", "--staged"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);

    // explain: the meter the source does not register is left out, in one line.
    let r = run_in(t.path(), &["explain", "--checkpoint-policy"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let line = "(The overlay describes `radiance:prefix_hit_cut_tokens_total`, which radiance v1.8.1 from R.git does not register: left out.)";
    assert!(r.stdout.contains(line), "{}", r.stdout);
    assert!(r.stdout.contains("  present  vllm:num_preemptions_total (counter)\n"), "{}", r.stdout);
    assert_eq!(r.stdout.matches("prefix_hit_cut_tokens_total").count(), 1, "{}", r.stdout);
    assert!(r.stdout.contains("members     geometric-backoff, tip-only, keep-all, lru"), "{}", r.stdout);
    // ... and so is a related flag it does not have.
    let r = run_in(t.path(), &["explain", "--busy-prefill-chunk"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("Related\n  --prefill-interleave, --max-num-batched-tokens\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains(
            "(The overlay describes `--num-speculative-tokens`, which radiance v1.8.1 from R.git does not register: left out.)"
        ),
        "{}",
        r.stdout
    );

    // catalog show and diff read the synced catalogues.
    let r = run_in(t.path(), &["catalog", "show"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("radiance v1.8.1 ("), "{}", r.stdout);
    assert!(!r.stdout.contains("--num-speculative-tokens"), "{}", r.stdout);
    let r = run_in(t.path(), &["catalog", "diff", "v1.0.13", "v1.8.1"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stderr, "", "one repository: no warning");

    // catalog check stays strict: every mismatch listed, exit 1.
    let r = run_in(t.path(), &["catalog", "check"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let cut = "`radiance:prefix_hit_cut_tokens_total` is not exported by radiance v1.8.1";
    // The synced catalogues are of tags knobs embeds, from another
    // repository: a note names each (issue 29).
    let differs = |tag: &str| {
        format!("note: catalog/radiance/{tag}.toml is used for radiance {tag}, and it differs from the catalogue knobs embeds for that tag\n")
    };
    assert_eq!(
        r.stderr,
        differs("v1.0.13") + &differs("v1.8.1") + &format!(
            "warning: radiance/semantics.toml flag.\"--busy-prefill-chunk\".related: `--num-speculative-tokens` is not a flag of radiance v1.8.1\n\
             warning: radiance/semantics.toml flag.\"--checkpoint-interval\".meters: {cut}\n\
             warning: radiance/semantics.toml flag.\"--checkpoint-policy\".meters: {cut}\n\
             warning: radiance/semantics.toml metric.\"radiance:prefix_hit_cut_tokens_total\": {cut}\n"
        )
    );
    assert!(r.stdout.ends_with("checked against radiance v1.8.1: 4 problems\n"), "{}", r.stdout);
}

/// verify reads its meters from the overlay: the one the source does not
/// register is left out with a note, and the one it has proves the knob.
#[test]
fn verify_leaves_out_a_meter_the_source_does_not_register() {
    let t = both_synced();
    let verify = support::fixtures().join("verify");
    // The armed scrape as the source names it, with three preemptions counted.
    let scrape = std::fs::read_to_string(verify.join("metrics/armed-v1.8.1.prom"))
        .expect("scrape")
        .replace("radiance:prefix_hit_cut_tokens_total", "radiance:prefix_hit_tokens_cut_total")
        .replace("vllm:num_preemptions_total 0", "vllm:num_preemptions_total 3");
    std::fs::write(t.path().join("after.prom"), scrape).expect("write");
    let argv =
        std::fs::read_to_string(verify.join("argv/armed")).expect("argv").replace("geometric-backoff", "tip-only");
    std::fs::write(t.path().join("cmdline"), argv).expect("write");
    let r = run_in(
        t.path(),
        &["verify", "--cmdline", "cmdline", "--metrics", "after.prom", "--knob", "--checkpoint-policy"],
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("  looks like v1.8.1 (the pinned build): 21 of 21 catalogued names exported\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("`--checkpoint-policy` is in argv as `tip-only`; `vllm:num_preemptions_total` is 3 (above zero)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(
            "    note: the overlay describes `radiance:prefix_hit_cut_tokens_total`, which radiance v1.8.1 from R.git does not register: left out\n"
        ),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("meter radiance:prefix_hit_cut_tokens_total"), "{}", r.stdout);
    let r = run_in(
        t.path(),
        &[
            "verify",
            "--cmdline",
            "cmdline",
            "--metrics",
            "after.prom",
            "--knob",
            "--checkpoint-policy",
            "--format",
            "json",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["knobs"][0]["meters"].as_array().map(Vec::len), Some(1), "{}", r.stdout);
    assert_eq!(v["knobs"][0]["meters"][0]["metric"], "vllm:num_preemptions_total");
}

/// `knobs sync` of a tag knobs embeds prints what the source says that the
/// embedded catalogue did not, and `catalog diff --embedded` shows it again.
#[test]
fn sync_shows_what_the_source_says_that_the_reconstruction_did_not() {
    let t = project(&[("v1.8.1", "upstream/v1.8.1")], PIN_REPO);
    let r = sync(t.path(), "v1.8.1");
    let lead = "What radiance v1.8.1 from R.git says that the catalogue embedded in knobs did not:\n\
                radiance v1.8.1 (fixtures/radiance.git) → v1.8.1 (R.git)\n\n";
    assert!(r.stdout.contains(&format!("{lead}{DIFFERENCE}")), "{}", r.stdout);
    assert!(r.stdout.ends_with("(`knobs catalog diff --embedded v1.8.1` shows this again.)\n"), "{}", r.stdout);
    let r = run_in(t.path(), &["catalog", "diff", "--embedded", "v1.8.1"]);
    assert_eq!((r.code, r.stderr.as_str()), (0, ""));
    assert_eq!(r.stdout, format!("{lead}{DIFFERENCE}"));
    let r = run_in(t.path(), &["catalog", "diff", "--embedded", "v1.8.1", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["flags_removed"], serde_json::json!(["--num-speculative-tokens"]));
    assert_eq!(v["metrics_removed"], serde_json::json!(["radiance:prefix_hit_cut_tokens_total"]));
    assert_eq!(v["repos"], serde_json::json!({"from": "fixtures/radiance.git", "to": "R.git"}));
    // A tag with no synced catalogue has nothing to set against the embedded one.
    let r = run_in(t.path(), &["catalog", "diff", "--embedded", "v1.0.13"]);
    assert_eq!(r.code, 2);
    assert!(flat(&r.stderr).contains("radiance v1.0.13 has no synced catalogue to set against the embedded one"));
    // Syncing the reconstruction itself shows no difference.
    let same = tree(&[("knobs.toml", b"[pin]\nrepo = \"fixtures/radiance.git\"\n")]);
    support::radiance_repo(same.path());
    let r = sync(same.path(), "v1.8.1");
    assert_eq!(r.stdout.lines().count(), 1, "{}", r.stdout);
}

/// Only 1.8.1 synced from R: the embedded 1.0.13 (the reconstruction's) is
/// not mixed in — not the default, not another version's flag — unless a
/// tag names it, and then it is marked.
#[test]
fn an_embedded_catalogue_of_another_repository_is_used_only_when_named_and_marked() {
    let t = project(&[("v1.8.1", "upstream/v1.8.1")], PIN_REPO);
    sync(t.path(), "v1.8.1");
    std::fs::write(t.path().join("run.md"), "`radiance --prefill-chunk 512`\n").expect("write");
    // `--prefill-chunk` is the reconstruction's 1.0.13 flag: R's catalogues
    // alone do not have it, so it is invented, not another version's.
    let r = run_in(t.path(), &["lint", "--format", "short", "run.md"]);
    assert_eq!(
        short(&r.stdout),
        ["run.md:1:11: KNB001 `--prefill-chunk` is not a flag of radiance v1.8.1"],
        "{}",
        r.stderr
    );
    let r = run_in(t.path(), &["explain", "--prefill-chunk"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    let r = run_in(t.path(), &["explain", "--checkpoint-policy"]);
    assert!(r.stdout.contains("History\n  v1.8.1      present; members"), "{}", r.stdout);
    assert!(!r.stdout.contains("v1.0.13"), "{}", r.stdout);

    // Pinned, the embedded 1.0.13 is used, and marked.
    std::fs::write(t.path().join("knobs.toml"), format!("{PIN_REPO}tag = \"v1.0.13\"\n")).expect("write");
    let mark = "radiance v1.0.13 is the catalogue embedded in knobs (from fixtures/radiance.git), not one synced from R.git: run `knobs sync --tag v1.0.13` to catalogue it from there";
    let r = run_in(t.path(), &["lint", "run.md"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("(against embedded radiance v1.0.13)"), "{}", r.stdout);
    assert!(!r.stderr.contains(mark), "only -v says more: {}", r.stderr);
    let r = run_in(t.path(), &["-v", "lint", "run.md"]);
    assert!(r.stderr.contains(&format!("note: {mark}\n")), "{}", r.stderr);
    let r = run_in(t.path(), &["explain", "--prefill-chunk"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("radiance v1.0.13 ("), "{}", r.stdout);
    assert!(r.stdout.contains(&format!("note: {mark}\n")), "{}", r.stdout);

    // A diff across the two repositories says so.
    let r = run_in(t.path(), &["catalog", "diff", "v1.0.13", "v1.8.1"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("radiance v1.0.13 (fixtures/radiance.git) → v1.8.1 (R.git)\n"), "{}", r.stdout);
    assert_eq!(
        r.stderr,
        "warning: radiance v1.0.13 and v1.8.1 come from different repositories (fixtures/radiance.git, embedded in knobs; R.git): a difference may be the repositories', not the versions'\n"
    );
}
