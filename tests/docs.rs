//! The documentation against the code: every `knobs …` command it shows is
//! one knobs accepts, ARCHITECTURE.md names every part of src/, the README's
//! rule table is the registry, and every test the docs cite exists.

use clap::Parser;

use crate::support;

/// `knobs …` lines in the fenced code blocks of a Markdown file.
fn commands(path: &str) -> Vec<String> {
    let text = std::fs::read_to_string(support::root().join(path)).expect("doc");
    let mut out = Vec::new();
    let mut in_block = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        let line = line.trim().trim_start_matches("- ").trim_start_matches("run: ");
        if in_block && line.starts_with("knobs ") {
            let cmd = line.split(" #").next().unwrap_or(line);
            let cmd = cmd.split(" > ").next().unwrap_or(cmd).split(" ||").next().unwrap_or(cmd);
            out.push(cmd.trim().to_string());
        }
    }
    out
}

/// Splits a shell-ish command line, keeping quoted words whole.
fn words(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote = None;
    for c in cmd.chars() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, ' ') => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[test]
fn documented_commands_parse() {
    let mut seen = 0;
    for doc in ["README.md", "docs/ci.md", "docs/verify.md"] {
        for cmd in commands(doc) {
            // Placeholders such as [PATH...] and URL|PATH stand for values.
            let cmd = cmd.replace("[PATH...]", ".").replace("URL|PATH", "repo").replace("[TAG]", "v1.8.1");
            let cmd = cmd.replace("[--format human|json|markdown]", "").replace("[--format human|json]", "");
            let result = knobs::cli::Cli::try_parse_from(words(&cmd));
            assert!(
                result.is_ok(),
                "{doc}: `{cmd}` does not parse: {}",
                result.err().map(|e| e.to_string()).unwrap_or_default()
            );
            seen += 1;
        }
    }
    assert!(seen >= 8, "only {seen} documented commands found");
}

/// Every folder of src/ at any depth, as `src/<path>/`, and every file at
/// the top of src/, as `src/<name>.rs`, sorted.
fn parts_of_src() -> Vec<String> {
    fn folders(dir: &std::path::Path, rel: &str, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).expect("src/").filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().into_owned();
            if e.path().is_dir() {
                let rel = format!("{rel}{name}/");
                out.push(rel.clone());
                folders(&e.path(), &rel, out);
            } else if rel == "src/" {
                out.push(format!("src/{name}"));
            }
        }
    }
    let mut out = Vec::new();
    folders(&support::root().join("src"), "src/", &mut out);
    out.sort();
    out
}

#[test]
fn architecture_names_every_part_of_src() {
    let path = support::root().join("ARCHITECTURE.md");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let parts = parts_of_src();
    for known in ["src/lint/", "src/lint/scanners/shell/", "src/walk.rs", "src/main.rs"] {
        assert!(parts.iter().any(|p| p == known), "{known} not among {parts:?}");
    }
    assert!(!parts.iter().any(|p| p == "src/lint/mod.rs"), "a folder's own files are not parts: {parts:?}");
    let missing: Vec<&String> = parts.iter().filter(|p| !text.contains(p.as_str())).collect();
    assert!(missing.is_empty(), "ARCHITECTURE.md does not name, by its path from the crate root: {missing:?}");
    // And every path it names is there: a file that moved leaves no stale name.
    let named: Vec<&str> = text.split('`').filter(|w| w.starts_with("src/") || w.starts_with("tests/")).collect();
    assert!(named.len() > 20, "{named:?}");
    let stale: Vec<&&str> = named.iter().filter(|w| !support::root().join(w.trim_end_matches('/')).exists()).collect();
    assert!(stale.is_empty(), "ARCHITECTURE.md names paths that do not exist: {stale:?}");
    // A code map, not an inventory: a folder's own files are its `mod.rs`'s
    // to map, but the invariants the tests keep are named with their tests.
    for test in [
        "structure::each_layer_imports_only_the_layers_below_it",
        "structure::no_two_sibling_modules_import_each_other",
        "structure::every_file_of_src_keeps_its_line_budget",
    ] {
        assert!(text.contains(test), "ARCHITECTURE.md does not name the test that keeps it: {test}");
    }
}

/// Every `.rs` file in a folder of src/: (its path from the crate root, its name).
fn files_below_src() -> Vec<(String, String)> {
    fn walk(dir: &std::path::Path, rel: &str, out: &mut Vec<(String, String)>) {
        for e in std::fs::read_dir(dir).expect("src/").filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().into_owned();
            if e.path().is_dir() {
                walk(&e.path(), &format!("{rel}{name}/"), out);
            } else if rel != "src/" && name.ends_with(".rs") {
                out.push((format!("{rel}{name}"), name));
            }
        }
    }
    let mut out = Vec::new();
    walk(&support::root().join("src"), "src/", &mut out);
    out.sort();
    out
}

/// The pre-commit framework hands the hook only the files its `files:`
/// pattern matches: every kind of file knobs reads must match it, and a file
/// knobs does not read need not.
#[test]
fn the_pre_commit_filter_takes_every_kind_knobs_reads() {
    let hooks = std::fs::read_to_string(support::root().join(".pre-commit-hooks.yaml")).expect("hooks");
    let line = hooks.lines().find(|l| l.trim_start().starts_with("files:")).expect("a files: line");
    let pattern = line.trim_start().trim_start_matches("files:").trim().trim_matches('\'');
    let files = regex::Regex::new(pattern).expect("the pattern compiles");
    let read = [
        "docs/arm.md",
        "svc/serve.sh",
        "svc/knobs.env",
        ".env",
        ".env.local",
        "deploy/.env.production",
        "svc.env.example",
        "compose.yaml",
        "k8s/deploy.yml",
        "Dockerfile",
        "Dockerfile.cuda",
        "app.Dockerfile",
        "Containerfile.rocm",
        "radiance.service",
        "radiance.container",
        "Makefile",
        "rules.mk",
        "Procfile",
        "Procfile.dev",
        "start.bat",
        "run.ps1",
        "serve.zsh",
        ".github/workflows/ci.yml",
    ];
    for name in read {
        let kind = knobs::kinds::classify(std::path::Path::new(name), &[], b"");
        assert!(kind.is_some(), "{name}: knobs reads it (so it belongs in this list)");
        assert!(files.is_match(name), "{name} is read by knobs but the hook's files: pattern skips it");
    }
    // Source code is read for its queries (issue 30); C is not.
    for name in ["src/main.c", "Cargo.lock", "knobs.toml"] {
        assert!(!files.is_match(name), "{name} is not the hook's");
    }
}

/// Every test of the repository by the path a document cites it with:
/// `module::name` for an integration test (`tests/module.rs`), the module
/// path with `tests` for a unit test (`lint::scanners::yaml::tests::name`).
fn test_paths() -> Vec<String> {
    let test_fn = regex::Regex::new(r"#\[test\]\s*(?:#\[[^\]]*\]\s*)*fn\s+([a-z0-9_]+)").expect("regex");
    let mut out = Vec::new();
    let root = support::root();
    for e in std::fs::read_dir(root.join("tests")).expect("tests/").filter_map(Result::ok) {
        let p = e.path();
        let (Some(stem), Some("rs")) = (p.file_stem().and_then(|s| s.to_str()), p.extension().and_then(|s| s.to_str()))
        else {
            continue;
        };
        let text = std::fs::read_to_string(&p).expect("a test file");
        out.extend(test_fn.captures_iter(&text).map(|c| format!("{stem}::{}", &c[1])));
    }
    for (rel, _) in files_below_src().into_iter().chain([("src/lib.rs".into(), String::new())]) {
        let text = std::fs::read_to_string(root.join(&rel)).expect("a source file");
        let module = rel.trim_start_matches("src/").trim_end_matches(".rs").trim_end_matches("/mod").replace('/', "::");
        out.extend(test_fn.captures_iter(&text).map(|c| format!("{module}::tests::{}", &c[1])));
    }
    for e in std::fs::read_dir(root.join("src")).expect("src/").filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".rs").filter(|s| *s != "lib") {
            let text = std::fs::read_to_string(e.path()).expect("a source file");
            out.extend(test_fn.captures_iter(&text).map(|c| format!("{stem}::tests::{}", &c[1])));
        }
    }
    out
}

/// A test that a document names (in backticks, by its module path) exists
/// under that path: a test renamed or moved leaves no stale citation. A
/// citation may leave out the leading modules (`yaml::tests::name`).
#[test]
fn every_test_the_docs_cite_exists_where_they_say() {
    let tests = test_paths();
    assert!(tests.iter().any(|t| t == "docs::every_test_the_docs_cite_exists_where_they_say"), "{tests:?}");
    let names: std::collections::BTreeSet<&str> = tests.iter().filter_map(|t| t.rsplit("::").next()).collect();
    // The integration modules (`tests/NAME.rs`): a citation starting with one names a test.
    let modules: std::collections::BTreeSet<&str> =
        tests.iter().filter(|t| !t.contains("::tests::")).filter_map(|t| t.split("::").next()).collect();
    let citation = regex::Regex::new(r"`([a-z_][a-z0-9_]*(?:::[a-z_][a-z0-9_]*)+)`").expect("regex");
    let root = support::root();
    let mut docs: Vec<std::path::PathBuf> = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    docs.extend(std::fs::read_dir(root.join("docs")).expect("docs/").filter_map(|e| e.ok().map(|e| e.path())));
    let mut checked = 0;
    let mut stale = Vec::new();
    for doc in docs.iter().filter(|p| p.extension().is_some_and(|e| e == "md")) {
        let text = std::fs::read_to_string(doc).expect("a document");
        for c in citation.captures_iter(&text) {
            let cited = &c[1];
            let last = cited.rsplit("::").next().unwrap_or_default();
            let first = cited.split("::").next().unwrap_or_default();
            // A test's name, a path into a unit test module, or an
            // integration module's test: a test citation.
            let unit = cited.contains("::tests::");
            if !(names.contains(last) || unit || modules.contains(first) && cited.split("::").count() == 2) {
                continue;
            }
            checked += 1;
            if !tests.iter().any(|t| t == cited || t.ends_with(&format!("::{cited}"))) {
                let file = doc.strip_prefix(&root).unwrap_or(doc).display().to_string();
                stale.push(format!("{file}: `{cited}`"));
            }
        }
    }
    assert!(checked > 30, "only {checked} test citations found in the docs");
    assert!(stale.is_empty(), "these cited tests are not where the docs say:\n{}", stale.join("\n"));
}

/// The README's table of rules is the registry's: the same codes, names and
/// default severities, in the same order.
#[test]
fn the_readme_rule_table_is_the_registry() {
    let readme = std::fs::read_to_string(support::root().join("README.md")).expect("README.md");
    let rows: Vec<(String, String, String)> = readme
        .lines()
        .filter(|l| l.starts_with("| KNB"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells[1].to_string(), cells[2].to_string(), cells[3].to_string())
        })
        .collect();
    let registry: Vec<(String, String, String)> = knobs::lint::rules::RULES
        .iter()
        .map(|r| (r.code.to_string(), r.name.to_string(), r.severity.as_str().to_string()))
        .collect();
    assert!(registry.len() >= 21, "{registry:?}");
    assert_eq!(rows, registry, "README.md's rule table (code | name | severity) differs from RULES");
}

/// The path filters docs/ci.md gives for GitHub Actions (`paths:`) and
/// GitLab (`changes:`) take an example of every kind of file in the table
/// of kinds, and `knobs.toml`; a file knobs does not read is not taken.
/// Globs are matched without case: a filter cannot know the case a
/// repository writes (docs/ci.md says so).
#[test]
fn the_ci_path_filters_take_every_kind_knobs_reads() {
    let doc = std::fs::read_to_string(support::root().join("docs/ci.md")).expect("docs/ci.md");
    let mut lists = 0;
    for key in ["paths: [", "changes: ["] {
        let start = doc.find(key).unwrap_or_else(|| panic!("docs/ci.md has no `{key}`")) + key.len();
        let end = start + doc[start..].find(']').expect("the list ends");
        let mut set = globset::GlobSetBuilder::new();
        let globs: Vec<&str> = doc[start..end].split(',').map(|g| g.trim().trim_matches('"')).collect();
        for g in &globs {
            set.add(globset::GlobBuilder::new(g).case_insensitive(true).literal_separator(true).build().expect(g));
        }
        let set = set.build().expect("the globs");
        let mut examples = 0;
        for kind in knobs::kinds::KINDS {
            for name in kind.examples {
                examples += 1;
                assert!(set.is_match(name), "docs/ci.md `{key}…]` skips {name} ({:?}), which knobs reads", kind.kind);
            }
        }
        assert!(examples > 30, "only {examples} examples in the table of kinds");
        assert!(set.is_match("knobs.toml"), "`{key}…]` skips knobs.toml");
        for name in ["src/main.c", "Cargo.lock", "docs/diagram.svg"] {
            assert!(!set.is_match(name), "`{key}…]` takes {name}, which knobs does not read");
        }
        lists += 1;
    }
    assert_eq!(lists, 2);
}
