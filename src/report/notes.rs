//! What `knobs lint` says on standard error beside its findings: files it
//! passed over, notes about the run and its files, and (with `-v`) the
//! version each file was judged against.

use super::visible;
use crate::lint::finding::Report;
use crate::walk::{Skipped, NOT_LINTABLE};

/// The lines for standard error. `unreadable` are named files that could
/// not be read (an error of their own, not a note); `build` is the run's
/// first build (`radiance v1.8.1`); `verbosity` is -1 quiet, 0 normal, 1
/// and up verbose.
pub fn notes(report: &Report, unreadable: &[&Skipped], verbosity: i8, build: Option<&str>) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    if verbosity >= 0 {
        for s in report.skipped.iter().filter(|s| !unreadable.contains(s)) {
            let path = s.path.display().to_string();
            // A file of a kind knobs reads whose content was not read
            // (binary, too large) may hide findings: a warning.
            if s.hides_findings() {
                let _ = writeln!(out, "warning: passed over {}: {}", visible(&path), visible(&s.reason));
            // Files passed over because they are not ours: only with -v.
            } else if s.reason != NOT_LINTABLE || verbosity > 0 {
                let _ = writeln!(out, "note: skipped {}: {}", visible(&path), visible(&s.reason));
            }
        }
        for n in report.all_notes() {
            let _ = writeln!(out, "warning: {}", visible(n));
        }
    }
    if verbosity > 0 {
        let (engine, default_tag) = build.and_then(|b| b.rsplit_once(' ')).unwrap_or(("", ""));
        for f in &report.files {
            if let Some(by) = &f.judged_by {
                let (path, tag, by) = (visible(&f.path), visible(&f.tag), visible(by));
                let _ = writeln!(out, "note: {path}: judged against {engine} {tag}, {by}");
            } else if f.tag != default_tag || verbosity > 1 {
                let _ = writeln!(out, "note: {}: judged against {engine} {}", visible(&f.path), visible(&f.tag));
            }
        }
    }
    out
}
