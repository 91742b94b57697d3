//! The kinds of file knobs reads, as one table: what names (or, for a name
//! that says nothing, what first line) make a file of each kind, and what
//! the rest of knobs asks of a kind. A walk classifies with it, the lint
//! asks a kind's properties, and the pre-commit hook's `files:` pattern is
//! made from it. Adding a kind is a row here and its scanner (its arm in
//! `src/lint/dispatch.rs`), nothing else.

use std::path::Path;

/// The kinds of file knobs lints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FileKind {
    Markdown,
    Env,
    Shell,
    /// A systemd unit (`*.service`) or drop-in (`*.service.d/*.conf`).
    Systemd,
    /// A Podman Quadlet container unit (`*.container`).
    Quadlet,
    /// A Dockerfile or Containerfile.
    Dockerfile,
    /// A compose file (`compose.yaml`, `docker-compose.yml`, overrides).
    Compose,
    /// Helm values (`values.yaml`, `values-*.yaml`).
    HelmValues,
    /// Other YAML: Kubernetes manifests, Prometheus rule files and
    /// llama-swap configs are read.
    Yaml,
    /// A Windows batch file (`*.bat`, `*.cmd`).
    Batch,
    /// A PowerShell script (`*.ps1`).
    PowerShell,
    /// A Makefile (`Makefile`, `GNUmakefile`, `*.mk`): its recipes are shell.
    Makefile,
    /// A Procfile (`Procfile`, `Procfile.dev`): `name: command` lines.
    Procfile,
    /// A GitHub Actions workflow (`.github/workflows/*.yml`): its `run:` steps.
    Workflow,
    /// JSON: dashboards (Grafana, Perses, Cloud Monitoring), their queries.
    Json,
    /// Source code: the string literals that are queries or metric names read.
    Code(CodeLang),
}

/// The languages whose string literals are read for queries: how each
/// writes comments and strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CodeLang {
    Python,
    Go,
    Rust,
    /// Java, Kotlin, JavaScript, TypeScript.
    CLike,
    Terraform,
    /// HTML, as Prometheus console templates are written.
    Html,
}

/// What a folder's context reads a file of a kind for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// Nothing: the folder's context does not read it.
    None,
    /// Its pins (an env file): read first, its pin picks the catalogue.
    Pins,
    /// Its argv and the env files it names (a serve script, a unit):
    /// scanned against the folder's catalogue, the scan kept for its lint.
    Scanned,
}

/// One kind: the names that say it, and what the rest of knobs asks of it.
pub struct Kind {
    pub kind: FileKind,
    /// Extensions (the name's part after its last dot, in any case) that say the kind.
    pub extensions: &'static [&'static str],
    /// Whole names (in any case) that say it.
    pub names: &'static [&'static str],
    /// What else a name says (a drop-in's folder, `Procfile.dev`, `.env.local`).
    pub special: Option<fn(&Name<'_>) -> bool>,
    /// Regular expressions (for the pre-commit hook's `files:`) that match
    /// whatever `special` accepts, and maybe more.
    pub special_pattern: &'static [&'static str],
    /// Words of a first line (`#!/usr/bin/env bash`) that say the kind
    /// when the name says nothing.
    pub shebangs: &'static [&'static str],
    /// Names of the kind, for the tests that hold this table to its word.
    pub examples: &'static [&'static str],
    /// An engine image the file names pins the whole file (a deployment
    /// file); elsewhere it pins only the command that runs it.
    pub image_pins_file: bool,
    /// What a folder's context reads it for.
    pub context: Context,
    /// It may hold the folder's env files: an env file, or a unit that
    /// names one (`EnvironmentFile=`).
    pub holds_env: bool,
    /// A serve script: its argv says whether the folder serves the engine,
    /// and explain reads the env keys it maps.
    pub serve_script: bool,
    /// An env file: judged as the engine's only with evidence, and its
    /// values may be an argv a serve script splits.
    pub env_file: bool,
    /// Read for another file's sake when its folder is staged (the context
    /// of a changed file: env files, scripts, units, files an argv names).
    pub staged_context: bool,
}

/// A file's name as the table reads it.
pub struct Name<'p> {
    pub path: &'p Path,
    /// As written.
    pub name: &'p str,
    /// In lower case.
    pub lower: &'p str,
    /// The env file names of `[lint] env_files`.
    pub env_files: &'p [String],
}

/// The words of a shebang that name a shell.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"];

/// A row with nothing said: each row says what it has.
const NONE: Kind = Kind {
    kind: FileKind::Markdown,
    extensions: &[],
    names: &[],
    special: None,
    special_pattern: &[],
    shebangs: &[],
    examples: &[],
    image_pins_file: true,
    context: Context::None,
    holds_env: false,
    serve_script: false,
    env_file: false,
    staged_context: true,
};

/// Every kind, in the order names are tried: the first row whose name
/// test passes says the kind; then, for a name no row takes, the first
/// row whose shebang the first line names.
pub const KINDS: &[Kind] = &[
    Kind {
        kind: FileKind::Env,
        special: Some(env_name),
        special_pattern: &[r"(^|/)\.?env(\.[^/]+)?$", r"\.env(\.[^/]+)?$"],
        examples: &[".env", "env", ".env.local", "deploy/.env.production", "svc/knobs.env", "knobs.env.template"],
        image_pins_file: false,
        context: Context::Pins,
        holds_env: true,
        env_file: true,
        ..NONE
    },
    Kind {
        kind: FileKind::Systemd,
        extensions: &["service"],
        special: Some(drop_in),
        // Any `.conf`: a drop-in's, and a script of that name read by its shebang.
        special_pattern: &[r"\.conf$"],
        examples: &["radiance.service", "radiance.service.d/override.conf"],
        context: Context::Scanned,
        holds_env: true,
        ..NONE
    },
    Kind {
        kind: FileKind::Quadlet,
        extensions: &["container"],
        examples: &["radiance.container"],
        context: Context::Scanned,
        holds_env: true,
        ..NONE
    },
    Kind {
        kind: FileKind::Dockerfile,
        extensions: &["dockerfile", "containerfile"],
        names: &["dockerfile", "containerfile"],
        special: Some(dockerfile_with_suffix),
        special_pattern: &[r"(^|/)(dockerfile|containerfile)\.[^/]+$"],
        examples: &["Dockerfile", "Dockerfile.cuda", "app.Dockerfile", "Containerfile.rocm"],
        ..NONE
    },
    Kind {
        kind: FileKind::Workflow,
        special: Some(workflow),
        special_pattern: &[r"(^|/)\.github/workflows/[^/]+\.ya?ml$"],
        examples: &[".github/workflows/ci.yml", "repo/.github/workflows/serve.yaml"],
        ..NONE
    },
    Kind {
        kind: FileKind::Compose,
        special: Some(compose),
        special_pattern: &[r"(^|/)(docker-)?compose([.-][^/]*)?\.ya?ml$"],
        examples: &["compose.yaml", "docker-compose.yml", "compose.override.yaml", "docker-compose-gpu.yml"],
        // Its services' `env_file:` say which of the folder's env files are the engine's.
        context: Context::Scanned,
        ..NONE
    },
    Kind {
        kind: FileKind::HelmValues,
        special: Some(helm_values),
        special_pattern: &[r"(^|/)values([.-][^/]*)?\.ya?ml$"],
        examples: &["values.yaml", "chart/values-prod.yml", "values.gpu.yaml"],
        ..NONE
    },
    Kind {
        kind: FileKind::Yaml,
        extensions: &["yaml", "yml", "rules"],
        examples: &["k8s/deploy.yml", "alerts.rules"],
        ..NONE
    },
    Kind {
        kind: FileKind::Json,
        extensions: &["json"],
        examples: &["grafana/vllm.json", "dashboards/llama-server.json"],
        image_pins_file: false,
        staged_context: false,
        ..NONE
    },
    Kind {
        kind: FileKind::Shell,
        extensions: &["sh", "bash", "zsh", "ksh"],
        shebangs: SHELLS,
        examples: &["svc/serve.sh", "serve.zsh", "a.ksh", "run.bash"],
        image_pins_file: false,
        context: Context::Scanned,
        serve_script: true,
        ..NONE
    },
    Kind {
        kind: FileKind::Batch,
        extensions: &["bat", "cmd"],
        examples: &["start.bat", "SERVE.CMD"],
        image_pins_file: false,
        ..NONE
    },
    Kind { kind: FileKind::PowerShell, extensions: &["ps1"], examples: &["run.ps1"], image_pins_file: false, ..NONE },
    Kind {
        kind: FileKind::Makefile,
        extensions: &["mk"],
        names: &["makefile", "gnumakefile"],
        examples: &["Makefile", "GNUmakefile", "rules.mk"],
        image_pins_file: false,
        ..NONE
    },
    Kind {
        kind: FileKind::Procfile,
        special: Some(procfile),
        special_pattern: &[r"(^|/)procfile(\.[^/]+)?$"],
        examples: &["Procfile", "Procfile.dev"],
        image_pins_file: false,
        ..NONE
    },
    Kind {
        kind: FileKind::Code(CodeLang::Python),
        extensions: &["py"],
        examples: &["monitor/probe.py"],
        image_pins_file: false,
        staged_context: false,
        ..NONE
    },
    Kind {
        kind: FileKind::Code(CodeLang::Go),
        extensions: &["go"],
        examples: &["autoscaler/metrics.go"],
        image_pins_file: false,
        staged_context: false,
        ..NONE
    },
    Kind {
        kind: FileKind::Code(CodeLang::Rust),
        extensions: &["rs"],
        examples: &["router/src/load.rs"],
        image_pins_file: false,
        staged_context: false,
        ..NONE
    },
    Kind {
        kind: FileKind::Code(CodeLang::CLike),
        extensions: &["java", "kt", "js", "mjs", "cjs", "jsx", "ts", "tsx"],
        examples: &["web/src/metrics.ts", "Probe.java", "panel.jsx"],
        image_pins_file: false,
        staged_context: false,
        ..NONE
    },
    Kind {
        kind: FileKind::Code(CodeLang::Terraform),
        extensions: &["tf"],
        examples: &["infra/alerts.tf"],
        image_pins_file: false,
        staged_context: false,
        ..NONE
    },
    Kind {
        kind: FileKind::Code(CodeLang::Html),
        extensions: &["html", "htm"],
        examples: &["consoles/vllm.html"],
        image_pins_file: false,
        staged_context: false,
        ..NONE
    },
    Kind {
        kind: FileKind::Markdown,
        special: Some(markdown),
        special_pattern: &[r"\.(md|markdown)$"],
        examples: &["docs/arm.md", "README.markdown"],
        image_pins_file: false,
        staged_context: false,
        ..NONE
    },
];

/// The row of a kind.
fn row(kind: FileKind) -> &'static Kind {
    // Every kind has its row (a test says so); a kind without one would
    // get no property at all, never another kind's.
    KINDS.iter().find(|k| k.kind == kind).unwrap_or(&UNLISTED)
}

/// What a kind with no row gets: nothing (see `row`).
const UNLISTED: Kind = Kind { image_pins_file: false, staged_context: false, ..NONE };

impl FileKind {
    /// It may hold monitoring queries (a dashboard, rules, an autoscaler):
    /// when it runs no image itself, the build its repository runs judges them.
    pub fn reads_monitoring(self) -> bool {
        matches!(self, FileKind::Json | FileKind::Yaml | FileKind::HelmValues | FileKind::Code(_))
    }

    /// An engine image the file names pins the whole file.
    pub fn image_pins_file(self) -> bool {
        row(self).image_pins_file
    }

    /// What a folder's context reads a file of this kind for.
    pub fn context(self) -> Context {
        row(self).context
    }

    /// A folder's env files may be in a file of this kind.
    pub fn holds_env(self) -> bool {
        row(self).holds_env
    }

    /// A serve script of the engine may be of this kind.
    pub fn serve_script(self) -> bool {
        row(self).serve_script
    }

    /// An env file, judged as the engine's only with evidence.
    pub fn env_file(self) -> bool {
        row(self).env_file
    }

    /// Read as the context of a changed file when its folder is staged.
    pub fn staged_context(self) -> bool {
        row(self).staged_context
    }
}

/// Classifies a file by its name, then (for a name that says nothing) by a
/// shell shebang in `head`: `serve.conf` or `start` that starts
/// `#!/bin/bash` is a shell script.
pub fn classify(path: &Path, env_files: &[String], head: &[u8]) -> Option<FileKind> {
    by_name(path, env_files).or_else(|| by_shebang(head))
}

/// The kind a file's name says, if it says one.
pub fn by_name(path: &Path, env_files: &[String]) -> Option<FileKind> {
    let name = path.file_name()?.to_string_lossy();
    let lower = name.to_ascii_lowercase();
    let n = Name { path, name: &name, lower: &lower, env_files };
    let ext = lower.rsplit_once('.').map(|(_, e)| e);
    KINDS
        .iter()
        .find(|k| {
            ext.is_some_and(|e| k.extensions.contains(&e))
                || k.names.contains(&n.lower)
                || k.special.is_some_and(|special| special(&n))
        })
        .map(|k| k.kind)
}

/// False when `path`'s name cannot be one [`by_name`] takes as code: its
/// extension is none of the code kinds' (they are known by extension
/// alone). A cheap test before the full one, for listings of many files.
pub fn may_be_code(path: &Path) -> bool {
    // The extension as `by_name` reads it: after the name's last `.`.
    let Some(name) = path.file_name().map(|n| n.to_string_lossy()) else { return false };
    let Some((_, ext)) = name.rsplit_once('.') else { return false };
    KINDS.iter().filter(|k| matches!(k.kind, FileKind::Code(_))).any(|k| {
        debug_assert!(k.names.is_empty() && k.special.is_none(), "a code kind is known by its extension alone");
        k.extensions.iter().any(|e| e.eq_ignore_ascii_case(ext))
    })
}

/// The kind the first line of `head` says, by a shebang naming it.
pub fn by_shebang(head: &[u8]) -> Option<FileKind> {
    let first = head.split(|b| *b == b'\n').next().unwrap_or(&[]);
    let first = String::from_utf8_lossy(first);
    if !first.starts_with("#!") {
        return None;
    }
    let words = first.split(|c: char| c == '/' || c.is_whitespace());
    let named = |k: &&Kind| words.clone().any(|w| k.shebangs.contains(&w));
    KINDS.iter().find(named).map(|k| k.kind)
}

/// The pre-commit hook's `files:` pattern: every name the table takes,
/// and every name without an extension (a script by its shebang).
pub fn hook_pattern() -> String {
    let mut parts = Vec::new();
    let exts: Vec<&str> = KINDS.iter().flat_map(|k| k.extensions.iter().copied()).collect();
    parts.push(format!(r"\.({})$", exts.join("|")));
    let names: Vec<&str> = KINDS.iter().flat_map(|k| k.names.iter().copied()).collect();
    parts.push(format!("(^|/)({})$", names.join("|")));
    parts.extend(KINDS.iter().flat_map(|k| k.special_pattern.iter().map(|p| p.to_string())));
    if KINDS.iter().any(|k| !k.shebangs.is_empty()) {
        parts.push(r"(^|/)[^./]+$".to_string());
    }
    format!("(?i)({})", parts.join("|"))
}

/// An env file: `.env`, `.env.local`, `.env.example`, `knobs.env`,
/// `knobs.env.template`, a file named `env`, or one of `[lint] env_files`.
fn env_name(n: &Name<'_>) -> bool {
    let name = n.name;
    n.env_files.iter().any(|e| e == name)
        || name == ".env"
        || name == "env"
        || name.starts_with(".env.")
        || name.ends_with(".env")
        || [".env.template", ".env.example", ".env.sample", ".env.dist"].iter().any(|s| name.ends_with(s))
}

/// A systemd drop-in: a `.conf` file in a `*.service.d` folder.
fn drop_in(n: &Name<'_>) -> bool {
    n.lower.ends_with(".conf")
        && n.path.parent().and_then(|d| d.file_name()).is_some_and(|d| d.to_string_lossy().ends_with(".service.d"))
}

/// `Dockerfile.cuda`, `Containerfile.rocm`.
fn dockerfile_with_suffix(n: &Name<'_>) -> bool {
    n.lower.split_once('.').is_some_and(|(a, _)| a == "dockerfile" || a == "containerfile")
}

fn is_yaml(n: &Name<'_>) -> bool {
    n.lower.ends_with(".yaml") || n.lower.ends_with(".yml")
}

/// The name without its YAML extension.
fn yaml_stem<'n>(n: &Name<'n>) -> &'n str {
    n.lower.trim_end_matches(".yaml").trim_end_matches(".yml")
}

/// A YAML file in `.github/workflows/`.
fn workflow(n: &Name<'_>) -> bool {
    is_yaml(n) && in_workflows(n.path)
}

/// True for a file in `.github/workflows/`.
pub fn in_workflows(path: &Path) -> bool {
    let mut up = path.components().rev().skip(1);
    up.next().is_some_and(|c| c.as_os_str() == "workflows") && up.next().is_some_and(|c| c.as_os_str() == ".github")
}

/// `compose.yaml`, `docker-compose.yml`, `compose.override.yaml`, `docker-compose-gpu.yml`.
fn compose(n: &Name<'_>) -> bool {
    // The stem only for a YAML name: every file walked is asked.
    is_yaml(n) && {
        let stem = yaml_stem(n);
        ["compose", "docker-compose"]
            .iter()
            .any(|c| stem == *c || stem.strip_prefix(c).is_some_and(|r| r.starts_with('.') || r.starts_with('-')))
    }
}

/// `values.yaml`, `values-prod.yaml`, `values.gpu.yaml`.
fn helm_values(n: &Name<'_>) -> bool {
    is_yaml(n) && {
        let stem = yaml_stem(n);
        stem == "values" || stem.starts_with("values-") || stem.starts_with("values.")
    }
}

/// `Procfile`, `Procfile.dev` (as written: `procfile` is not one).
fn procfile(n: &Name<'_>) -> bool {
    n.name == "Procfile" || n.name.strip_prefix("Procfile.").is_some_and(|r| !r.is_empty())
}

/// `*.md`, `*.markdown` (a file named `.md` has no extension).
fn markdown(n: &Name<'_>) -> bool {
    // The extension as `Path::extension` reads it (after a last `.` that
    // does not start the name), from the name already read.
    let ext = n.name.rsplit_once('.').filter(|(stem, _)| !stem.is_empty()).map(|(_, e)| e);
    ext.is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `markdown` reads a name's extension as `Path::extension` does, names
    /// that are not UTF-8 included.
    #[cfg(unix)]
    #[test]
    fn markdown_reads_the_extension_as_the_path_does() {
        use std::os::unix::ffi::OsStrExt;
        let by_path = |p: &Path| {
            let ext = p.extension().and_then(|e| e.to_str());
            ext.is_some_and(|e| e.eq_ignore_ascii_case("md") || e.eq_ignore_ascii_case("markdown"))
        };
        let names: [&[u8]; 18] = [
            b"a.md",
            b".md",
            b".",
            b"a..md",
            b"x.MD",
            b"a.markdown",
            b".markdown",
            b"md",
            b"a.md.bak",
            b"a.\xff",
            b"\xff.md",
            b"a.m\xffd",
            b"..md",
            b"a.",
            b".a.md",
            b"...",
            b"a.Markdown",
            b"\xff",
        ];
        for n in names {
            let p = Path::new("dir").join(std::ffi::OsStr::from_bytes(n));
            let Some(name) = p.file_name().map(|f| f.to_string_lossy()) else { continue };
            let lower = name.to_ascii_lowercase();
            let n = Name { path: &p, name: &name, lower: &lower, env_files: &[] };
            assert_eq!(markdown(&n), by_path(&p), "{p:?}");
        }
    }

    #[test]
    fn every_name_taken_as_code_may_be_code() {
        let names = [
            "a.py",
            "A.PY",
            ".py",
            "x.tar.py",
            "m.go",
            "lib.rs",
            "w.ts",
            "W.TSX",
            "p.java",
            "t.tf",
            "c.html",
            "c.HTM",
            "a.md",
            "a.yaml",
            "Dockerfile",
            "py",
            "a.py.bak",
            "a.",
            "serve.sh",
            ".env",
            "values.yaml",
        ];
        for n in names {
            let p = Path::new("dir").join(n);
            if matches!(by_name(&p, &[]), Some(FileKind::Code(_))) {
                assert!(may_be_code(&p), "{n}");
            }
        }
        assert!(
            may_be_code(Path::new("a.py")) && !may_be_code(Path::new("a.md")) && !may_be_code(Path::new("Makefile"))
        );
    }

    #[test]
    fn every_kind_has_one_row_and_its_examples_are_of_it() {
        let all = [
            FileKind::Markdown,
            FileKind::Env,
            FileKind::Shell,
            FileKind::Systemd,
            FileKind::Quadlet,
            FileKind::Dockerfile,
            FileKind::Compose,
            FileKind::HelmValues,
            FileKind::Yaml,
            FileKind::Batch,
            FileKind::PowerShell,
            FileKind::Makefile,
            FileKind::Procfile,
            FileKind::Workflow,
            FileKind::Json,
            FileKind::Code(CodeLang::Python),
            FileKind::Code(CodeLang::Go),
            FileKind::Code(CodeLang::Rust),
            FileKind::Code(CodeLang::CLike),
            FileKind::Code(CodeLang::Terraform),
            FileKind::Code(CodeLang::Html),
        ];
        // A match without a wildcard: a new kind does not compile here
        // until it is in `all` above (and so must have its row).
        for kind in all {
            match kind {
                FileKind::Markdown
                | FileKind::Env
                | FileKind::Shell
                | FileKind::Systemd
                | FileKind::Quadlet
                | FileKind::Dockerfile
                | FileKind::Compose
                | FileKind::HelmValues
                | FileKind::Yaml
                | FileKind::Batch
                | FileKind::PowerShell
                | FileKind::Makefile
                | FileKind::Procfile
                | FileKind::Workflow
                | FileKind::Json => {}
                FileKind::Code(lang) => match lang {
                    CodeLang::Python
                    | CodeLang::Go
                    | CodeLang::Rust
                    | CodeLang::CLike
                    | CodeLang::Terraform
                    | CodeLang::Html => {}
                },
            }
        }
        assert_eq!(KINDS.len(), all.len());
        for kind in all {
            assert_eq!(KINDS.iter().filter(|k| k.kind == kind).count(), 1, "{kind:?}");
        }
        for k in KINDS {
            assert!(!k.examples.is_empty(), "{:?} has no example", k.kind);
            for e in k.examples {
                assert_eq!(classify(Path::new(e), &[], b""), Some(k.kind), "{e}");
            }
        }
    }

    /// The hook's `files:` line is the table's pattern, and it takes every
    /// example of every kind (and what a shebang makes a script).
    #[test]
    fn the_pre_commit_hook_pattern_is_the_tables() {
        let hooks = include_str!("../.pre-commit-hooks.yaml");
        let line = hooks.lines().find(|l| l.trim_start().starts_with("files:")).unwrap_or_default();
        let written = line.trim_start().trim_start_matches("files:").trim().trim_matches('\'');
        assert_eq!(written, hook_pattern(), ".pre-commit-hooks.yaml's files: is not the table's");
        let re = regex::Regex::new(&hook_pattern()).expect("the pattern compiles");
        for e in KINDS.iter().flat_map(|k| k.examples.iter()) {
            assert!(re.is_match(e), "{e}");
        }
        assert!(re.is_match("svc/serve"));
        for name in ["src/main.c", "Cargo.lock", "knobs.toml", "a.png"] {
            assert!(!re.is_match(name), "{name}");
        }
    }

    #[test]
    fn classification() {
        let none: &[String] = &[];
        assert_eq!(classify(Path::new("a/run.md"), none, b""), Some(FileKind::Markdown));
        assert_eq!(classify(Path::new("svc/.env"), none, b""), Some(FileKind::Env));
        assert_eq!(classify(Path::new("svc/knobs.env"), none, b""), Some(FileKind::Env));
        assert_eq!(classify(Path::new("svc/serve"), none, b"#!/usr/bin/env bash\n"), Some(FileKind::Shell));
        assert_eq!(classify(Path::new("svc/serve"), none, b"#!/usr/bin/python3\n"), None);
        assert_eq!(classify(Path::new("svc/service.conf"), &["service.conf".to_string()], b""), Some(FileKind::Env));
        assert_eq!(classify(Path::new("main.c"), none, b""), None);
        // Source code is read for its queries, by extension.
        assert_eq!(classify(Path::new("main.rs"), none, b""), Some(FileKind::Code(CodeLang::Rust)));
        assert_eq!(classify(Path::new("probe.py"), none, b""), Some(FileKind::Code(CodeLang::Python)));
        assert_eq!(classify(Path::new("alerts.tf"), none, b""), Some(FileKind::Code(CodeLang::Terraform)));
        for env in [".env.example", ".env.local", ".env.production", "knobs.env.template", "svc.env.example"] {
            assert_eq!(classify(Path::new(env), none, b""), Some(FileKind::Env), "{env}");
        }
        assert_eq!(classify(Path::new(".envrc"), none, b""), None);
        // A shell shebang under any name; another interpreter's is not ours.
        assert_eq!(classify(Path::new("svc/serve.conf"), none, b"#!/bin/bash\n"), Some(FileKind::Shell));
        assert_eq!(classify(Path::new("start"), none, b"#!/usr/bin/env zsh\n"), Some(FileKind::Shell));
        assert_eq!(classify(Path::new("run.ps1.txt"), none, b"#!/usr/bin/env pwsh\n"), None);
        assert_eq!(classify(Path::new("svc/serve.conf"), none, b""), None);
        for (name, kind) in [
            ("a.zsh", FileKind::Shell),
            ("a.ksh", FileKind::Shell),
            ("serve.bat", FileKind::Batch),
            ("SERVE.CMD", FileKind::Batch),
            ("serve.ps1", FileKind::PowerShell),
            ("Makefile", FileKind::Makefile),
            ("GNUmakefile", FileKind::Makefile),
            ("rules.mk", FileKind::Makefile),
            ("Procfile", FileKind::Procfile),
            ("Procfile.dev", FileKind::Procfile),
            ("repo/.github/workflows/ci.yml", FileKind::Workflow),
            ("repo/.github/ci.yml", FileKind::Yaml),
            ("workflows/ci.yml", FileKind::Yaml),
        ] {
            assert_eq!(classify(Path::new(name), none, b""), Some(kind), "{name}");
        }
        assert_eq!(classify(Path::new("Procfile."), none, b""), None);
        assert!(by_name(Path::new("serve.conf"), none).is_none() && by_name(Path::new("a.md"), none).is_some());
    }
}
