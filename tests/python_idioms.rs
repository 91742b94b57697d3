//! The Python extractor on fixtures written in vLLM's shapes (one per
//! shape, `fixtures/vllm/`): a tagged repository, `knobs sync` with the
//! built-in `vllm` profile, the written catalogue against facts read by
//! hand from the fixture's Python.

use std::path::Path;

use knobs::catalog::model::{Catalog, Flag, Kind};

use crate::support;

/// The two fixture eras as one repository: v0.1.0 literal `add_argument`
/// calls, v0.2.0 the dataclass fields through `get_kwargs`.
fn repo(dir: &Path) {
    support::build_repo(
        &dir.join("vllm.git"),
        &[("v0.1.0", support::fixtures().join("vllm/era-a")), ("v0.2.0", support::fixtures().join("vllm/era-b"))],
    );
}

/// Syncs `tag` and returns the catalogue and the warnings.
fn sync(dir: &Path, tag: &str) -> (Catalog, String) {
    let r = support::knobs(dir, &["sync", "--engine", "vllm", "--repo", "vllm.git", "--tag", tag, "--out", "out"]);
    assert_eq!(r.code, 0, "sync {tag}: {}", r.stderr);
    let text = std::fs::read_to_string(dir.join(format!("out/vllm/{tag}.toml"))).expect("written");
    (toml::from_str(&text).expect("a catalogue"), r.stderr)
}

fn flag<'a>(c: &'a Catalog, name: &str) -> &'a Flag {
    c.flags.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("{name} missing"))
}

/// Kind, members, and whether the members are closed.
fn shape(f: &Flag) -> (Kind, Vec<&str>, Option<bool>) {
    (f.kind, f.members.iter().map(String::as_str).collect(), f.members_from.as_ref().map(|m| m.closed))
}

#[test]
fn era_a_literal_calls_give_names_kinds_members_and_defaults() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let (c, warnings) = sync(tmp.path(), "v0.1.0");
    let names: Vec<&str> = c.flags.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "--attention-kind",
            "--block-size",
            "--chunked-fill",
            "--host",
            "--input-file",
            "--kv-dtype",
            "--load-format",
            "--model",
            "--old-knob",
            "--output-file",
            "--port",
            "--quiet-requests",
            "--served-name",
            "--swap-space",
            "--use-eager",
            "--uvicorn-log-level",
            "--weight-format",
        ]
    );
    // `type=int, choices=[8, 16, 32]`, default `EngineArgs.block_size`.
    assert_eq!(shape(flag(&c, "--block-size")), (Kind::Enum, vec!["8", "16", "32"], Some(true)));
    assert_eq!(flag(&c, "--block-size").default, "16");
    // Choices named by a module constant.
    assert_eq!(shape(flag(&c, "--attention-kind")), (Kind::Enum, vec!["paged", "flat"], Some(true)));
    // `[f.value for f in WeightFormat]` over an enum class.
    assert_eq!(shape(flag(&c, "--load-format")), (Kind::Enum, vec!["auto", "packed"], Some(true)));
    // Computed by a call when it runs: no members, a warning.
    assert_eq!(shape(flag(&c, "--weight-format")), (Kind::String, vec![], None));
    assert!(
        warnings
            .contains("vllm/engine/arg_utils.py:61: the choices of --weight-format are computed at run time (open)"),
        "{warnings}"
    );
    // A custom action taking an optional true/false.
    assert_eq!(shape(flag(&c, "--chunked-fill")), (Kind::Enum, vec!["false", "true"], Some(true)));
    assert_eq!(flag(&c, "--use-eager").kind, Kind::Switch);
    assert!(flag(&c, "--use-eager").negated.is_empty());
    assert_eq!(flag(&c, "--swap-space").kind, Kind::Float);
    assert_eq!(flag(&c, "--swap-space").default, "4");
    assert_eq!(flag(&c, "--model").default, "tiny-model");
    assert_eq!(flag(&c, "--kv-dtype").help, "Cache element type. Two words.");
    assert_eq!(flag(&c, "--served-name").aliases, ["-n"]);
    assert_eq!(flag(&c, "--input-file").aliases, ["-i"]);
    assert_eq!(flag(&c, "--model").location, "vllm/engine/arg_utils.py:29");
    // The engine's options are in both binaries; the server's and the
    // batch runner's own only in theirs.
    assert_eq!(flag(&c, "--model").scopes, ["run-batch", "serve"]);
    assert_eq!(flag(&c, "--port").scopes, ["serve"]);
    assert_eq!(flag(&c, "--output-file").scopes, ["run-batch"]);
}

#[test]
fn era_b_fields_give_kinds_members_twins_and_docstrings() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let (c, _) = sync(tmp.path(), "v0.2.0");
    // A Literal alias from another module: closed, sorted.
    assert_eq!(shape(flag(&c, "--tokenizer-mode")), (Kind::Enum, vec!["auto", "mistral", "slow"], Some(true)));
    // Unioned with `str`: the members are open.
    assert_eq!(shape(flag(&c, "--runner")), (Kind::Enum, vec!["generate", "pooling"], Some(false)));
    assert_eq!(shape(flag(&c, "--dtype")), (Kind::Enum, vec!["auto", "float32", "half"], Some(true)));
    // Optional[Literal[...]]: `None` is a member too.
    assert_eq!(shape(flag(&c, "--quantization")), (Kind::Enum, vec!["awq", "fp8", "None"], Some(true)));
    assert_eq!(flag(&c, "--quantization").aliases, ["-q"]);
    // bool → BooleanOptionalAction: a switch and its --no- twin.
    let trust = flag(&c, "--trust-remote-code");
    assert_eq!((trust.kind, trust.negated.as_slice()), (Kind::Switch, &["--no-trust-remote-code".to_string()][..]));
    assert_eq!(trust.help, "Run the model's own code.");
    // The builder's own special case: this field takes `8k`, not just an int.
    assert_eq!(flag(&c, "--max-model-len").kind, Kind::String);
    assert_eq!(flag(&c, "--seed").kind, Kind::Int);
    assert_eq!(flag(&c, "--seed").default, "0");
    assert_eq!(flag(&c, "--gpu-fraction").kind, Kind::Float);
    assert_eq!(flag(&c, "--gpu-fraction").default, "0.9");
    // A config class, and a dict: JSON strings.
    assert_eq!(flag(&c, "--cache").kind, Kind::String);
    assert_eq!(flag(&c, "--overrides").kind, Kind::String);
    // Every field of the frontend class and its base, kebab-cased by the loop.
    for name in ["--host", "--port", "--uvicorn-log-level", "--allowed-origins"] {
        assert_eq!(flag(&c, name).scopes, ["serve"], "{name}");
    }
    // The base class's fields are the batch runner's too.
    for name in ["--chat-template", "--enable-auto-tool-choice"] {
        assert_eq!(flag(&c, name).scopes, ["run-batch", "serve"], "{name}");
    }
    // `flags` added by the base class's customisation.
    assert_eq!(flag(&c, "--chat-template").aliases, ["-ct"]);
    assert_eq!(flag(&c, "--enable-auto-tool-choice").negated, ["--no-enable-auto-tool-choice"]);
    assert_eq!(flag(&c, "--port").default, "8000");
    assert_eq!(shape(flag(&c, "--uvicorn-log-level")), (Kind::Enum, vec!["debug", "info", "warning"], Some(true)));
    // An explicit BooleanOptionalAction beside the generated ones.
    assert_eq!(flag(&c, "--enable-log-requests").negated, ["--no-enable-log-requests"]);
    // `default=model_kwargs["model"]["default"]` reads the field's default.
    assert_eq!(flag(&c, "--hub-token").default, "tiny-model");
    // The positional model is no option.
    assert!(c.flags.iter().all(|f| f.name.starts_with("--")));
    // SkipValidation[bool] is read as the bool it wraps.
    assert_eq!(flag(&c, "--chunked").negated, ["--no-chunked"]);
    // The batch runner's options: a subclass in another module, whose
    // inherited classmethod lives with the base.
    assert_eq!(flag(&c, "--input-file").scopes, ["run-batch"]);
    assert_eq!(flag(&c, "--input-file").aliases, ["-i"]);
    assert_eq!(flag(&c, "--enable-metrics").kind, Kind::Switch);
    assert!(flag(&c, "--enable-metrics").negated.is_empty(), "store_true set by the subclass: no twin");
    assert_eq!(flag(&c, "--chat-template").scopes, ["run-batch", "serve"]);
    assert_eq!(flag(&c, "--model").scopes, ["run-batch", "serve"]);
    assert_eq!(flag(&c, "--port").scopes, ["serve"]);
    // A loop over a literal list of (name, type) pairs.
    assert_eq!(flag(&c, "--old-backend").help, "[DEPRECATED] --old-backend goes away.");
    assert_eq!(flag(&c, "--old-fallback").kind, Kind::String);
    assert_eq!(c.flags.len(), 27);
}

#[test]
fn env_dicts_give_keys_defaults_members_and_help() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let (a, _) = sync(tmp.path(), "v0.1.0");
    let keys: Vec<(&str, &str)> = a.env_keys.iter().map(|k| (k.name.as_str(), k.default.as_str())).collect();
    assert_eq!(
        keys,
        [("VLLM_ATTENTION_BACKEND", ""), ("VLLM_CACHE_DIR", "~/.cache/fixture"), ("VLLM_RPC_PORT", "5570")]
    );
    let rpc = a.env_keys.iter().find(|k| k.name == "VLLM_RPC_PORT").expect("rpc");
    assert_eq!(rpc.help, "Port of the internal RPC. A second comment line.");
    assert_eq!(rpc.location, "vllm/envs.py:10");
    let (b, _) = sync(tmp.path(), "v0.2.0");
    let method = b.env_keys.iter().find(|k| k.name == "VLLM_WORKER_MULTIPROC_METHOD").expect("method");
    assert_eq!(
        (method.default.as_str(), method.members.as_slice()),
        ("fork", &["spawn".to_string(), "fork".to_string()][..])
    );
    assert_eq!(b.env_keys.iter().find(|k| k.name == "VLLM_LOGGING_LEVEL").expect("level").default, "INFO");
}

#[test]
fn metrics_give_types_labels_and_exported_counter_names() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let (a, warnings) = sync(tmp.path(), "v0.1.0");
    let found: Vec<(&str, &str, Vec<&str>)> = a
        .metrics
        .iter()
        .map(|m| (m.name.as_str(), m.kind.as_str(), m.labels.iter().map(String::as_str).collect()))
        .collect();
    assert_eq!(
        found,
        [
            ("vllm:cache_usage_perc", "gauge", vec!["model_name"]),
            ("vllm:num_preemptions_total", "counter", vec![]),
            ("vllm:num_requests_running", "gauge", vec![]),
            ("vllm:prompt_tokens_total", "counter", vec![]),
            ("vllm:time_to_first_token_seconds", "histogram", vec!["model_name", "engine"]),
        ]
    );
    assert!(warnings.contains("vllm/engine/metrics.py:41: a metric name built at run time, `f\"vllm:{compute_suffix()}\"`, was passed over"), "{warnings}");
    assert!(warnings.contains("vllm/engine/metrics.py: the labels of vllm:num_requests_running and 2 more metrics are known only at run time"), "{warnings}");
    let (b, _) = sync(tmp.path(), "v0.2.0");
    let hits = b.metrics.iter().find(|m| m.name == "vllm:prefix_cache_hits_total").expect("hits");
    assert_eq!(
        (hits.kind.as_str(), hits.labels.as_slice()),
        ("counter", &["model_name".to_string(), "engine".to_string()][..])
    );
    assert_eq!(hits.help, "Prefix cache hits.");
}

/// Two tags of the fixture repository, synced and compared: what the
/// move from literal calls to dataclass fields removed and added.
#[test]
fn a_python_repository_syncs_and_diffs_between_tags() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    sync(tmp.path(), "v0.1.0");
    sync(tmp.path(), "v0.2.0");
    let r = support::knobs(
        tmp.path(),
        &["catalog", "diff", "v0.1.0", "v0.2.0", "--engine", "vllm", "--catalog-dir", "out", "--format", "json"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    let removed: Vec<&str> =
        v["flags_removed"].as_array().expect("removed").iter().filter_map(|x| x.as_str()).collect();
    for gone in ["--swap-space", "--use-eager", "--block-size", "--output-file"] {
        assert!(removed.contains(&gone), "{gone} not removed: {removed:?}");
    }
    assert!(!removed.contains(&"--model") && !removed.contains(&"--input-file"), "{removed:?}");
}

/// A tree where no entry function declares an option (here radiance's C++
/// read as vLLM) is a tool error naming the functions, and nothing is written.
#[test]
fn a_tree_without_the_entry_functions_is_an_error_naming_them() {
    let tmp = tempfile::tempdir().expect("tempdir");
    support::radiance_repo(tmp.path());
    let r = support::knobs(
        tmp.path(),
        &["sync", "--engine", "vllm", "--repo", "fixtures/radiance.git", "--tag", "v1.0.13", "--out", "out"],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "no options found: no [[extract.entry]] function (make_arg_parser in vllm/entrypoints/openai/cli_args.py, \
             parse_args or __main__ in vllm/entrypoints/openai/api_server.py, ServeSubcommand.subparser_init in \
             vllm/entrypoints/cli/serve.py, make_arg_parser or parse_args in vllm/entrypoints/openai/run_batch.py, add_cli_args in \
             vllm/benchmarks/latency.py, add_cli_args in vllm/benchmarks/throughput.py) declares one at this tag"
        ),
        "{}",
        r.stderr
    );
    assert!(!tmp.path().join("out/vllm/v1.0.13.toml").exists());
}

/// What the extractor cannot settle is said, one line each, and what it
/// can read is still written.
#[test]
fn what_cannot_be_settled_is_warned_about() {
    let tmp = tempfile::tempdir().expect("tempdir");
    support::build_repo(&tmp.path().join("vllm.git"), &[("v0.3.0", support::fixtures().join("vllm/odd"))]);
    let (c, warnings) = sync(tmp.path(), "v0.3.0");
    let names: Vec<&str> = c.flags.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["--known", "--splatted"]);
    for line in [
        "warning: vllm/entrypoints/openai/cli_args.py:7: the fields of `MissingConfig` were not found",
        "warning: vllm/entrypoints/openai/cli_args.py:9: an option name known only at run time was passed over",
        "warning: vllm/entrypoints/openai/cli_args.py:10: the keyword arguments `**helper_kwargs()` were not traced to a dataclass field",
        "warning: scope run-batch: none of make_arg_parser, parse_args is defined in vllm/entrypoints/openai/run_batch.py",
        "warning: no dict `environment_variables` of env keys in vllm/envs.py",
        "warning: vllm/v1/metrics/loggers.py: the labels of vllm:num_requests_running are known only at run time",
    ] {
        assert!(warnings.lines().any(|l| l == line), "{line}\nnot in:\n{warnings}");
    }
    assert!(c.env_keys.is_empty());
    assert_eq!(c.metrics.len(), 1);
}

/// The same repository as a history: `sync --all-tags` reads a Python
/// engine's tag once for its options, env keys and metrics, and each tag of
/// the history is the catalogue a single-tag sync writes.
#[test]
fn a_python_repository_builds_a_history_of_every_tag() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let r =
        support::knobs(tmp.path(), &["sync", "--engine", "vllm", "--repo", "vllm.git", "--all-tags", "--out", "hist"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(": 2 tags, 2 states; 2 extracted now (2 flag sets, 2 metric sets read), 0 shared"),
        "{}",
        r.stdout
    );
    for tag in ["v0.1.0", "v0.2.0"] {
        sync(tmp.path(), tag);
        let single = std::fs::read_to_string(tmp.path().join(format!("out/vllm/{tag}.toml"))).expect("synced");
        let r = support::knobs(
            tmp.path(),
            &["catalog", "show", tag, "--engine", "vllm", "--catalog-dir", "hist", "--format", "toml"],
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        let from_history = knobs::catalog::store::parse(Path::new("shown.toml"), &r.stdout).expect("parses");
        let single = knobs::catalog::store::parse(Path::new("single.toml"), &single).expect("parses");
        assert_eq!(from_history.flags, single.flags, "{tag}: the same options");
        assert_eq!(from_history.env_keys, single.env_keys, "{tag}: the same env keys");
        assert!(!single.env_keys.is_empty(), "the fixture's env table is read");
        assert_eq!(from_history.metrics, single.metrics, "{tag}: the same metrics");
    }
}

/// A source whose parser-building calls fan out (each function calling the
/// next ten times, eight deep: 10^8 paths) is cut off with a warning, and
/// what was read first is kept — a hostile tree cannot stall a sync.
#[test]
fn calls_that_fan_out_are_cut_off_with_a_warning() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let src = tmp.path().join("src");
    let dir = src.join("vllm/entrypoints/openai");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let mut py = String::from("def make_arg_parser(parser):\n    f1(parser)\n    return parser\n\n");
    for i in 1..8 {
        py.push_str(&format!("def f{i}(p):\n{}\n", format!("    f{}(p)\n", i + 1).repeat(10)));
    }
    py.push_str("def f8(p):\n    p.add_argument(\"--fanned-out\", type=int, default=1)\n");
    std::fs::write(dir.join("cli_args.py"), py).expect("write");
    std::fs::write(src.join("vllm/envs.py"), "environment_variables = {}\n").expect("write");
    support::build_repo(&tmp.path().join("vllm.git"), &[("v0.1.0", src.clone())]);
    let (c, warnings) = sync(tmp.path(), "v0.1.0");
    assert!(c.flags.iter().any(|f| f.name == "--fanned-out"), "what was read first is kept");
    assert!(
        warnings.contains("the calls that build the parser enter more than 20000 functions: the rest is not read"),
        "{warnings}"
    );
}

/// Before the server's options had a module of their own (vLLM before
/// v0.4.0), the server module built its parser in `parse_args()` and handed
/// it to the engine's arguments: the profile's fallback entry reads it for
/// the `serve` scope, and only where `cli_args.py`'s builder is absent.
#[test]
fn the_server_modules_own_parser_is_read_where_cli_args_is_absent() {
    let tmp = tempfile::tempdir().expect("tempdir");
    support::build_repo(
        &tmp.path().join("vllm.git"),
        &[("v0.0.9", support::fixtures().join("vllm/era-0")), ("v0.1.0", support::fixtures().join("vllm/era-a"))],
    );
    let (c, warnings) = sync(tmp.path(), "v0.0.9");
    let names: Vec<&str> = c.flags.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "--adapters",
            "--allowed-origins",
            "--block-size",
            "--dtype",
            "--host",
            "--model",
            "--port",
            "--quantization",
            "--quiet-requests",
            "--quiet-stats"
        ]
    );
    assert!(c.flags.iter().all(|f| f.scopes == ["serve"]), "every option is the server's");
    assert_eq!(flag(&c, "--port").kind, Kind::Int);
    assert_eq!(shape(flag(&c, "--dtype")), (Kind::Enum, vec!["auto", "half", "float"], Some(true)));
    assert_eq!(flag(&c, "--quiet-stats").kind, Kind::Switch);
    // `choices=['awq', 'gptq', None]`: no argv word is None, so the list
    // is closed over the two strings.
    assert_eq!(shape(flag(&c, "--quantization")), (Kind::Enum, vec!["awq", "gptq"], Some(true)));
    assert_eq!(flag(&c, "--quantization").aliases, ["-q"]);
    // A custom action with `nargs='+'`: one or more words.
    assert_eq!(flag(&c, "--adapters").nargs.as_deref(), Some("+"));
    assert_eq!(flag(&c, "--model").location, "vllm/engine/arg_utils.py:15");
    // The newer entry's absence is not news when the fallback stood in.
    assert!(!warnings.contains("scope serve"), "{warnings}");
    assert!(warnings.contains("scope run-batch: none of make_arg_parser, parse_args is defined in"), "{warnings}");
    // Where cli_args.py's builder is found, the fallback is not read, nor
    // its absence warned about.
    let (c, warnings) = sync(tmp.path(), "v0.1.0");
    assert_eq!(flag(&c, "--port").scopes, ["serve"]);
    assert!(!warnings.contains("api_server.py"), "{warnings}");
}

/// `vllm serve`'s own options, declared in the CLI's serve subcommand
/// beside the shared builder (vLLM v0.9.1–v0.9.2: `--headless`,
/// `--api-server-count`), are `vllm serve`'s alone: the server module
/// (`python -m vllm.entrypoints.openai.api_server`) refuses them. An option
/// the parser class takes out of argv itself (`--config`) is every binary's.
#[test]
fn the_serve_subcommands_own_options_are_read() {
    let tmp = tempfile::tempdir().expect("tempdir");
    support::build_repo(&tmp.path().join("vllm.git"), &[("v0.9.1", support::fixtures().join("vllm/era-cli"))]);
    let (c, warnings) = sync(tmp.path(), "v0.9.1");
    let names: Vec<&str> = c.flags.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["--api-server-count", "--config", "--headless", "--host", "--port"]);
    // Taken out of argv by the parser class itself: every binary's, a value.
    assert_eq!(flag(&c, "--config").scopes, ["serve", "vllm-serve"]);
    assert_eq!(flag(&c, "--config").kind, Kind::String);
    assert_eq!(flag(&c, "--config").location, "vllm/utils.py:11");
    assert_eq!(flag(&c, "--headless").scopes, ["vllm-serve"]);
    assert_eq!(flag(&c, "--api-server-count").scopes, ["vllm-serve"]);
    assert_eq!(flag(&c, "--host").scopes, ["serve", "vllm-serve"]);
    assert_eq!(flag(&c, "--headless").kind, Kind::Switch);
    assert_eq!(flag(&c, "--api-server-count").kind, Kind::Int);
    assert_eq!(flag(&c, "--api-server-count").aliases, ["-asc"]);
    assert_eq!(flag(&c, "--headless").location, "vllm/entrypoints/cli/serve.py:21");
    // The server module's older parser is not looked for where cli_args.py has the builder.
    assert!(!warnings.contains("scope serve"), "{warnings}");
    // Judged: `vllm serve` takes both kinds; the module only the shared ones.
    std::fs::write(
        tmp.path().join("knobs.toml"),
        "[pin]\nengine = \"vllm\"\ntag = \"v0.9.1\"\n\n[catalog]\ndir = \"out\"\n",
    )
    .expect("write");
    std::fs::create_dir_all(tmp.path().join("svc")).expect("mkdir");
    std::fs::write(
        tmp.path().join("svc/serve.sh"),
        "#!/bin/sh\nvllm serve m --headless --port 8000\npython3 -m vllm.entrypoints.openai.api_server --headless --config a.yaml\n",
    )
    .expect("write");
    let r = support::knobs(tmp.path(), &["lint", "--format", "short", "svc"]);
    let lines: Vec<&str> = r.stdout.lines().filter(|l| l.starts_with("svc/")).collect();
    assert_eq!(lines.len(), 1, "{}\n{}", r.stdout, r.stderr);
    assert!(lines[0].starts_with("svc/serve.sh:3:"), "{}", r.stdout);
    assert!(
        lines[0].ends_with("KNB010 `--headless` is not an option of vllm.entrypoints.openai.api_server in vllm v0.9.1"),
        "{}",
        r.stdout
    );
}
