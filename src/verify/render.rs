//! A verification for people (plain text, one section per check) and for
//! programs (JSON with the verdict and its reasons).

use std::fmt::Write as _;

use super::meters::{num, Status};
use super::Verification;

/// A value from the engine or its endpoint (an argv word, a name, a URL)
/// on one line, its control characters shown as pictures.
fn one(text: &str) -> std::borrow::Cow<'_, str> {
    crate::pictures::visible(text)
}

/// The human report.
pub fn human(v: &Verification) -> String {
    let mut s = String::new();
    let before = v.before_from.as_deref().map(|b| format!(" (before: {b})")).unwrap_or_default();
    let _ = writeln!(
        s,
        "{}: argv from {}, metrics from {}{}",
        v.build,
        one(&v.argv.from),
        one(&v.metrics_from),
        one(&before)
    );
    if let Some(p) = &v.provenance {
        let _ = writeln!(s, "note: {}", one(p));
    }
    match v.argv.program.as_str() {
        "" => s.push_str("\nargv\n"),
        program => {
            let _ = writeln!(s, "\nargv of {}", one(program));
        }
    }
    for n in &v.argv.notes {
        let _ = writeln!(s, "  note: {}", one(n));
    }
    if v.argv.given.is_empty() {
        let _ = writeln!(s, "  (no arguments)");
    }
    for g in &v.argv.given {
        let value = g.value.as_deref().map(|x| format!(" {x}")).unwrap_or_default();
        let mark = if g.problems.is_empty() { "ok" } else { "error" };
        let _ = writeln!(s, "  {:<40} {mark}", one(&format!("{}{value}", g.written)));
        for p in &g.problems {
            let _ = writeln!(s, "    {}[{}] {}", p.rule, p.code, one(&p.message));
            if let Some(h) = &p.help {
                let _ = writeln!(s, "      help: {}", one(h));
            }
        }
    }
    let _ = writeln!(s, "\nunset, so the default applies");
    let width = v.argv.unset.iter().map(|u| u.flag.len()).max().unwrap_or(0);
    for u in &v.argv.unset {
        let default = if u.default.is_empty() { "(the help table states no default)" } else { &u.default };
        let auto =
            u.auto_means.as_deref().filter(|_| u.default == "auto").map(|a| format!(": {a}")).unwrap_or_default();
        let _ = writeln!(s, "  {:<width$}  {default}{auto}", u.flag);
        if let Some(c) = &u.conditional {
            let _ = writeln!(s, "  {:<width$}  passed only conditionally: {}", "", lower_first(c));
        }
    }
    let sh = &v.shape;
    let _ = writeln!(s, "\nmetric shape");
    let looks = match sh.looks_like.as_deref() {
        Some(t) if t == sh.pinned => format!("looks like {t} (the pinned build)"),
        Some(t) => format!("looks like {t}, not the pinned {}", sh.pinned),
        None => "looks like no catalogued version: each lacks a name it exports".to_string(),
    };
    let _ = writeln!(s, "  {looks}: {} of {} catalogued names exported", sh.exported, sh.catalogued);
    for m in &sh.missing {
        let _ = writeln!(s, "  missing (the build exports it): {m}");
    }
    for m in &sh.extra {
        let _ = writeln!(s, "  not in the catalogue of {}: {m}", sh.pinned);
    }
    for m in &sh.unobserved {
        let _ = writeln!(s, "  not yet observed (labelled: no series before its first): {m}");
    }
    if sh.foreign > 0 {
        let names = if sh.foreign == 1 { "name" } else { "names" };
        let _ = writeln!(s, "  {} {names} outside the engine's prefixes, not compared", sh.foreign);
    }
    if !v.knobs.is_empty() {
        let _ = writeln!(s, "\nknobs");
    }
    let width = v.knobs.iter().map(|k| k.flag.len()).max().unwrap_or(0);
    for k in &v.knobs {
        let _ = writeln!(s, "  {:<width$}  {}", k.flag, k.status.as_str());
        let _ = writeln!(s, "    {}", k.why);
        if let Some(n) = &k.left_out {
            let _ = writeln!(s, "    note: {n}: left out");
        }
        for r in &k.meters {
            let value = r.value.map_or("absent".to_string(), num);
            let before = r.before.map(|b| format!(" (before: {})", num(b))).unwrap_or_default();
            let series = if r.series > 1 { format!(" over {} series", r.series) } else { String::new() };
            let _ = writeln!(s, "    meter {} = {value}{before}{series}", r.metric);
        }
    }
    s.push('\n');
    s.push_str(&verdict(v));
    // Argv words, metric names and URLs come from the engine and its
    // endpoint: their control characters are shown as pictures.
    crate::pictures::visible_lines(&s).into_owned()
}

/// The verdict alone: what `--quiet` prints.
pub fn verdict(v: &Verification) -> String {
    let mut s = String::new();
    let failures = v.failures();
    if failures.is_empty() {
        let what = match v.knobs.len() {
            0 => "argv and metric shape check out (no --knob named)".to_string(),
            1 => "the knob is in argv and engaged".to_string(),
            n => format!("all {n} knobs are in argv and engaged"),
        };
        let _ = writeln!(s, "verified: {what}");
    } else {
        let _ = writeln!(s, "not verified:");
        for f in failures {
            let _ = writeln!(s, "  - {}", one(&f.to_string()));
        }
    }
    crate::pictures::visible_lines(&s).into_owned()
}

/// The JSON report: the verification, whether it passed, and why not.
pub fn json(v: &Verification) -> String {
    let mut value = serde_json::to_value(v).unwrap_or(serde_json::Value::Null);
    if let serde_json::Value::Object(map) = &mut value {
        map.insert("passed".into(), serde_json::Value::Bool(v.passed()));
        map.insert("failures".into(), serde_json::Value::from(v.failures()));
        let engaged = v.knobs.iter().filter(|k| k.status == Status::Engaged).count();
        map.insert("engaged".into(), serde_json::Value::from(engaged));
    }
    serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
}

/// A sentence from the overlay continued after a colon: `Serve scripts …`
/// becomes `serve scripts …` (a word in capitals, `KV …`, is kept).
fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(a), Some(b)) if a.is_uppercase() && !b.is_uppercase() => {
            a.to_lowercase().chain(text[a.len_utf8()..].chars()).collect()
        }
        _ => text.to_string(),
    }
}
