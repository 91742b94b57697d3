//! The shape of `src/`, kept by tests: a file stays under 500 lines and a
//! folder's `mod.rs` under 250 (each without its `#[cfg(test)]` module), and
//! no two sibling modules import each other. A failure names the file or the
//! pair; the mend is a split along a concept, or a shared piece moved down.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::support;

/// The most lines a file of `src/` may have before its test module.
const FILE_BUDGET: usize = 500;
/// The most a folder's `mod.rs` may have: a map of the folder, not its body.
const MOD_BUDGET: usize = 250;

/// A source file of `src/`: its module path (`["lint", "driver"]`; a
/// `mod.rs` is its folder's module) and its text without the test module.
struct Source {
    rel: String,
    module: Vec<String>,
    text: String,
}

fn sources() -> Vec<Source> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> =
            std::fs::read_dir(dir).expect("src/").filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    let src = support::root().join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(&src).expect("below src").to_string_lossy().replace('\\', "/");
            let mut module: Vec<String> = rel.trim_end_matches(".rs").split('/').map(str::to_string).collect();
            if matches!(module.last().map(String::as_str), Some("mod" | "lib" | "main")) {
                module.pop();
            }
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            Source { rel: format!("src/{rel}"), module, text: without_tests(&text).to_string() }
        })
        .collect()
}

/// A file's text up to its test module: a line `#[cfg(test)]` followed by a
/// `mod` line. A test-only helper (`#[cfg(test)] fn …`) does not end the
/// file's code, so what follows it is still counted and read.
fn without_tests(text: &str) -> &str {
    let mut at = 0;
    let mut lines = text.split_inclusive('\n').peekable();
    while let Some(line) = lines.next() {
        let next_is_mod = lines.peek().is_some_and(|n| {
            let n = n.trim_start_matches("pub(crate) ").trim_start_matches("pub ");
            n.starts_with("mod ")
        });
        if line.trim_end() == "#[cfg(test)]" && next_is_mod {
            return &text[..at];
        }
        at += line.len();
    }
    text
}

#[test]
fn without_tests_cuts_at_the_test_module_only() {
    let text = "fn a() {}\n#[cfg(test)]\nfn helper() {}\nfn b() {}\n#[cfg(test)]\nmod tests {}\n";
    assert_eq!(without_tests(text), "fn a() {}\n#[cfg(test)]\nfn helper() {}\nfn b() {}\n");
    assert_eq!(without_tests("fn a() {}\n"), "fn a() {}\n");
}

/// No glob import of the crate's own modules outside tests: the import
/// checks below read paths, and a glob would hide which modules it brings.
#[test]
fn no_glob_imports_of_the_crates_own_modules() {
    let globs: Vec<String> = sources()
        .iter()
        .flat_map(|s| {
            s.text
                .lines()
                .filter(|l| {
                    let l = l.trim();
                    l.starts_with("use ") || l.starts_with("pub use ") || l.starts_with("pub(crate) use ")
                })
                .filter(|l| ["crate::", "super::", "self::"].iter().any(|h| l.contains(h)) && l.contains('*'))
                .map(|l| format!("{}: {}", s.rel, l.trim()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(globs.is_empty(), "name what is imported:\n{}", globs.join("\n"));
}

#[test]
fn every_file_of_src_keeps_its_line_budget() {
    let files = sources();
    assert!(files.len() > 100, "only {} files read below src/", files.len());
    let over: Vec<String> = files
        .iter()
        .filter_map(|s| {
            let budget = if s.rel.ends_with("/mod.rs") { MOD_BUDGET } else { FILE_BUDGET };
            let lines = s.text.lines().count();
            (lines > budget).then(|| format!("{} has {lines} lines before its tests (budget {budget})", s.rel))
        })
        .collect();
    assert!(over.is_empty(), "split these along a concept:\n{}", over.join("\n"));
}

/// The module paths a file names (`crate::a::b`, `super::c`, `self::d`,
/// and each item of a `{…}` group after one of them), resolved from the
/// file's own module to absolute paths.
fn named_paths(s: &Source) -> Vec<Vec<String>> {
    let text = s.text.as_str();
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < bytes.len() {
        let start_ok = i == 0 || !(ident(bytes[i - 1]) || bytes[i - 1] == b':');
        let head = ["crate::", "super::", "self::"].into_iter().find(|h| bytes[i..].starts_with(h.as_bytes()));
        let Some(head) = head.filter(|_| start_ok) else {
            i += 1;
            continue;
        };
        // The base the path starts from.
        let mut base: Vec<String> = match head {
            "crate::" => Vec::new(),
            "self::" => s.module.clone(),
            _ => s.module[..s.module.len().saturating_sub(1)].to_vec(),
        };
        let mut j = i + head.len();
        // Further `super::`s.
        while bytes[j..].starts_with(b"super::") {
            base.pop();
            j += "super::".len();
        }
        paths_from(text, j, base, &mut out);
        i = j;
    }
    out
}

/// Reads `a::b::{c, d::e}` at `at`, pushing every path it names under `base`.
fn paths_from(text: &str, mut at: usize, mut base: Vec<String>, out: &mut Vec<Vec<String>>) {
    let bytes = text.as_bytes();
    loop {
        if bytes[at..].starts_with(b"{") {
            // A group: each comma-separated item at depth one.
            let mut depth = 1;
            let mut k = at + 1;
            let mut item = k;
            while k < bytes.len() && depth > 0 {
                match bytes[k] {
                    b'{' => depth += 1,
                    b'}' => depth -= 1,
                    b',' if depth == 1 => {
                        paths_from(text, skip_space(text, item), base.clone(), out);
                        item = k + 1;
                    }
                    _ => {}
                }
                if depth > 0 {
                    k += 1;
                }
            }
            if text[item..k.min(text.len())].trim().is_empty() {
                out.push(base);
            } else {
                paths_from(text, skip_space(text, item), base.clone(), out);
                out.push(base);
            }
            return;
        }
        let start = at;
        while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'_') {
            at += 1;
        }
        // `self` inside a group is the group's own path.
        if at > start && &text[start..at] != "self" {
            base.push(text[start..at].to_string());
        }
        if at > start && bytes[at..].starts_with(b"::") {
            at += 2;
            continue;
        }
        out.push(base);
        return;
    }
}

fn skip_space(text: &str, mut at: usize) -> usize {
    while text.as_bytes().get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// For each folder (a module path), the modules directly in it.
fn children(files: &[Source]) -> BTreeMap<Vec<String>, BTreeSet<String>> {
    let mut out: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
    for s in files {
        for depth in 1..=s.module.len() {
            out.entry(s.module[..depth - 1].to_vec()).or_default().insert(s.module[depth - 1].clone());
        }
    }
    out
}

/// Sibling imports: (folder, importer, imported) for every file that names
/// a module beside its own (or beside one of its ancestors within the folder).
fn sibling_imports(files: &[Source]) -> BTreeSet<(Vec<String>, String, String)> {
    let kids = children(files);
    let mut edges = BTreeSet::new();
    for s in files {
        for path in named_paths(s) {
            let common = s.module.iter().zip(&path).take_while(|(a, b)| a == b).count();
            let (Some(from), Some(to)) = (s.module.get(common), path.get(common)) else { continue };
            let folder = s.module[..common].to_vec();
            if kids.get(&folder).is_some_and(|k| k.contains(to)) {
                edges.insert((folder, from.clone(), to.clone()));
            }
        }
    }
    edges
}

#[test]
fn the_import_reader_resolves_groups_and_supers() {
    let s = Source {
        rel: "src/lint/scanners/env.rs".into(),
        module: vec!["lint".into(), "scanners".into(), "env".into()],
        text: "use super::{self as s, shell::{words::Part, simple}};\nuse crate::catalog::query;\nfn f() { super::super::refs::X; }\n".into(),
    };
    let got: BTreeSet<String> = named_paths(&s).into_iter().map(|p| p.join("::")).collect();
    for want in
        ["lint::scanners::shell::words::Part", "lint::scanners::shell::simple", "catalog::query", "lint::refs::X"]
    {
        assert!(got.contains(want), "{want} not in {got:?}");
    }
    let files = vec![
        Source { rel: "src/a/b.rs".into(), module: vec!["a".into(), "b".into()], text: "use super::c::X;".into() },
        Source { rel: "src/a/c.rs".into(), module: vec!["a".into(), "c".into()], text: "use crate::a::b::{Y};".into() },
        Source { rel: "src/a/d.rs".into(), module: vec!["a".into(), "d".into()], text: "use super::c;".into() },
    ];
    let edges = sibling_imports(&files);
    assert!(edges.contains(&(vec!["a".into()], "b".into(), "c".into())), "{edges:?}");
    assert!(edges.contains(&(vec!["a".into()], "c".into(), "b".into())), "{edges:?}");
    assert!(!edges.contains(&(vec!["a".into()], "c".into(), "d".into())), "{edges:?}");
}

#[test]
fn no_two_sibling_modules_import_each_other() {
    let files = sources();
    let edges = sibling_imports(&files);
    assert!(edges.len() > 50, "only {} imports between siblings found: the reader is broken", edges.len());
    let cycles: Vec<String> = edges
        .iter()
        .filter(|(folder, a, b)| a < b && edges.contains(&(folder.clone(), b.clone(), a.clone())))
        .map(|(folder, a, b)| {
            let at = if folder.is_empty() { "src".to_string() } else { format!("src/{}", folder.join("/")) };
            format!("{at}: {a} and {b} import each other")
        })
        .collect();
    assert!(cycles.is_empty(), "move what both need below them:\n{}", cycles.join("\n"));
}

/// The layers of ARCHITECTURE.md: each top-level module of `src/` and the
/// modules it may import. The ground (the last row) imports only the ground.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "commands",
        &["catalog", "cli", "config", "explain", "extract", "lint", "report", "server", "source", "verify", "walk"],
    ),
    ("server", &["catalog", "config", "explain", "lint"]),
    ("cli", &["report"]),
    ("verify", &["catalog", "explain", "lint"]),
    ("explain", &["catalog", "config", "lint", "source", "walk"]),
    ("report", &["lint", "walk"]),
    ("lint", &["catalog", "config", "source", "walk"]),
    ("config", &["catalog"]),
    ("extract", &["catalog", "source"]),
    ("catalog", &[]),
    ("source", &[]),
];

/// The modules every layer may import: small, engine-free helpers.
const GROUND: &[&str] = &[
    "allocator",
    "bounded",
    "confine",
    "diag",
    "embedded",
    "ending",
    "fsutil",
    "kinds",
    "pictures",
    "suggest",
    "syntax",
    "walk",
];

/// Every import that points up or sideways, and how many imports across
/// top-level modules were read.
fn layer_violations(files: &[Source]) -> (BTreeSet<String>, usize) {
    let mut wrong = BTreeSet::new();
    let mut seen = 0;
    for s in files {
        let Some(top) = s.module.first() else { continue };
        let allowed: Vec<&str> = match LAYERS.iter().find(|(l, _)| l == top) {
            Some((_, below)) => below.iter().copied().chain(GROUND.iter().copied()).collect(),
            None if GROUND.contains(&top.as_str()) => GROUND.to_vec(),
            // A module in no layer is a layer nobody placed: say so.
            None => {
                wrong.insert(format!("{} is in no layer: add src/{top} to LAYERS or GROUND", s.rel));
                continue;
            }
        };
        for path in named_paths(s) {
            let Some(target) = path.first().filter(|t| *t != top) else { continue };
            seen += 1;
            let is_module = files.iter().any(|f| f.module.first() == Some(target));
            if is_module && !allowed.contains(&target.as_str()) {
                wrong.insert(format!("{} imports {target} (src/{top} may import {allowed:?})", s.rel));
            }
        }
    }
    (wrong, seen)
}

#[test]
fn an_import_up_the_layers_is_caught() {
    let file = |rel: &str, module: &[&str], text: &str| Source {
        rel: rel.into(),
        module: module.iter().map(|m| m.to_string()).collect(),
        text: text.into(),
    };
    let files = vec![
        file(
            "src/catalog/query.rs",
            &["catalog", "query"],
            "use crate::lint::rules::RULES;\nuse crate::suggest::nearest;",
        ),
        file("src/lint/file.rs", &["lint", "file"], "use crate::catalog::query;\nuse super::super::walk::Skipped;"),
        file("src/walk.rs", &["walk"], "use crate::lint::Settings;"),
        file("src/suggest.rs", &["suggest"], ""),
        file("src/planted.rs", &["planted"], "use crate::commands::Run;"),
    ];
    let (wrong, seen) = layer_violations(&files);
    let wrong: Vec<&str> = wrong.iter().map(|w| w.split(" (").next().unwrap_or_default()).collect();
    assert_eq!(
        wrong,
        [
            "src/catalog/query.rs imports lint",
            "src/planted.rs is in no layer: add src/planted to LAYERS or GROUND",
            "src/walk.rs imports lint"
        ]
    );
    assert_eq!(seen, 5);
}

#[test]
fn each_layer_imports_only_the_layers_below_it() {
    let (wrong, seen) = layer_violations(&sources());
    assert!(seen > 200, "only {seen} imports across layers read");
    assert!(wrong.is_empty(), "an import points up or sideways:\n{}", wrong.into_iter().collect::<Vec<_>>().join("\n"));
}
