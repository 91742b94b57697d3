//! SGLang built in (issue 33), the extraction half: the built-in `sglang`
//! profile on fixture packages written in SGLang's shapes (`fixtures/sglang/`,
//! one era each), every expectation read by hand from the fixture's Python.
//! `era-main`: the parser built in a method, called under `if __name__ ==
//! "__main__":` (v0.1–v0.3); `era-prepare`: `prepare_server_args`, `nargs`,
//! custom actions, env keys read by calls (v0.3.1.post1–v0.5.13);
//! `era-dataclass`: options generated from `A[T, Arg(...)]` fields by
//! `add_cli_args_from_dataclass`, env keys as `class Envs` attributes
//! (v0.5.14 on). Then the history's safety: release tags only, and a tag
//! whose reading collapses refused unless accepted.

use std::path::Path;

use knobs::catalog::model::{Catalog, Flag, Kind};

use crate::support;

fn repo(dir: &Path) {
    let f = support::fixtures().join("sglang");
    support::build_repo(
        &dir.join("sglang.git"),
        &[("v0.2.0", f.join("era-main")), ("v0.4.0", f.join("era-prepare")), ("v0.5.14", f.join("era-dataclass"))],
    );
}

fn sync(dir: &Path, tag: &str) -> (Catalog, String) {
    let r = support::knobs(dir, &["sync", "--engine", "sglang", "--repo", "sglang.git", "--tag", tag, "--out", "out"]);
    assert_eq!(r.code, 0, "sync {tag}: {}", r.stderr);
    let text = std::fs::read_to_string(dir.join(format!("out/sglang/{tag}.toml"))).expect("written");
    (toml::from_str(&text).expect("a catalogue"), r.stderr)
}

fn flag<'a>(c: &'a Catalog, name: &str) -> &'a Flag {
    c.flags.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("{name} missing"))
}

/// Kind, members, nargs (or the count of values), deprecated.
fn shape(f: &Flag) -> (Kind, Vec<&str>, Option<String>, bool) {
    let count = f.nargs.clone().or(f.arity.map(|a| a.to_string()));
    (f.kind, f.members.iter().map(String::as_str).collect(), count, f.deprecated)
}

fn plain(kind: Kind) -> (Kind, Vec<&'static str>, Option<String>, bool) {
    (kind, vec![], None, false)
}

#[test]
fn options_are_generated_from_annotated_dataclass_fields() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let (c, _) = sync(tmp.path(), "v0.5.14");
    let names: Vec<&str> = c.flags.iter().map(|f| f.name.as_str()).collect();
    // 22 fields carry the metadata (`internal_only` says `no_cli=True`;
    // `served_model_name` and `reasoning_parser` carry none), and
    // add_cli_args declares three more by hand.
    assert_eq!(
        names,
        [
            "--attention-backend",
            "--context-length",
            "--cuda-graph-bs",
            "--disable-radix-cache",
            "--dp-size",
            "--enable-deepep-moe",
            "--enable-dp-attention",
            "--enable-dp-lm-head",
            "--enable-metrics",
            "--host",
            "--json-model-override-args",
            "--kv-cache-dtype",
            "--load-format",
            "--log-level",
            "--lora-paths",
            "--lora-target-modules",
            "--max-running-requests",
            "--mem-fraction-static",
            "--model-path",
            "--port",
            "--reasoning-parser",
            "--schedule-policy",
            "--served-model-name",
            "--tensor-parallel-size",
            "--trust-remote-code",
        ]
    );
    // `Arg(aliases=[...])`, `Arg(cli_name=...)`.
    assert_eq!(flag(&c, "--model-path").aliases, ["--model"]);
    assert_eq!(flag(&c, "--tensor-parallel-size").aliases, ["--tp-size"]);
    assert_eq!(shape(flag(&c, "--tensor-parallel-size")), plain(Kind::Int));
    assert_eq!(flag(&c, "--tensor-parallel-size").default, "1");
    // A bare string is the help; the type gives the kind.
    assert_eq!(flag(&c, "--host").help, "The host of the HTTP server.");
    assert_eq!(flag(&c, "--host").default, "127.0.0.1");
    assert_eq!(shape(flag(&c, "--port")), plain(Kind::Int));
    assert_eq!(shape(flag(&c, "--mem-fraction-static")), plain(Kind::Float));
    assert_eq!(shape(flag(&c, "--log-level")), plain(Kind::String));
    // A help string in parentheses, written in two parts.
    assert_eq!(flag(&c, "--enable-metrics").help, "Enable Prometheus metrics. Off by default.");
    // `bool` is store_true: a switch with no `--no-` twin.
    assert_eq!(shape(flag(&c, "--trust-remote-code")), plain(Kind::Switch));
    assert!(flag(&c, "--trust-remote-code").negated.is_empty());
    // `choices=` a module constant; `Literal[...]` written out or through an alias.
    assert_eq!(shape(flag(&c, "--attention-backend")), (Kind::Enum, vec!["flashinfer", "triton", "fa3"], None, false));
    assert_eq!(shape(flag(&c, "--load-format")), (Kind::Enum, vec!["auto", "pt", "safetensors"], None, false));
    assert_eq!(shape(flag(&c, "--schedule-policy")), (Kind::Enum, vec!["lpm", "fcfs"], None, false));
    assert_eq!(shape(flag(&c, "--kv-cache-dtype")), (Kind::Enum, vec!["auto", "fp8_e5m2", "fp8_e4m3"], None, false));
    // A list takes one or more values of its element's kind unless the metadata says.
    assert_eq!(shape(flag(&c, "--cuda-graph-bs")), (Kind::Int, vec![], Some("+".into()), false));
    assert_eq!(shape(flag(&c, "--lora-target-modules")), (Kind::String, vec![], Some("*".into()), false));
    // A custom action with its keywords in `action_kwargs`.
    assert_eq!(shape(flag(&c, "--lora-paths")), (Kind::String, vec![], Some("*".into()), false));
    // `type_parser=` reads the whole value as one word.
    assert_eq!(shape(flag(&c, "--json-model-override-args")), plain(Kind::String));
    // A deprecated switch (its action's `nargs=0`), and a deprecated alias that takes a value.
    assert_eq!(shape(flag(&c, "--enable-dp-lm-head")), (Kind::Switch, vec![], None, true));
    assert_eq!(shape(flag(&c, "--enable-deepep-moe")), (Kind::String, vec![], None, true));
    assert!(flag(&c, "--enable-deepep-moe").removed.is_none());
}

#[test]
fn nargs_custom_actions_and_refused_options_are_read() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let (c, _) = sync(tmp.path(), "v0.4.0");
    assert_eq!(c.flags.len(), 9, "{:?}", c.flags.iter().map(|f| &f.name).collect::<Vec<_>>());
    assert_eq!(shape(flag(&c, "--cuda-graph-bs")), (Kind::Int, vec![], Some("+".into()), false));
    assert_eq!(shape(flag(&c, "--lora-paths")), (Kind::String, vec![], Some("*".into()), false));
    assert_eq!(shape(flag(&c, "--json-model-override-args")), (Kind::String, vec![], Some("?".into()), false));
    assert_eq!(shape(flag(&c, "--dp-bounds")), (Kind::Int, vec![], Some("2".into()), false));
    assert_eq!(flag(&c, "--dp-bounds").values(), 2);
    assert_eq!(
        shape(flag(&c, "--attention-backend")),
        (Kind::Enum, vec!["flashinfer", "triton", "torch_native"], None, false)
    );
    // `action=DeprecatedAction` (nargs=0) whose `__call__` raises: a switch the build refuses.
    let mla = flag(&c, "--enable-flashinfer-mla");
    assert_eq!(shape(mla), (Kind::Switch, vec![], None, true));
    assert_eq!(
        mla.removed.as_deref(),
        Some("--enable-flashinfer-mla is deprecated. Please use '--attention-backend flashinfer' instead.")
    );
}

#[test]
fn a_parser_built_in_a_method_or_under_main_is_read() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    // The built-in profile: no `prepare_server_args` at v0.2.0, so `ServerArgs.add_cli_args`.
    let (c, warnings) = sync(tmp.path(), "v0.2.0");
    let names: Vec<&str> = c.flags.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "--disable-disk-cache",
            "--disable-radix-cache",
            "--host",
            "--lora-paths",
            "--mem-fraction-static",
            "--model-path",
            "--port",
            "--schedule-policy",
        ]
    );
    assert!(!warnings.contains("none of"), "{warnings}");
    assert_eq!(shape(flag(&c, "--lora-paths")), (Kind::String, vec![], Some("*".into()), false));
    assert!(flag(&c, "--disable-disk-cache").removed.is_some());
    // A profile naming the launcher's `if __name__ == "__main__":` block
    // reads what it declares too.
    std::fs::write(
        tmp.path().join("knobs.toml"),
        "[pin]\nengine = \"launcher\"\n\n[profile.launcher]\nname = \"launcher\"\n\n[profile.launcher.extract]\n\
         language = \"python\"\nsources = [\"python/sglang/srt/\"]\n\n[[profile.launcher.extract.entry]]\n\
         scope = \"serve\"\nfile = \"python/sglang/launch_server.py\"\nfunctions = [\"__main__\"]\n",
    )
    .expect("knobs.toml");
    let r = support::knobs(tmp.path(), &["sync", "--repo", "sglang.git", "--tag", "v0.2.0", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(tmp.path().join("out/launcher/v0.2.0.toml")).expect("written");
    let c: Catalog = toml::from_str(&text).expect("catalogue");
    assert_eq!(c.flags.len(), 9);
    assert_eq!(shape(flag(&c, "--launcher-only")), plain(Kind::Switch));
    assert_eq!(flag(&c, "--launcher-only").location, "python/sglang/launch_server.py:11");
}

#[test]
fn env_keys_come_from_class_attributes_and_reader_calls() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let keys = |c: &Catalog| c.env_keys.iter().map(|k| k.name.clone()).collect::<Vec<_>>();
    // v0.4.0: `get_bool_env_var("SGL_…")`, `os.environ.get(` over two lines,
    // `get_int_env_var`; `os.getenv(name)` and `os.getenv("HOME")` are not
    // the engine's keys, a call in a comment is not a read.
    let (c, _) = sync(tmp.path(), "v0.4.0");
    assert_eq!(
        keys(&c),
        [
            "SGLANG_FORCE_TRITON",
            "SGLANG_TORCH_COMPILE_MAX_BS",
            "SGLANG_USE_AITER",
            "SGL_ENABLE_JIT_DEEPGEMM",
            "SGL_ROPE_MODE"
        ]
    );
    let at = |c: &Catalog, k: &str| c.env_keys.iter().find(|e| e.name == k).map(|e| e.location.clone());
    assert_eq!(at(&c, "SGLANG_FORCE_TRITON").as_deref(), Some("python/sglang/srt/layers/attention.py:4"));
    // v0.5.14: `class Envs`, its comments as help, a deprecated name read too;
    // the deprecated keys of `_DEPRECATED_ENVS` and `_print_deprecated_env`;
    // and a call in the CLI.
    let (c, _) = sync(tmp.path(), "v0.5.14");
    assert_eq!(
        keys(&c),
        [
            "HF_HUB_DISABLE_XET",
            "SGLANG_CLI_DEBUG",
            "SGLANG_DSA_FUSE_TOPK",
            "SGLANG_LEGACY_SAMPLER",
            "SGLANG_LOG_GC",
            "SGLANG_LOG_GC_EVENTS",
            "SGLANG_LOG_REQUEST_HEADERS",
            "SGLANG_NSA_FUSE_TOPK",
            "SGLANG_OLD_KERNEL_PATH",
            "SGLANG_REQ_WAITING_TIMEOUT",
            "SGLANG_SERVE_GRPC",
            "SGLANG_SORT_WEIGHT_FILES",
            "SGLANG_TIMEOUT_KEEP_ALIVE",
            "SGLANG_USE_MODELSCOPE",
            "SGLANG_WAIT_TIMEOUT_MS",
            "SGL_MOE_DISPATCH_MODE",
        ]
    );
    // Deprecated, with the key each is forwarded to when the source names one.
    let deprecated: Vec<(&str, &str)> =
        c.env_keys.iter().filter(|k| k.deprecated).map(|k| (k.name.as_str(), k.successor.as_str())).collect();
    assert_eq!(
        deprecated,
        [
            ("SGLANG_LEGACY_SAMPLER", ""),
            ("SGLANG_LOG_GC_EVENTS", "SGLANG_LOG_GC"),
            ("SGLANG_NSA_FUSE_TOPK", "SGLANG_DSA_FUSE_TOPK"),
            ("SGLANG_OLD_KERNEL_PATH", ""),
            ("SGLANG_SERVE_GRPC", ""),
            ("SGLANG_WAIT_TIMEOUT_MS", "SGLANG_REQ_WAITING_TIMEOUT"),
            ("SGL_MOE_DISPATCH_MODE", "SGLANG_MOE_DISPATCH_MODE"),
        ]
    );
    let key = |k: &str| c.env_keys.iter().find(|e| e.name == k).expect(k);
    assert_eq!(key("SGLANG_SORT_WEIGHT_FILES").default, "0");
    assert_eq!(key("SGLANG_SORT_WEIGHT_FILES").help, "The weight files are sorted so that ranks read them in turn.");
    assert_eq!(key("SGLANG_USE_MODELSCOPE").default, "False");
    assert_eq!(key("SGLANG_NSA_FUSE_TOPK").help, "read when SGLANG_DSA_FUSE_TOPK is not set");
    assert_eq!(key("SGLANG_LOG_GC_EVENTS").help, "Renamed.");
    assert_eq!(key("SGLANG_LOG_GC_EVENTS").location, "python/sglang/srt/environ.py:73");
    assert!(!key("SGLANG_LOG_GC").deprecated);
}

#[test]
fn metrics_come_from_the_collector_and_the_http_helpers() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let (c, _) = sync(tmp.path(), "v0.5.14");
    // srt/metrics/collector.py: a gauge, a counter exported with `_total`;
    // srt/utils/common.py: the HTTP server's counter (named with `_total`
    // already) and gauge, the name given as `name=` or first.
    let got: Vec<(String, String)> = c.metrics.iter().map(|m| (m.name.clone(), m.kind.as_str().to_string())).collect();
    let want = [
        ("sglang:http_requests_active", "gauge"),
        ("sglang:http_requests_total", "counter"),
        ("sglang:num_running_reqs", "gauge"),
        ("sglang:prompt_tokens_total", "counter"),
    ];
    let want: Vec<(String, String)> = want.iter().map(|(n, k)| (n.to_string(), k.to_string())).collect();
    assert_eq!(got, want);
}

/// The era-dataclass tree, with its generator renamed: the source moved
/// its options where the profile does not look.
fn moved(dir: &Path) -> std::path::PathBuf {
    let to = dir.join("moved");
    copy(&support::fixtures().join("sglang/era-dataclass"), &to);
    let file = to.join("python/sglang/srt/server_args.py");
    let text = std::fs::read_to_string(&file).expect("read");
    std::fs::write(&file, text.replace("add_cli_args_from_dataclass", "add_arguments_of_fields")).expect("write");
    to
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read dir") {
        let p = e.expect("entry").path();
        let dest = to.join(p.file_name().expect("name"));
        if p.is_dir() {
            copy(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).expect("copy");
        }
    }
}

#[test]
fn a_history_reads_release_tags_and_refuses_a_collapse_unless_accepted() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let f = support::fixtures().join("sglang");
    let moved = moved(tmp.path());
    support::build_repo(
        &tmp.path().join("sglang.git"),
        &[("v0.5.13", f.join("era-dataclass")), ("v0.5.14", moved), ("test/20250421", f.join("era-main"))],
    );
    let args = ["sync", "--engine", "sglang", "--repo", "sglang.git", "--all-tags", "--out", "out"];
    let r = support::knobs(tmp.path(), &args);
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains(
            "note: left out 1 tag that is not a release by the profile's [history] tags (name them with --tags to \
             read them): `test/20250421`"
        ),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains(
            "warning: v0.5.14 read 3 options where v0.5.13 read 25: the source likely moved its options where the \
             profile does not look; not read: --attention-backend, --context-length, --cuda-graph-bs, \
             --disable-radix-cache, --dp-size, --enable-dp-attention, --enable-dp-lm-head, --enable-metrics and 14 more"
        ),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains(
            "error: out/sglang/history.json was not written: 1 tag read far fewer options than the tag before \
             (pass --accept-collapse to write it as read)"
        ),
        "{}",
        r.stderr
    );
    assert!(!tmp.path().join("out/sglang/history.json").exists());
    // Accepted: written, with the two releases only.
    let mut accepted = args.to_vec();
    accepted.push("--accept-collapse");
    let r = support::knobs(tmp.path(), &accepted);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(tmp.path().join("out/sglang/history.json")).expect("written");
    let h: serde_json::Value = serde_json::from_str(&text).expect("json");
    let tags: Vec<&str> = h["tags"].as_array().expect("tags").iter().filter_map(|t| t["tag"].as_str()).collect();
    assert_eq!(tags, ["v0.5.13", "v0.5.14"]);
    // A tag that is not a release is read when `--tags` names it.
    let r = support::knobs(
        tmp.path(),
        &["sync", "--engine", "sglang", "--repo", "sglang.git", "--tags", "test/*", "--out", "named"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(tmp.path().join("named/sglang/history.json")).expect("written");
    assert!(text.contains("\"test/20250421\""), "{text}");
}
