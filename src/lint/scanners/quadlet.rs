//! Podman Quadlet container units (`*.container`): `Image=` pins the engine
//! version, `Exec=` is the argv given to the image (its entrypoint's
//! arguments, or a command), `Environment=` assignments are env knobs and
//! the file `EnvironmentFile=` names (beside the unit) is an env file.

use super::argv::scan_items;
use super::invocation::pin_image;
use super::items::split_words;
use super::{unit, Scan, ScanCtx};
use crate::lint::span::LineIndex;

pub fn scan(text: &str, ctx: &ScanCtx<'_>, out: &mut Scan) {
    let idx = LineIndex::new(text);
    let span = |s: usize, e: usize| idx.span(text, s, e);
    let entries = unit::entries(text);
    let image = entries.iter().find(|e| e.section == "Container" && e.key == "Image");
    if let Some(i) = image {
        let v = i.value.trim();
        let lead = i.value.len() - i.value.trim_start().len();
        pin_image(v, i.at + lead..i.at + lead + v.len(), ctx, &span, out);
    }
    for e in entries.iter().filter(|e| e.section == "Container") {
        match e.key.as_str() {
            "Exec" => {
                let items = split_words(&e.value, e.at);
                scan_items(&items, image.map(|i| i.value.trim()), text, &span, ctx, out);
            }
            _ => unit::environment(e, &span, out),
        }
    }
    out.suppressions.extend(crate::lint::suppress::line_comments(text));
}
