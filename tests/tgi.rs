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
