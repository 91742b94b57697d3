//! vLLM as the third engine, the lint half (issue 24): its profile's argv
//! rules (FlexibleArgumentParser's `_`/`-`, `--opt=value`, dotted JSON keys,
//! `-O3`, unique prefixes, the positional model, a switch refusing a value,
//! `--config FILE`), its engine-wide env keys, its `vllm:` metrics, and
//! deployment files in the shapes real ones have (`fixtures/vllm/deploy`),
//! judged against the hand-written catalogues of `fixtures/vllm/catalog`
//! (v0.9.2, v0.10.0, v0.20.1) through `fixtures/vllm/knobs.toml`. Every
//! expected finding below was written from the facts of vLLM's source
//! (see docs/vllm-files.md) before knobs was run on the file. The same
//! readings on radiance and llama.cpp, whose profiles leave them off, are
//! checked to stay as they were.

use crate::support::{self, run_in};

fn lint(args: &[&str]) -> crate::support::Output {
    let mut all = vec!["lint", "--format", "short"];
    all.extend_from_slice(args);
    run_in(&support::root(), &all)
}

/// (file, line, rule) of every finding, in order.
use crate::support::text::file_line_code as found;

fn want(list: &[(&str, usize, &str)]) -> Vec<(String, usize, String)> {
    list.iter().map(|(f, l, c)| (format!("fixtures/vllm/deploy/{f}"), *l, c.to_string())).collect()
}

#[test]
fn planted_stale_cases_are_found_and_traps_are_not() {
    let r = lint(&["fixtures/vllm/deploy"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let expected = want(&[
        // Compose, pinned by its image to v0.20.1.
        ("compose/compose.yaml", 10, "KNB007"), // --swap-space: gone at v0.18.0 (v0.9.2, v0.10.0 have it)
        ("compose/compose.yaml", 12, "KNB007"), // --disable-log-requests: gone at v0.17.0
        // 14: `--tokenizer-mode custom` — open at v0.20.1 (`TokenizerMode | str`): no finding.
        // 16: `--max-num-batched-tokens 8k` — human_readable_int: no finding.
        ("compose/compose.yaml", 17, "KNB003"), // BooleanOptionalAction takes no `=False`
        ("compose/compose.yaml", 19, "KNB007"), // VLLM_ATTENTION_BACKEND: not in v0.20.1's envs.py
        ("compose/compose.yaml", 20, "KNB002"), // env_with_choices: spawn or fork
        // Dockerfiles: `FROM` pins; the image's entrypoint takes CMD; a shell-form module entrypoint.
        ("docker/Dockerfile", 4, "KNB007"),     // VLLM_USE_V1 in ENV, gone at v0.20.1
        ("docker/Dockerfile", 5, "KNB007"),     // --swap-space in CMD, given to `vllm serve`
        ("docker/Dockerfile.api", 7, "KNB003"), // an int option given a word
        // Helm values, pinned by image.repository + image.tag to v0.20.1.
        ("helm/values.yaml", 10, "KNB007"), // --guided-decoding-backend: gone
        ("helm/values.yaml", 14, "KNB001"), // a misspelt option
        ("helm/values.yaml", 17, "KNB007"), // VLLM_USE_V1: not in v0.20.1's envs.py
        // KServe: an InferenceService pinned v0.10.0, a ServingRuntime v0.20.1.
        ("kserve/inferenceservice.yaml", 20, "KNB002"), // Literal["auto", "slow", "mistral", "custom"]
        ("kserve/inferenceservice.yaml", 43, "KNB007"), // --task: gone at v0.13.0
        // A runbook, judged against the newest catalogue (v0.20.1).
        ("runbook/serve.md", 6, "KNB011"), // `False` after a switch is a second positional
        ("runbook/serve.md", 12, "KNB010"), // --api-key is the server's (FrontendArgs), not run-batch's
        ("runbook/serve.md", 21, "KNB012"), // rate() over a gauge
        ("runbook/serve.md", 23, "KNB004"), // gpu_cache_usage_perc: v0.10.0's, gone
        ("runbook/serve.md", 25, "KNB004"), // a counter without `_total`
        // A serve script, its env file and two options files, pinned by the env file to v0.10.0.
        ("script/odd-options.yml", 3, "KNB001"), // named by wrappers.sh's `--config`: read whatever its keys
        ("script/odd-options.yml", 4, "KNB001"),
        ("script/odd-options.yml", 5, "KNB021"),
        ("script/options.yaml", 5, "KNB021"), // a false that `--config` drops
        ("script/serve.sh", 9, "KNB007"),     // --use-v2-block-manager: gone at v0.10.0
        ("script/serve.sh", 10, "KNB007"),    // --device: gone at v0.10.0
        ("script/serve.sh", 11, "KNB003"),    // `=False` on a switch
        ("script/serve.sh", 16, "KNB001"),    // --max-num: a prefix of three options
        ("script/vllm.env", 4, "KNB006"),     // one letter from VLLM_LOGGING_LEVEL
        ("script/wrappers.sh", 3, "KNB001"),  // python3 -u -X dev -m …api_server
        ("script/wrappers.sh", 4, "KNB001"),  // uv run … vllm serve
        ("script/wrappers.sh", 10, "KNB011"), // vllm serve takes one positional
    ]);
    assert_eq!(found(&r.stdout), expected, "{}", r.stdout);
}

/// The messages, each written by hand from the facts before the run.
#[test]
fn messages_name_what_the_source_says() {
    let r = run_in(&support::root(), &["lint", "--format", "json", "fixtures/vllm/deploy"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    let findings = v["findings"].as_array().expect("findings");
    let at = |file: &str, line: u64| {
        findings
            .iter()
            .find(|f| f["path"].as_str().is_some_and(|p| p.ends_with(file)) && f["line"] == line)
            .unwrap_or_else(|| panic!("no finding at {file}:{line}: {}", r.stdout))
    };
    let pair = |f: &serde_json::Value| {
        (f["message"].as_str().unwrap_or("").to_string(), f["help"].as_str().unwrap_or("").to_string())
    };
    let s = |m: &str, h: &str| (m.to_string(), h.to_string());
    assert_eq!(
        pair(at("script/serve.sh", 9)),
        s("`--use-v2-block-manager` is not a flag of vllm v0.10.0", "it exists in vllm v0.9.2")
    );
    assert_eq!(
        pair(at("compose/compose.yaml", 19)),
        s(
            "`VLLM_ATTENTION_BACKEND` is not an env key of vllm v0.20.1: the engine ignores it",
            "it exists in vllm v0.9.2, v0.10.0"
        )
    );
    assert_eq!(
        pair(at("compose/compose.yaml", 20)),
        s("`forkserver` is not a member of `VLLM_WORKER_MULTIPROC_METHOD`", "vllm v0.20.1 accepts `spawn`, `fork`")
    );
    assert_eq!(
        pair(at("script/vllm.env", 4)),
        s("`VLLM_LOGGING_LEVL` is not an env key of vllm v0.10.0", "did you mean `VLLM_LOGGING_LEVEL`?")
    );
    assert_eq!(
        pair(at("script/serve.sh", 11)),
        s(
            "`--enable-chunked-prefill=False` is refused: `--enable-chunked-prefill` is a switch and takes no value",
            "`--enable-chunked-prefill` takes no value in vllm v0.10.0; write `--no-enable-chunked-prefill` to turn it off"
        )
    );
    assert_eq!(
        pair(at("script/serve.sh", 16)),
        s(
            "`--max-num` is ambiguous in vllm v0.10.0: it is a prefix of 3 flags",
            "it could be `--max-num-batched-tokens`, `--max-num-partial-prefills`, `--max-num-seqs`; write the whole name"
        )
    );
    assert_eq!(
        pair(at("script/wrappers.sh", 10)),
        s(
            "`other` is one positional argument too many: vllm serve takes 1 in vllm v0.10.0",
            "quote it if it belongs to the option before it"
        )
    );
    assert_eq!(
        pair(at("runbook/serve.md", 6)),
        s(
            "`False` is one positional argument too many: vllm serve takes 1 in vllm v0.20.1",
            "`--enable-chunked-prefill` takes no value"
        )
    );
    assert_eq!(
        pair(at("script/options.yaml", 5)),
        s(
            "a false for `enable-prefix-caching` is dropped when vllm v0.10.0 reads the file: `--enable-prefix-caching` keeps its default (set at start-up)",
            "to turn it off, write `no-enable-prefix-caching: true`"
        )
    );
    assert_eq!(
        pair(at("runbook/serve.md", 23)),
        s(
            "`vllm:gpu_cache_usage_perc` is no longer exported by vllm v0.20.1 (last v0.10.0; use `vllm:kv_cache_usage_perc`)",
            "vllm v0.20.1 exports `vllm:kv_cache_usage_perc` in its place"
        )
    );
    assert_eq!(
        pair(at("runbook/serve.md", 25)),
        s(
            "`vllm:generation_tokens` is not exported by vllm v0.20.1",
            "a counter is exported with `_total`: `vllm:generation_tokens_total`"
        )
    );
    // Each file is judged against the build its image (or its folder) pins.
    let tag = |file: &str| {
        v["summary"]["pinned"]
            .as_array()
            .and_then(|fs| fs.iter().find(|f| f["path"].as_str().is_some_and(|p| p.ends_with(file))))
            .map(|f| f["tag"].as_str().unwrap_or("").to_string())
    };
    assert_eq!(tag("script/serve.sh").as_deref(), Some("v0.10.0"), "{}", r.stdout);
}

/// The same words on the engines whose profiles leave these readings off:
/// radiance reads `--x.y`, `-O3` and a prefix as unknown words, takes any
/// number of bare words, and takes `--switch=value` as before.
#[test]
fn radiance_and_llama_cpp_read_these_words_as_before() {
    let tmp = support::tree(&[
        ("serve.sh", b"#!/bin/sh\nradiance --prefill-interleave.x 1 -O3 --max-num-seq 8 --max-num 2 a b c --help=1\n"),
        ("llama.sh", b"#!/bin/sh\nllama-server --ctx.size 1 --ctx 4096\n"),
        ("vllm.env", b"VLLM_LOGGING_LEVL=DEBUG\n"),
        // Keys that are radiance's flags: radiance's profile names no options file.
        ("opts.yaml", b"port: 8000\nhost: 0.0.0.0\nmax-num-seqs: false\nprefil-span: 3\n"),
        ("named.sh", b"#!/bin/sh\nradiance --port 1 --config opts.yaml\n"),
    ]);
    let quiet = support::run::knobs(tmp.path(), &["lint", "--format", "short", "opts.yaml"]);
    assert_eq!((quiet.code, quiet.stdout.as_str()), (0, ""));
    let named = support::run::knobs(tmp.path(), &["lint", "--format", "short", "named.sh"]);
    assert!(!named.stdout.contains("opts.yaml"), "{}", named.stdout);
    let r = support::run::knobs(tmp.path(), &["lint", "--format", "short", "serve.sh", "vllm.env"]);
    let codes: Vec<(usize, String)> = found(&r.stdout).into_iter().map(|(_, l, c)| (l, c)).collect();
    // Four unknown words on line 2 (none accepted, none ambiguous, no stray); the env file is not radiance's.
    assert_eq!(
        codes,
        [(2, "KNB001".into()), (2, "KNB001".into()), (2, "KNB001".into()), (2, "KNB001".into())],
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("`--max-num-seq` is not a flag of radiance"), "{}", r.stdout);
    assert!(!r.stdout.contains("ambiguous"), "{}", r.stdout);
    let catalog = support::root().join("fixtures/llama.cpp/catalog");
    let catalog = catalog.to_str().expect("utf-8 path");
    let l = support::run::knobs(
        tmp.path(),
        &["lint", "--format", "short", "--engine", "llama.cpp", "--catalog-dir", catalog, "llama.sh"],
    );
    let lines: Vec<&str> = l.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", l.stdout);
    assert!(lines[0].contains("KNB001 `--ctx.size` is not a flag"), "{}", l.stdout);
    assert!(lines[1].contains("KNB001 `--ctx` is not a flag"), "{}", l.stdout);
}

/// A file of options is known by its keys, or by the argv that names it
/// with `--config`: then it is read whatever its keys, against the build
/// that argv is judged against, once, even when only the script is linted.
#[test]
fn a_file_named_by_config_is_read_as_options() {
    let alone = lint(&["fixtures/vllm/deploy/script/odd-options.yml"]);
    assert_eq!((alone.code, alone.stdout.as_str()), (0, ""), "its keys alone do not say so");
    let r = run_in(&support::root(), &["lint", "--format", "json", "fixtures/vllm/deploy/script/wrappers.sh"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    let where_: Vec<(String, u64)> = (v["findings"].as_array().expect("findings").iter())
        .map(|f| {
            (
                f["path"].as_str().unwrap_or("").rsplit('/').next().unwrap_or("").to_string(),
                f["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let named: Vec<&(String, u64)> = where_.iter().filter(|(p, _)| p == "odd-options.yml").collect();
    assert_eq!(named.len(), 3, "{}", r.stdout);
    assert_eq!(v["summary"]["files"], 2, "the script and the file it names, each once: {}", r.stdout);
    let both = run_in(
        &support::root(),
        &[
            "lint",
            "--format",
            "json",
            "fixtures/vllm/deploy/script/wrappers.sh",
            "fixtures/vllm/deploy/script/odd-options.yml",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&both.stdout).expect("json");
    assert_eq!(v["summary"]["files"], 2, "named and given: still once: {}", both.stdout);
    assert_eq!(v["findings"].as_array().map(Vec::len), Some(6), "{}", both.stdout);
}

/// A pin between two catalogued versions, with no history, is judged by
/// the nearest earlier one (not the newest): `--swap-space` is v0.10.0's
/// and gone from v0.20.1, so a v0.11.0 pin is not told it is removed.
#[test]
fn a_pin_between_two_catalogues_is_judged_by_the_nearest_earlier() {
    let cat = support::fixtures().join("vllm/catalog");
    let t = support::tree(&[(
        "compose.yaml",
        b"services:\n  v:\n    image: vllm/vllm-openai:v0.11.0\n    command: [\"--model\", \"m\", \"--swap-space\", \"4\"]\n",
    )]);
    let cat = cat.display().to_string();
    let r = run_in(t.path(), &["lint", "--engine", "vllm", "--catalog-dir", &cat, "--format", "short", "compose.yaml"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    assert!(
        support::flat(&r.stderr).contains(
            "compose.yaml: pins vllm v0.11.0, which has no catalogue of its own: judged against v0.10.0, the nearest earlier tag catalogued (run `knobs sync --tag v0.11.0`)"
        ),
        "{}",
        r.stderr
    );
}

/// Issue 31: the vllm-openai image ran `python3 -m
/// vllm.entrypoints.openai.api_server` until v0.11.0 (docker/Dockerfile's
/// ENTRYPOINT) and `vllm serve` from v0.11.1rc1. The module's parser had no
/// positional before v0.10.0rc1 (a model word is refused); from then on it
/// reads an optional `model_tag` it never uses (the default model is
/// served). `vllm serve` takes the model as its one positional.
#[test]
fn an_image_runs_the_entrypoint_of_its_era() {
    let cat = support::fixtures().join("vllm/catalog").display().to_string();
    let lint_image = |tag: &str| {
        let compose = format!(
            "services:\n  v:\n    image: vllm/vllm-openai:{tag}\n    command: [\"org/model\", \"--max-model-len\", \"4096\"]\n"
        );
        let t = support::tree(&[("compose.yaml", compose.as_bytes())]);
        run_in(t.path(), &["lint", "--engine", "vllm", "--catalog-dir", &cat, "--format", "short", "compose.yaml"])
    };
    let r = lint_image("v0.9.2");
    assert_eq!(
        r.stdout,
        "compose.yaml:4:16: KNB011 `org/model` is not an option of image :v0.9.2: vllm v0.9.2 takes no positional arguments\n",
        "{}",
        r.stderr
    );
    let r = lint_image("v0.10.0");
    assert_eq!(
        r.stdout,
        "compose.yaml:4:16: KNB011 `org/model` is read and ignored by image :v0.10.0 in vllm v0.10.0: it uses `--model` instead\n",
        "{}",
        r.stderr
    );
    let r = lint_image("v0.20.1");
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
}

/// Issue 31: `vllm bench latency|throughput` are judged against their own
/// option tables (vllm/benchmarks/latency.py, throughput.py, the entries'
/// scopes in fixtures/vllm/catalog v0.20.1), and argparse's prefix rule
/// holds there too: `--num-iter` is a prefix of `--num-iters` and
/// `--num-iters-warmup`, both latency's. Other benchmarks are not judged.
#[test]
fn bench_latency_and_throughput_are_judged_by_their_own_options() {
    let cat = support::fixtures().join("vllm/catalog").display().to_string();
    let script = b"#!/bin/sh\nvllm bench latency --model m --bogus-flag --num-iter 3\nvllm bench throughput --model m --num-iters 3\nvllm bench serve --whatever 1\n";
    let t = support::tree(&[("bench.sh", &script[..])]);
    let r = run_in(t.path(), &["lint", "--engine", "vllm", "--catalog-dir", &cat, "--format", "short", "bench.sh"]);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", r.stdout);
    assert!(lines[0].starts_with("bench.sh:2:30: KNB001 `--bogus-flag` is not a flag of vllm v0.20.1"), "{}", r.stdout);
    assert!(lines[1].starts_with("bench.sh:2:43: KNB001 `--num-iter` is ambiguous"), "{}", r.stdout);
    assert!(
        lines[2].starts_with("bench.sh:3:33: KNB010 `--num-iters` is not an option of vllm bench throughput"),
        "{}",
        r.stdout
    );
}

/// An entrypoint of `${X:+…}` lines (an image's options each behind a
/// variable): each word is vLLM's argv, so an option the pinned build
/// removed is found on its line, as it would be written plainly.
#[test]
fn removed_options_behind_alternate_expansions_are_found() {
    let cat = support::fixtures().join("vllm/catalog");
    let t = support::tree(&[(
        "Dockerfile",
        b"FROM vllm/vllm-openai:v0.20.1\nENTRYPOINT vllm serve m \\\n    ${EAGER:+--enforce-eager} \\\n    ${SWAP:+--swap-space \"$SWAP\"}\n",
    )]);
    let cat = cat.display().to_string();
    let r = run_in(t.path(), &["lint", "--engine", "vllm", "--catalog-dir", &cat, "--format", "short", "Dockerfile"]);
    let lines = support::short(&r.stdout);
    assert_eq!(lines.len(), 1, "{}\n{}", r.stdout, r.stderr);
    assert!(lines[0].starts_with("Dockerfile:4:13: KNB007") && lines[0].contains("`--swap-space`"), "{}", lines[0]);
}
