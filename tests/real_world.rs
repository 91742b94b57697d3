//! The real-world corpus (`fixtures/real-world`) kept honest, without
//! asserting knobs' figures on it (scripts/real-world.sh measures those):
//! every file is listed in expected.toml with its shape, every expected
//! defect names a word that is on its line, the corpus keeps clean files for
//! false alarms and both engines, and every class of mistake it counts is
//! explained in docs/real-world.md.

use std::collections::BTreeSet;

use crate::support;

fn corpus() -> std::path::PathBuf {
    support::fixtures().join("real-world")
}

fn expected() -> toml::Table {
    let text = std::fs::read_to_string(corpus().join("expected.toml")).expect("expected.toml");
    text.parse::<toml::Table>().expect("expected.toml parses")
}

fn listed(e: &toml::Table) -> BTreeSet<String> {
    e["files"].as_table().expect("[files]").keys().cloned().collect()
}

fn defects(e: &toml::Table) -> Vec<&toml::Table> {
    e["defect"].as_array().expect("[[defect]]").iter().map(|d| d.as_table().expect("a defect is a table")).collect()
}

#[test]
fn every_file_is_listed_and_every_listed_file_exists() {
    let on_disk: BTreeSet<String> = support::files_under(&corpus())
        .into_iter()
        .filter(|f| f != "expected.toml" && !f.ends_with("knobs.toml"))
        .collect();
    let e = expected();
    let listed = listed(&e);
    let unlisted: Vec<_> = on_disk.difference(&listed).collect();
    let missing: Vec<_> = listed.difference(&on_disk).collect();
    assert!(
        unlisted.is_empty() && missing.is_empty(),
        "not in expected.toml: {unlisted:?}; listed but absent: {missing:?}"
    );
    for (file, shape) in e["files"].as_table().expect("[files]") {
        assert!(
            shape.as_str().is_some_and(|s| !s.trim().is_empty()),
            "{file}: say which shape of public usage it imitates"
        );
    }
}

#[test]
fn every_defect_names_a_word_on_its_line() {
    let e = expected();
    let listed = listed(&e);
    let ds = defects(&e);
    assert!(ds.len() >= 30, "only {} defects", ds.len());
    for d in ds {
        let file = d["file"].as_str().expect("file");
        assert!(listed.contains(file), "{file} is not under [files]");
        let text = std::fs::read_to_string(corpus().join(file)).expect(file);
        let lines: Vec<&str> = text.split('\n').collect();
        let line = d["line"].as_integer().expect("line") as usize;
        let word = d["word"].as_str().expect("word");
        assert!((1..=lines.len()).contains(&line), "{file}:{line}: no such line");
        assert!(lines[line - 1].contains(word), "{file}:{line}: `{word}` is not on that line: {:?}", lines[line - 1]);
        for also in d.get("also").and_then(|a| a.as_array()).into_iter().flatten() {
            let l = also.as_integer().expect("an `also` line") as usize;
            assert!((1..=lines.len()).contains(&l) && l != line, "{file}: `also` line {l}");
        }
        let codes = d["codes"].as_array().expect("codes");
        assert!(!codes.is_empty(), "{file}:{line}: no codes");
        for c in codes {
            let c = c.as_str().expect("a code");
            let n: Option<u32> = c.strip_prefix("KNB").and_then(|n| n.parse().ok());
            assert!(
                c.len() == 6 && n.is_some_and(|n| (1..=20).contains(&n)),
                "{file}:{line}: `{c}` is not a rule code KNB001–KNB020"
            );
        }
        assert!(d["why"].as_str().is_some_and(|w| !w.is_empty()), "{file}:{line}: say why it is a defect");
    }
}

/// A third of the files at least are clean (false alarms are measured on
/// them), and each half (llama.cpp, radiance, vLLM) has files, defects and
/// clean files.
#[test]
fn the_corpus_keeps_clean_files_and_both_engines() {
    let e = expected();
    let listed = listed(&e);
    let dirty: BTreeSet<&str> = defects(&e).iter().map(|d| d["file"].as_str().expect("file")).collect();
    let clean: Vec<&String> = listed.iter().filter(|f| !dirty.contains(f.as_str())).collect();
    assert!((30..=100).contains(&listed.len()), "{} files", listed.len());
    assert!(clean.len() * 3 >= listed.len(), "{} clean of {}", clean.len(), listed.len());
    for engine in ["llama.cpp/", "radiance/", "vllm/"] {
        assert!(dirty.iter().any(|f| f.starts_with(engine)), "no defect under {engine}");
        assert!(clean.iter().any(|f| f.starts_with(engine)), "no clean file under {engine}");
    }
    let pin = std::fs::read_to_string(corpus().join("llama.cpp/knobs.toml")).expect("llama.cpp/knobs.toml");
    let pin: toml::Table = pin.parse().expect("knobs.toml parses");
    assert_eq!(pin["pin"]["engine"].as_str(), Some("llama.cpp"));
}

#[test]
fn every_class_is_explained_in_the_method() {
    let doc = std::fs::read_to_string(support::root().join("docs/real-world.md")).expect("docs/real-world.md");
    let e = expected();
    let classes: BTreeSet<&str> = defects(&e).iter().map(|d| d["class"].as_str().expect("class")).collect();
    for c in classes {
        assert!(doc.contains(&format!("| `{c}` |")), "docs/real-world.md has no row for the class `{c}`");
    }
}
