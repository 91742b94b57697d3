//! Which scanner reads which kind of file: the one place a [`FileKind`]
//! meets its reader. YAML is parsed once here and handed to the reader of
//! what it turns out to be (compose, Helm values, Kubernetes manifests,
//! Prometheus rules, monitoring objects, llama-swap configs, GitHub Actions
//! workflows, a file of the engine's options), JSON to the dashboard
//! reader; the
//! script languages that are not shell (batch, PowerShell, Makefiles,
//! Procfiles) are rewritten as shell and read by the shell scanner.

use super::pairing::ArgvRules;
use super::scanners::{self, Around, Scan, ScanCtx};
use super::{span, suppress, Settings};
use crate::catalog::model::Catalog;
use crate::catalog::query;
use crate::kinds::FileKind;

/// Scans one file's text.
pub fn scan(text: &str, kind: FileKind, settings: &Settings<'_>, catalog: &Catalog) -> Scan {
    scan_around(text, kind, settings, catalog, &Around::default())
}

/// Scans one file's text with what its neighbours say.
pub fn scan_around(text: &str, kind: FileKind, settings: &Settings<'_>, catalog: &Catalog, around: &Around) -> Scan {
    // A byte-order mark is no column (see `span::LineIndex`), so the places
    // found in the text after it are the places in the whole file; without
    // this, a reader that expects `FROM` or `[Unit]` first saw none.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // The binaries as the judged build has them (its era's scopes and parsers).
    let (profile, commands) = settings.at_tag(&catalog.source.tag);
    let tv = |name: &str| query::flag(catalog, profile, name).map(|f| f.values());
    let ctx = ScanCtx {
        commands,
        takes_value: &tv,
        argv: ArgvRules::of(&profile.argv),
        metrics: &settings.metrics,
        env: &profile.env,
    };
    let mut out = Scan::default();
    if !around.is_empty() {
        // Kept, so that a re-scan against another build (a section's pin) reads the same.
        out.around = Some(std::sync::Arc::new(around.clone()));
    }
    match kind {
        FileKind::Markdown => scanners::markdown::scan(text, &ctx, &mut out),
        FileKind::Env => scanners::env::scan(text, &ctx, &mut out),
        FileKind::Shell => {
            let idx = span::LineIndex::new(text);
            scanners::shell::scan(text, &|s, e| idx.span(text, s, e), &ctx, &mut out);
            settings.metrics.scan(text, &|s, e| idx.span(text, s, e), &mut out.refs);
            out.suppressions.extend(suppress::line_comments(text));
        }
        FileKind::Batch | FileKind::PowerShell | FileKind::Makefile | FileKind::Procfile => {
            let rewrite = match kind {
                FileKind::Batch => scanners::batch::to_shell(text),
                FileKind::PowerShell => scanners::powershell::to_shell(text),
                FileKind::Makefile => scanners::makefile::to_shell(text),
                _ => scanners::procfile::to_shell(text),
            };
            let idx = span::LineIndex::new(text);
            rewrite.scan_shell(&|s, e| idx.span(text, s, e), &ctx, &mut out);
            settings.metrics.scan(text, &|s, e| idx.span(text, s, e), &mut out.refs);
            out.suppressions.extend(suppress::line_comments(text));
        }
        FileKind::Systemd => scanners::systemd::scan(text, &ctx, &mut out),
        FileKind::Quadlet => scanners::quadlet::scan(text, &ctx, &mut out),
        FileKind::Dockerfile => scanners::dockerfile::scan(text, &ctx, &mut out),
        FileKind::Code(lang) => {
            let idx = span::LineIndex::new(text);
            scanners::code::scan(text, lang, &|s, e| idx.span(text, s, e), &ctx, &mut out);
            out.suppressions.extend(suppress::line_comments(text));
        }
        FileKind::Json => {
            let idx = span::LineIndex::new(text);
            scanners::dashboards::scan(text, &|s, e| idx.span(text, s, e), &ctx, &mut out);
        }
        FileKind::Compose | FileKind::HelmValues | FileKind::Yaml | FileKind::Workflow => {
            yaml_file(text, kind, settings, catalog, around, &ctx, &mut out)
        }
    }
    out
}

/// A YAML file: read with the YAML parser, then by what it is — compose,
/// Helm values (by name), Kubernetes manifests or Prometheus rules (by
/// content). A file that does not parse is a note naming the line.
fn yaml_file(
    text: &str,
    kind: FileKind,
    settings: &Settings<'_>,
    catalog: &Catalog,
    around: &Around,
    ctx: &ScanCtx<'_>,
    out: &mut Scan,
) {
    use scanners::{actions, compose, helm, kubernetes, llama_swap, monitoring, prom_rules, template, yaml};
    let idx = span::LineIndex::new(text);
    let file = text;
    // A Helm template is read as the YAML it renders to, places kept
    // (`template`): from here on `text` is that rendering.
    let rendered = (kind == FileKind::Yaml && template::is_template(text))
        .then(|| template::render(text, &|path| yaml::scalar_at(&around.values, path)));
    let text = rendered.as_ref().map_or(text, |r| r.text());
    let span = |s: usize, e: usize| {
        let r = rendered.as_ref().map_or(s..e, |r| r.source(s, e));
        idx.span(file, r.start, r.end)
    };
    let line_of = |at: usize| {
        let at = rendered.as_ref().map_or(at, |r| r.source(at, at).start);
        idx.position(file, at).0
    };
    // A document that does not parse is a note; the others are still read.
    // A workflow's triggers are not read (see `actions::without_triggers`).
    let parsed = if kind == FileKind::Workflow { actions::without_triggers(text) } else { text.into() };
    let (docs, errors) = yaml::load_each(&parsed);
    // A Helm template: read again with its actions blanked, for its rules
    // and monitoring objects only.
    if !errors.is_empty() && kind == FileKind::Yaml && text.contains("{{") {
        let (templated, still) = yaml::load_each(&scanners::helm_template::blank_actions(text));
        let read = |d: &scanners::yaml::Node| prom_rules::is_rule_file(d) || monitoring::is_monitoring(d);
        if still.is_empty() && templated.iter().any(read) {
            if templated.iter().any(prom_rules::is_rule_file) {
                prom_rules::scan(&templated, text, &line_of, &span, ctx, out);
            }
            monitoring::scan(&templated, text, &span, ctx, out);
            out.suppressions.extend(suppress::line_comments(text));
            return;
        }
    }
    for e in errors {
        out.notes.push(format!("line {}: not read, the YAML does not parse ({})", line_of(e.at), e.message));
    }
    match kind {
        FileKind::Compose => compose::scan(&docs, text, &around.built, &span, ctx, out),
        FileKind::Workflow => actions::scan(&docs, text, &span, ctx, out),
        FileKind::HelmValues => {
            let keys =
                helm::HelmKeys { keys: &settings.helm_args, named: settings.helm_args_named, bound: &around.bound };
            helm::scan(&docs, &keys, text, &span, ctx, out);
            // A chart's values may hold its rules and adapter rules.
            monitoring::scan(&docs, text, &span, ctx, out);
        }
        _ => {
            // `--config FILE`'s file of options, known by its keys.
            if let Some(doc) = docs.iter().find(|d| scanners::options::is_options_file(d, catalog, settings.profile)) {
                scanners::options::scan(doc, text, &span, out);
            }
            if docs.iter().any(kubernetes::is_manifest) {
                kubernetes::scan(&docs, text, &span, ctx, out);
            }
            if docs.iter().any(llama_swap::is_config) {
                llama_swap::scan(&docs, text, &span, ctx, out);
            }
            if docs.iter().any(prom_rules::is_rule_file) {
                prom_rules::scan(&docs, text, &line_of, &span, ctx, out);
            }
            monitoring::scan(&docs, text, &span, ctx, out);
        }
    }
    out.suppressions.extend(suppress::line_comments(file));
}

/// A YAML file of the engine's options that an argv names (`--config
/// FILE`), read as one whatever its keys, and judged against `tag`.
pub fn options_scan(text: &str, tag: &str) -> Scan {
    use scanners::{options, yaml};
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let idx = span::LineIndex::new(text);
    let span = |s: usize, e: usize| idx.span(text, s, e);
    let mut out = Scan::default();
    let (docs, errors) = yaml::load_each(text);
    for e in errors {
        let line = idx.position(text, e.at).0;
        out.notes.push(format!("line {line}: not read, the YAML does not parse ({})", e.message));
    }
    if let Some(doc) = docs.first() {
        options::scan(doc, text, &span, &mut out);
    }
    // The build the naming argv is judged against, as a pin at the top.
    out.pins.push((tag.to_string(), span(0, 0)));
    out.suppressions.extend(suppress::line_comments(text));
    out
}
