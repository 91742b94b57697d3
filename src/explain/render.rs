//! The three ways `knobs explain` prints a topic: human text wrapped at 88
//! columns, Markdown for a runbook vault, and JSON.

use std::fmt::Write as _;

use super::Topic;
use crate::catalog::model::short_commit;

/// Wraps prose at 88 columns under an indent.
fn wrap(text: &str, indent: &str) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && indent.len() + line.len() + 1 + word.len() > 88 {
            let _ = writeln!(out, "{indent}{line}");
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        let _ = writeln!(out, "{indent}{line}");
    }
    out
}

/// A sentence with its first letter in capitals.
fn capital(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

fn field(out: &mut String, key: &str, value: &str) {
    if value.is_empty() {
        return;
    }
    let wrapped = wrap(value, "              ");
    let _ = write!(out, "  {key:<10}  {}", wrapped.trim_start());
}

/// Human text.
pub fn human(t: &Topic) -> String {
    let mut out = String::new();
    match t {
        Topic::Rule(r) => {
            let _ = writeln!(out, "{} {} ({} by default)\n", r.code, r.name, r.severity.as_str());
            let _ = writeln!(out, "{}", r.doc());
        }
        Topic::Flag(e) => {
            let f = &e.flag;
            let role = e.semantics.as_ref().map(|s| format!(" — {}", s.role)).unwrap_or_default();
            let _ = writeln!(out, "{}{role}", f.name);
            let _ = writeln!(out, "{} ({})", e.build, short_commit(&e.commit));
            if let Some(p) = &e.provenance {
                let _ = writeln!(out, "note: {}", crate::pictures::visible(p));
            }
            if !e.in_pinned {
                let _ = writeln!(out, "not in {}: shown as the newest catalogued version that has it", e.build);
            }
            let _ = writeln!(out);
            if !f.aliases.is_empty() {
                field(&mut out, "aliases", &f.aliases.join(", "));
            }
            let value = if f.metavar.is_empty() {
                f.kind.as_str().to_string()
            } else {
                format!("{} ({})", f.metavar, f.kind.as_str())
            };
            field(&mut out, "value", &value);
            if !f.members.is_empty() {
                field(&mut out, "members", &f.members.join(", "));
                if let (Some(from), Some(loc)) = (&f.members_from, &e.members_at) {
                    let closed = if from.closed { "; any other value is refused at boot" } else { "; an open set" };
                    field(&mut out, "", &format!("from the {} at {loc}{closed}", from.origin.replace('-', " ")));
                }
            }
            let default = if f.default.is_empty() { "none in the source".to_string() } else { f.default.clone() };
            field(&mut out, "default", &default);
            if let Some(a) = &f.auto_means {
                field(&mut out, "auto", a);
            }
            field(&mut out, "help", &f.help);
            field(&mut out, "declared", &e.declared_at);
            if let Some(removed) = &f.removed {
                field(&mut out, "removed", &format!("still parsed, always refused: {removed}"));
            }
            if !f.negated.is_empty() {
                field(&mut out, "negated", &f.negated.join(", "));
            }
            if let Some(key) = &e.env_key {
                let env = if !e.env_prefixable {
                    key.clone()
                } else if key.contains('_') {
                    format!("{key} (a service prefix is allowed: SVC_{key})")
                } else {
                    format!("{key} (exactly: a one-word key takes no service prefix)")
                };
                field(&mut out, "env", &env);
            }
            if !e.binaries.is_empty() {
                field(&mut out, "binaries", &e.binaries.join(", "));
            }
            for (key, script) in &e.read_by {
                field(&mut out, "read as", &format!("{key} by {script}"));
            }
            if let Some(sem) = &e.semantics {
                let _ = writeln!(out, "\nWhat it does\n{}", wrap(&sem.does, "  ").trim_end());
                if let Some(c) = &sem.costs {
                    let _ = writeln!(out, "\nWhat it costs\n{}", wrap(c, "  ").trim_end());
                }
                if !e.meters.is_empty() {
                    let _ = writeln!(out, "\nMeters (must move once armed)");
                    for m in &e.meters {
                        let ty = m.r#type.as_deref().map(|t| format!(" ({t})")).unwrap_or_default();
                        let _ = writeln!(out, "  present  {}{ty}", m.name);
                    }
                }
                if !sem.related.is_empty() {
                    let _ = writeln!(out, "\nRelated\n  {}", sem.related.join(", "));
                }
                if let Some(r) = &sem.rollback {
                    let _ = writeln!(out, "\nRollback\n  {r}");
                }
                if let Some(c) = &sem.conditional {
                    let _ = writeln!(out, "\nServe-script caveat\n{}", wrap(c, "  ").trim_end());
                }
                if !e.omitted.is_empty() {
                    let names = e.omitted.iter().map(|o| format!("`{o}`")).collect::<Vec<_>>().join(", ");
                    let _ = writeln!(out, "\n(The overlay says more of {names}, which {} lacks.)", e.build);
                }
                if let Some(n) = &e.unregistered_note {
                    let _ = writeln!(out, "\n({}: left out.)", capital(n));
                }
            }
            let _ = writeln!(out, "\nHistory");
            for s in &e.spans {
                let _ = writeln!(out, "  {:<12}  {}", s.tags, s.shape);
            }
            for v in e.history.iter().filter(|_| e.spans.is_empty()) {
                let _ = writeln!(out, "  {:<10}  {}", v.tag, v.change);
            }
        }
        Topic::EnvKey(e) => {
            let k = &e.key;
            let _ = writeln!(out, "{} — env key", k.name);
            let _ = writeln!(out, "{}", e.build);
            if let Some(p) = &e.provenance {
                let _ = writeln!(out, "note: {}", crate::pictures::visible(p));
            }
            if !e.in_pinned {
                let _ = writeln!(out, "not read by {}: shown as the newest catalogued version that reads it", e.build);
            }
            let _ = writeln!(out);
            field(&mut out, "value", if k.kind.is_empty() { "not said by the source" } else { &k.kind });
            if !k.members.is_empty() {
                field(&mut out, "members", &k.members.join(", "));
            }
            field(&mut out, "default", if k.default.is_empty() { "none in the source" } else { &k.default });
            field(&mut out, "help", &k.help);
            field(&mut out, "read at", &k.location);
            if k.deprecated {
                let instead = if k.successor.is_empty() { String::new() } else { format!(": use {}", k.successor) };
                field(&mut out, "deprecated", &format!("still read, and warned about{instead}"));
            }
            let _ = writeln!(out, "\nVersions");
            for v in &e.versions {
                let _ = writeln!(out, "  {:<10}  {}", v.tag, v.change);
            }
        }
        Topic::Metric(e) => {
            let m = &e.metric;
            let _ = writeln!(out, "{} — {}", m.name, m.kind.as_str());
            let _ = writeln!(out, "{}", e.build);
            if let Some(p) = &e.provenance {
                let _ = writeln!(out, "note: {}", crate::pictures::visible(p));
            }
            if !e.in_pinned {
                let _ = writeln!(out, "not exported by {}", e.build);
            }
            let _ = writeln!(out);
            field(&mut out, "help", &m.help);
            if !m.labels.is_empty() {
                field(&mut out, "labels", &m.labels.join(", "));
            }
            field(&mut out, "declared", &m.location);
            if !m.samples.is_empty() {
                field(&mut out, "series", &m.samples.join(", "));
            }
            if let Some(by) = &m.shown_by {
                field(&mut out, "exported", &format!("only with {by}"));
            }
            if let Some(d) = &m.deprecated {
                field(&mut out, "deprecated", d);
            }
            if let Some(next) = &m.successor {
                field(&mut out, "successor", next);
            }
            if let Some(s) = &e.semantics {
                let _ = writeln!(out, "\nWhat it measures\n{}", wrap(&s.measures, "  ").trim_end());
                if let Some(t) = &s.trap {
                    let _ = writeln!(out, "\nTrap\n{}", wrap(t, "  ").trim_end());
                }
            }
            if let Some(o) = &e.other_prefix {
                let _ = writeln!(out, "\nPrefix\n  `{o}` exists too: check which one you mean");
            }
            if !e.metered_for.is_empty() {
                let _ = writeln!(out, "\nMeter for\n  {}", e.metered_for.join(", "));
            }
            let _ = writeln!(out, "\nVersions");
            for v in &e.versions {
                let _ = writeln!(out, "  {:<10}  {}", v.tag, v.change);
            }
        }
    }
    // Help text comes from fetched source: its control characters are
    // shown as pictures.
    crate::pictures::visible_lines(&out).into_owned()
}

/// Markdown, for a runbook vault.
pub fn markdown(t: &Topic) -> String {
    let mut out = String::new();
    match t {
        Topic::Rule(r) => {
            let _ = writeln!(out, "# {} `{}`\n\nDefault severity: {}.\n", r.code, r.name, r.severity.as_str());
            let _ = writeln!(out, "{}", r.doc());
        }
        Topic::Flag(e) => {
            let f = &e.flag;
            let _ = writeln!(out, "# `{}`\n", f.name);
            if let Some(sem) = &e.semantics {
                let _ = writeln!(out, "*{}*\n", sem.role);
            }
            let _ = writeln!(out, "- build: {} (`{}`)", e.build, short_commit(&e.commit));
            if let Some(p) = &e.provenance {
                let _ = writeln!(out, "- note: {}", crate::pictures::visible(p));
            }
            if !f.metavar.is_empty() {
                let _ = writeln!(out, "- value: `{}` ({})", f.metavar, f.kind.as_str());
            } else {
                let _ = writeln!(out, "- value: {}", f.kind.as_str());
            }
            if !f.members.is_empty() {
                let members: Vec<String> = f.members.iter().map(|m| format!("`{m}`")).collect();
                let _ =
                    writeln!(out, "- members: {} (`{}`)", members.join(", "), e.members_at.as_deref().unwrap_or(""));
            }
            if !f.default.is_empty() {
                let _ = writeln!(out, "- default: `{}`", f.default);
            }
            if let Some(a) = &f.auto_means {
                let _ = writeln!(out, "- `auto`: {a}");
            }
            if let Some(key) = &e.env_key {
                let _ = writeln!(out, "- env: `{key}`");
            }
            let _ = writeln!(out, "- declared: `{}`", e.declared_at);
            // One line: a help text's own line breaks could start a CI command.
            let _ = writeln!(out, "\n{}", crate::pictures::visible(&f.help));
            if let Some(sem) = &e.semantics {
                let _ = writeln!(out, "\n## What it does\n\n{}", sem.does);
                if let Some(c) = &sem.costs {
                    let _ = writeln!(out, "\n## What it costs\n\n{c}");
                }
                if !e.meters.is_empty() {
                    let _ = writeln!(out, "\n## Meters\n");
                    for m in &e.meters {
                        let _ = writeln!(out, "- `{}` (present)", m.name);
                    }
                }
                if let Some(n) = &e.unregistered_note {
                    let _ = writeln!(out, "\n*{}: left out.*", capital(n));
                }
                if let Some(r) = &sem.rollback {
                    let _ = writeln!(out, "\n## Rollback\n\n```sh\n{r}\n```");
                }
            }
            let _ = writeln!(out, "\n## History\n");
            for s in &e.spans {
                let _ = writeln!(out, "- {}: {}", s.tags, s.shape);
            }
            for v in e.history.iter().filter(|_| e.spans.is_empty()) {
                let _ = writeln!(out, "- {}: {}", v.tag, v.change);
            }
        }
        Topic::EnvKey(e) => {
            let k = &e.key;
            let _ = writeln!(out, "# `{}`\n\n- env key of {}", k.name, e.build);
            if !k.kind.is_empty() {
                let _ = writeln!(out, "- value: {}", k.kind);
            }
            if !k.members.is_empty() {
                let members: Vec<String> = k.members.iter().map(|m| format!("`{m}`")).collect();
                let _ = writeln!(out, "- members: {}", members.join(", "));
            }
            if !k.default.is_empty() {
                let _ = writeln!(out, "- default: `{}`", k.default);
            }
            let _ = writeln!(out, "- read at: `{}`", k.location);
            if !k.help.is_empty() {
                let _ = writeln!(out, "\n{}", crate::pictures::visible(&k.help));
            }
        }
        Topic::Metric(e) => {
            let _ = writeln!(
                out,
                "# `{}`\n\n- type: {}\n- build: {}\n\n{}",
                e.metric.name,
                e.metric.kind.as_str(),
                e.build,
                crate::pictures::visible(&e.metric.help)
            );
            if let Some(s) = &e.semantics {
                let _ = writeln!(out, "\n{}", s.measures);
                if let Some(t) = &s.trap {
                    let _ = writeln!(out, "\n> **Trap:** {t}");
                }
            }
        }
    }
    // Help text comes from fetched source: its control characters are
    // shown as pictures.
    crate::pictures::visible_lines(&out).into_owned()
}

/// JSON.
pub fn json(t: &Topic) -> String {
    let v = match t {
        Topic::Rule(r) => serde_json::json!({
            "kind": "rule", "code": r.code, "name": r.name, "severity": r.severity.as_str(), "doc": r.doc(),
        }),
        Topic::Flag(e) => serde_json::json!({"kind": "flag", "flag": e}),
        Topic::Metric(e) => serde_json::json!({"kind": "metric", "metric": e}),
        Topic::EnvKey(e) => serde_json::json!({"kind": "env_key", "env_key": e}),
    };
    serde_json::to_string_pretty(&v).map(|s| s + "\n").unwrap_or_default()
}
