//! Ollama built in (issue 33), the extraction half: the built-in `ollama`
//! profile's Go reader on fixture trees written in Ollama's shapes
//! (`fixtures/ollama/`, one era each), every expectation read by hand from
//! the fixture's Go. `era-getenv`: each package calls `os.Getenv` itself
//! (v0.0–v0.1.33); `era-clean`: an `envconfig` package reading with
//! `clean("K")` and parsing in `LoadConfig` (v0.1.34–v0.3.x); `era-typed`:
//! `Var`, and the typed constructors `Bool("K")`, `Uint("K", 512)`
//! (v0.3.x on). Each has cobra commands whose flags are read.

use std::path::Path;

use knobs::catalog::model::{Catalog, EnvKey, Kind};

use crate::support;

fn repo(dir: &Path) {
    let f = support::fixtures().join("ollama");
    support::build_repo(
        &dir.join("ollama.git"),
        &[
            ("v0.1.20", f.join("era-getenv")),
            ("v0.2.0", f.join("era-clean")),
            ("v0.6.0-rc0", f.join("era-clean")),
            ("v0.5.0", f.join("era-typed")),
        ],
    );
}

fn sync(dir: &Path, tag: &str) -> Catalog {
    let r = support::knobs(dir, &["sync", "--engine", "ollama", "--repo", "ollama.git", "--tag", tag, "--out", "out"]);
    assert_eq!(r.code, 0, "sync {tag}: {}", r.stderr);
    let text = std::fs::read_to_string(dir.join(format!("out/ollama/{tag}.toml"))).expect("written");
    let c: Catalog = toml::from_str(&text).expect("a catalogue");
    // The summary counts the env keys, which configure Ollama.
    let keys = match c.env_keys.len() {
        1 => "1 env key, ".to_string(),
        n => format!("{n} env keys, "),
    };
    let want = format!("flags ({} enums), {keys}{} metrics", c.enum_count(), c.metrics.len());
    assert!(r.stdout.contains(&want), "{want} in {}", r.stdout);
    c
}

/// Name, kind, default of every key.
fn keys(c: &Catalog) -> Vec<(&str, &str, &str)> {
    c.env_keys.iter().map(|k| (k.name.as_str(), k.kind.as_str(), k.default.as_str())).collect()
}

fn key<'c>(c: &'c Catalog, name: &str) -> &'c EnvKey {
    c.env_keys.iter().find(|k| k.name == name).unwrap_or_else(|| panic!("{name} missing"))
}

/// Name, kind, scopes, aliases of every flag. `config.String("profiles",
/// name, key)` in cmd/bench is a method of the engine's own, no flag: its
/// last argument is no usage text.
fn flags(c: &Catalog) -> Vec<(String, Kind, Vec<String>, Vec<String>)> {
    c.flags.iter().map(|f| (f.name.clone(), f.kind, f.scopes.clone(), f.aliases.clone())).collect()
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

#[test]
fn env_keys_read_by_os_getenv_take_their_kind_from_the_parse_call() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let c = sync(tmp.path(), "v0.1.20");
    // HOME has no OLLAMA_ prefix; a call in a comment and one in a
    // _test.go file are not reads.
    assert_eq!(
        keys(&c),
        [
            ("OLLAMA_DEBUG", "bool", ""),          // strconv.ParseBool(os.Getenv(…))
            ("OLLAMA_HOST", "", ""),               // compared, never parsed
            ("OLLAMA_KEEP_ALIVE", "duration", ""), // v := …; time.ParseDuration(v)
            ("OLLAMA_MODELS", "", ""),             // os.LookupEnv
            ("OLLAMA_NOPRUNE", "", ""),            // any value
            ("OLLAMA_NUM_PARALLEL", "int", ""),    // strconv.Atoi(os.Getenv(…))
        ]
    );
    assert_eq!(key(&c, "OLLAMA_DEBUG").location, "gpu/gpu.go:9");
    assert_eq!(key(&c, "OLLAMA_HOST").location, "server/routes.go:12");
    assert_eq!(c.schema, 4, "a kind is schema 4's");
}

#[test]
fn an_envconfig_package_gives_every_key_with_kinds_and_descriptions() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let c = sync(tmp.path(), "v0.2.0");
    // In envconfig every key counts (CUDA_VISIBLE_DEVICES too); elsewhere
    // only OLLAMA_ ones (OLLAMA_TMPDIR, not HOME).
    assert_eq!(
        keys(&c),
        [
            ("CUDA_VISIBLE_DEVICES", "", ""),
            ("OLLAMA_DEBUG", "bool", ""),
            ("OLLAMA_HOST", "", ""),
            ("OLLAMA_KEEP_ALIVE", "duration|int", ""), // a duration, else whole seconds
            ("OLLAMA_MAX_VRAM", "uint", ""),           // limit := clean(…) then ParseUint(limit, …)
            ("OLLAMA_NOHISTORY", "", ""),
            ("OLLAMA_NUM_PARALLEL", "int", ""),
            ("OLLAMA_TMPDIR", "", ""),
        ]
    );
    assert_eq!(key(&c, "OLLAMA_KEEP_ALIVE").help, "How long a model stays in memory");
    assert_eq!(key(&c, "OLLAMA_KEEP_ALIVE").location, "envconfig/config.go:61");
    assert_eq!(key(&c, "OLLAMA_MAX_VRAM").help, "", "not in AsMap, and no var of its own");
}

#[test]
fn typed_constructors_give_kinds_defaults_and_doc_comments() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let c = sync(tmp.path(), "v0.5.0");
    assert_eq!(
        keys(&c),
        [
            ("CUDA_VISIBLE_DEVICES", "", ""),
            ("OLLAMA_FLASH_ATTENTION", "bool", ""),
            ("OLLAMA_HOST", "", ""), // strings.TrimSpace(Var(…)), never parsed
            ("OLLAMA_KEEP_ALIVE", "duration|int", ""),
            ("OLLAMA_LIBRARY_PATH", "", ""), // os.LookupEnv in llm/
            ("OLLAMA_LLM_LIBRARY", "", ""),
            ("OLLAMA_MAX_QUEUE", "uint", "512"),
            ("OLLAMA_NOPRUNE", "bool", ""),
            ("OLLAMA_NUM_PARALLEL", "uint", "0"),
            ("OLLAMA_RUNNERS_DIR", "", ""), // os.Getenv(runnersEnv), a const of the file
            ("OLLAMA_SCHED_SPREAD", "bool", ""), // envconfig.Bool(…) in llm/
            ("https_proxy", "", ""),        // String("https_proxy")() in AsMap
        ]
    );
    assert_eq!(key(&c, "OLLAMA_MAX_QUEUE").help, "MaxQueue is how many requests may wait.");
    assert_eq!(key(&c, "OLLAMA_NUM_PARALLEL").help, "Parallel requests per model", "AsMap over the doc comment");
    assert_eq!(key(&c, "https_proxy").help, "HTTPS proxy");
    assert_eq!(key(&c, "OLLAMA_SCHED_SPREAD").location, "llm/server.go:17");
    assert_eq!(key(&c, "OLLAMA_RUNNERS_DIR").location, "llm/server.go:24");
}

#[test]
fn cobra_flags_are_scoped_to_their_command() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let c = sync(tmp.path(), "v0.5.0");
    assert_eq!(
        flags(&c),
        [
            ("--dimensions".into(), Kind::Int, s(&["run"]), vec![]),
            // `package main` in cmd/bench: std flag calls are the bench binary's.
            ("--epochs".into(), Kind::Int, s(&["bench"]), vec![]),
            // BoolVar(&insecure, …) for pull, Bool(…) for push: one flag.
            ("--insecure".into(), Kind::Switch, s(&["pull", "push"]), vec![]),
            ("--keepalive".into(), Kind::String, s(&["run"]), vec![]),
            ("--model".into(), Kind::String, s(&["bench"]), vec![]),
            ("--verbose".into(), Kind::Switch, s(&["run"]), vec![]),
            ("--version".into(), Kind::Switch, s(&["ollama"]), s(&["-v"])),
        ]
    );
    let f = c.flags.iter().find(|f| f.name == "--keepalive").expect("keepalive");
    assert_eq!((f.help.as_str(), f.location.as_str()), ("Duration to keep a model loaded (e.g. 5m)", "cmd/cmd.go:20"));
}

#[test]
fn a_history_reads_release_tags_only() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let r = support::knobs(
        tmp.path(),
        &["sync", "--engine", "ollama", "--repo", "ollama.git", "--all-tags", "--out", "out"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "note: left out 1 tag that is not a release by the profile's [history] tags (name them with --tags to \
             read them): `v0.6.0-rc0`"
        ),
        "{}",
        r.stderr
    );
    let text = std::fs::read_to_string(tmp.path().join("out/ollama/history.json")).expect("history written");
    let h: serde_json::Value = serde_json::from_str(&text).expect("json");
    let tags: Vec<&str> = h["tags"].as_array().expect("tags").iter().filter_map(|t| t["tag"].as_str()).collect();
    assert_eq!(tags, ["v0.1.20", "v0.2.0", "v0.5.0"], "ordered by version, the rc tag left out");
}

#[test]
fn a_tree_with_no_key_and_no_flag_is_refused() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).expect("mkdir");
    std::fs::write(empty.join("main.go"), "package main\n\nfunc main() {}\n").expect("write");
    support::build_repo(&tmp.path().join("ollama.git"), &[("v0.0.1", empty)]);
    let r = support::knobs(tmp.path(), &["sync", "--engine", "ollama", "--repo", "ollama.git", "--tag", "v0.0.1"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("no env key, flag or metric found in the Go files of the whole tree"), "{}", r.stderr);
}

/// A Go engine that is not Ollama, described in knobs.toml alone
/// (`fixtures/go-engine`): an env key by `os.Getenv` parsed by `Atoi`, a
/// flag of the `flag` package, and the Prometheus client's registrations.
#[test]
fn a_go_engine_described_in_knobs_toml_gives_env_keys_flags_and_metrics() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let f = support::fixtures().join("go-engine");
    support::build_repo(&tmp.path().join("gopher.git"), &[("v1.0.0", f.join("tree"))]);
    std::fs::copy(f.join("knobs.toml"), tmp.path().join("knobs.toml")).expect("copy knobs.toml");
    let r = support::knobs(
        tmp.path(),
        &["sync", "--engine", "gopher", "--repo", "gopher.git", "--tag", "v1.0.0", "--out", "out"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let text = std::fs::read_to_string(tmp.path().join("out/gopher/v1.0.0.toml")).expect("written");
    let c: Catalog = toml::from_str(&text).expect("a catalogue");
    assert_eq!(keys(&c), [("GOPHER_WORKERS", "int", "")]);
    assert_eq!(flags(&c), [("--port".into(), Kind::Int, vec![], vec![])]);
    let port = &c.flags[0];
    assert_eq!((port.default.as_str(), port.help.as_str()), ("8080", "Port to listen on"));
    let metrics: Vec<(&str, &str, Vec<&str>, &str)> = c
        .metrics
        .iter()
        .map(|m| (m.name.as_str(), m.kind.as_str(), m.labels.iter().map(String::as_str).collect(), m.help.as_str()))
        .collect();
    // Namespace, subsystem and name joined as BuildFQName joins them;
    // runtime_gc_total has another prefix, and a name known only at run
    // time is not read.
    assert_eq!(
        metrics,
        [
            ("gopher_build_info", "gauge", vec![], "The build."),
            ("gopher_latency_seconds", "histogram", vec![], "Time to the last token."),
            ("gopher_requests_total", "counter", vec!["model", "code"], "Requests answered."),
            ("gopher_sched_queue_depth", "gauge", vec![], "Requests waiting for a slot."),
            ("gopher_uptime_seconds_total", "counter", vec![], "Seconds since the start."), // NewCounterFunc
        ]
    );
    // Registered with no labels at all: no Vec and no ConstLabels (the
    // build gauge's labels are fixed ones, not read, so it is not said to have none).
    let unlabelled: Vec<(&str, bool)> = c.metrics.iter().map(|m| (m.name.as_str(), m.unlabelled)).collect();
    assert_eq!(
        unlabelled,
        [
            ("gopher_build_info", false),
            ("gopher_latency_seconds", true),
            ("gopher_requests_total", false),
            ("gopher_sched_queue_depth", true),
            ("gopher_uptime_seconds_total", true),
        ]
    );
    let latency = &c.metrics[1];
    assert_eq!(
        latency.samples,
        ["gopher_latency_seconds_bucket", "gopher_latency_seconds_sum", "gopher_latency_seconds_count"]
    );
    assert_eq!(c.metrics[2].location, "metrics/metrics.go:11");
}
