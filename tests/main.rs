//! The integration tests: one binary, one module per concept. A new test
//! goes in the module whose comment names what it checks; a helper two
//! modules need goes in `support/`, once.

// Helpers shared by the modules: fixture paths and repositories, running
// knobs, reading its output, the rule fixtures, the input generator.
mod support;

// The command line's own texts and conventions: help, usage errors,
// colour, `--version`, completions and man page, `-q`/`-v`, a closed pipe.
mod cli;

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
// Hostile file contents: no panic, and exact places for what is judged.
mod hostile;
// Every input the fuzzer once crashed on, through its target's entry point.
mod fuzz_regressions;

// `knobs catalog show|diff|--catalog-dir` and the recorded radiance facts.
mod catalog;
// The radiance and llama.cpp catalogues against hand-written expectations.
mod expected;
// Each C++ idiom of `fixtures/idioms/` through sync, against its expectation.
mod idioms;
// `knobs sync` end to end: repositories in, catalogues out, its errors.
mod sync;
// `knobs sync` when the repository, network, cache or output folder fails:
// clear errors, nothing half-written, deadlines; written files' modes.
mod sync_failures;

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
