//! A verification for people (plain text, one section per check) and for
//! programs (JSON with the verdict and its reasons).

use std::fmt::Write as _;

use super::meters::{num, Status};
use super::Verification;

/// A value from the engine or its endpoint (an argv word, a name, a URL)
/// on one line, its control characters shown as pictures, and cut after
/// [`LONGEST`] characters (marked `…`): an argv word may be a megabyte.
fn one(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(LONGEST) {
        Some((at, _)) => format!("{}…", crate::pictures::visible(&text[..at])).into(),
        None => crate::pictures::visible(text),
    }
}

/// The most entries of one list (argv words, metric names, notes) a
/// report shows: the rest are counted (`… and 12,000 more`). An argv or a
/// scrape is the engine's, so it may be any size; without this the report
/// of a 1 MB argv of unknown flags was 40 times its input.
pub const SHOWN: usize = 100;

/// The most characters of one value a human report shows.
const LONGEST: usize = 200;

/// `  … and N more {what}` when `total` is over [`SHOWN`].
fn more(s: &mut String, total: usize, what: &str) {
    if total > SHOWN {
        let _ = writeln!(s, "  … and {} more {what} (not shown)", total - SHOWN);
    }
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
    for n in v.argv.notes.iter().take(SHOWN) {
        let _ = writeln!(s, "  note: {}", one(n));
    }
    more(&mut s, v.argv.notes.len(), "notes");
    if v.argv.given.is_empty() {
        let _ = writeln!(s, "  (no arguments)");
    }
    for g in v.argv.given.iter().take(SHOWN) {
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
    let rest = v.argv.given.iter().skip(SHOWN);
    let errors: usize = rest.map(|g| g.problems.len()).sum();
    more(&mut s, v.argv.given.len(), &format!("arguments, with {errors} more errors"));
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
    for m in sh.missing.iter().take(SHOWN) {
        let _ = writeln!(s, "  missing (the build exports it): {}", one(m));
    }
    more(&mut s, sh.missing.len(), "missing");
    for m in sh.extra.iter().take(SHOWN) {
        let _ = writeln!(s, "  not in the catalogue of {}: {}", sh.pinned, one(m));
    }
    more(&mut s, sh.extra.len(), "not in the catalogue");
    for m in sh.unobserved.iter().take(SHOWN) {
        let _ = writeln!(s, "  not yet observed (labelled: no series before its first): {}", one(m));
    }
    more(&mut s, sh.unobserved.len(), "not yet observed");
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
/// Each list holds at most [`SHOWN`] entries; `omitted` counts the rest of
/// each list cut (`{"argv.given": 12000}`), so a program knows it was cut.
pub fn json(v: &Verification) -> String {
    let mut value = serde_json::to_value(v).unwrap_or(serde_json::Value::Null);
    let mut omitted = serde_json::Map::new();
    for (list, key) in
        [("argv", "notes"), ("argv", "given"), ("shape", "missing"), ("shape", "unobserved"), ("shape", "extra")]
    {
        if let Some(serde_json::Value::Array(a)) = value.get_mut(list).and_then(|l| l.get_mut(key)) {
            if a.len() > SHOWN {
                omitted.insert(format!("{list}.{key}"), serde_json::Value::from(a.len() - SHOWN));
                a.truncate(SHOWN);
            }
        }
    }
    if let serde_json::Value::Object(map) = &mut value {
        if !omitted.is_empty() {
            map.insert("omitted".into(), serde_json::Value::Object(omitted));
        }
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
