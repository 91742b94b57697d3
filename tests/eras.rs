//! Profiles with eras (issue 23): a tag is read from the files its era
//! names, on a fixture history whose option table moved (`common.cpp` with
//! the server's own parser, then `common.cpp` alone, then `arg.cpp`); and a
//! profile whose eras make no sense is refused, naming the era.

use std::collections::BTreeMap;
use std::path::Path;

use knobs::catalog::model::{Catalog, Kind};
use knobs::catalog::profile::{builtin, Profile};

use crate::support::{self, knobs};

/// The fixture history: b3000 (common.cpp's chain and the server's own
/// parser), b3500 (common.cpp's chain and usage table), b4100 (arg.cpp).
fn history(dir: &Path) {
    let f = support::fixtures().join("llama.cpp");
    support::build_repo(
        &dir.join("llama.git"),
        &[("b3000", f.join("b3000")), ("b3500", f.join("b3500")), ("b4100", f.join("b4100"))],
    );
}

fn sync(dir: &Path, tag: &str) -> Catalog {
    let r = knobs(dir, &["sync", "--engine", "llama.cpp", "--repo", "llama.git", "--tag", tag, "--out", "out"]);
    assert_eq!(r.code, 0, "sync {tag}: {}", r.stderr);
    assert!(r.stderr.is_empty(), "sync {tag} warns of nothing: {}", r.stderr);
    let text = std::fs::read_to_string(dir.join(format!("out/llama.cpp/{tag}.toml"))).expect("written");
    toml::from_str(&text).expect("catalogue")
}

/// name → (aliases, file the flag was read from).
fn by_name(c: &Catalog) -> BTreeMap<String, (Vec<String>, String)> {
    let file = |loc: &str| loc.rsplit_once(':').map_or(loc, |(f, _)| f).to_string();
    c.flags.iter().map(|f| (f.name.clone(), (f.aliases.clone(), file(&f.location)))).collect()
}

/// Facts of the fixtures, read by hand: b3000's chain in common.cpp names
/// six options (one spelled only `-nwu`), its log.h two, and the server's
/// own chain five more (`--tls-key` behind `#ifdef SERVER_TLS`, between two
/// links of the chain); `-m/--model` is in both chains.
#[test]
fn an_old_tag_reads_the_files_of_its_era() {
    let tmp = tempfile::tempdir().expect("tempdir");
    history(tmp.path());
    let got = by_name(&sync(tmp.path(), "b3000"));
    let common = "common/common.cpp";
    let server = "examples/server/server.cpp";
    let want: BTreeMap<String, (Vec<String>, String)> = [
        ("--seed", &["-s"][..], common),
        ("--threads", &["-t"], common),
        ("--ctx-size", &["-c"], common),
        ("--model", &["-m"], common),
        ("-nwu", &[], common),
        ("--lock-pages", &[], common),
        ("--log-quiet", &[], "common/log.h"),
        ("--log-stamp", &[], "common/log.h"),
        ("--port", &[], server),
        ("--host", &[], server),
        ("--log-format", &[], server),
        ("--tls-key", &[], server),
        ("--timeout", &["-to"], server),
    ]
    .into_iter()
    .map(|(n, a, f)| (n.to_string(), (a.iter().map(|s| s.to_string()).collect(), f.to_string())))
    .collect();
    assert_eq!(got, want);
}

/// The old server printed its metrics from a table keyed by type
/// (`{"counter", {{{"name", "requests_total"}, {"help", …}}}}`), behind a
/// prefix literal; the era reads them from `examples/server/`.
#[test]
fn the_old_server_s_metric_table_is_read() {
    let tmp = tempfile::tempdir().expect("tempdir");
    history(tmp.path());
    let c = sync(tmp.path(), "b3000");
    let got: Vec<(String, String, String)> =
        c.metrics.iter().map(|m| (m.name.clone(), format!("{:?}", m.kind), m.help.clone())).collect();
    let want = [
        ("llamacpp:requests_total", "Counter", "Requests answered since start."),
        ("llamacpp:slots_busy", "Gauge", "Slots working right now."),
    ]
    .map(|(n, k, h)| (n.to_string(), k.to_string(), h.to_string()));
    assert_eq!(got, want);
}

/// The era's `scoped` names the server's own parser and the common files:
/// what only the server reads is the server's; what only the common chain
/// reads is the common scope's; what both read (`--model`) holds both, so
/// that a server inheriting no common option still takes it.
#[test]
fn options_of_a_binary_s_own_parser_are_scoped_to_it() {
    let tmp = tempfile::tempdir().expect("tempdir");
    history(tmp.path());
    let c = sync(tmp.path(), "b3000");
    let common = "LLAMA_EXAMPLE_COMMON".to_string();
    let scoped: BTreeMap<&str, Vec<String>> =
        c.flags.iter().filter(|f| f.scopes != [common.clone()]).map(|f| (f.name.as_str(), f.scopes.clone())).collect();
    let server = vec!["LLAMA_EXAMPLE_SERVER".to_string()];
    let mut want: BTreeMap<&str, Vec<String>> = ["--host", "--log-format", "--port", "--timeout", "--tls-key"]
        .into_iter()
        .map(|n| (n, server.clone()))
        .collect();
    want.insert("--model", vec![common.clone(), server[0].clone()]);
    assert_eq!(scoped, want);
    let p = builtin("llama.cpp").expect("llama.cpp");
    let port = c.flags.iter().find(|f| f.name == "--port").expect("--port");
    assert!(p.accepts(&port.scopes, &port.excludes, Some("LLAMA_EXAMPLE_SERVER")));
    assert!(!p.accepts(&port.scopes, &port.excludes, Some("LLAMA_EXAMPLE_CLI")), "not the CLI's");
}

/// b3500's common.cpp: the chain, and a usage table whose cells write
/// spellings and a placeholder padded to line up (`"       --port PORT"`),
/// after a group tag (`"server"`) that is no default.
#[test]
fn the_middle_era_reads_the_usage_table_beside_the_chain() {
    let tmp = tempfile::tempdir().expect("tempdir");
    history(tmp.path());
    let c = sync(tmp.path(), "b3500");
    let names: Vec<&str> = c.flags.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "--lock-pages",
            "--log-format",
            "--log-quiet",
            "--log-stamp",
            "--pooling",
            "--port",
            "--seed",
            "--split-mode",
            "--threads",
            "--verbose",
            "-nwu"
        ]
    );
    let flag = |n: &str| c.flags.iter().find(|f| f.name == n).expect("flag");
    assert_eq!((flag("--seed").metavar.as_str(), flag("--seed").aliases.clone()), ("SEED", vec!["-s".to_string()]));
    // The `(default: %d)` of the help is the default, filled from the field.
    assert_eq!((flag("--seed").help.as_str(), flag("--seed").default.as_str()), ("random seed", "7"));
    assert_eq!((flag("--port").metavar.as_str(), flag("--port").kind), ("PORT", Kind::Int));
    assert_eq!(flag("--port").default, "8080", "the field's initialiser, not the row's group tag");
    assert_eq!(flag("-nwu").metavar, "n0,n1,...");
    assert_eq!(flag("--lock-pages").kind, Kind::Switch);
    assert!(c.flags.iter().all(|f| f.location.starts_with("common/")), "no server file in this era");
}

/// The same repository's b4100 is past every era: only common/arg.cpp is
/// read, and none of the old chains' options is in it.
#[test]
fn a_new_tag_reads_the_profile_s_own_files() {
    let tmp = tempfile::tempdir().expect("tempdir");
    history(tmp.path());
    let c = sync(tmp.path(), "b4100");
    assert!(c.flags.iter().all(|f| f.location.starts_with("common/arg.cpp:")), "{:?}", by_name(&c));
    let names: Vec<&str> = c.flags.iter().map(|f| f.name.as_str()).collect();
    assert!(names.contains(&"--ctx-size") && !names.contains(&"-nwu") && !names.contains(&"--lock-pages"));
}

/// The built-in profile's boundaries, as found in llama.cpp's history
/// (docs/llama-cpp.md, "Eras"): b3183 and b3716.
#[test]
fn llama_cpp_s_eras_end_at_the_tags_found_in_its_history() {
    let p = builtin("llama.cpp").expect("llama.cpp");
    let config = |tag: &str| p.extract_for(tag).config.clone();
    assert_eq!(config("b2002"), ["common/common.cpp", "common/log.h", "examples/server/server.cpp"]);
    assert_eq!(config("b3182"), ["common/common.cpp", "common/log.h", "examples/server/server.cpp"]);
    assert_eq!(config("b3183"), ["common/common.cpp", "common/log.h"]);
    assert_eq!(config("b3715"), ["common/common.cpp", "common/log.h"]);
    assert_eq!(config("b3716"), ["common/arg.cpp"]);
    assert_eq!(config("b10573"), ["common/arg.cpp"]);
    assert_eq!(config("master"), ["common/arg.cpp"], "a branch reads the newest files");
    assert!(builtin("radiance").expect("radiance").eras.is_empty(), "radiance needs none");
}

const ERAS: &str = "name = \"x\"\n[[command]]\nname = \"x\"\n";

fn era(until: &str, config: &str) -> String {
    format!("[[era]]\nuntil = \"{until}\"\n[era.extract]\nconfig = [{config}]\n")
}

#[test]
fn eras_out_of_order_or_without_files_are_refused_by_number() {
    let cases = [
        (
            format!("{ERAS}{}{}", era("b200", "\"a.cpp\""), era("b100", "\"b.cpp\"")),
            "era 2 (until `b100`) must end after era 1 (until `b200`): list eras oldest first, \
             with no two ending at the same tag",
        ),
        (
            format!("{ERAS}{}{}", era("b100", "\"a.cpp\""), era("b100", "\"b.cpp\"")),
            "era 2 (until `b100`) must end after era 1 (until `b100`): list eras oldest first, \
             with no two ending at the same tag",
        ),
        (
            format!("{ERAS}{}", era("b100", "")),
            "era 1 (until `b100`): names neither a `config` file ([era.extract]) nor a [[era.command]]",
        ),
        (
            format!("{ERAS}{}", era("main", "\"a.cpp\"")),
            "era 1 (until `main`): `until` must be a release tag such as `b3716` or `v1.5.0`",
        ),
    ];
    let stray = format!("{ERAS}[extract]\nconfig = [\"a.cpp\"]\nscoped = {{ \"b.cpp\" = \"B\" }}\n");
    let mut cases = cases.to_vec();
    cases.push((stray, "[extract] scoped file `b.cpp` is not one of its `config` files"));
    for (text, message) in cases {
        assert_eq!(Profile::parse(&text).err().as_deref(), Some(message), "{text}");
    }
    assert!(Profile::parse(&format!("{ERAS}{}", era("b100", "\"a.cpp\""))).is_ok());
}

/// In knobs.toml, a bad era is a configuration error at the profile's
/// table (exit 2), with the same words.
#[test]
fn a_bad_era_in_knobs_toml_is_an_error_there() {
    let toml = "[profile.\"mine\"]\n[[profile.\"mine\".era]]\nuntil = \"v2.0\"\n[profile.\"mine\".era.extract]\n\
                config = [\"a.cpp\"]\n[[profile.\"mine\".era]]\nuntil = \"v1.0\"\n[profile.\"mine\".era.extract]\n\
                config = [\"b.cpp\"]\n";
    let dir = support::tree(&[("knobs.toml", toml.as_bytes()), ("run.sh", b"mine --x 1\n")]);
    let r = knobs(dir.path(), &["lint", "--engine", "mine", "run.sh"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let flat = support::flat(&r.stderr);
    assert!(
        flat.contains(
            "invalid [profile.\"mine\"]: era 2 (until `v1.0`) must end after era 1 (until `v2.0`): list eras \
             oldest first, with no two ending at the same tag"
        ),
        "{flat}"
    );
    assert!(flat.contains("knobs.toml"), "{flat}");
}

/// The user's own option-table file (`[extract] config`) is read at every
/// tag: the profile's eras give way to it.
#[test]
fn a_config_file_named_in_knobs_toml_replaces_every_era() {
    let tmp = tempfile::tempdir().expect("tempdir");
    history(tmp.path());
    std::fs::write(tmp.path().join("knobs.toml"), "[extract]\nconfig = \"common/arg.cpp\"\n").expect("knobs.toml");
    let r =
        knobs(tmp.path(), &["sync", "--engine", "llama.cpp", "--repo", "llama.git", "--tag", "b3000", "--out", "out"]);
    assert_eq!(r.code, 2, "b3000 has no common/arg.cpp: {}", r.stdout);
    assert!(support::flat(&r.stderr).contains("common/arg.cpp"), "{}", r.stderr);
}

/// A history across the era change: `sync --all-tags` reads each tag from
/// its own era's files (b3000 and b3500 from common.cpp, b4100 from
/// arg.cpp), and every command then judges by the tag it is given: b3000's
/// server-only `--tls-key` exists there and not in b4100, and `--seed`
/// (in all three) spans every tag.
#[test]
fn a_history_across_the_era_change_reads_each_tag_from_its_era() {
    let tmp = tempfile::tempdir().expect("tempdir");
    history(tmp.path());
    let r = knobs(tmp.path(), &["sync", "--engine", "llama.cpp", "--repo", "llama.git", "--all-tags", "--out", "out"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains(": 3 tags, 3 states; 3 extracted now"), "{}", r.stdout);
    let b3000 = sync(tmp.path(), "b3000");
    let show = |tag: &str| {
        let r = knobs(
            tmp.path(),
            &["catalog", "show", tag, "--engine", "llama.cpp", "--catalog-dir", "out", "--format", "toml"],
        );
        assert_eq!(r.code, 0, "{}", r.stderr);
        knobs::catalog::store::parse(Path::new("shown.toml"), &r.stdout).expect("a catalogue")
    };
    // The history's b3000 is the single-tag sync's b3000.
    assert_eq!(by_name(&show("b3000")), by_name(&b3000));
    let b4100 = show("b4100");
    assert!(b4100.flag("--tls-key").is_none() && b3000.flag("--tls-key").is_some());
    assert!(b4100.flags.iter().all(|f| f.location.starts_with("common/arg.cpp")), "b4100 reads arg.cpp only");
    let r = knobs(tmp.path(), &["explain", "--engine", "llama.cpp", "--catalog-dir", "out", "--", "--seed"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("b3000–"), "{}", r.stdout);
}
