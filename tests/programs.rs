//! Which program a command line runs, as operators write it
//! (`fixtures/lint/programs/`): binaries by path, with `.exe`, in quoted
//! Windows paths or held in variables; binaries renamed between versions
//! (`./main`, `./server`), judged by the pinned build's own names; shells
//! behind shells (`su -c`, `bash -lc`, `podman run --entrypoint /bin/sh`,
//! compose and Kubernetes `sh -c`); wrappers read with their own option
//! grammar (`sudo -iu`, `taskset -c`, `numactl --…`, `kubectl exec --`); an
//! argv built indirectly (a word-split string, `set --`, a function that
//! wraps the engine); and env set on the command line for the engine.
//!
//! Each expected finding is written here by hand from the fixture's text and
//! the catalogue's facts: (line, the word the finding points at, rule). The
//! column is where that word stands on the line, found in the fixture text,
//! so no expectation comes from knobs' own output.

use crate::support::{self, run_in};

const LLAMA: &[&str] = &["--engine", "llama.cpp", "--catalog-dir", "fixtures/llama.cpp/catalog"];

fn lint(path: &str, extra: &[&str]) -> crate::support::Output {
    let mut args = vec!["lint", "--format", "short", path];
    args.extend_from_slice(extra);
    run_in(&support::root(), &args)
}

/// (line, column, rule) of each `path:line:col: CODE …` line.
fn found(out: &str) -> Vec<(usize, usize, String)> {
    out.lines()
        .filter_map(|l| {
            let mut parts = l.splitn(4, ':');
            let _file = parts.next()?;
            let line = parts.next()?.parse().ok()?;
            let col = parts.next()?.parse().ok()?;
            let code = parts.next()?.split_whitespace().next()?.to_string();
            Some((line, col, code))
        })
        .collect()
}

/// The expectations with their columns: where each word stands on its
/// line of the fixture (its `nth` occurrence, from 1), in characters.
fn placed(path: &str, want: &[(usize, &str, usize, &str)]) -> Vec<(usize, usize, String)> {
    let text = std::fs::read_to_string(support::root().join(path)).expect("fixture");
    let lines: Vec<&str> = text.lines().collect();
    want.iter()
        .map(|(line, word, nth, code)| {
            let l = lines[line - 1];
            let at = (l.match_indices(word).nth(nth - 1)).unwrap_or_else(|| panic!("{path}:{line}: no `{word}`")).0;
            (*line, l[..at].chars().count() + 1, code.to_string())
        })
        .collect()
}

fn check(path: &str, extra: &[&str], want: &[(usize, &str, usize, &str)]) -> String {
    let r = lint(path, extra);
    let want = placed(path, want);
    assert_eq!(r.code, if want.is_empty() { 0 } else { 1 }, "{path}\n{}{}", r.stdout, r.stderr);
    assert_eq!(found(&r.stdout), want, "{path}\n{}", r.stdout);
    r.stdout
}

#[test]
fn radiance_through_wrappers_variables_and_shells() {
    let out = check(
        "fixtures/lint/programs/radiance/serve.sh",
        &[],
        &[
            (7, "--max-num-sqs", 1, "KNB001"), // EXTRA_ARGS, word-split into the argv on line 10
            (9, "floor", 1, "KNB002"),         // $BIN is radiance
            (13, "floor", 1, "KNB002"),        // `podman run -e` sets the engine's env; -iu takes `radiance`
            (13, "two", 1, "KNB003"),
            (14, "keep-al", 1, "KNB002"),             // sudo -Eu, nohup, taskset -c MASK
            (15, "--prefil-interleave", 1, "KNB001"), // runuser -u … --, numactl --x=…
            (16, "floor", 1, "KNB002"),               // su - user -c '…'
            (17, "2x", 1, "KNB003"),                  // bash -lc "…"
            (18, "tip-onl", 1, "KNB002"),             // env -i K=V
            (19, "--checkpoint-polcy", 1, "KNB001"),  // kubectl exec POD --
            (20, "one", 1, "KNB003"),                 // --entrypoint /bin/sh IMAGE -c "…"
            (21, "floor", 1, "KNB002"),               // K=V before the command
            (30, "geometric-backof", 1, "KNB002"),    // set -- …; exec radiance "$@"
        ],
    );
    assert!(out.contains("`floor` is not a member of `CHECKPOINT_POLICY` (`--checkpoint-policy`)"), "{out}");
    assert!(!out.contains("`-c`"), "a shell's -c is never the engine's: {out}");
}

#[test]
fn radiance_behind_a_function_and_a_split_string() {
    check(
        "fixtures/lint/programs/radiance/wrap.sh",
        &[],
        &[
            (10, "floor", 1, "KNB002"), // one of two values of ARGS, expanded unquoted on line 13
            (12, "lots", 2, "KNB003"),  // serve() passes "$@" to radiance
        ],
    );
}

#[test]
fn radiance_shell_entrypoints_in_compose_and_kubernetes() {
    // The sidecar's `echo --checkpoint-policy floor` (line 10) is not the engine's.
    check("fixtures/lint/programs/radiance/compose.yaml", &[], &[(6, "floor", 1, "KNB002")]);
    check("fixtures/lint/programs/radiance/deployment.yaml", &[], &[(11, "floor", 1, "KNB002")]);
}

#[test]
fn llama_binaries_as_written() {
    let out = check(
        "fixtures/lint/programs/llama.cpp/run.sh",
        LLAMA,
        &[
            (8, "--hots", 1, "KNB001"),
            (9, "--port", 1, "KNB010"),             // llama-cli.exe is the client
            (10, "lyer", 1, "KNB002"),              // C:/"Program Files"/…/llama-server.exe
            (11, "--host", 1, "KNB010"),            // $BIN is llama-cli
            (12, "80x", 1, "KNB003"),               // ${LLAMA_SERVER:-…llama-server}
            (13, "LLAMA_ARG_CTX_SIZ", 1, "KNB006"), // env on the command line
            (14, "--hots", 1, "KNB001"),            // sudo -iu llama: `llama` is the user
            (15, "./main", 1, "KNB020"),
            (16, "./server", 1, "KNB020"),
            (27, "lots", 1, "KNB003"), // the default of SERVE_OPTS, split on line 28
        ],
    );
    assert!(out.contains("KNB020 `main` is `llama-cli` since b3183"), "{out}");
    assert!(out.contains("KNB020 `server` is `llama-server` since b3183"), "{out}");
    assert!(out.contains("`--port` is not an option of llama-cli in llama.cpp b4100"), "{out}");
    let mut args = vec!["lint", "--color", "never", "fixtures/lint/programs/llama.cpp/run.sh"];
    args.extend_from_slice(LLAMA);
    let human = run_in(&support::root(), &args).stdout;
    assert!(human.contains("llama.cpp b4100 has no `main`: run `llama-cli`"), "{human}");
}

#[test]
fn llama_renamed_binaries_in_a_readme() {
    check(
        "fixtures/lint/programs/llama.cpp/README.md",
        LLAMA,
        &[(12, "lots", 1, "KNB003"), (18, "./main", 1, "KNB020"), (19, "bin/server", 1, "KNB020")],
    );
}

#[test]
fn an_old_build_keeps_its_own_names() {
    // b3000 is older than the rename: `./main` and `./server` are its binaries.
    let old = ["--engine", "llama.cpp", "--catalog-dir", "fixtures/lint/programs/catalog"];
    check("fixtures/lint/programs/llama.cpp/old.md", &old, &[]);
}

#[test]
fn a_newer_build_names_the_second_rename_and_judges_its_scope() {
    let new = ["--engine", "llama.cpp", "--catalog-dir", "fixtures/lint/programs/catalog-new"];
    let out = check(
        "fixtures/lint/programs/llama.cpp/new.md",
        &new,
        &[
            (4, "./main", 1, "KNB020"), // -if is llama-completion's: accepted
            (5, "./main", 1, "KNB020"),
            (5, "--port", 1, "KNB010"), // the server's, not llama-completion's
        ],
    );
    assert!(out.contains("KNB020 `main` is `llama-completion` since b7356"), "{out}");
    let r = run_in(
        &support::root(),
        &["lint", "--color", "never", "fixtures/lint/programs/llama.cpp/new.md", new[0], new[1], new[2], new[3]],
    );
    assert!(
        r.stdout.contains("llama.cpp b7400 has no `main`: run `llama-completion` (it was `llama-cli` from b3183 on)"),
        "{}",
        r.stdout
    );
}

#[test]
fn radiance_env_lists_under_an_engine_image_in_helm_values() {
    // The exporter's env (line 17) is its own: its image is not the engine's.
    check(
        "fixtures/lint/programs/radiance/chart/values.yaml",
        &[],
        &[(11, "floor", 1, "KNB002"), (13, "two", 1, "KNB003")],
    );
}

#[test]
fn an_env_value_a_serve_script_splits_into_the_argv_is_judged_as_that_argv() {
    // serve.sh runs `radiance … $RADIANCE_ARGS` and never sets it: engine.env's
    // value is the argv. NOTES (line 3) is expanded nowhere: prose.
    let env = "fixtures/lint/programs/radiance/trio/engine.env";
    let r = lint("fixtures/lint/programs/radiance/trio", &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let want = placed(env, &[(2, "floor", 1, "KNB002")]);
    assert_eq!(found(&r.stdout), want, "{}", r.stdout);
    assert!(r.stdout.starts_with(&format!("{env}:")), "{}", r.stdout);
    let llama = "fixtures/lint/programs/llama.cpp/trio/server.env";
    let r = lint("fixtures/lint/programs/llama.cpp/trio", LLAMA);
    assert_eq!(found(&r.stdout), placed(llama, &[(1, "--hots", 1, "KNB001")]), "{}", r.stdout);
}

/// An old binary name in exec form (`["./server", "--host", …]` in a
/// compose file or a Dockerfile) is named as on a shell line, and a binary
/// held in a variable whose folders vary (`/media/$USER/apps/llama-cli`) is
/// still that binary: its argv is judged.
#[test]
fn renamed_binaries_in_exec_form_and_binary_paths_with_variables() {
    let cat = support::fixtures().join("llama.cpp/catalog").display().to_string();
    let t = support::tree(&[
        ("compose.yaml", b"services:\n  llm:\n    image: ghcr.io/ggml-org/llama.cpp:server-b4100\n    command: [\"./server\", \"--host\", \"0.0.0.0\"]\n  idle:\n    image: ghcr.io/ggml-org/llama.cpp:server-b4100\n    command: [\"./server\"]\n"),
        ("Dockerfile", b"FROM ghcr.io/ggml-org/llama.cpp:full-b4100\nENTRYPOINT [\"./server\", \"--host\", \"0.0.0.0\"]\n"),
        ("run.sh", b"#!/bin/sh\nBIN=/media/$USER/apps/llama-cli\n\"$BIN\" -m m.gguf --ctx-sizee 4\n"),
    ]);
    let r = run_in(t.path(), &["lint", "--engine", "llama.cpp", "--catalog-dir", &cat, "--format", "short", "."]);
    let lines = support::short(&r.stdout);
    let at: Vec<(String, String)> = lines
        .iter()
        .map(|l| (l.split(": ").next().unwrap_or("").to_string(), l.split(' ').nth(1).unwrap_or("").to_string()))
        .collect();
    let want = |f: &str, c: &str| (f.to_string(), c.to_string());
    assert_eq!(
        at,
        [want("Dockerfile:2:14", "KNB020"), want("compose.yaml:4:16", "KNB020"), want("run.sh:3:18", "KNB001")],
        "{}\n{}",
        r.stdout,
        r.stderr
    );
}
