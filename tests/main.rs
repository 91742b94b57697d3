//! The integration tests: one binary, one module per concept. A new test
//! goes in the module whose comment names what it checks; a helper two
//! modules need goes in `support/`, once.

// Helpers shared by the modules: fixture paths and repositories, running
// knobs, reading its output, the rule fixtures, the input generator.
mod support;

// The command line's own texts and conventions: help, usage errors,
// colour, `--version`, completions and man page, `-q`/`-v`, a closed pipe.
mod cli;

// `knobs server`: a scripted LSP client over stdio, on all three engines.
mod server;

// The shape of src/: line budgets per file, no two sibling modules
// importing each other.
mod structure;

// Each lint rule on its bad and good fixture, at the line and column the
// fixture's `expect:` markers give.
mod rules;
// The output formats (human, short, JSON, GitHub, SARIF) on the same
// findings, and SARIF against the official schema.
mod formats;
// The realistic clean tree: it lints clean, and every mistake planted in it
// is caught on its line.
mod clean_tree;
// How a knob is read where it is written: placeholders, prompts, env
// lines and wrappers in shell blocks, env files' quoting and line ends.
mod reading;
// Which files are read and how: shell by shebang under any name, batch,
// PowerShell, Makefiles, Procfiles, Actions workflows, llama-swap configs,
// and a named file knobs cannot read.
mod files;
// `knobs: ignore[…]` comments: what each covers, and unused ones.
mod suppressions;
// Which files a run reads and what it passes over (binary, large, ignored,
// excluded, symlinks, pipes, unreadable, vanished, endless), and the notes.
mod walk;
// Lint options: `--select`, `--ignore`, per-file ignores, `--exit-zero`,
// `--statistics`, `--fail-on`, standard input.
mod options;
// `--fix` and `--diff`: what is rewritten, and that it lands in place.
mod fix;
// The gate as ruff's users expect it (exit statuses of --fix and --diff,
// `git apply`, fixable marks, excludes, baselines, `--version`), and
// output that stays whole under a long path.
mod gate_like_ruff;
// A project's setup: its pin, synced catalogues, knobs.toml found from the
// linted path, folder pins, `[lint]` settings, `--version`.
mod project;
// Broken knobs.toml, catalogues and overlays: exit 2, the place named.
mod config_errors;
// Deployment files (systemd, Quadlet, Compose, Kubernetes, Dockerfile,
// Helm) and PromQL: the planted defects of `fixtures/deploy`, exactly.
mod deploy;
// llama.cpp as the second engine: its argv rules on its own idiom.
mod llama;
// vLLM as the third engine: its argv, env keys, metrics and deployment files.
mod vllm;
// Monitoring files: dashboards (JSON, in ConfigMaps), PrometheusRules,
// KEDA/HPA objects, prometheus-adapter rules, judged against vLLM's metrics.
mod monitoring;
// Which build judges a monitoring file (the image in reach, a fleet), a
// metric with no labels, queries in code.
mod metric_builds;
// The shapes deployments are written in (issue 32): Helm templates, images
// built from the engine's, compose `.env`, llama-swap block macros, a whole
// command after `docker run IMAGE`; vLLM and llama.cpp.
mod shapes;
// SGLang built in: its Python shapes read (generated options, nargs, custom
// actions, `__main__` parsers, `class Envs`), the history's safety, and
// its deployment files linted.
mod sglang;
mod sglang_files;
// Ollama built in: its Go source read (env keys by reader calls, their
// kinds, cobra flags) and its deployment files linted.
mod ollama;
mod ollama_files;
// text-generation-inference built in: the Rust reader on clap derive
// launchers of three eras, and its deployment files linted.
mod tgi;
// The real-world corpus (fixtures/real-world): every file listed with its
// shape, every expected defect on its line; scripts/real-world.sh scores it.
mod real_world;
// Argument values as operators write them: missing values, options read
// as values, placeholders in docs, one-word exec-form elements, folded YAML.
mod arguments;
// Which program a command line runs: binaries by path, `.exe` and in
// variables, renamed binaries, shells behind shells, wrappers' grammar,
// argv built indirectly, env set on the command line (both engines).
mod programs;
// Hostile file contents: no panic, and exact places for what is judged.
mod hostile;
// Every input the fuzzer once crashed on, through its target's entry point.
mod fuzz_regressions;

// `knobs catalog show|diff|--catalog-dir` and the recorded radiance facts.
mod catalog;
// Every command reads an engine's history: pins to any tag, the nearest
// earlier tag for an untagged build, "removed in" and "exists from",
// explain's spans and `--history`, diffs of two history tags.
mod history_lint;
// The radiance and llama.cpp catalogues against hand-written expectations.
mod expected;
// Each C++ idiom of `fixtures/idioms/` through sync, against its expectation.
mod idioms;
// The Python extractor on fixtures in vLLM's shapes, through sync.
mod python_idioms;
// `knobs sync` end to end: repositories in, catalogues out, its errors.
mod sync;
// Profiles with eras: each tag of a fixture history read from its era's
// files (common.cpp chains, then arg.cpp), and eras that make no sense.
mod eras;
// Each era of llama.cpp read as that era's source reads its argv: the scope
// each binary passed, binaries with their own parsers, chain kinds and
// if-chain members (issue 31).
mod era_argv;
// A sync from a remote fetches only what it reads: one tag at depth 1 from
// `git daemon`, a later one beside it, a missing tag's help from the ref
// list; the listing and many-tag fetch a history sync calls.
mod fetch;

// `knobs sync --all-tags`/`--tags`: a history built from a tagged fixture
// repository, extended, rebuilt, facts only, and read back by every command.
mod history;
// The llama.cpp history knobs embeds: facts only, every tag, offline lint and explain.
mod embedded_history;
// `knobs sync` when the repository, network, cache or output folder fails:
// clear errors, nothing half-written, deadlines; written files' modes.
mod sync_failures;

// Untrusted input: a fetched repository that costs memory or time out of
// proportion, credentials in a URL, a hook path shell would run (issue 22).
mod untrusted;
// The git folder is not project content: no path or symlink leads knobs to
// read, print or write there (issue 29).
mod git_folder;
// A catalogue folder that costs out of proportion to its size: a history's
// state naming a record again and again, a catalogue of 100,000 flags (issue 29).
mod amplification;

// A radiance source that differs from the reconstruction (issue 21): the
// overlay is a hint, the synced repository wins, the difference is shown.
mod first_contact;
// `knobs explain`, `flags`, `rules` and the semantics overlay.
mod explain;
// `knobs verify` against real sockets and argv fixtures.
mod verify;
// The git gate: the pre-commit hook, `--staged`, `--changed-since`.
mod gate;
// The documentation: every command it shows parses, and ARCHITECTURE.md
// names every part of src/.
mod docs;
// Each build's whole metric set (issue 30): every registration file of a
// vLLM tag, series, hidden and deprecated metrics, when a metric is exported.
mod metric_sets;
