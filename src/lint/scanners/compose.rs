//! compose files (`compose.yaml`, `docker-compose.yml`): per service, an
//! engine `image:` pins the version; `entrypoint:` and `command:` (a list,
//! or a string split as compose splits it) are the argv given to the image;
//! `environment:` (a list of `KEY=value` or a map) holds env knobs. Services
//! of other images keep their commands to themselves.

use super::argv::scan_items;
use super::invocation::{pin_image, runs_engine};
use super::items::{split_words, Item};
use super::yaml::Node;
use super::{env_ref, section, Scan, ScanCtx};
use crate::lint::span::Span;

/// A command given as a list or as one string, as items.
pub(crate) fn items_of(node: &Node) -> Vec<Item> {
    match node {
        Node::Seq { items, .. } => items
            .iter()
            .filter_map(|n| match n {
                Node::Scalar { text, at } => Some(Item { text: text.clone(), at: at.clone() }),
                _ => None,
            })
            .collect(),
        Node::Scalar { text, at } => split_words(text, at.start),
        _ => Vec::new(),
    }
}

/// Env knobs of an `environment:` list (`KEY=value`) or map (`KEY: value`).
pub(crate) fn environment(node: &Node, span: &dyn Fn(usize, usize) -> Span, out: &mut Scan) {
    match node {
        Node::Seq { items, .. } => {
            for n in items {
                let Node::Scalar { text, at } = n else { continue };
                let Some((k, v)) = text.split_once('=') else { continue };
                let key_at = at.start..at.start + k.len();
                out.refs.push(env_ref(k, key_at.clone(), v, key_at.end + 1..at.end, span));
            }
        }
        Node::Map { entries, .. } => {
            for (k, kat, v) in entries {
                if let Node::Scalar { text, at } = v {
                    out.refs.push(env_ref(k, kat.clone(), text, at.clone(), span));
                }
            }
        }
        _ => {}
    }
}

pub fn scan(docs: &[Node], text: &str, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan) {
    for doc in docs {
        let Some(services) = doc.get("services") else { continue };
        for (_, _, service) in services.entries() {
            // Each service pins its own version.
            section(out, |out| {
                let image = service.get("image").and_then(|i| match i {
                    Node::Scalar { text, at } => Some((text.as_str(), at.clone())),
                    _ => None,
                });
                if let Some((i, at)) = &image {
                    pin_image(i, at.clone(), ctx, span, out);
                }
                // An `entrypoint:` replaces the image's: the image no longer
                // says what runs.
                let entrypoint = service.get("entrypoint");
                let image = image.as_ref().map(|(i, _)| *i).filter(|_| entrypoint.is_none());
                let mut items = entrypoint.map(items_of).unwrap_or_default();
                items.extend(service.get("command").map(items_of).unwrap_or_default());
                scan_items(&items, image, text, span, ctx, out);
                // Its environment is the engine's only when it runs the engine.
                if let Some(env) = service.get("environment").filter(|_| runs_engine(&items, image, ctx)) {
                    environment(env, span, out);
                }
            });
        }
    }
}
