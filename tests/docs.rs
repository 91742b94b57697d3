//! The documentation against the code: every `knobs …` command it shows is
//! one knobs accepts, and ARCHITECTURE.md names every part of src/.

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
    // Every file below the top of src/ is named too (`name.rs`), but a folder's
    // own `mod.rs` and the rules, which `knobs rules` lists from RULES.
    let unnamed: Vec<String> = files_below_src()
        .into_iter()
        .filter(|(rel, name)| name != "mod.rs" && !rel.starts_with("src/lint/rules/"))
        .filter(|(_, name)| !text.contains(&format!("`{name}`")))
        .map(|(rel, _)| rel)
        .collect();
    assert!(unnamed.is_empty(), "ARCHITECTURE.md does not name these files: {unnamed:?}");
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
    for name in ["src/main.rs", "Cargo.lock", "knobs.toml"] {
        assert!(!files.is_match(name), "{name} is not the hook's");
    }
}
