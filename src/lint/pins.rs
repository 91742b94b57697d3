//! Image pins: a deployment file (a unit, a Dockerfile, compose, Kubernetes,
//! Helm values) that names the engine's image with a tag is judged against
//! that version's catalogue (a catalogue file's, else the history's), and a
//! compose service or a container with an image of its own against its own.
//! A pin between two tags of the history (an untagged build) is judged by
//! the nearest earlier tag, with a note that says so; a pin older than
//! every catalogued build is not judged (a newer build would call its
//! flags wrong), with a note that says so. Under `--tag` no pin counts.

use super::dispatch::scan_around;
use super::refs::Ref;
use super::scanners::Scan;
use super::Settings;
use crate::catalog::model::Catalog;
use crate::kinds::FileKind;

/// A file's refs grouped by the catalogue each is judged against, the
/// file's own group (against `catalog`, or the version its image pins)
/// first. `scan` is the file's scan as read with `catalog`; it is read
/// again as a pinned version reads it (which flags take values), and its
/// refs are taken. Notes name pins with no catalogue, `shown` naming the
/// file.
pub(crate) fn group<'a>(
    text: &str,
    kind: FileKind,
    shown: &str,
    settings: &Settings<'a>,
    mut catalog: &'a Catalog,
    scan_out: &mut Scan,
    notes: &mut Vec<String>,
) -> Vec<(&'a Catalog, Vec<Ref>)> {
    let mut groups: Vec<(&Catalog, Vec<Ref>)> = Vec::new();
    // A re-scan against another build reads what the file's neighbours said, as the first did.
    let around = scan_out.around.as_deref().cloned().unwrap_or_default();
    // A whole file is pinned only by a deployment file's image; in a
    // runbook or a script an image pins just the command that runs it (a
    // section), and an env file's pin is its folder's (`folder.rs`).
    let file_level = kind.image_pins_file();
    let what = if scan_out.sections.iter().any(|s| s.pin.is_some()) { "the command it pins is" } else { "the file is" };
    {
        let note_once = |note: String, notes: &mut Vec<String>| {
            if !notes.contains(&note) {
                notes.push(note);
            }
        };
        let pinned_to = |pin: &str, notes: &mut Vec<String>| match settings.pinned(pin) {
            Some((c, false)) => Some(c),
            Some((c, true)) => {
                let note = format!(
                    "{shown}: pins {} {pin}, which has no catalogue of its own: judged against {}, the nearest earlier tag{}",
                    settings.catalog.source.engine,
                    c.source.tag,
                    settings.sync_hint(pin)
                );
                note_once(note, notes);
                Some(c)
            }
            None => {
                let unjudged = settings.unjudged(pin, what);
                let note = format!("{shown}: pins {} {pin}, {unjudged}", settings.catalog.source.engine);
                note_once(note, notes);
                None
            }
        };
        if scan_out.sections.iter().any(|s| s.pin.is_some()) {
            // Refs outside a pinned section stay with the file's catalogue.
            let pins: Vec<String> =
                scan_out.sections.iter().filter_map(|s| s.pin.clone()).fold(Vec::new(), |mut v, p| {
                    if !v.contains(&p) {
                        v.push(p);
                    }
                    v
                });
            // Which of the file's refs a pinned section takes, by their
            // place in the file's scan (taken once, after every pin).
            let mut taken: Vec<std::ops::Range<usize>> = Vec::new();
            for pin in pins {
                // A pin older than every catalogued build: its section is not judged.
                let found = pinned_to(&pin, notes);
                if let Some(c) = found.filter(|c| !std::ptr::eq(*c, catalog)) {
                    // Read again as that version reads it (which flags take values).
                    let from = scan_around(text, kind, settings, c, &around);
                    let refs: Vec<Ref> = (from.sections.iter().filter(|s| s.pin.as_deref() == Some(pin.as_str())))
                        .flat_map(|s| from.refs.get(s.refs.clone()).unwrap_or_default().iter().cloned())
                        .collect();
                    groups.push((c, refs));
                } else if found.is_some() {
                    continue;
                }
                // ...and those refs leave the file's group.
                taken.extend(
                    scan_out.sections.iter().filter(|s| s.pin.as_deref() == Some(pin.as_str())).map(|s| s.refs.clone()),
                );
            }
            scan_out.refs = std::mem::take(&mut scan_out.refs)
                .into_iter()
                .enumerate()
                .filter(|(i, _)| !taken.iter().any(|r| r.contains(i)))
                .map(|(_, r)| r)
                .collect();
        } else if let Some((pin, _)) = scan_out.pins.first().cloned().filter(|_| file_level) {
            match pinned_to(&pin, notes) {
                Some(pinned) if !std::ptr::eq(pinned, catalog) => {
                    catalog = pinned;
                    *scan_out = scan_around(text, kind, settings, catalog, &around);
                }
                Some(_) => {}
                // Older than every catalogued build: the file is not judged.
                None => scan_out.refs.clear(),
            }
        }
    }
    groups.insert(0, (catalog, std::mem::take(&mut scan_out.refs)));
    groups
}
