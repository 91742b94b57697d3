//! `knobs verify` against real sockets: a small HTTP server on 127.0.0.1
//! serves the hand-written expositions under `fixtures/verify/metrics/`, and
//! the argv fixtures under `fixtures/verify/argv/` stand for
//! `/proc/PID/cmdline`. Every expectation is written from the facts the
//! fixtures record (the held-steps meter at 126 once armed, 0 while idle;
//! 1.0.13's smaller metric set), never from knobs' own output.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::support::{self, flat, Output};

fn fixture(rel: &str) -> PathBuf {
    support::fixtures().join("verify").join(rel)
}

fn text(rel: &str) -> String {
    std::fs::read_to_string(fixture(rel)).expect("fixture")
}

/// Serves `routes` (path → (status, body)) on a loopback port for as long
/// as the test process lives; every other path is a 404.
fn serve(routes: Vec<(&'static str, u16, String)>) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            answer(stream, &routes);
        }
    });
    format!("http://127.0.0.1:{port}")
}

/// Serves `routes` as [`serve`] does, over https with the certificate the
/// test CA of `fixtures/verify/tls/` issued for 127.0.0.1.
fn serve_tls(routes: Vec<(&'static str, u16, String)>) -> String {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(fixture("tls/server.pem"))
        .expect("server.pem")
        .collect::<Result<_, _>>()
        .expect("certificates");
    let key = PrivateKeyDer::from_pem_file(fixture("tls/server.key")).expect("server.key");
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("protocol versions")
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .expect("server certificate");
    let config = std::sync::Arc::new(config);
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let Ok(conn) = rustls::ServerConnection::new(config.clone()) else { continue };
            answer(rustls::StreamOwned::new(conn, stream), &routes);
        }
    });
    format!("https://127.0.0.1:{port}")
}

fn answer(stream: impl Read + Write, routes: &[(&'static str, u16, String)]) {
    let mut reader = BufReader::new(stream);
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    // The rest of the head, up to the blank line.
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line.trim() != "" {
        line.clear();
    }
    let path = request.split_whitespace().nth(1).unwrap_or("/");
    let (status, body) = routes
        .iter()
        .find(|(p, _, _)| *p == path)
        .map_or((404, "no such page\n".to_string()), |(_, s, b)| (*s, b.clone()));
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        503 => "Service Unavailable",
        302 => "Found",
        _ => "Other",
    };
    // A redirect's body is where it points.
    let location = if status == 302 { format!("location: {body}\r\n") } else { String::new() };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\n{location}content-type: text/plain; version=0.0.4\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let stream = reader.get_mut();
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
    let _ = stream.flush();
}

/// The four expositions, each at its own path.
fn endpoint() -> String {
    serve(vec![
        ("/armed/metrics", 200, text("metrics/armed-v1.8.1.prom")),
        ("/idle/metrics", 200, text("metrics/idle-v1.8.1.prom")),
        ("/old/metrics", 200, text("metrics/v1.0.13.prom")),
        ("/malformed/metrics", 200, text("metrics/malformed.prom")),
        ("/loading/metrics", 503, "loading\n".to_string()),
        ("/moved/metrics", 302, "http://elsewhere.invalid/metrics".to_string()),
    ])
}

/// A server that accepts and never answers.
fn silent() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().take(8) {
            held.push(stream);
        }
        std::thread::sleep(Duration::from_secs(30));
    });
    format!("http://127.0.0.1:{port}/metrics")
}

/// A loopback port with nothing listening.
fn closed() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    format!("http://127.0.0.1:{port}/metrics")
}

fn verify(args: &[&str]) -> Output {
    let mut all = vec!["verify"];
    all.extend_from_slice(args);
    support::knobs(&support::root(), &all)
}

fn argv(name: &str) -> String {
    fixture(&format!("argv/{name}")).display().to_string()
}

/// The armed argv with `--checkpoint-policy` armed too (tip-only, not its
/// default geometric-backoff), in a temporary file.
fn argv_policy_armed() -> (tempfile::TempDir, String) {
    let t = tempfile::tempdir().expect("tempdir");
    let bytes = std::fs::read(fixture("argv/armed")).expect("armed");
    let text = String::from_utf8(bytes).expect("utf-8").replace("geometric-backoff", "tip-only");
    let path = t.path().join("cmdline");
    std::fs::write(&path, text).expect("write");
    let shown = path.display().to_string();
    (t, shown)
}

#[test]
fn an_armed_endpoint_with_the_flag_in_argv_is_engaged() {
    let url = endpoint();
    let metrics = format!("{url}/armed/metrics");
    for knob in ["--prefill-interleave", "prefill-interleave", "PREFILL_INTERLEAVE"] {
        let out = verify(&["--cmdline", &argv("armed"), "--metrics", &metrics, "--knob", knob]);
        assert_eq!(out.code, 0, "{knob}: {}{}", out.stdout, out.stderr);
        assert!(out.stdout.contains("--prefill-interleave 1                   ok"), "{}", out.stdout);
        assert!(out.stdout.contains("  --prefill-interleave  engaged\n"), "{}", out.stdout);
        assert!(
            out.stdout.contains(
                "`--prefill-interleave` is in argv as `1`; `radiance:engine_steps_held_total` is 126 (above zero)"
            ),
            "{}",
            out.stdout
        );
        assert!(out.stdout.contains("meter radiance:engine_steps_held_total = 126\n"));
        assert!(out.stdout.contains("looks like v1.8.1 (the pinned build): 21 of 21 catalogued names exported"));
        // process_resident_memory_bytes and process_open_fds.
        assert!(out.stdout.contains("2 names outside the engine's prefixes, not compared"));
        assert!(out.stdout.ends_with("verified: the knob is in argv and engaged\n"), "{}", out.stdout);
    }
}

#[test]
fn quiet_prints_the_verdict_alone() {
    let url = endpoint();
    let out = verify(&[
        "-q",
        "--cmdline",
        &argv("armed"),
        "--metrics",
        &format!("{url}/armed/metrics"),
        "--knob",
        "--prefill-interleave",
    ]);
    assert_eq!(out.code, 0);
    assert_eq!(out.stdout, "verified: the knob is in argv and engaged\n");
}

#[test]
fn an_idle_meter_is_not_engaged() {
    let url = endpoint();
    let out = verify(&[
        "--cmdline",
        &argv("armed"),
        "--metrics",
        &format!("{url}/idle/metrics"),
        "--knob",
        "--prefill-interleave",
    ]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("  --prefill-interleave  not engaged\n"));
    assert!(out.stdout.contains(
        "`--prefill-interleave` is in argv as `1`, but `radiance:engine_steps_held_total` is 0: the arm did nothing yet"
    ));
    assert!(out.stdout.contains("not verified:\n  - `--prefill-interleave` is not engaged: "));
    // The idle scrape has no prefix-hit cut yet: a labelled family is not missing.
    assert!(out
        .stdout
        .contains("not yet observed (labelled: no series before its first): radiance:prefix_hit_cut_tokens_total"));
    assert!(out.stdout.contains("looks like v1.8.1 (the pinned build): 20 of 21 catalogued names exported"));
}

#[test]
fn a_flag_left_out_of_argv_runs_the_default_and_the_conditional_is_said() {
    let url = endpoint();
    let out = verify(&[
        "--cmdline",
        &argv("unarmed"),
        "--metrics",
        &format!("{url}/idle/metrics"),
        "--knob",
        "--prefill-interleave",
    ]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("  --prefill-interleave  absent\n"));
    assert!(out.stdout.contains(
        "`--prefill-interleave` is not in argv, so the engine runs its default `0` (serve scripts pass it only conditionally)"
    ));
    // The unset section: the default, and the overlay's conditional note.
    let unset = out.stdout.split("unset, so the default applies\n").nth(1).expect("unset section");
    assert!(unset.contains("  --prefill-interleave      0\n"), "{unset}");
    assert!(unset.contains("passed only conditionally: serve scripts commonly pass it only when the env value is > 0"));
    assert!(unset.contains("  --checkpoint-interval     2048\n"));
    assert!(unset.contains("  --max-num-batched-tokens  (the help table states no default)\n"));
    assert!(unset.contains("  --help                    off\n"));
    // Flags in argv are not listed as unset.
    assert!(!unset.lines().any(|l| l.starts_with("  --max-num-seqs ")));
    assert!(!unset.lines().any(|l| l.starts_with("  --busy-prefill-chunk ")));
}

#[test]
fn an_invented_member_in_argv_is_invalid() {
    let url = endpoint();
    let out = verify(&[
        "--cmdline",
        &argv("invented-member"),
        "--metrics",
        &format!("{url}/armed/metrics"),
        "--knob",
        "--checkpoint-policy",
    ]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("  --checkpoint-policy floor                error\n"));
    assert!(out.stdout.contains("    invented-member[KNB002] `floor` is not a member of `--checkpoint-policy`\n"));
    assert!(out.stdout.contains("help: radiance v1.8.1 accepts `geometric-backoff`, `tip-only`, `keep-all`"));
    assert!(out.stdout.contains("  --checkpoint-policy  invalid\n"));
    assert!(out.stdout.contains("`floor` is not a member of `--checkpoint-policy` (KNB002 invented-member)"));
    assert!(out.stdout.contains("  - argv has 1 error against radiance v1.8.1\n"));
}

#[test]
fn invented_flags_and_bad_values_are_judged_as_lint_judges_them() {
    let url = endpoint();
    let out = verify(&["--cmdline", &argv("invented-flag"), "--metrics", &format!("{url}/armed/metrics")]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("invented-flag[KNB001] `--prefill-interleaving` is not a flag of radiance v1.8.1"));
    assert!(out.stdout.contains("help: did you mean `--prefill-interleave`?"));
    assert!(out.stdout.contains("bad-value[KNB003] `2k` is not a valid value for `--checkpoint-interval`"));
    assert!(out.stdout.contains("  - argv has 2 errors against radiance v1.8.1\n"));
    // The same argv through lint, as a serve script line: the same two rules.
    let script = format!(
        "#!/bin/sh\nexec radiance {}\n",
        std::fs::read_to_string(fixture("argv/invented-flag"))
            .expect("argv")
            .split('\0')
            .skip(1)
            .collect::<Vec<_>>()
            .join(" ")
    );
    let tmp = support::tree(&[("serve.sh", script.as_bytes())]);
    let lint = support::knobs(tmp.path(), &["lint", "--format", "short", "serve.sh"]);
    assert_eq!(lint.code, 1);
    assert!(lint.stdout.contains("KNB001") && lint.stdout.contains("KNB003"), "{}", lint.stdout);
}

#[test]
fn a_scrape_of_another_build_has_the_wrong_shape() {
    let url = endpoint();
    let out = verify(&[
        "--cmdline",
        &argv("armed"),
        "--metrics",
        &format!("{url}/old/metrics"),
        "--knob",
        "--prefill-interleave",
    ]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("looks like v1.0.13, not the pinned v1.8.1: 10 of 21 catalogued names exported"));
    // 1.0.13 lacked the step counters (11 of 1.8.1's names).
    assert_eq!(out.stdout.matches("missing (the build exports it): ").count(), 11);
    assert!(out.stdout.contains("missing (the build exports it): radiance:engine_steps_held_total\n"));
    assert!(out.stdout.contains("meter radiance:engine_steps_held_total = absent\n"));
    assert!(out.stdout.contains(
        "but `radiance:engine_steps_held_total` is not in the scrape: the endpoint does not export its meter, so nothing shows it engaged"
    ));
    assert!(out
        .stdout
        .contains("the scrape is not radiance v1.8.1's shape (11 missing, 0 not catalogued); it looks like v1.0.13"));
}

/// A build cannot export a name it does not register. 1.0.13's scrape plus
/// `radiance:engine_steps_held_total`, which only 1.8.1 registers, is 1.0.13's
/// set but for one name and 1.8.1's but for ten — yet only 1.8.1 can have
/// exported it: 1.0.13 is ruled out (it once was said to "look like v1.0.13").
#[test]
fn a_name_only_one_version_registers_rules_the_others_out() {
    let t = tempfile::tempdir().expect("tempdir");
    let scrape = text("metrics/v1.0.13.prom")
        + "# TYPE radiance:engine_steps_held_total counter\nradiance:engine_steps_held_total 3\n";
    let path = t.path().join("mixed.prom");
    std::fs::write(&path, scrape).expect("write");
    let file = path.display().to_string();
    let out = verify(&["--cmdline", &argv("armed"), "--metrics", &file]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    // 10 of 1.0.13's names and the held-steps counter: 11 of 1.8.1's 21.
    assert!(
        out.stdout.contains("  looks like v1.8.1 (the pinned build): 11 of 21 catalogued names exported\n"),
        "{}",
        out.stdout
    );
    let out = verify(&["--version", "v1.0.13", "--cmdline", &argv("armed"), "--metrics", &file]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("  looks like v1.8.1, not the pinned v1.0.13: "), "{}", out.stdout);
    assert!(
        out.stdout.contains("  not in the catalogue of v1.0.13: radiance:engine_steps_held_total\n"),
        "{}",
        out.stdout
    );
    // A name that no catalogued version registers rules them all out.
    std::fs::write(&path, text("metrics/v1.0.13.prom") + "radiance:engine_steps_invented_total 1\n").expect("write");
    let out = verify(&["--cmdline", &argv("armed"), "--metrics", &file]);
    assert!(
        out.stdout.contains("  looks like no catalogued version: each lacks a name it exports: "),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("it looks like no catalogued version\n"), "{}", out.stdout);
}

#[test]
fn a_census_runs_on_the_pinned_builds_own_metric_set() {
    let url = endpoint();
    let tmp = support::tree(&[("cmdline", b"/opt/radiance/bin/radiance\0--model\0/m.gguf\0--max-num-seqs\x002\0")]);
    let cmdline = tmp.path().join("cmdline").display().to_string();
    let out = verify(&["--cmdline", &cmdline, "--metrics", &format!("{url}/old/metrics"), "--version", "v1.0.13"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.starts_with("radiance v1.0.13: "));
    assert!(out.stdout.contains("looks like v1.0.13 (the pinned build): 10 of 10 catalogued names exported"));
    assert!(out.stdout.ends_with("verified: argv and metric shape check out (no --knob named)\n"));
    // A 1.8.1 scrape against the 1.0.13 pin: names that catalogue lacks.
    let out = verify(&["--cmdline", &cmdline, "--metrics", &format!("{url}/armed/metrics"), "--version", "v1.0.13"]);
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("looks like v1.8.1, not the pinned v1.0.13: 10 of 10 catalogued names exported"));
    assert_eq!(out.stdout.matches("not in the catalogue of v1.0.13: ").count(), 11);
    assert!(out.stdout.contains("not in the catalogue of v1.0.13: radiance:engine_steps_held_total\n"));
}

#[test]
fn with_a_scrape_from_before_the_meter_must_move() {
    let url = endpoint();
    let (idle, armed) = (format!("{url}/idle/metrics"), format!("{url}/armed/metrics"));
    let run = |before: &str, after: &str| {
        verify(&[
            "--cmdline",
            &argv("armed"),
            "--metrics",
            after,
            "--metrics-before",
            before,
            "--knob",
            "--prefill-interleave",
        ])
    };
    let out = run(&idle, &armed);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains(&format!("metrics from {armed} (before: {idle})")));
    assert!(out.stdout.contains("`radiance:engine_steps_held_total` moved from 0 to 126"));
    assert!(out.stdout.contains("meter radiance:engine_steps_held_total = 126 (before: 0)"));
    let out = run(&armed, &armed);
    assert_eq!(out.code, 1);
    assert!(out.stdout.contains("`radiance:engine_steps_held_total` did not move (126): the arm did nothing yet"));
    let out = run(&armed, &idle);
    assert_eq!(out.code, 1);
    assert!(out
        .stdout
        .contains("`radiance:engine_steps_held_total` fell from 126 to 0 (a restart between the scrapes resets it)"));
}

#[test]
fn every_named_knob_must_engage() {
    let url = endpoint();
    let metrics = format!("{url}/armed/metrics");
    // --checkpoint-policy's meters: prefix_hit_cut_tokens_total (4096) and the preemption counter (0).
    let (_t, policy_armed) = argv_policy_armed();
    let out = verify(&[
        "--cmdline",
        &policy_armed,
        "--metrics",
        &metrics,
        "--knob",
        "--prefill-interleave",
        "--knob",
        "checkpoint-policy",
    ]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("`radiance:prefix_hit_cut_tokens_total` is 4096 (above zero)"));
    assert!(out.stdout.contains("meter vllm:num_preemptions_total = 0\n"));
    assert!(out.stdout.ends_with("verified: all 2 knobs are in argv and engaged\n"));
    // A knob the overlay gives no meter cannot be proven from /metrics.
    let tmp = support::tree(&[(
        "cmdline",
        b"radiance\0--max-num-batched-tokens\08192\0--prefill-interleave\x001\0" as &[u8],
    )]);
    let cmdline = tmp.path().join("cmdline").display().to_string();
    let out = verify(&["--cmdline", &cmdline, "--metrics", &metrics, "--knob", "--max-num-batched-tokens"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("  --max-num-batched-tokens  unproven\n"));
    assert!(out.stdout.contains(
        "`--max-num-batched-tokens` is in argv as `8192`, but the overlay records no meter for it: /metrics cannot prove it engaged"
    ));
    // Named twice (flag and env key): judged once.
    let out = verify(&[
        "--cmdline",
        &argv("armed"),
        "--metrics",
        &metrics,
        "--knob",
        "--prefill-interleave",
        "--knob",
        "PREFILL_INTERLEAVE",
    ]);
    assert_eq!(out.stdout.matches("  --prefill-interleave  engaged\n").count(), 1);
}

#[test]
fn a_labelled_meter_is_summed_over_its_series() {
    let url = serve(vec![(
        "/metrics",
        200,
        text("metrics/armed-v1.8.1.prom") + "radiance:prefix_hit_cut_tokens_total{reason=\"evicted\"} 4\n",
    )]);
    let (_t, policy_armed) = argv_policy_armed();
    let out =
        verify(&["--cmdline", &policy_armed, "--metrics", &format!("{url}/metrics"), "--knob", "--checkpoint-policy"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("meter radiance:prefix_hit_cut_tokens_total = 4100 over 2 series\n"));
}

#[test]
fn histogram_series_map_to_their_family_with_or_without_type_lines() {
    // The armed scrape without any comment line: `_bucket`/`_sum`/`_count`
    // series are still the catalogue's histograms, and nothing is extra.
    let bare: String =
        text("metrics/armed-v1.8.1.prom").lines().filter(|l| !l.starts_with('#')).map(|l| format!("{l}\n")).collect();
    let url = serve(vec![("/metrics", 200, bare)]);
    let out = verify(&[
        "--cmdline",
        &argv("armed"),
        "--metrics",
        &format!("{url}/metrics"),
        "--knob",
        "--prefill-interleave",
    ]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("looks like v1.8.1 (the pinned build): 21 of 21 catalogued names exported"));
    assert!(!out.stdout.contains("not in the catalogue"));
}

#[test]
fn a_knob_of_another_version_or_no_flag_at_all() {
    let url = endpoint();
    let metrics = format!("{url}/armed/metrics");
    // 1.0.13's name for what 1.8.1 calls --busy-prefill-chunk.
    let out = verify(&["--cmdline", &argv("armed"), "--metrics", &metrics, "--knob", "--prefill-chunk"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(out
        .stdout
        .contains("`--prefill-chunk` is not a flag of radiance v1.8.1 (it is a flag of radiance v1.0.13)"));
    let out = verify(&["--cmdline", &argv("armed"), "--metrics", &metrics, "--knob", "--prefill-interleav"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("`--prefill-interleav` is not a flag, env key, metric or rule of radiance v1.8.1"));
    assert!(out.stderr.contains("did you mean `--prefill-interleave`"));
}

#[test]
fn a_malformed_exposition_names_its_line() {
    let url = endpoint();
    let out = verify(&["--cmdline", &argv("armed"), "--metrics", &format!("{url}/malformed/metrics")]);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.is_empty(), "no half report: {}", out.stdout);
    let flat = flat(&out.stderr);
    assert!(flat.contains(&format!("{url}/malformed/metrics is not a Prometheus text exposition")), "{flat}");
    assert!(flat.contains("line 6: the value `12x` of `radiance:engine_steps_held_total` is not a number"), "{flat}");
    assert!(out.stderr.contains("line 6 reads: radiance:engine_steps_held_total 12x"));
    // The same from a file.
    let file = fixture("metrics/malformed.prom").display().to_string();
    let out = verify(&["--cmdline", &argv("armed"), "--metrics", &file]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("is not a Prometheus text exposition"));
}

#[test]
fn a_closed_port_a_silent_server_and_https_are_errors() {
    let out = verify(&["--cmdline", &argv("armed"), "--metrics", &closed()]);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("connection refused: nothing listens there"), "{}", out.stderr);
    assert!(out.stderr.contains("is the engine up, and is this its metrics port?"));

    let url = silent();
    let start = Instant::now();
    let out = verify(&["--cmdline", &argv("armed"), "--metrics", &url, "--timeout", "1"]);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(start.elapsed() < Duration::from_secs(6), "the timeout bounds the wait");
    assert!(out.stderr.contains(&format!("{url} did not answer within 1s")), "{}", out.stderr);
    assert!(out.stderr.contains("`--timeout SECONDS` waits longer"));

    // A plain http server spoken to with https: the handshake fails, and
    // says so (https is read now; issue 21).
    let https = endpoint().replace("http://", "https://") + "/armed/metrics";
    let out = verify(&["--cmdline", &argv("armed"), "--metrics", &https]);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(flat(&out.stderr).contains(&format!("cannot read {https}: ")), "{}", out.stderr);
    assert!(!out.stderr.contains("without TLS"), "{}", out.stderr);
    // A closed port over https is the closed port it is.
    let out = verify(&["--cmdline", &argv("armed"), "--metrics", "https://127.0.0.1:1/metrics"]);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("connection refused: nothing listens there"), "{}", out.stderr);
}

/// Runs verify with `SSL_CERT_FILE` naming `bundle` (or the system's roots).
fn verify_trusting(bundle: Option<&Path>, args: &[&str]) -> Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_knobs"));
    cmd.arg("verify").args(args).current_dir(support::root()).env("NO_COLOR", "1");
    match bundle {
        Some(b) => cmd.env("SSL_CERT_FILE", b),
        None => cmd.env_remove("SSL_CERT_FILE"),
    };
    cmd.env_remove("SSL_CERT_DIR").output().expect("run knobs").into()
}

/// An endpoint behind https (as behind an ingress) is read when its
/// certificate chains to a trusted root, and refused with a certificate
/// error when it does not; there is no switch that skips the check.
#[test]
fn https_is_read_and_its_certificate_checked() {
    let url = serve_tls(vec![("/armed/metrics", 200, text("metrics/armed-v1.8.1.prom"))]) + "/armed/metrics";
    // The system's roots do not hold the test CA: refused, and said why.
    let out =
        verify_trusting(None, &["--cmdline", &argv("armed"), "--metrics", &url, "--knob", "--prefill-interleave"]);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    let err = flat(&out.stderr);
    assert!(err.contains(&format!("cannot read {url}: the server's TLS certificate is not trusted")), "{}", out.stderr);
    assert!(err.contains("knobs checks https certificates against the system's roots"), "{}", out.stderr);
    assert!(!err.contains("https is not supported") && !err.contains("without TLS"), "{}", out.stderr);
    // With the test CA trusted, the scrape is read as over http: the armed
    // fixture's held-steps meter is at 126.
    let out = verify_trusting(
        Some(&fixture("tls/ca.pem")),
        &["--cmdline", &argv("armed"), "--metrics", &url, "--knob", "--prefill-interleave"],
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("meter radiance:engine_steps_held_total = 126"), "{}", out.stdout);
    // No flag skips the check.
    let help = verify_trusting(None, &["--help"]).stdout;
    assert!(!help.contains("insecure"), "{help}");
}

#[test]
fn http_status_and_scheme_errors() {
    let url = endpoint();
    let out = verify(&["--cmdline", &argv("armed"), "--metrics", &format!("{url}/nowhere")]);
    assert_eq!(out.code, 2);
    assert!(flat(&out.stderr).contains("the server answered 404 Not Found"), "{}", out.stderr);
    let out = verify(&["--cmdline", &argv("armed"), "--metrics", &format!("{url}/loading/metrics")]);
    assert_eq!(out.code, 2);
    assert!(flat(&out.stderr).contains("the server answered 503 Service Unavailable"), "{}", out.stderr);
    assert!(flat(&out.stderr).contains("an engine answers 503 until its model is loaded: try again once it is"));
    // A redirect is not followed (the scrape would be another endpoint's).
    let out = verify(&["--cmdline", &argv("armed"), "--metrics", &format!("{url}/moved/metrics")]);
    assert_eq!(out.code, 2);
    assert!(
        flat(&out.stderr).contains("the server answered 302 Found, to http://")
            && out.stderr.contains("elsewhere.invalid/metrics"),
        "{}",
        out.stderr
    );
    assert!(flat(&out.stderr).contains("verify does not follow redirects"), "{}", out.stderr);
    let out = verify(&["--cmdline", &argv("armed"), "--metrics", "http://127.0.0.1:99999/metrics"]);
    assert_eq!(out.code, 2);
    assert!(flat(&out.stderr).contains("`99999` is not a port (1 to 65535)"), "{}", out.stderr);
    let out = verify(&["--cmdline", &argv("armed"), "--metrics", "ftp://127.0.0.1/metrics"]);
    assert_eq!(out.code, 2);
    assert!(flat(&out.stderr).contains("cannot read ftp://127.0.0.1/metrics: `ftp` is not http or https"));
    let out = verify(&["--cmdline", &argv("armed"), "--metrics", &url, "--timeout", "0"]);
    assert_eq!(out.code, 2);
    assert!(flat(&out.stderr).contains("`--timeout 0` is not a usable timeout"), "{}", out.stderr);
}

#[test]
fn unreadable_inputs_exit_2() {
    let armed = fixture("metrics/armed-v1.8.1.prom").display().to_string();
    let out = verify(&["--cmdline", "no/such/cmdline", "--metrics", &armed]);
    assert_eq!(out.code, 2);
    assert!(flat(&out.stderr).contains("cannot read the argv file no/such/cmdline: "), "{}", out.stderr);
    // A PID no process has (above the kernel's pid_max).
    let out = verify(&["--cmdline", "99999999", "--metrics", &armed]);
    assert_eq!(out.code, 2);
    assert!(
        flat(&out.stderr).contains("cannot read the argv file /proc/99999999/cmdline: no such process"),
        "{}",
        out.stderr
    );
    let out = verify(&["--cmdline", &argv("armed"), "--metrics", "no/such.prom"]);
    assert_eq!(out.code, 2);
    assert!(flat(&out.stderr).contains("cannot read the metrics file no/such.prom: "), "{}", out.stderr);
    let tmp = support::tree(&[("empty", b"" as &[u8]), ("binary.prom", b"\xff\xfe\x00metrics")]);
    let empty = tmp.path().join("empty").display().to_string();
    let out = verify(&["--cmdline", &empty, "--metrics", &armed]);
    assert_eq!(out.code, 2);
    assert!(flat(&out.stderr).contains(&format!("{empty} holds no argv")));
    assert!(flat(&out.stderr).contains("a kernel thread or a zombie process has an empty cmdline"));
    let binary = tmp.path().join("binary.prom").display().to_string();
    let out = verify(&["--cmdline", &argv("armed"), "--metrics", &binary]);
    assert_eq!(out.code, 2);
    assert!(flat(&out.stderr).contains(&format!("the metrics file {binary} is not UTF-8 text")));
}

#[test]
fn a_pid_reads_proc_cmdline() {
    // This test process's own argv: not the engine's, so said, and judged.
    let armed = fixture("metrics/armed-v1.8.1.prom").display().to_string();
    let pid = std::process::id().to_string();
    let out = verify(&["--cmdline", &pid, "--metrics", &armed]);
    assert!(out.stdout.contains(&format!("argv from /proc/{pid}/cmdline")), "{}{}", out.stdout, out.stderr);
    assert!(out
        .stdout
        .contains("is not a command of radiance that knobs knows: its arguments are judged as the engine's"));
}

#[test]
fn a_cmdline_turned_into_one_line_is_split_at_spaces() {
    let armed = fixture("metrics/armed-v1.8.1.prom").display().to_string();
    let tmp = support::tree(&[("line", b"radiance --prefill-interleave 1\n" as &[u8]), ("bare", b"radiance\0")]);
    let line = tmp.path().join("line").display().to_string();
    let out = verify(&["--cmdline", &line, "--metrics", &armed, "--knob", "--prefill-interleave"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("  note: no NUL separators: read as words separated by spaces\n"));
    let tmp2 = support::tree(&[("flags", b"--prefill-interleave\x001\0" as &[u8])]);
    let flags = tmp2.path().join("flags").display().to_string();
    let out = verify(&["--cmdline", &flags, "--metrics", &armed, "--knob", "--prefill-interleave"]);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains(
        "\nargv\n  note: the argv starts with a flag, not a program: every word is judged as the engine's\n"
    ));
    let bare = tmp.path().join("bare").display().to_string();
    let out = verify(&["--cmdline", &bare, "--metrics", &armed]);
    assert_eq!(out.code, 0);
    assert!(out.stdout.contains("argv of radiance\n  (no arguments)\n"), "{}", out.stdout);
}

#[test]
fn json_carries_the_verdict() {
    let url = endpoint();
    let out = verify(&[
        "--cmdline",
        &argv("armed"),
        "--metrics",
        &format!("{url}/armed/metrics"),
        "--knob",
        "--prefill-interleave",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(v["passed"], true);
    assert_eq!(v["engaged"], 1);
    assert_eq!(v["build"], "radiance v1.8.1");
    assert_eq!(v["knobs"][0]["flag"], "--prefill-interleave");
    assert_eq!(v["knobs"][0]["status"], "engaged");
    assert_eq!(v["knobs"][0]["value"], "1");
    assert_eq!(v["knobs"][0]["meters"][0]["value"], 126.0);
    assert_eq!(v["shape"]["looks_like"], "v1.8.1");
    assert_eq!(v["shape"]["exported"], 21);
    assert_eq!(v["argv"]["given"].as_array().map(Vec::len), Some(5));
    assert_eq!(v["failures"].as_array().map(Vec::len), Some(0));

    let out = verify(&[
        "--cmdline",
        &argv("unarmed"),
        "--metrics",
        &format!("{url}/idle/metrics"),
        "--knob",
        "--prefill-interleave",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 1);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(v["passed"], false);
    assert_eq!(v["knobs"][0]["status"], "absent");
    assert_eq!(v["knobs"][0]["default"], "0");
    let unset = v["argv"]["unset"].as_array().expect("unset");
    let pi = unset.iter().find(|u| u["flag"] == "--prefill-interleave").expect("unset --prefill-interleave");
    assert!(pi["conditional"].as_str().is_some_and(|c| c.contains("> 0")));
}

#[test]
fn human_report_snapshot() {
    // From files, so the snapshot holds no port number.
    let root = support::root();
    let out = support::knobs(
        &root,
        &[
            "verify",
            "--cmdline",
            "fixtures/verify/argv/invented-member",
            "--metrics",
            "fixtures/verify/metrics/armed-v1.8.1.prom",
            "--metrics-before",
            "fixtures/verify/metrics/idle-v1.8.1.prom",
            "--knob",
            "--prefill-interleave",
            "--knob",
            "--checkpoint-policy",
        ],
    );
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout.matches(" engaged\n").count(), 1, "one of the two knobs");
    insta::assert_snapshot!(out.stdout);
}

/// The help reads as the issue asks: both inputs, the knob forms, the exits.
#[test]
fn help_text() {
    let out = support::knobs(Path::new("."), &["verify", "--help"]);
    assert_eq!(out.code, 0);
    for want in [
        "--cmdline <FILE|PID>",
        "--metrics <URL|FILE>",
        "--metrics-before <URL|FILE>",
        "--knob <FLAG>",
        "--timeout <SECONDS>",
        "Exit status: 0 verified",
    ] {
        assert!(out.stdout.contains(want), "{want}: {}", out.stdout);
    }
}

#[test]
fn a_knob_set_to_its_default_is_not_armed() {
    let url = endpoint();
    // `--prefill-interleave 0`: 0 is its default, so the dial is off, whatever
    // the meter says — and a meter moving without its knob is called out.
    let t = tempfile::tempdir().expect("tempdir");
    let off = t.path().join("cmdline");
    std::fs::write(&off, b"radiance\0--prefill-interleave\x000\0").expect("write");
    let off = off.display().to_string();
    let out =
        verify(&["--cmdline", &off, "--metrics", &format!("{url}/armed/metrics"), "--knob", "--prefill-interleave"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("  --prefill-interleave  at its default\n"), "{}", out.stdout);
    assert!(
        out.stdout.contains("`--prefill-interleave` is in argv as `0`, its default: the knob is not armed; yet `radiance:engine_steps_held_total` is 126: is this the process that serves this endpoint?"),
        "{}",
        out.stdout
    );
    // The same default taken from the catalogue for --checkpoint-policy (geometric-backoff).
    let out = verify(&[
        "--cmdline",
        &argv("armed"),
        "--metrics",
        &format!("{url}/armed/metrics"),
        "--knob",
        "--checkpoint-policy",
    ]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("`--checkpoint-policy` is in argv as `geometric-backoff`, its default: the knob is not armed"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_metric_named_as_a_knob_says_which_knob_it_meters() {
    let url = endpoint();
    let out = verify(&[
        "--cmdline",
        &argv("armed"),
        "--metrics",
        &format!("{url}/armed/metrics"),
        "--knob",
        "radiance:engine_steps_held_total",
    ]);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains(
            "`radiance:engine_steps_held_total` is a metric, not a knob: it is the meter of `--prefill-interleave`"
        ),
        "{}",
        out.stderr
    );
    // A metric no knob is metered by.
    let out = verify(&[
        "--cmdline",
        &argv("armed"),
        "--metrics",
        &format!("{url}/armed/metrics"),
        "--knob",
        "vllm:time_to_first_token_seconds",
    ]);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(out.stderr.contains("is a metric, not a knob: the overlay names no knob it meters"), "{}", out.stderr);
    assert!(flat(&out.stderr).contains("name the knob: `--knob FLAG`; its meters are read from the overlay"));
}

/// `--knob` takes the env keys the project's serve scripts read, and the
/// project has a root: the knobs.toml's folder, else the git work tree.
/// Outside both, no script is read and the script's own key names nothing.
#[test]
fn a_knob_named_by_a_serve_script_key_is_read_only_inside_a_project() {
    let script = b"#!/bin/sh\nexec radiance --prefill-interleave \"${DECODE_DIAL:-0}\"\n";
    let t = support::tree(&[("svc/serve.sh", script.as_slice())]);
    let outside_git = git2::Repository::discover(t.path()).is_err();
    assert!(outside_git, "{} must be in no git work tree", t.path().display());
    let metrics = fixture("metrics/armed-v1.8.1.prom").display().to_string();
    let args = ["verify", "--cmdline", &argv("armed"), "--metrics", &metrics, "--knob", "DECODE_DIAL"];
    let out = support::knobs(t.path(), &args);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("`DECODE_DIAL` is not a flag, env key, metric or rule of radiance v1.8.1"),
        "{}",
        out.stderr
    );
    // In a git work tree the script is the project's, and its key is the knob.
    git2::Repository::init(t.path()).expect("git init");
    let out = support::knobs(t.path(), &args);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("  --prefill-interleave  engaged\n"), "{}", out.stdout);
}
