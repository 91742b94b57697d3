//! What each fuzz target does with its input, shared by the targets
//! (`fuzz_targets/<name>.rs`) and by the regression test that replays the
//! inputs under `fuzz/regressions/<name>/` (`tests/fuzz_regressions.rs`):
//! a lint through the public API with the settings the binary builds for
//! the default engine (radiance, newest embedded catalogue, no knobs.toml).

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::OnceLock;

use std::collections::HashMap;
use std::path::Path;

use knobs::catalog::profile::{builtin, Profile};
use knobs::catalog::semantics::{self, Semantics};
use knobs::catalog::store::{self, Store};
use knobs::catalog::{diff, query, render};
use knobs::extract::cpp::{extract_flags, extract_metrics, SourceFile};
use knobs::kinds::FileKind;
use knobs::lint::{lint_files, Report, Settings, StagedFiles};
use knobs::report::{Context, Format};

pub const ENGINE: &str = "radiance";

pub fn profile() -> &'static Profile {
    static P: OnceLock<Profile> = OnceLock::new();
    P.get_or_init(|| builtin(ENGINE).expect("builtin radiance profile"))
}

pub fn store() -> &'static Store {
    static S: OnceLock<Store> = OnceLock::new();
    S.get_or_init(|| Store::embedded(ENGINE).expect("embedded radiance catalogues"))
}

/// As `knobs lint` builds them with no knobs.toml: the newest catalogue,
/// every embedded one beside it, no extra commands.
pub fn settings() -> &'static Settings<'static> {
    static S: OnceLock<Settings<'static>> = OnceLock::new();
    S.get_or_init(|| {
        let store = store();
        let catalog = store.select(ENGINE, None).expect("newest radiance catalogue");
        Settings::new(profile(), catalog, &store.catalogs, Vec::new())
    })
}

/// Lints `bytes` as the one file `path` of `kind`, read from an in-memory
/// index as `--staged` reads files (so the decoding of raw bytes is fuzzed
/// too).
pub fn lint_one(path: &str, kind: FileKind, bytes: &[u8]) -> Report {
    let path = PathBuf::from(path);
    let index = StagedFiles { files: vec![(path.clone(), bytes.to_vec())], max_file_size: 1 << 20 };
    let report = lint_files(&[(path, kind)], &index, settings());
    // Lint catches a panic per file and reports the file as failed (so a
    // bug does not end a CI run): for the fuzzer, that is a crash.
    assert!(report.failed.is_empty(), "knobs failed on the input: {:?}", report.failed);
    report
}

/// Lints arbitrary bytes as the Markdown file `docs/runbook.md`.
pub fn markdown(data: &[u8]) {
    let report = lint_one("docs/runbook.md", FileKind::Markdown, data);
    // Walk the findings so nothing in them is optimised away.
    std::hint::black_box(report.findings().count());
}

/// Lints arbitrary bytes as the env file `svc/knobs.env`.
pub fn env(data: &[u8]) {
    let report = lint_one("svc/knobs.env", FileKind::Env, data);
    std::hint::black_box(report.findings().count());
}

/// Lints arbitrary bytes as the serve script `svc/serve-radiance.sh`.
pub fn shell(data: &[u8]) {
    let report = lint_one("svc/serve-radiance.sh", FileKind::Shell, data);
    std::hint::black_box(report.findings().count());
}

/// The deployment file names the `deploy` target picks from by first byte.
const DEPLOY: [(&str, FileKind); 7] = [
    ("deploy/radiance.service", FileKind::Systemd),
    ("deploy/radiance.container", FileKind::Quadlet),
    ("deploy/Dockerfile", FileKind::Dockerfile),
    ("deploy/compose.yaml", FileKind::Compose),
    ("deploy/values.yaml", FileKind::HelmValues),
    ("deploy/radiance.yaml", FileKind::Yaml),
    ("deploy/alerts.rules.yaml", FileKind::Yaml),
];

/// Lints arbitrary bytes as a deployment file: the first byte picks the
/// name (and so the reader: systemd, Quadlet, Dockerfile, compose, Helm
/// values, Kubernetes or a Prometheus rule file), the rest is its text.
pub fn deploy(data: &[u8]) {
    let Some((first, rest)) = data.split_first() else { return };
    let (name, kind) = DEPLOY[usize::from(*first) % DEPLOY.len()];
    let report = lint_one(name, kind, rest);
    std::hint::black_box(report.findings().count());
}

/// Lints arbitrary bytes as a Markdown runbook, then renders the report in
/// the human format (miette snippets), with and without colour: the
/// renderer must cope with any line length and any column.
pub fn human(data: &[u8]) {
    let report = lint_one("docs/runbook.md", FileKind::Markdown, data);
    for color in [false, true] {
        let ctx = Context { build: "radiance v1.8.1", color, summary: true };
        std::hint::black_box(knobs::report::render(&report, Format::Human, &ctx));
    }
}

/// Extracts flags (and metrics, with the radiance profile's prefixes) from
/// arbitrary text taken as the pinned tree's `core/config.cpp`.
pub fn extract(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let file = SourceFile::new("core/config.cpp", text.as_ref());
    // An Err is an answer, not a bug.
    let _ = std::hint::black_box(extract_flags(&file, &[]));
    let prefixes = &profile().metrics.prefixes;
    let _ = std::hint::black_box(extract_metrics(std::slice::from_ref(&file), prefixes));
}

/// Files linted against each parsed catalogue: one of each kind.
const FILES: &[(&str, FileKind, &str)] = &[
    (
        "docs/runbook.md",
        FileKind::Markdown,
        "# Arm\n\n```sh\nradiance --checkpoint-policy tip-only --prefill-interleave 4 --log-level trace --no-mmap\n```\n\nSet `--busy-prefill-chunk=auto` and watch `radiance:engine_steps_total`.\n",
    ),
    ("svc/knobs.env", FileKind::Env, "CHECKPOINT_POLICY=keep-all\nPREFILL_INTERLEAVE=4\nexport LOG_LEVEL=loud\n"),
    (
        "svc/serve-radiance.sh",
        FileKind::Shell,
        "#!/bin/sh\nargs=(--checkpoint-policy lazy --max-num-seqs \"${MAX_SEQS:-2}\")\nexec radiance serve \"${args[@]}\" --prefill-interleave=$(nproc) \"$@\"\n",
    ),
];

fn semantics() -> &'static Semantics {
    static S: OnceLock<Semantics> = OnceLock::new();
    S.get_or_init(|| Semantics::embedded(ENGINE).expect("embedded radiance semantics"))
}

/// Parses arbitrary text as a catalogue file (`x.toml`); when it parses,
/// exercises the loaded catalogue: look-ups by every spelling and env key,
/// value judging, rendering, diffing against the newest embedded catalogue,
/// the semantics check, a TOML round trip, and a lint of small fixed files
/// judged against it.
pub fn catalog(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(c) = store::parse(Path::new("x.toml"), &text) else { return };
    let profile = profile();

    // Look-ups: every spelling, every env key, every metric.
    for f in c.flags.iter().take(256) {
        for s in f.spellings() {
            std::hint::black_box(c.flag(s));
            std::hint::black_box(query::flag(&c, profile, s));
            std::hint::black_box(query::flag(&c, profile, &s.replace('-', "_")));
        }
        for k in &f.env {
            std::hint::black_box(c.flag_by_env(k));
            std::hint::black_box(query::env_target(k, &c, profile, &HashMap::new()));
        }
        std::hint::black_box(query::env_key_for(f, profile));
        std::hint::black_box(query::env_key_of(&f.name));
        std::hint::black_box(f.values());
        for v in [f.default.as_str(), f.metavar.as_str(), "auto", "1", "-1", "a,b", "x->y", ""] {
            std::hint::black_box(query::judge(f, v));
            std::hint::black_box(query::is_placeholder(v, f));
        }
        for m in f.members.iter().take(16) {
            std::hint::black_box(query::judge(f, m));
        }
        std::hint::black_box(query::kind_phrase(f));
        std::hint::black_box(query::members_list(f));
    }
    for m in c.metrics.iter().take(256) {
        std::hint::black_box(c.metric(&m.name));
        std::hint::black_box(query::find_metric(&c, &m.name));
    }
    std::hint::black_box(knobs::suggest::suggest("--checkpoint-polcy", query::flag_names(&c)));

    // Rendering, diffing, semantics, round trip.
    std::hint::black_box(render::human(&c));
    std::hint::black_box(render::markdown(&c));
    if let Ok(newest) = store().newest(ENGINE) {
        std::hint::black_box(render::diff_human(&diff::diff(newest, &c)));
        std::hint::black_box(render::diff_human(&diff::diff(&c, newest)));
    }
    std::hint::black_box(semantics::check(semantics(), &c, profile));
    if let Ok(t) = c.to_toml() {
        let _ = std::hint::black_box(store::parse(Path::new("x.toml"), &t));
    }

    // Lint small fixed files judged against this catalogue.
    let all = std::slice::from_ref(&c);
    let settings = Settings::new(profile, &c, all, Vec::new());
    let index = StagedFiles {
        files: FILES.iter().map(|(p, _, t)| (PathBuf::from(p), t.as_bytes().to_vec())).collect(),
        max_file_size: 1 << 20,
    };
    let files: Vec<(PathBuf, FileKind)> = FILES.iter().map(|(p, k, _)| (PathBuf::from(p), *k)).collect();
    let report = lint_files(&files, &index, &settings);
    assert!(report.failed.is_empty(), "knobs failed on a fixed file: {:?}", report.failed);
    std::hint::black_box(report.findings().count());
}

/// The entry point of a target by name, for the regression test.
pub fn entry(target: &str) -> Option<fn(&[u8])> {
    Some(match target {
        "markdown" => markdown,
        "env" => env,
        "shell" => shell,
        "deploy" => deploy,
        "human" => human,
        "extract" => extract,
        "catalog" => catalog,
        _ => return None,
    })
}
