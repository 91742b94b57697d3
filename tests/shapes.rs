//! The shapes vLLM and llama.cpp deployments are written in (issue 32),
//! each in fixtures of its own under `fixtures/shapes/<engine>/`: Helm
//! templates (guards, values in actions, `with` and `range` blocks, lists
//! the templates expand from the values file), compose services built from
//! the engine's image (`build:` → a Dockerfile's `FROM`), engine-prefixed
//! env keys in those services and a compose `.env` that is not theirs,
//! llama-swap macros written as block scalars, and `docker run IMAGE
//! COMMAND …` where the words after the image are a whole command. Every
//! expected finding was written by hand from the engine's facts (vLLM's
//! hand-written catalogues in `fixtures/vllm/catalog`, whose facts
//! docs/vllm-files.md records; llama.cpp b10573's `common/arg.cpp`, as
//! docs/real-world.md records) before knobs was run on the file.

use crate::support::{self, run_in};

/// (file under fixtures/shapes/ENGINE, line, rule) of every finding.
fn found(engine: &str, out: &str) -> Vec<(String, usize, String)> {
    let prefix = format!("fixtures/shapes/{engine}/");
    support::short(out)
        .into_iter()
        .filter_map(|l| {
            let mut parts = l.splitn(4, ':');
            let file = parts.next()?.strip_prefix(&prefix)?.to_string();
            let line = parts.next()?.parse().ok()?;
            let _col = parts.next()?;
            let code = parts.next()?.split_whitespace().next()?.to_string();
            Some((file, line, code))
        })
        .collect()
}

fn want(list: &[(&str, usize, &str)]) -> Vec<(String, usize, String)> {
    list.iter().map(|(f, l, c)| (f.to_string(), *l, c.to_string())).collect()
}

/// `knobs lint` of a folder of fixtures/shapes as ENGINE's, short format.
fn lint(engine: &str, folder: &str) -> crate::support::Output {
    let path = format!("fixtures/shapes/{engine}/{folder}");
    let mut args = vec!["lint", "--format", "short", "--engine", engine];
    let catalog = support::fixtures().join("vllm/catalog").display().to_string();
    if engine == "vllm" {
        args.extend(["--catalog-dir", &catalog]);
    }
    args.push(&path);
    let args: Vec<String> = args.into_iter().map(str::to_string).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    run_in(&support::root(), &args)
}

/// A vLLM chart: the template is read as the YAML it renders to (a guard
/// does not end the args list; `--task={{ .Values.task }}` is `--task`
/// with the values file's `generate`; a value the values file gives is
/// judged where the template uses it), its image is the values file's (so
/// it pins v0.20.1 and runs `vllm serve`), and the lists the template
/// expands under `command:` and `args:` are judged in the values file.
#[test]
fn a_vllm_chart_is_read_through_its_templates() {
    let r = lint("vllm", "chart");
    let expected = want(&[
        ("chart/templates/deployment.yaml", 24, "KNB007"), // --task: gone at v0.13.0
        ("chart/templates/deployment.yaml", 26, "KNB003"), // --max-num-seqs given `many` (values.yaml)
        ("chart/templates/deployment.yaml", 27, "KNB007"), // --guided-decoding-backend, after a guard
        ("chart/templates/deployment.yaml", 33, "KNB007"), // VLLM_ATTENTION_BACKEND: not in v0.20.1's envs.py
        ("chart/values.yaml", 10, "KNB007"),               // --swap-space in image.command (toYaml under command:)
        ("chart/values.yaml", 20, "KNB007"),               // --disable-log-requests in extraArgs (range under args:)
    ]);
    assert_eq!(found("vllm", &r.stdout), expected, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("`--task` is not a flag of vllm v0.20.1"), "{}", r.stdout);
    assert!(!r.stderr.contains("does not parse"), "{}", r.stderr);
}

/// The same for a llama.cpp chart written inside `{{- with .Values.server }}`:
/// `.image`, `.parallel` and `range .extraArgs` are the server's values.
#[test]
fn a_llama_cpp_chart_is_read_through_its_templates() {
    let r = lint("llama.cpp", "chart");
    let expected = want(&[
        ("chart/templates/deployment.yaml", 17, "KNB003"), // --parallel given `four`
        ("chart/templates/deployment.yaml", 23, "KNB007"), // -ins: removed
        ("chart/templates/deployment.yaml", 29, "KNB002"), // LLAMA_ARG_FLASH_ATTN=yes: on, off or auto
        ("chart/values.yaml", 11, "KNB007"),               // --log-format: removed
    ]);
    assert_eq!(found("llama.cpp", &r.stdout), expected, "{}\n{}", r.stdout, r.stderr);
}

/// A template read alone (no values file in reach) is still read: its
/// values are placeholders, and a command that names the engine is judged.
#[test]
fn a_template_without_its_values_is_read_with_placeholders() {
    let t = support::tree(&[(
        "templates/job.yaml",
        b"apiVersion: batch/v1\nkind: Job\nspec:\n  template:\n    spec:\n      containers:\n        - name: s\n          image: \"{{ .Values.image }}\"\n          command: [\"vllm\", \"serve\", \"{{ .Values.model }}\"]\n          args:\n            {{- if .Values.eager }}\n            - --enforce-eager\n            {{- end }}\n            - --swap-space\n            - {{ .Values.swap | quote }}\n",
    )]);
    let cat = support::fixtures().join("vllm/catalog").display().to_string();
    let r = run_in(t.path(), &["lint", "--engine", "vllm", "--catalog-dir", &cat, "--format", "short", "templates"]);
    let lines = support::short(&r.stdout);
    assert_eq!(lines.len(), 1, "{}\n{}", r.stdout, r.stderr);
    assert!(lines[0].starts_with("templates/job.yaml:14:15: KNB007"), "{}", lines[0]);
}

/// A compose service built from a Dockerfile that starts `FROM` the
/// engine's image runs the engine, pinned by that tag (an `ARG` default in
/// it is read); one built from another image is left alone. The `.env`
/// beside the compose file feeds its substitution: its keys are nobody's.
#[test]
fn a_service_built_from_the_engine_image_runs_the_engine() {
    let r = lint("vllm", "compose-build");
    let expected = want(&[
        ("compose-build/compose.yaml", 13, "KNB007"), // --swap-space: gone at v0.18.0
        ("compose-build/compose.yaml", 16, "KNB007"), // VLLM_ATTENTION_BACKEND: not in v0.20.1
    ]);
    assert_eq!(found("vllm", &r.stdout), expected, "{}\n{}", r.stdout, r.stderr);
    let l = lint("llama.cpp", "compose-build");
    let expected = want(&[
        ("compose-build/compose.yaml", 7, "KNB007"), // --log-format: removed
        ("compose-build/compose.yaml", 9, "KNB002"), // LLAMA_ARG_FLASH_ATTN=yes
    ]);
    assert_eq!(found("llama.cpp", &l.stdout), expected, "{}\n{}", l.stdout, l.stderr);
    // A build pinned to another version than the newest is judged against it:
    // `--use-v2-block-manager` is gone at v0.10.0 (and `build: DIR` is a context).
    let t = support::tree(&[
        ("compose.yaml", b"services:\n  api:\n    build: d\n    command: [\"--use-v2-block-manager\"]\n"),
        ("d/Dockerfile", b"FROM vllm/vllm-openai:v0.10.0\n"),
    ]);
    let cat = support::fixtures().join("vllm/catalog").display().to_string();
    let r = run_in(t.path(), &["lint", "--engine", "vllm", "--catalog-dir", &cat, "--format", "short", "."]);
    let lines = support::short(&r.stdout);
    assert_eq!(lines.len(), 1, "{}\n{}", r.stdout, r.stderr);
    assert!(lines[0].starts_with("compose.yaml:4:16: KNB007") && lines[0].contains("vllm v0.10.0"), "{}", lines[0]);
}

/// The `.env` of a compose file is the engine's when a service that runs
/// the engine (by its image, or built from the engine's image) names it in
/// `env_file:`.
#[test]
fn a_compose_env_named_by_an_engine_service_is_the_engines() {
    let t = support::tree(&[
        (
            "compose.yaml",
            b"services:\n  v:\n    image: vllm/vllm-openai:v0.20.1\n    env_file: .env\n    command: [\"m\"]\n",
        ),
        (".env", b"VLLM_ATTENTION_BACKEND=FLASH_ATTN\n"),
    ]);
    let cat = support::fixtures().join("vllm/catalog").display().to_string();
    let r = run_in(t.path(), &["lint", "--engine", "vllm", "--catalog-dir", &cat, "--format", "short", "."]);
    let lines = support::short(&r.stdout);
    assert_eq!(lines.len(), 1, "{}\n{}", r.stdout, r.stderr);
    assert!(lines[0].starts_with(".env:1:1: KNB007"), "{}", lines[0]);
    // So is it when the service is built from a Dockerfile on the engine's image.
    let t = support::tree(&[
        ("compose.yaml", b"services:\n  v:\n    build: d\n    env_file: [.env]\n    command: [\"--model\", \"m\"]\n"),
        ("d/Dockerfile", b"FROM vllm/vllm-openai:v0.20.1\n"),
        (".env", b"MODEL=m\nVLLM_USE_V1=1\n"),
    ]);
    let r = run_in(t.path(), &["lint", "--engine", "vllm", "--catalog-dir", &cat, "--format", "short", "."]);
    let lines = support::short(&r.stdout);
    assert_eq!(lines.len(), 1, "{}\n{}", r.stdout, r.stderr);
    assert!(lines[0].starts_with(".env:2:1: KNB007"), "{}", lines[0]);
}

/// llama-swap macros written as folded (`>`) or literal (`|`) scalars: the
/// model's own options after `${server}` are judged as for a plain scalar.
#[test]
fn llama_swap_block_macros_leave_the_models_options_judged() {
    let r = lint("llama.cpp", "swap");
    let expected = want(&[
        ("swap/config.yaml", 16, "KNB007"), // --log-format after ${server} ${fast}
        ("swap/config.yaml", 21, "KNB007"), // -ins after ${server}
    ]);
    assert_eq!(found("llama.cpp", &r.stdout), expected, "{}\n{}", r.stdout, r.stderr);
}

/// `docker run IMAGE python3 -m MODULE …`, `docker run IMAGE bash -c '…'`:
/// words after the image that form a whole command are what runs — the
/// engine's module, another engine's server (not judged), a shell's
/// script; words that do not (a model, options) go to the entrypoint.
#[test]
fn a_whole_command_after_the_image_replaces_its_entrypoint() {
    let r = lint("vllm", "docker-run");
    assert_eq!(found("vllm", &r.stdout), want(&[("docker-run/run.sh", 4, "KNB007")]), "{}\n{}", r.stdout, r.stderr);
    let l = lint("llama.cpp", "docker-run");
    let expected = want(&[("docker-run/run.sh", 4, "KNB007"), ("docker-run/run.sh", 6, "KNB007")]);
    assert_eq!(found("llama.cpp", &l.stdout), expected, "{}\n{}", l.stdout, l.stderr);
}

/// Engine-prefixed env keys in the environment of a compose service or a
/// Kubernetes container that runs the engine are judged as flags are: a key
/// the pinned build no longer reads, a key it never read, a value it
/// refuses. A `${VAR:-default}` value is judged by its default. Keys of a
/// service or container that does not run the engine are nobody's.
#[test]
fn engine_env_keys_and_defaults_in_deployments_are_judged() {
    let r = lint("vllm", "env-keys");
    let expected = want(&[
        ("env-keys/compose.yaml", 9, "KNB003"), // ${GPU_UTIL:-90%}: the default is no float
        ("env-keys/compose.yaml", 12, "KNB007"), // VLLM_ATTENTION_BACKEND: not in v0.20.1's envs.py
        ("env-keys/compose.yaml", 13, "KNB006"), // VLLM_LOGING_LEVEL: one letter from VLLM_LOGGING_LEVEL
        ("env-keys/deployment.yaml", 13, "KNB007"), // VLLM_USE_V1: not in v0.20.1's envs.py
        ("env-keys/deployment.yaml", 16, "KNB002"), // forkserver: spawn or fork
    ]);
    assert_eq!(found("vllm", &r.stdout), expected, "{}\n{}", r.stdout, r.stderr);
    let l = lint("llama.cpp", "env-keys");
    let expected = want(&[
        ("env-keys/compose.yaml", 8, "KNB002"),     // ${FLASH:-yes}: on, off or auto
        ("env-keys/compose.yaml", 12, "KNB006"),    // LLAMA_ARG_CTX_SIZ: no such key
        ("env-keys/deployment.yaml", 14, "KNB002"), // LLAMA_ARG_FLASH_ATTN=yes
        ("env-keys/deployment.yaml", 15, "KNB006"), // LLAMA_ARG_THREADZ: no such key
    ]);
    assert_eq!(found("llama.cpp", &l.stdout), expected, "{}\n{}", l.stdout, l.stderr);
}

/// `docker run IMAGE python3 -m sglang.launch_server …` on SGLang's own
/// image: the words after the image are the command that runs (the image's
/// command is a shell), judged as the launcher's, also through `bash -c`;
/// `python3 -c …` is another program.
#[test]
fn sglang_launched_after_its_image_is_judged() {
    let path = "fixtures/shapes/sglang/docker-run";
    let cat = support::fixtures().join("sglang/catalog").display().to_string();
    let r = run_in(&support::root(), &["lint", "--format", "short", "--engine", "sglang", "--catalog-dir", &cat, path]);
    let expected = want(&[
        ("docker-run/run.sh", 4, "KNB001"), // --enable-torch-compiel
        ("docker-run/run.sh", 7, "KNB003"), // --mem-fraction-static 0,8: no float
    ]);
    assert_eq!(found("sglang", &r.stdout), expected, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("sglang v0.5.18"), "judged by the image's tag: {}", r.stdout);
}

/// A serve script's `export VLLM_X=…` lines are the environment of the
/// engine it runs (directly, or behind a wrapper such as Slurm's `srun`,
/// whose own options are not the engine's): judged as env keys. A variable
/// the script expands itself is its own setting; a container run by the
/// script gets the container's environment, a script that runs no engine
/// sets nobody's, and only keys of an engine that reads its own env count.
#[test]
fn exported_engine_keys_of_a_serve_script_are_judged() {
    let t = support::tree(&[
        (
            "job/serve.sh",
            b"#!/bin/bash\nexport VLLM_USE_V1=1\nexport VLLM_LOGING_LEVEL=DEBUG\nexport VLLM_MODEL=Qwen/Qwen3-8B\nexport HF_HOME=/cache\nsrun -p gpu --gres=gpu:8 -n1 --job-name=serve \\\n  vllm serve \"$VLLM_MODEL\" --swap-space 4\n",
        ),
        ("box/run.sh", b"#!/bin/sh\nexport VLLM_USE_V1=1\ndocker run --gpus all vllm/vllm-openai:v0.20.1 --model m\n"),
        ("client/ask.sh", b"#!/bin/sh\nexport VLLM_USE_V1=1\npython3 ask.py --swap-space 4\n"),
    ]);
    let cat = support::fixtures().join("vllm/catalog").display().to_string();
    let r = run_in(t.path(), &["lint", "--engine", "vllm", "--catalog-dir", &cat, "--format", "short", "."]);
    let lines = support::short(&r.stdout);
    let got: Vec<&str> = lines.iter().map(|l| l.split(" `").next().unwrap_or("")).collect();
    assert_eq!(
        got,
        ["job/serve.sh:2:8: KNB007", "job/serve.sh:3:8: KNB006", "job/serve.sh:7:28: KNB007"],
        "{}\n{}",
        r.stdout,
        r.stderr
    );
    let t = support::tree(&[(
        "serve.sh",
        b"#!/bin/sh\nexport LLAMA_ARG_CTX_SIZ=8192\nexport LLAMA_ARG_N_PARALLEL=2\nsrun --partition=gpu -N 1 llama-server -m /m.gguf -ins\n",
    )]);
    let r = run_in(t.path(), &["lint", "--engine", "llama.cpp", "--format", "short", "."]);
    let lines = support::short(&r.stdout);
    let got: Vec<&str> = lines.iter().map(|l| l.split(" `").next().unwrap_or("")).collect();
    assert_eq!(got, ["serve.sh:2:8: KNB006", "serve.sh:4:51: KNB007"], "{}\n{}", r.stdout, r.stderr);
    // radiance reads no env of its own (its env keys are a serve script's,
    // by convention): an export in front of it sets nothing it reads.
    let t = support::tree(&[(
        "serve.sh",
        b"#!/bin/sh\nexport LOG_LEVEL=verbose\nexport MAX_NUM_SEQS=lots\nradiance --port 1\n",
    )]);
    let r = run_in(t.path(), &["lint", "--format", "short", "."]);
    assert_eq!(support::short(&r.stdout), Vec::<String>::new(), "{}", r.stderr);
}

/// An entrypoint that builds its command line as a string (`CMD="vllm serve
/// $M"`, then `CMD+=" --opt ${X:-default}"` lines) and runs it word-split
/// (`exec ${CMD}`): the words are the engine's argv, each judged where it
/// was written, a default by its value. Two strings that each start a
/// command are two commands (not joined), and a quoted `"$CMD"` is one word.
#[test]
fn a_command_line_built_as_a_string_is_judged_where_it_was_written() {
    let t = support::tree(&[
        (
            "entrypoint.sh",
            b"#!/bin/bash\nset -e\nCMD=\"vllm serve ${MODEL:-Qwen/Qwen3-8B}\"\nCMD+=\" --max-num-seqs ${SEQS:-many}\"\nCMD+=\" --swap-space 4\"\necho \"Starting: ${CMD}\"\nexec ${CMD}\n",
        ),
        (
            "choose.sh",
            b"#!/bin/bash\nif [ -n \"$BIG\" ]; then\n  CMD=\"vllm serve a\"\nelse\n  CMD=\"vllm serve b\"\nfi\nexec $CMD\n",
        ),
        ("quoted.sh", b"#!/bin/bash\nCMD=\"vllm serve m --swap-space 4\"\n\"$CMD\"\n"),
    ]);
    let cat = support::fixtures().join("vllm/catalog").display().to_string();
    let r = run_in(t.path(), &["lint", "--engine", "vllm", "--catalog-dir", &cat, "--format", "short", "."]);
    let lines = support::short(&r.stdout);
    let got: Vec<&str> = lines.iter().map(|l| l.split(" `").next().unwrap_or("")).collect();
    assert_eq!(got, ["entrypoint.sh:4:23: KNB003", "entrypoint.sh:5:8: KNB007"], "{}\n{}", r.stdout, r.stderr);
    assert!(lines[0].contains("`many` is not a valid value for `--max-num-seqs`"), "{}", lines[0]);
}

/// A continuation broken by a comment (`\ # note`) ends vLLM's command
/// where it stands: KNB022 says so, and the options below (which run as a
/// command of their own) are not judged as vLLM's. On llama.cpp the same,
/// with options behind `${X:+…}` judged as written; a removed option named
/// in prose is no error (only the command line's is).
#[test]
fn broken_continuations_and_conditional_words_on_both_engines() {
    let t = support::tree(&[(
        "serve.sh",
        b"#!/bin/sh\nvllm serve Qwen/Qwen3-8B --max_model_len 4096 \\ # the context we need\n  --swap-space 4\n",
    )]);
    let cat = support::fixtures().join("vllm/catalog").display().to_string();
    let r = run_in(t.path(), &["lint", "--engine", "vllm", "--catalog-dir", &cat, "--format", "short", "."]);
    assert_eq!(
        support::short(&r.stdout),
        ["serve.sh:2:47: KNB022 this `\\` escapes the space after it, not the line end: the command ends here, and line 3 runs as a command of its own"],
        "{}",
        r.stderr
    );
    let t = support::tree(&[
        (
            "serve.sh",
            b"#!/bin/sh\nexec llama-server -m /m.gguf ${CTX:+-c \"$CTX\"} \\\n  ${JSON:+--log-format json} \\ # machine-readable\n  --port 8080\n",
        ),
        (
            "UPGRADE.md",
            b"# Upgrading\n\nThe old `--log-format` option is gone; `--log-colors` is what remains of it.\n\n```sh\nllama-server -m m.gguf --log-format json\n```\n",
        ),
    ]);
    let r = run_in(t.path(), &["lint", "--engine", "llama.cpp", "--format", "short", "."]);
    let lines = support::short(&r.stdout);
    let got: Vec<String> = lines.iter().map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" ")).collect();
    assert_eq!(got, ["UPGRADE.md:6:24: KNB007", "serve.sh:3:11: KNB007", "serve.sh:3:30: KNB022"], "{}", r.stdout);
}

/// From v0.12 vLLM's parser rewrites `-O3` (and `-O=3`) to
/// `--optimization-level 3` before argparse reads argv: `-O` is registered
/// nowhere, so a catalogue synced from the source has no such spelling. The
/// profile says so (`[argv] rewrites`), and `-O3` is no unknown option; a
/// build with neither spelling still refuses it (a later build has it).
#[test]
fn a_spelling_the_parser_rewrites_is_the_option_it_becomes() {
    let head = "schema = 3\n[source]\nengine = \"vllm\"\nrepo = \"https://github.com/vllm-project/vllm\"\ncommit = \"0000000000000000000000000000000000000000\"\nknobs_version = \"fixture\"\n";
    let new = format!("{head}tag = \"v0.20.1\"\n\n[[flag]]\nname = \"--optimization-level\"\nkind = \"string\"\ndefault = \"2\"\nlocation = \"vllm/engine/arg_utils.py:1\"\n\n[[flag]]\nname = \"--port\"\nkind = \"int\"\ndefault = \"8000\"\nlocation = \"vllm/entrypoints/openai/cli_args.py:1\"\n");
    let old = format!("{head}tag = \"v0.6.3\"\n\n[[flag]]\nname = \"--port\"\nkind = \"int\"\ndefault = \"8000\"\nlocation = \"vllm/entrypoints/openai/cli_args.py:1\"\n");
    let t = support::tree(&[
        ("cat/vllm/v0.20.1.toml", new.as_bytes()),
        ("cat/vllm/v0.6.3.toml", old.as_bytes()),
        ("new/serve.sh", b"#!/bin/sh\nvllm serve m -O3 -O=2 --port 1\n"),
        ("old/serve.sh", b"#!/bin/sh\nvllm serve m -O3 --port 1\n"),
        ("old/vllm.env", b"IMAGE=vllm/vllm-openai:v0.6.3\n"),
    ]);
    let r = run_in(t.path(), &["lint", "--engine", "vllm", "--catalog-dir", "cat", "--format", "short", "new", "old"]);
    let lines = support::short(&r.stdout);
    assert_eq!(lines.len(), 1, "{}\n{}", r.stdout, r.stderr);
    assert!(lines[0].starts_with("old/serve.sh:2:14: KNB007 `-O` is not a flag of vllm v0.6.3"), "{}", lines[0]);
}
