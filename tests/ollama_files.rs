//! Ollama built in (issue 33), the lint half: files that run Ollama in the
//! shapes operators write them (`fixtures/ollama/deploy`: a Compose file
//! pinned by its `ollama/ollama` image, `docker run` lines of a pinned image
//! whose entrypoint takes a subcommand, a Kubernetes Deployment pinned by
//! an older image, a systemd unit with `Environment=` lines and an env
//! file) with planted defects, judged against the hand-written catalogues
//! of `fixtures/ollama/catalog` (v0.3.14, v0.5.7: env keys and no flag)
//! through `fixtures/ollama/knobs.toml`. Every expected finding was written
//! from Ollama's envconfig before knobs was run on the files; the traps (a
//! negative keep-alive, which Ollama reads as whole seconds; keys of other
//! programs) must stay silent.

use crate::support::{self, run_in};

use crate::support::text::file_line_code as found;

#[test]
fn planted_defects_are_found_and_traps_are_not() {
    let r = run_in(&support::root(), &["lint", "--format", "short", "fixtures/ollama/deploy"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let want: Vec<(String, usize, String)> = [
        // Compose, pinned by ollama/ollama:0.5.7.
        ("compose/compose.yaml", 10, "KNB003"), // four: Uint parses an unsigned integer
        // 11: 24h is a duration.
        ("compose/compose.yaml", 12, "KNB006"), // one letter from OLLAMA_FLASH_ATTENTION
        // 13: OLLAMA_KV_CACHE_TYPE is read from v0.5.x; 15: NVIDIA_VISIBLE_DEVICES is the runtime's.
        // docker run of a pinned image (ENTRYPOINT ollama, CMD serve).
        ("docker/run.sh", 5, "KNB003"), // four, given the server by -e with no word after the image
        // 6: 24h is a duration.
        ("docker/run.sh", 10, "KNB006"), // OLLAMA_FLASH_ATENTION, before the subcommand `serve`
        ("docker/run.sh", 11, "KNB001"), // `ollama serve` takes no --port (OLLAMA_HOST sets it)
        // 14: OLLAMA_HOST for the client `list` is right.
        ("docker/run.sh", 17, "KNB003"), // four, set by sudo for `ollama serve`
        // An env file, judged against the newest catalogue.
        ("env/ollama.env", 2, "KNB006"), // OLLAMA_KEEPALIVE: the key has an underscore
        ("env/ollama.env", 5, "KNB003"), // `on` is no word strconv.ParseBool takes
        // Kubernetes, pinned by ollama/ollama:0.3.14.
        ("k8s/deployment.yaml", 22, "KNB003"), // "5 minutes" is neither a duration nor seconds
        ("k8s/deployment.yaml", 24, "KNB003"), // -1 for an unsigned integer
        ("k8s/deployment.yaml", 25, "KNB007"), // OLLAMA_KV_CACHE_TYPE: v0.5.7's, not v0.3.14's
        ("k8s/deployment.yaml", 29, "KNB006"), // OLLAMA_NUM_PARALEL
        // A systemd unit running `ollama serve`, the newest catalogue.
        ("systemd/ollama.service", 12, "KNB006"), // OLLAMA_ORIGIN: the key is OLLAMA_ORIGINS
        ("systemd/ollama.service", 13, "KNB003"), // yes: not a ParseBool word
                                                  // 14: -1 is whole seconds (forever); 15: 1 is a bool.
    ]
    .iter()
    .map(|(f, l, c)| (format!("fixtures/ollama/deploy/{f}"), *l, c.to_string()))
    .collect();
    assert_eq!(found(&r.stdout), want, "{}", r.stdout);
}

#[test]
fn messages_name_the_kind_and_the_key_meant() {
    let r = run_in(&support::root(), &["lint", "--format", "json", "fixtures/ollama/deploy"]);
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
    let num = at("compose/compose.yaml", 10);
    assert_eq!(message(num), "`four` is not a valid value for `OLLAMA_NUM_PARALLEL`");
    assert_eq!(help(num), "`OLLAMA_NUM_PARALLEL` takes an unsigned integer in ollama v0.5.7 (envconfig/config.go:202)");
    let keep = at("k8s/deployment.yaml", 22);
    assert_eq!(message(keep), "`5 minutes` is not a valid value for `OLLAMA_KEEP_ALIVE`");
    assert_eq!(
        help(keep),
        "`OLLAMA_KEEP_ALIVE` takes a duration (such as 5m or 1h30m) or an integer in ollama v0.3.14 (envconfig/config.go:100)"
    );
    assert_eq!(message(at("compose/compose.yaml", 12)), "`OLLAMA_FLASH_ATENTION` is not an env key of ollama v0.5.7");
    assert_eq!(help(at("compose/compose.yaml", 12)), "did you mean `OLLAMA_FLASH_ATTENTION`?");
    assert_eq!(help(at("systemd/ollama.service", 12)), "did you mean `OLLAMA_ORIGINS`?");
    assert_eq!(help(at("env/ollama.env", 2)), "did you mean `OLLAMA_KEEP_ALIVE`?");
}

#[test]
fn explain_tells_an_env_key_the_engine_reads_itself() {
    // The fixture catalogues (written from envconfig by hand): v0.3.14 and
    // v0.5.7 read OLLAMA_KEEP_ALIVE as a duration or whole seconds, with no
    // default in the source; OLLAMA_KV_CACHE_TYPE only from v0.5.7.
    let dir = support::root().join("fixtures/ollama");
    let r = run_in(&dir, &["explain", "OLLAMA_KEEP_ALIVE"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "OLLAMA_KEEP_ALIVE — env key\nollama v0.5.7\n\n  value       duration|int\n  default     none in the source\n  \
         read at     envconfig/config.go:101\n\nVersions\n  v0.3.14     read\n  v0.5.7      read\n"
    );
    let r = run_in(&dir, &["explain", "--tag", "v0.3.14", "OLLAMA_KV_CACHE_TYPE"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "not read by ollama v0.3.14: shown as the newest catalogued version that reads it\n\n  value       not said by the source\n"
        ),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("  v0.3.14     absent\n  v0.5.7      read\n"), "{}", r.stdout);
    let r = run_in(&dir, &["explain", "--format", "markdown", "OLLAMA_KEEP_ALIVE"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "# `OLLAMA_KEEP_ALIVE`\n\n- env key of ollama v0.5.7\n- value: duration|int\n- read at: `envconfig/config.go:101`\n"
    );
    let r = run_in(&dir, &["explain", "--format", "json", "OLLAMA_KEEP_ALIVE"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(v["kind"], "env_key");
    assert_eq!(v["env_key"]["key"]["kind"], "duration|int");
    // A key no build reads is still unknown, with the nearest names.
    let r = run_in(&dir, &["explain", "OLLAMA_KEEP_ALIVES"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
}

#[test]
fn an_engine_with_no_catalogue_says_how_to_make_one_and_where_lint_reads_it() {
    // Ollama has no embedded catalogue: before a sync there is none.
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("run.sh"), "OLLAMA_NUM_PARALLEL=4 ollama serve\n").expect("write");
    let r = run_in(tmp.path(), &["lint", "--engine", "ollama", "run.sh"]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    let err = r.stderr.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(err.contains("no catalogues for engine `ollama` in the embedded catalogues"), "{err}");
    assert!(err.contains("run `knobs sync --engine ollama --repo URL --tag TAG` to catalogue a version"), "{err}");
    assert!(err.contains("the `catalog/` beside knobs.toml (`[pin] engine = \"ollama\"`)"), "{err}");
    assert!(err.contains("the folder `--catalog-dir DIR` names"), "{err}");
}

#[test]
fn a_key_near_no_key_the_build_reads_says_how_many_of_its_prefix_it_reads() {
    // v0.5.7's fixture catalogue reads 13 keys: HTTPS_PROXY (AsMap lists it)
    // and 12 starting OLLAMA_.
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("ollama.env"), "OLLAMA_ZEBRA_QUOTIENT_SETTING=1\n").expect("write");
    let cat = support::root().join("fixtures/ollama/catalog");
    let cat = cat.to_str().expect("utf-8 path");
    let r = run_in(
        tmp.path(),
        &["lint", "--engine", "ollama", "--catalog-dir", cat, "--tag", "v0.5.7", "--format", "short", "ollama.env"],
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(
        v,
        ["ollama.env:1:1: KNB006 `OLLAMA_ZEBRA_QUOTIENT_SETTING` is not an env key of ollama v0.5.7"],
        "{}",
        r.stdout
    );
    let r = run_in(
        tmp.path(),
        &["lint", "--engine", "ollama", "--catalog-dir", cat, "--tag", "v0.5.7", "--format", "json", "ollama.env"],
    );
    let j: serde_json::Value = serde_json::from_str(&r.stdout).expect("json");
    assert_eq!(j["findings"][0]["help"], "ollama v0.5.7 reads 12 keys starting `OLLAMA_`, and this is none of them");
}
