//! text-generation-inference built in (issue 33): the Rust reader on
//! launcher trees written in TGI's shapes (`fixtures/tgi/`, one era each),
//! every expectation read by hand from the fixture's Rust. `era-bool`: a
//! `#[clap(long, env)]` struct without docs or enums, quantization a
//! switch (v0.2–v0.8); `era-enum`: `ValueEnum` enums (a variant renamed),
//! doc comments as help, a comma list, a switch without an env key
//! (v0.9–v2); `era-kv`: `#[arg]`/`#[value]` spellings beside `#[clap]`,
//! renamed and skipped variants, `default_value_t`, a struct flattened in
//! from another file (v3). Then the lint half: files that run TGI
//! (`fixtures/tgi/deploy`) judged against the catalogues synced here.

use std::path::Path;

use knobs::catalog::model::{Catalog, Flag, Kind};

use crate::support;

fn repo(dir: &Path) {
    let f = support::fixtures().join("tgi");
    support::build_repo(
        &dir.join("tgi.git"),
        &[("v0.6.0", f.join("era-bool")), ("v1.0.0", f.join("era-enum")), ("v3.0.0", f.join("era-kv"))],
    );
}

fn sync(dir: &Path, tag: &str) -> (Catalog, String) {
    let r = support::knobs(dir, &["sync", "--engine", "tgi", "--repo", "tgi.git", "--tag", tag, "--out", "catalog"]);
    assert_eq!(r.code, 0, "sync {tag}: {}", r.stderr);
    let text = std::fs::read_to_string(dir.join(format!("catalog/tgi/{tag}.toml"))).expect("written");
    (toml::from_str(&text).expect("a catalogue"), r.stderr)
}

fn flag<'a>(c: &'a Catalog, name: &str) -> &'a Flag {
    c.flags.iter().find(|f| f.name == name).unwrap_or_else(|| panic!("{name} missing"))
}

/// Name, kind, members, env keys, aliases, default.
type Shape<'a> = (&'a str, Kind, Vec<&'a str>, Vec<&'a str>, Vec<&'a str>, &'a str);

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn shapes(c: &Catalog) -> Vec<Shape<'_>> {
    c.flags
        .iter()
        .map(|f| (f.name.as_str(), f.kind, strs(&f.members), strs(&f.env), strs(&f.aliases), f.default.as_str()))
        .collect()
}

const NONE: Vec<&str> = Vec::new();

#[test]
fn the_first_era_reads_clap_fields_and_their_env_keys() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let (c, stderr) = sync(tmp.path(), "v0.6.0");
    assert!(!stderr.contains("warning"), "{stderr}");
    let tf = vec!["true", "false"];
    assert_eq!(
        shapes(&c),
        [
            ("--cors-allow-origin", Kind::String, NONE, vec!["CORS_ALLOW_ORIGIN"], NONE, ""),
            ("--json-output", Kind::Switch, NONE, vec!["JSON_OUTPUT"], NONE, ""),
            ("--max-concurrent-requests", Kind::Int, NONE, vec!["MAX_CONCURRENT_REQUESTS"], NONE, "128"),
            ("--max-input-length", Kind::Int, NONE, vec!["MAX_INPUT_LENGTH"], NONE, "1000"),
            ("--model-id", Kind::String, NONE, vec!["MODEL_ID"], NONE, "bigscience/bloom-560m"),
            ("--num-shard", Kind::Int, NONE, vec!["NUM_SHARD"], NONE, ""),
            ("--port", Kind::Int, NONE, vec!["PORT"], vec!["-p"], "3000"),
            // `quantize: bool`: a switch in this era.
            ("--quantize", Kind::Switch, NONE, vec!["QUANTIZE"], NONE, ""),
            ("--revision", Kind::String, NONE, vec!["REVISION"], NONE, ""),
            ("--shard-uds-path", Kind::String, NONE, vec!["SHARD_UDS_PATH"], NONE, "/tmp/text-generation-server"),
            // `Option<bool>` takes `true` or `false`.
            ("--sharded", Kind::Enum, tf, vec!["SHARDED"], NONE, ""),
            ("--watermark-gamma", Kind::Float, NONE, vec!["WATERMARK_GAMMA"], NONE, ""),
        ]
    );
    let port = flag(&c, "--port");
    assert_eq!(port.location, "launcher/src/main.rs:26");
    assert_eq!(port.metavar, "PORT");
    assert_eq!(port.scopes, ["launcher"]);
    // No doc comment: no help.
    assert_eq!(port.help, "");
    // main() reads no key of its own.
    assert!(c.env_keys.is_empty());
}

#[test]
fn value_enums_docs_and_lists_are_read() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let (c, _) = sync(tmp.path(), "v1.0.0");
    let tf = vec!["true", "false"];
    assert_eq!(
        shapes(&c),
        [
            ("--cuda-graphs", Kind::Int, NONE, vec!["CUDA_GRAPHS"], NONE, ""),
            // `BFloat16` renamed by `#[clap(name = "bfloat16")]`.
            ("--dtype", Kind::Enum, vec!["float16", "bfloat16"], vec!["DTYPE"], NONE, ""),
            // `#[clap(long, short, action)]`: `-e`, no env key.
            ("--env", Kind::Switch, NONE, NONE, vec!["-e"], ""),
            ("--hostname", Kind::String, NONE, vec!["HOSTNAME"], NONE, "0.0.0.0"),
            ("--max-input-length", Kind::Int, NONE, vec!["MAX_INPUT_LENGTH"], NONE, "1024"),
            ("--model-id", Kind::String, NONE, vec!["MODEL_ID"], NONE, "bigscience/bloom-560m"),
            ("--port", Kind::Int, NONE, vec!["PORT"], vec!["-p"], "3000"),
            // Variants kebab-cased: `BitsandbytesNf4` → `bitsandbytes-nf4`.
            (
                "--quantize",
                Kind::Enum,
                vec!["awq", "bitsandbytes", "bitsandbytes-nf4", "gptq"],
                vec!["QUANTIZE"],
                NONE,
                ""
            ),
            ("--rope-factor", Kind::Float, NONE, vec!["ROPE_FACTOR"], NONE, ""),
            // A ValueEnum without `value_enum`: clap 4 finds its parser all the same.
            ("--rope-scaling", Kind::Enum, vec!["linear", "dynamic"], vec!["ROPE_SCALING"], NONE, ""),
            ("--sharded", Kind::Enum, tf, vec!["SHARDED"], NONE, ""),
            ("--trust-remote-code", Kind::Switch, NONE, vec!["TRUST_REMOTE_CODE"], NONE, ""),
            ("--waiting-served-ratio", Kind::Float, NONE, vec!["WAITING_SERVED_RATIO"], NONE, "1.2"),
        ]
    );
    assert_eq!(flag(&c, "--model-id").help, "The model to load: a hub id or a local folder.");
    // `value_delimiter = ','`: each comma-separated part is a value.
    assert!(flag(&c, "--cuda-graphs").list);
    // The help says deprecated: so does the catalogue.
    assert!(flag(&c, "--waiting-served-ratio").deprecated);
    assert!(!flag(&c, "--hostname").deprecated);
    let from = flag(&c, "--quantize").members_from.as_ref().expect("members_from");
    assert_eq!(
        (from.origin.as_str(), from.location.as_str(), from.closed),
        ("declared-choices", "launcher/src/main.rs:8", true)
    );
}

#[test]
fn the_newer_spellings_and_flattened_structs_are_read() {
    let tmp = tempfile::tempdir().expect("tempdir");
    repo(tmp.path());
    let (c, _) = sync(tmp.path(), "v3.0.0");
    assert_eq!(
        shapes(&c),
        [
            // `env = "HF_API_TOKEN"` names the key; `hide = true` still parses.
            ("--api-key", Kind::String, NONE, vec!["HF_API_TOKEN"], NONE, ""),
            // From `#[command(flatten)] serving: serving::Serving` (serving.rs).
            ("--enable-prefill-logprobs", Kind::Switch, NONE, vec!["ENABLE_PREFILL_LOGPROBS"], NONE, ""),
            ("--graceful-termination-timeout", Kind::Int, NONE, vec!["GRACEFUL_TERMINATION_TIMEOUT"], vec!["-g"], "90"),
            ("--kv-cache-dtype", Kind::Enum, vec!["fp8_e4m3fn", "fp8_e5m2"], vec!["KV_CACHE_DTYPE"], NONE, ""),
            ("--max-concurrent-requests", Kind::Int, NONE, vec!["MAX_CONCURRENT_REQUESTS"], NONE, "128"),
            ("--max-input-length", Kind::Int, NONE, vec!["MAX_INPUT_LENGTH"], NONE, ""),
            ("--max-input-tokens", Kind::Int, NONE, vec!["MAX_INPUT_TOKENS"], NONE, ""),
            ("--model-id", Kind::String, NONE, vec!["MODEL_ID"], NONE, "bigscience/bloom-560m"),
            ("--port", Kind::Int, NONE, vec!["PORT"], vec!["-p"], "3000"),
            ("--quantize", Kind::Enum, vec!["awq", "compressed-tensors", "exl2", "fp8"], vec!["QUANTIZE"], NONE, ""),
            // `#[value(skip)]` leaves `Unset` out.
            ("--usage-stats", Kind::Enum, vec!["on", "off", "no-stack"], vec!["USAGE_STATS"], NONE, "on"),
        ]
    );
    assert_eq!(flag(&c, "--enable-prefill-logprobs").location, "launcher/src/serving.rs:12");
    // The keys main() reads with `env::var`/`env::var_os` (profile
    // `[extract.env] readers`); `PORT`, read again there, is the option's.
    let keys: Vec<(&str, &str)> = c.env_keys.iter().map(|k| (k.name.as_str(), k.location.as_str())).collect();
    assert_eq!(keys, [("CUDA_VISIBLE_DEVICES", "launcher/src/main.rs:83"), ("HF_TOKEN", "launcher/src/main.rs:82")]);
}

#[test]
fn a_struct_the_tag_lacks_is_a_named_error() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let f = tmp.path().join("src");
    std::fs::create_dir_all(f.join("launcher/src")).expect("mkdir");
    std::fs::write(f.join("launcher/src/main.rs"), "struct Config {\n    #[clap(long)]\n    port: u16,\n}\n")
        .expect("write");
    support::build_repo(&tmp.path().join("tgi.git"), &[("v0.1.0", f)]);
    let r = support::knobs(
        tmp.path(),
        &["sync", "--engine", "tgi", "--repo", "tgi.git", "--tag", "v0.1.0", "--out", "catalog"],
    );
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("no options found: no [[extract.entry]] function (struct Args in launcher/src/main.rs)"),
        "{}",
        r.stderr
    );
    assert!(!tmp.path().join("catalog/tgi/v0.1.0.toml").exists());
}

/// Copies a folder of the work tree into `to`, recursively.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read fixture dir") {
        let p = e.expect("entry").path();
        let dest = to.join(p.file_name().expect("name"));
        if p.is_dir() {
            copy_dir(&p, &dest);
        } else {
            std::fs::copy(&p, &dest).expect("copy");
        }
    }
}

/// A project that runs TGI: the deploy files, the three catalogues synced
/// from the fixture launchers, and a knobs.toml that pins the engine.
fn project(dir: &Path) {
    repo(dir);
    for tag in ["v0.6.0", "v1.0.0", "v3.0.0"] {
        sync(dir, tag);
    }
    copy_dir(&support::fixtures().join("tgi/deploy"), &dir.join("deploy"));
    std::fs::write(dir.join("knobs.toml"), "[pin]\nengine = \"tgi\"\n\n[catalog]\ndir = \"catalog\"\n").expect("write");
}

/// (file, line, code, message, help) of each finding.
fn findings(out: &str) -> Vec<(String, u64, String, String, String)> {
    let v: serde_json::Value = serde_json::from_str(out).expect("json");
    let s = |f: &serde_json::Value, k: &str| f[k].as_str().unwrap_or("").to_string();
    v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| (s(f, "path"), f["line"].as_u64().unwrap_or(0), s(f, "code"), s(f, "message"), s(f, "help")))
        .collect()
}

/// Every expected finding was written from the fixture launchers before
/// knobs was run; the traps (another image's keys and arguments, a value
/// that is a member, a value after an unknown option) must stay silent.
#[test]
fn files_that_run_tgi_are_judged_by_the_launchers_options() {
    let tmp = tempfile::tempdir().expect("tempdir");
    project(tmp.path());
    let r = support::knobs(tmp.path(), &["lint", "--format", "json", "deploy"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let got = findings(&r.stdout);
    let view: Vec<(&str, u64, &str)> = got.iter().map(|(f, l, c, _, _)| (f.as_str(), *l, c.as_str())).collect();
    assert_eq!(
        view,
        [
            // Compose, pinned to v3.0.0 by its image: the command is the launcher's.
            ("deploy/compose/compose.yaml", 5, "KNB002"), // --quantize bogus
            ("deploy/compose/compose.yaml", 8, "KNB002"), // USAGE_STATS=none
            ("deploy/compose/compose.yaml", 9, "KNB006"), // MAX_INPUT_TOKEN, one letter short
            // 10: KV_CACHE_DTYPE=fp8_e5m2 is a member. 16-19: redis's PORT and QUANTIZE are redis's.
            // Kubernetes, pinned to v1.0.0.
            ("deploy/k8s/deployment.yaml", 22, "KNB002"), // --dtype float32
            ("deploy/k8s/deployment.yaml", 23, "KNB001"), // --max-input-lenght
            // 25-28: `--sharded true` (Option<bool>) and a comma list of ints.
            ("deploy/k8s/deployment.yaml", 33, "KNB002"), // ROPE_SCALING=yarn
            // `docker run IMAGE ARGS`: the args and `-e` keys are the launcher's.
            ("deploy/script/docker.sh", 7, "KNB002"), // KV_CACHE_DTYPE=fp8
            ("deploy/script/docker.sh", 9, "KNB001"), // --max-input-tokns
            // The launcher on the host, judged against the newest catalogue.
            ("deploy/script/serve.sh", 6, "KNB003"), // --port eighty
            ("deploy/script/serve.sh", 7, "KNB003"), // a value given to a switch
            ("deploy/script/serve.sh", 9, "KNB001"), // --max-concurent-requests
            // 10: `-g 30`, the short of --graceful-termination-timeout.
            ("deploy/script/tgi.env", 3, "KNB006"), // KV_CACHE_DTYP
        ]
    );
    let at = |file: &str, line: u64| {
        got.iter().find(|g| g.0.ends_with(file) && g.1 == line).unwrap_or_else(|| panic!("{file}:{line}"))
    };
    assert_eq!(at("compose.yaml", 5).3, "`bogus` is not a member of `--quantize`");
    assert!(at("compose.yaml", 5).4.starts_with("tgi v3.0.0 accepts `awq`, `compressed-tensors`, `exl2`, `fp8`"));
    assert_eq!(at("compose.yaml", 8).3, "`none` is not a member of `USAGE_STATS` (`--usage-stats`)");
    assert_eq!(at("compose.yaml", 9).4, "did you mean `MAX_INPUT_TOKENS` (`--max-input-tokens`)?");
    assert_eq!(at("deployment.yaml", 23).3, "`--max-input-lenght` is not a flag of tgi v1.0.0");
    assert_eq!(at("deployment.yaml", 23).4, "did you mean `--max-input-length`?");
    assert!(at("deployment.yaml", 33).4.starts_with("tgi v1.0.0 accepts `linear`, `dynamic`"));
    assert_eq!(at("serve.sh", 6).4, "`--port` takes an integer (int)");
}

/// The built-in profile says which files run TGI: its images and binary.
#[test]
fn the_profile_names_the_launcher_and_its_images() {
    let p = knobs::catalog::profile::builtin("tgi").expect("tgi is built in");
    assert_eq!(p.extract.entries[0].functions, ["Args"]);
    assert_eq!(p.images.names, ["text-generation-inference"]);
    assert!(p.commands.iter().any(|c| c.name == "text-generation-launcher"));
}
