//! SGLang built in (issue 33), the lint half: files that run SGLang in the
//! shapes operators write them (`fixtures/sglang/deploy`: a Compose file
//! pinned by its `lmsysorg/sglang` image, a Kubernetes Deployment, serve
//! scripts (one on an older image) and an env file) with planted defects, judged against the
//! hand-written catalogues of `fixtures/sglang/catalog` (v0.4.6, v0.5.18)
//! through `fixtures/sglang/knobs.toml`. Every expected finding was written
//! from SGLang's source before knobs was run on the file; the traps (values
//! of an option that takes several, argparse's unique prefixes, `SGL_` keys
//! read as `SGLANG_`) must stay silent, and a deprecated option is a
//! warning.

use crate::support::{self, run_in};

use crate::support::text::file_line_code as found;

#[test]
fn planted_defects_are_found_and_traps_are_not() {
    let r = run_in(&support::root(), &["lint", "--format", "short", "fixtures/sglang/deploy"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let want: Vec<(String, usize, String)> = [
        // Compose, pinned by lmsysorg/sglang:v0.5.18-cu129.
        ("compose/compose.yaml", 9, "KNB002"), // flashinfr: not in ATTENTION_BACKEND_CHOICES
        ("compose/compose.yaml", 10, "KNB003"), // 0,85 is no float
        ("compose/compose.yaml", 11, "KNB007"), // --enable-flashinfer-mla: v0.4.6's, gone at v0.5.18
        // 12: `--cuda-graph-bs 1 2 4 8`, nargs="+": one option, four values, all
        // ints; the option is a deprecated alias of `--cuda-graph-bs-decode`.
        ("compose/compose.yaml", 12, "KNB023"),
        // 13, 14: `--enable-metric`, `--tp`: argparse's unique prefixes.
        ("compose/compose.yaml", 16, "KNB006"), // one letter from SGLANG_ENABLE_JIT_DEEPGEMM
        // 17: SGL_ENABLE_JIT_DEEPGEMM is read as SGLANG_ENABLE_JIT_DEEPGEMM.
        // Kubernetes, pinned by lmsysorg/sglang:v0.4.6-cu124.
        ("k8s/deployment.yaml", 23, "KNB011"), // a value after a switch: the launcher takes no positional
        ("k8s/deployment.yaml", 25, "KNB002"), // `lof` came after v0.4.6
        // 28-30: `--cuda-graph-bs 1 2` (nargs="+", int), then a third value that is no int.
        ("k8s/deployment.yaml", 31, "KNB003"),
        // 32: `--lora-paths` (nargs="*") given nothing.
        // A script on the v0.5.15 image (judged by the nearest catalogue, v0.4.6):
        // `sglang serve` took no model word before v0.5.16.
        ("script/serve-older.sh", 7, "KNB011"),
        ("script/serve-older.sh", 9, "KNB003"), // the third value of `--cuda-graph-bs`
        // A serve script and an env file, judged against the newest catalogue.
        ("script/serve.sh", 5, "KNB011"), // `sglang serve` takes one positional, the model
        ("script/serve.sh", 7, "KNB001"), // --enable-torch-compiel
        ("script/serve.sh", 8, "KNB003"), // an int option given a word
        ("script/serve.sh", 9, "KNB023"), // --disable-cuda-graph: deprecated, still a switch
        // 10-11: values of nargs options.
        ("script/sglang.env", 1, "KNB006"), // SGLANG_USE_MODELSCOP
    ]
    .iter()
    .map(|(f, l, c)| (format!("fixtures/sglang/deploy/{f}"), *l, c.to_string()))
    .collect();
    assert_eq!(found(&r.stdout), want, "{}", r.stdout);
}

#[test]
fn messages_name_what_the_source_says() {
    let r = run_in(&support::root(), &["lint", "--format", "json", "fixtures/sglang/deploy"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    let findings = v["findings"].as_array().expect("findings");
    let at = |file: &str, line: u64| {
        findings
            .iter()
            .find(|f| f["path"].as_str().is_some_and(|p| p.ends_with(file)) && f["line"] == line)
            .unwrap_or_else(|| panic!("no finding at {file}:{line}: {}", r.stdout))
    };
    let message = |f: &serde_json::Value| f["message"].as_str().unwrap_or("").to_string();
    let help = |f: &serde_json::Value| f["help"].as_str().unwrap_or("").to_string();
    assert_eq!(message(at("compose/compose.yaml", 11)), "`--enable-flashinfer-mla` is not a flag of sglang v0.5.18");
    assert_eq!(help(at("compose/compose.yaml", 11)), "it exists in sglang v0.4.6");
    assert_eq!(
        message(at("compose/compose.yaml", 16)),
        "`SGLANG_ENABLE_JIT_DEEPGEM` is not an env key of sglang v0.5.18"
    );
    assert_eq!(help(at("compose/compose.yaml", 16)), "did you mean `SGLANG_ENABLE_JIT_DEEPGEMM`?");
    assert_eq!(help(at("script/sglang.env", 1)), "did you mean `SGLANG_USE_MODELSCOPE`?");
    // Every value of an option that takes several is judged, not only the first.
    assert_eq!(message(at("k8s/deployment.yaml", 31)), "`eight` is not a valid value for `--cuda-graph-bs`");
    assert_eq!(message(at("script/serve.sh", 9)), "`--disable-cuda-graph` is deprecated in sglang v0.5.18");
    assert_eq!(help(at("script/serve.sh", 9)), "sglang v0.5.18 still takes it, and warns; a later build may drop it");
    // The positional limit of the pinned build's era.
    assert_eq!(
        message(at("script/serve-older.sh", 7)),
        "`Qwen/Qwen3-8B` is not an option of sglang serve: sglang v0.4.6 takes no positional arguments"
    );
    assert_eq!(
        message(at("script/serve.sh", 5)),
        "`extra-word` is one positional argument too many: sglang serve takes 1 in sglang v0.5.18"
    );
}

#[test]
fn a_deprecated_env_key_names_the_key_its_value_goes_to() {
    let args = [
        "lint",
        "--format",
        "json",
        "--engine",
        "sglang",
        "--catalog-dir",
        "fixtures/sglang/catalog",
        "fixtures/lint/rules/KNB023/bad.sh",
    ];
    let r = run_in(&support::root(), &args);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    let findings = v["findings"].as_array().expect("findings");
    let help = |message: &str| {
        findings
            .iter()
            .find(|f| f["message"] == message)
            .and_then(|f| f["help"].as_str())
            .unwrap_or_else(|| panic!("no `{message}`: {}", r.stdout))
            .to_string()
    };
    // environ.py's `_DEPRECATED_ENVS`: `SGLANG_GC_LOG` is forwarded to `SGLANG_LOG_GC`;
    // `SGLANG_OPT_USE_CUDA_SCONV` has no replacement.
    assert_eq!(
        help("`SGLANG_GC_LOG` is deprecated in sglang v0.5.18"),
        "sglang v0.5.18 reads it as `SGLANG_LOG_GC`: set that instead"
    );
    assert_eq!(
        help("`SGLANG_OPT_USE_CUDA_SCONV` is deprecated in sglang v0.5.18"),
        "sglang v0.5.18 only warns about it; a later build may not read it at all"
    );
}

#[test]
fn explain_says_a_deprecated_env_key_is_still_read_and_names_its_successor() {
    // fixtures/sglang's v0.5.18 catalogue (written from environ.py by hand):
    // SGLANG_GC_LOG is an old name still read, forwarded to SGLANG_LOG_GC.
    let r = run_in(&support::root().join("fixtures/sglang"), &["explain", "--tag", "v0.5.18", "SGLANG_GC_LOG"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.starts_with("SGLANG_GC_LOG — env key\nsglang v0.5.18\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains("  read at     python/sglang/srt/environ.py:1559\n  deprecated  still read, and warned about: use SGLANG_LOG_GC\n"),
        "{}",
        r.stdout
    );
}
