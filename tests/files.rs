//! Which files are read, and how: shell by shebang under any name, `.zsh`
//! and `.ksh`, Windows batch, PowerShell, Makefile recipes, Procfiles,
//! GitHub Actions `run:` steps and llama-swap `cmd:` strings, each judged
//! on its own line and column (`fixtures/lint/files`); a file named on the
//! command line that knobs cannot read is said to be passed over, and why.
//! Every expected finding below is written by hand from the fixture's text
//! and the catalogue's facts.

use crate::support::{self, run_in};

/// (file, line, column, rule) of every `--format short` finding, in order.
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

fn want(list: &[(&str, usize, usize, &str)]) -> Vec<(String, usize, usize, String)> {
    list.iter().map(|(f, l, c, r)| (f.to_string(), *l, *c, r.to_string())).collect()
}

#[test]
fn scripts_of_every_kind_are_read_for_radiance() {
    let r = run_in(&support::root(), &["lint", "fixtures/lint/files/radiance", "--format", "short"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let d = "fixtures/lint/files/radiance";
    let files: Vec<String> = [
        ".github/workflows/smoke.yml",
        ".github/workflows/smoke.yml",
        "Makefile",
        "Procfile",
        "run.ksh",
        "serve.bat",
        "serve.bat",
        "serve.conf",
        "serve.ps1",
        "start",
    ]
    .iter()
    .map(|f| format!("{d}/{f}"))
    .collect();
    let expected = [
        // The bash step: `floor` is no member of --checkpoint-policy.
        (files[0].as_str(), 11, 33, "KNB002"),
        // The pwsh step: a backtick continues the line; --max-num-seq is invented.
        (files[1].as_str(), 17, 13, "KNB001"),
        // A recipe behind `@$(ENGINE)`, the variable set to `radiance`.
        (files[2].as_str(), 7, 30, "KNB001"),
        // `web:` runs radiance; `worker:` runs another program.
        (files[3].as_str(), 2, 28, "KNB001"),
        (files[4].as_str(), 1, 25, "KNB003"),
        // `^` continues the line, `%SEQS%` is an expansion; REM is a comment.
        (files[5].as_str(), 5, 23, "KNB002"),
        (files[6].as_str(), 6, 3, "KNB001"),
        // A bash shebang in a file named `.conf`.
        (files[7].as_str(), 3, 15, "KNB001"),
        // `& radiance … `, `$env:SEQS`; a `#` line is a comment.
        (files[8].as_str(), 5, 23, "KNB002"),
        // No extension, a zsh shebang.
        (files[9].as_str(), 3, 23, "KNB002"),
    ];
    assert_eq!(found(&r.stdout), want(&expected), "{}", r.stdout);
    // notes.txt is not ours; met in a walk, it is named only with -v.
    assert!(!r.stderr.contains("notes.txt"), "{}", r.stderr);
    let r = run_in(&support::root(), &["-v", "lint", "fixtures/lint/files/radiance", "--format", "short"]);
    let note = "note: skipped fixtures/lint/files/radiance/notes.txt: not a runbook, env file, shell script or deployment file";
    assert!(r.stderr.contains(note), "{}", r.stderr);
}

#[test]
fn scripts_and_llama_swap_configs_are_read_for_llama_cpp() {
    let args = ["--engine", "llama.cpp", "--catalog-dir", "fixtures/llama.cpp/catalog", "--format", "short"];
    let mut all = vec!["lint", "fixtures/lint/files/llama.cpp"];
    all.extend(args);
    let r = run_in(&support::root(), &all);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let d = "fixtures/lint/files/llama.cpp";
    let (bench, cmd, swap) =
        (format!("{d}/.github/workflows/bench.yml"), format!("{d}/serve.cmd"), format!("{d}/swap/config.yaml"));
    let expected = [
        // `shell: cmd` from the job's defaults: `^` continues the line.
        (bench.as_str(), 11, 53, "KNB002"),
        (cmd.as_str(), 4, 16, "KNB002"),
        // The `offload` macro, judged where it is set (used by `coder`).
        (swap.as_str(), 5, 34, "KNB002"),
        (swap.as_str(), 15, 42, "KNB001"),
        // A folded `cmd: >`: each word where it stands.
        (swap.as_str(), 21, 7, "KNB001"),
    ];
    assert_eq!(found(&r.stdout), want(&expected), "{}", r.stdout);
}

#[test]
fn a_named_file_knobs_cannot_read_is_said_to_be_passed_over() {
    let root = support::root();
    let r = run_in(&root, &["lint", "fixtures/lint/files/radiance/notes.txt"]);
    // Not a failure (as a linter passes over a file it has no reader for),
    // but never silent: the note names the file and why, without -v.
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stderr,
        "note: skipped fixtures/lint/files/radiance/notes.txt: named, but not a kind of file knobs reads (by name: `*.md`, env files, `*.sh`, `*.bat`, `*.ps1`, Makefiles, Procfiles, units, Dockerfiles, YAML, JSON dashboards, source code read for its queries: `*.py`, `*.go`, `*.rs`, `*.java`, `*.js`, `*.ts`, `*.tf`, `*.html`; by a shell shebang: any name); an env file of another name goes in `[lint] env_files`\n"
    );
    // Named beside a file that is read, the findings decide the status.
    let r = run_in(&root, &["lint", "fixtures/lint/files/radiance/notes.txt", "fixtures/lint/files/radiance/start"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("skipped fixtures/lint/files/radiance/notes.txt: named, but"), "{}", r.stderr);
    // A script named explicitly is read by its shebang whatever its name.
    let r = run_in(&root, &["lint", "fixtures/lint/files/radiance/serve.conf", "--format", "short"]);
    assert_eq!(found(&r.stdout), want(&[("fixtures/lint/files/radiance/serve.conf", 3, 15, "KNB001")]));
}

#[test]
fn a_workflow_folder_is_walked_but_nothing_else_hidden() {
    let t = support::tree(&[
        (".github/workflows/ci.yml", b"jobs:\n  a:\n    steps:\n      - run: radiance --max-num-seq 2\n"),
        (".github/ISSUE_TEMPLATE/bug.md", b"`radiance --max-num-seq 2`\n"),
        (".hidden/run.md", b"`radiance --max-num-seq 2`\n"),
    ]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(found(&r.stdout), want(&[(".github/workflows/ci.yml", 4, 23, "KNB001")]), "{}", r.stdout);
    // The other two were not seen at all: neither linted nor passed over.
    let r = run_in(t.path(), &["-v", "lint"]);
    assert!(r.stdout.ends_with("in 1 file (against radiance v1.8.1).\n"), "{}", r.stdout);
    assert!(!r.stderr.contains("bug.md") && !r.stderr.contains("run.md"), "{}", r.stderr);
}

/// A `grafana.env` another program reads: `LOG_LEVEL` and `PORT` are keys
/// radiance shares with every other server, so they say nothing alone.
const GRAFANA: &[u8] = b"LOG_LEVEL=INFO\nPORT=grafana\nGF_LOG_LEVEL=loud\nCHECKPOINT_POLICE=tip-only\n";

#[test]
fn an_env_file_is_the_engines_only_with_evidence() {
    // Alone: only the near miss of radiance's CHECKPOINT_POLICY, a warning.
    let t = support::tree(&[("grafana/grafana.env", GRAFANA)]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(found(&r.stdout), want(&[("grafana/grafana.env", 4, 1, "KNB006")]), "{}", r.stdout);
    // The values judged, once something says the file is radiance's.
    let judged = want(&[
        ("grafana/grafana.env", 1, 11, "KNB002"),
        ("grafana/grafana.env", 2, 6, "KNB003"),
        ("grafana/grafana.env", 3, 14, "KNB002"),
        ("grafana/grafana.env", 4, 1, "KNB006"),
    ]);
    let serve: &[u8] = b"#!/bin/sh\nexec radiance --log-level \"$LOG_LEVEL\"\n";
    let pin: &[u8] = b"IMAGE=ghcr.io/x/radiance:1.8.1\n";
    let unit: &[u8] = b"[Service]\nEnvironmentFile=/etc/grafana/grafana.env\nExecStart=/usr/bin/radiance --port 8000\n";
    let other_unit: &[u8] = b"[Service]\nEnvironmentFile=/etc/grafana/grafana.env\nExecStart=/usr/bin/grafana server\n";
    for (name, text) in [("grafana/serve.sh", serve), ("grafana/image.env", pin), ("grafana/engine.service", unit)] {
        let t = support::tree(&[("grafana/grafana.env", GRAFANA), (name, text)]);
        let r = run_in(t.path(), &["lint", "--format", "short"]);
        assert_eq!(found(&r.stdout), judged, "{name}:\n{}", r.stdout);
    }
    // A file of another name that an engine unit names, in a folder with no
    // env file by name: the unit says it is radiance's.
    let unit_conf: &[u8] = b"[Service]\nEnvironmentFile=/etc/radiance/engine.conf\nExecStart=/usr/bin/radiance\n";
    let t = support::tree(&[("units/engine.conf", GRAFANA), ("units/radiance.service", unit_conf)]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    let conf: Vec<_> = judged.iter().map(|(_, l, c, r)| ("units/engine.conf".to_string(), *l, *c, r.clone())).collect();
    assert_eq!(found(&r.stdout), conf, "{}", r.stdout);
    // A unit of another program is no evidence.
    let t = support::tree(&[("grafana/grafana.env", GRAFANA), ("grafana/grafana.service", other_unit)]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(found(&r.stdout), want(&[("grafana/grafana.env", 4, 1, "KNB006")]), "{}", r.stdout);
    // knobs.toml says so.
    let t =
        support::tree(&[("grafana/grafana.env", GRAFANA), ("knobs.toml", b"[lint]\nenv_files = [\"grafana.env\"]\n")]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(found(&r.stdout), judged, "{}", r.stdout);
    // A key only radiance reads is evidence too (and, set for a removed
    // option, reported as the removed flag it sets).
    let t = support::tree(&[("svc/other.env", b"PORT=grafana\nPREFILL_CHUNK=auto\n")]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(found(&r.stdout), want(&[("svc/other.env", 1, 6, "KNB003"), ("svc/other.env", 2, 1, "KNB007")]));
    assert!(r.stdout.contains("`PREFILL_CHUNK` (`--prefill-chunk`) is not a flag of radiance v1.8.1"), "{}", r.stdout);
}

#[test]
fn llama_cpp_env_files_are_its_own_by_their_prefix() {
    let args = ["--engine", "llama.cpp", "--catalog-dir", "CATALOG", "--format", "short"];
    let catalog = support::root().join("fixtures/llama.cpp/catalog");
    let catalog = catalog.to_string_lossy();
    let args: Vec<&str> = args.iter().map(|a| if *a == "CATALOG" { &*catalog } else { a }).collect();
    // LLAMA_ARG_ is llama.cpp's alone: the file is judged, PORT beside it
    // is no key of llama.cpp's (it reads LLAMA_ARG_PORT) and says nothing.
    let t = support::tree(&[("webui/.env", b"PORT=3000\nLLAMA_ARG_PORT=eighty\nLLAMA_ARG_DRAFT_MAX=4\n")]);
    let mut all = vec!["lint"];
    all.extend(&args);
    let r = run_in(t.path(), &all);
    assert_eq!(
        found(&r.stdout),
        want(&[("webui/.env", 2, 16, "KNB003"), ("webui/.env", 3, 1, "KNB007")]),
        "{}",
        r.stdout
    );
}

#[test]
fn env_lines_no_reader_takes() {
    // Written by hand: line, column, rule (KNB018: spaces, hyphen, the dead
    // earlier line of a key set twice; KNB019: a key in lower case).
    let env: &[u8] =
        b"MAX_NUM_SEQS = 2\nCHECKPOINT-POLICY=floor\ncheckpoint_policy=floor\nBUSY_PREFILL_CHUNK=auto\nBUSY_PREFILL_CHUNK=256\n";
    let t = support::tree(&[("svc/knobs.env", env)]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    let f = "svc/knobs.env";
    assert_eq!(
        found(&r.stdout),
        want(&[(f, 1, 13, "KNB018"), (f, 2, 1, "KNB018"), (f, 3, 1, "KNB019"), (f, 4, 1, "KNB018")]),
        "{}",
        r.stdout
    );
    // The lower-case key sets nothing, so its value is not judged (no KNB002);
    // the hyphenated one neither.
    assert!(r.stdout.contains("`BUSY_PREFILL_CHUNK` is set again on line 5"), "{}", r.stdout);
    // --fix rewrites the spaces and the hyphen and the case; the dead line stays.
    run_in(t.path(), &["lint", "--fix", "--format", "short"]);
    let fixed = std::fs::read_to_string(t.path().join(f)).expect("read");
    assert_eq!(
        fixed,
        "MAX_NUM_SEQS=2\nCHECKPOINT_POLICY=floor\nCHECKPOINT_POLICY=floor\nBUSY_PREFILL_CHUNK=auto\nBUSY_PREFILL_CHUNK=256\n"
    );
    // What is left is judged: both keys are set twice, `floor` is no member.
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(
        found(&r.stdout),
        want(&[(f, 2, 1, "KNB018"), (f, 2, 19, "KNB002"), (f, 3, 19, "KNB002"), (f, 4, 1, "KNB018")]),
        "{}",
        r.stdout
    );
    // A lower-case key a serve script reads as written is a key like any other.
    let serve: &[u8] = b"#!/bin/sh\nexec radiance --max-num-seqs \"$max_seqs\"\n";
    let t = support::tree(&[("svc/knobs.env", b"max_seqs=two\n"), ("svc/serve.sh", serve)]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(found(&r.stdout), want(&[("svc/knobs.env", 1, 10, "KNB003")]), "{}", r.stdout);
}

#[test]
fn llama_cpp_keys_in_lower_case_set_nothing() {
    let catalog = support::root().join("fixtures/llama.cpp/catalog");
    let t = support::tree(&[("svc/server.env", b"llama_arg_ctx_size=4096\nLLAMA_ARG_CTX_SIZE = 8192\n")]);
    let args = ["lint", "--engine", "llama.cpp", "--catalog-dir", &catalog.to_string_lossy(), "--format", "short"];
    let r = run_in(t.path(), &args);
    let f = "svc/server.env";
    assert_eq!(found(&r.stdout), want(&[(f, 1, 1, "KNB019"), (f, 2, 19, "KNB018")]), "{}", r.stdout);
    assert!(r.stdout.contains("llama.cpp b4100 reads `LLAMA_ARG_CTX_SIZE`"), "{}", r.stdout);
}

#[test]
fn prose_is_not_a_metric_list() {
    // Written by hand: only the real metric names of line 3 are judged, and
    // `radiance:engine_steps_totl` is the one the build lacks.
    let md: &[u8] = b"# Ports\n\nSet radiance:stats-port and open the \"radiance:overview\"-dashboard.\n\nWatch `radiance:engine_steps_totl` there.\n";
    let t = support::tree(&[("run.md", md)]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    assert_eq!(found(&r.stdout), want(&[("run.md", 5, 8, "KNB004")]), "{}", r.stdout);
    // llama.cpp's prefix, the same way.
    let catalog = support::root().join("fixtures/llama.cpp/catalog");
    let md: &[u8] = b"The llamacpp:requests-panel shows `llamacpp:requests_processin`.\n";
    let t = support::tree(&[("run.md", md)]);
    let args = ["lint", "--engine", "llama.cpp", "--catalog-dir", &catalog.to_string_lossy(), "--format", "short"];
    let r = run_in(t.path(), &args);
    assert_eq!(found(&r.stdout), want(&[("run.md", 1, 36, "KNB004")]), "{}", r.stdout);
}

#[test]
fn a_recorded_series_is_known_to_the_alerts_that_use_it() {
    let rules: &[u8] = b"groups:
  - name: radiance
    rules:
      - record: radiance:engine_steps:rate5m
        expr: rate(radiance:engine_steps_total[5m])
      - alert: EngineStalled
        expr: radiance:engine_steps:rate5m == 0
      - alert: Typo
        expr: radiance:engine_step:rate5m == 0
";
    let t = support::tree(&[("alerts.rules.yaml", rules)]);
    let r = run_in(t.path(), &["lint", "--format", "short"]);
    // Only the series no rule records (and the build does not export).
    assert_eq!(found(&r.stdout), want(&[("alerts.rules.yaml", 9, 15, "KNB004")]), "{}", r.stdout);
}

/// `--fix` turns a `-` in a key into `_` only where that is the one right
/// answer: the key it makes sets a flag of the pinned build. Any other
/// hyphenated key is reported with a suggestion, not marked fixable.
#[test]
fn a_hyphen_is_fixed_only_into_a_key_the_build_reads() {
    let t = support::tree(&[("svc/knobs.env", b"MAX_NUM_SEQS=2\nCHECKPOINT-POLICY=tip-only\nGRAFANA-PORT=3000\n")]);
    let r = support::knobs(t.path(), &["lint", "--format", "short", "svc"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().filter(|l| l.contains("KNB018")).collect();
    assert_eq!(lines.len(), 2, "{}", r.stdout);
    assert!(lines[0].starts_with("svc/knobs.env:2:1: KNB018 [*] `CHECKPOINT-POLICY`"), "{}", r.stdout);
    assert!(lines[1].starts_with("svc/knobs.env:3:1: KNB018 `GRAFANA-PORT`"), "{}", r.stdout);
}
