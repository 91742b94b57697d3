//! A catalogue folder in a pull request that costs memory or time out of
//! proportion to its size (issue 29): a history whose state names one
//! large record again and again, and a catalogue of 100,000 flags.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use crate::support;

/// Runs the built binary in `cwd` with at most 1 GiB of address space, so
/// that an amplification fails the run instead of filling the machine.
fn knobs_limited(cwd: &std::path::Path, args: &[&str]) -> support::Output {
    std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1048576 && exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_knobs"))
        .args(args)
        .current_dir(cwd)
        .env("KNOBS_CACHE_DIR", cwd.join(".knobs-cache"))
        .env("NO_COLOR", "1")
        .output()
        .expect("run knobs")
        .into()
}

const PIN: &[u8] = b"[pin]\nengine = \"radiance\"\n";

/// A history of one tag whose state names `record` `times` times, with a
/// record of 64 KiB of help text.
fn repeated_history(times: usize, record: usize) -> String {
    let mut flags = String::with_capacity(times * 8);
    for i in 0..times {
        if i > 0 {
            flags.push(',');
        }
        let _ = write!(flags, "{record},0,0");
    }
    let help = "x".repeat(64 * 1024);
    format!(
        r#"{{"schema":2,"engine":"radiance","repo":"https://example.com/r.git","knobs_version":"0.1.0","tags":[{{"tag":"v9.9.9","commit":"c","state":0}}],"states":[{{"key":"k","flags":"{flags}","metrics":""}}],"flags":[{{"name":"--big","metavar":"","kind":"string","default":"","help":"{help}","location":"core/config.cpp"}}],"metrics":[]}}"#
    )
}

/// A state naming its one record 200,000 times (a 1.4 MB file; a 710 KB one
/// took 8 GB), or naming a record that is not there: exit 2 at once,
/// naming the file and the state, within 1 GiB of address space.
#[test]
fn a_history_state_naming_a_record_twice_is_refused() {
    for (times, record, says) in [(200_000, 0, "names flag record 0 twice"), (1, 7, "names flag record 7, of 1")] {
        let t = support::tree(&[("run.md", b"Run `radiance --prot 1`.\n" as &[u8]), ("knobs.toml", PIN)]);
        let dir = t.path().join("catalog/radiance");
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join("history.json"), repeated_history(times, record)).expect("write");
        let started = Instant::now();
        let r = knobs_limited(t.path(), &["lint", "--tag", "v9.9.9"]);
        let took = started.elapsed();
        assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
        let err = r.stderr.replace('\n', " ");
        assert!(err.contains("history.json") && err.contains(says), "{}", r.stderr);
        assert!(took < Duration::from_secs(3), "took {took:?}");
    }
}

/// A catalogue of 25,000 flags in the project is refused, naming it.
#[test]
fn a_catalogue_far_larger_than_an_engines_is_refused() {
    let mut text = String::from(
        "schema = 1\n[source]\nengine = \"radiance\"\nrepo = \"r\"\ntag = \"v9.9.9\"\ncommit = \"c\"\nknobs_version = \"0.1.0\"\n",
    );
    for i in 0..25_000 {
        let _ = write!(text, "[[flag]]\nname = \"--flag-{i}\"\nkind = \"int\"\nlocation = \"core/config.cpp:{i}\"\n");
    }
    let t = support::tree(&[
        ("run.md", b"Run `radiance --prot 1`.\n" as &[u8]),
        ("catalog/radiance/v9.9.9.toml", text.as_bytes()),
        ("knobs.toml", PIN),
    ]);
    let r = support::knobs(t.path(), &["lint", "--tag", "v9.9.9"]);
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    let err = r.stderr.replace('\n', " ");
    assert!(err.contains("v9.9.9.toml") && err.contains("25000 flags"), "{}", r.stderr);
}
