//! The shape compose services and Kubernetes containers share: an `image:`
//! that pins the engine's version, a command that replaces the image's
//! entrypoint (`entrypoint:`, `command:`), the arguments after it
//! (`command:`, `args:`), and an environment that is the engine's only when
//! the container runs the engine. Each is a section of its own. A command
//! is a list or one string, here as in Helm values.

use super::argv::scan_items;
use super::invocation::{pin_image, runs_engine};
use super::items::{scalar_words, Item};
use super::yaml::Node;
use super::{Scan, ScanCtx, Section};
use crate::lint::span::Span;

/// A command given as a list or as one string, as items (`file`: the
/// text the node was read from).
pub(crate) fn items_of(node: &Node, file: &str) -> Vec<Item> {
    match node {
        Node::Seq { items, .. } => items
            .iter()
            .filter_map(|n| match n {
                Node::Scalar { text, at } => Some(Item { text: text.clone(), at: at.clone() }),
                _ => None,
            })
            .collect(),
        Node::Scalar { text, at } => scalar_words(text, at.clone(), file),
        _ => Vec::new(),
    }
}

/// The keys of a container that say what it runs: the command that replaces
/// the image's entrypoint, and the arguments that follow it.
pub(crate) struct Keys {
    pub entrypoint: &'static str,
    pub args: &'static str,
}

/// An image a container's own `image:` does not say: the one its build
/// starts from (a compose service's `build:`), where the build is named,
/// and whether the build sets an entrypoint of its own.
pub(crate) struct Built<'a> {
    pub image: &'a str,
    pub at: std::ops::Range<usize>,
    pub entrypoint: bool,
}

/// Scans one container (a compose service, a Kubernetes container) as a
/// section with its own pin: the image's pin, then its argv; `environment`
/// reads its env knobs when it runs the engine. A build's image (`built`)
/// stands for the container's own.
#[allow(clippy::too_many_arguments)]
pub(crate) fn scan(
    container: &Node,
    keys: &Keys,
    built: Option<Built<'_>>,
    text: &str,
    span: &dyn Fn(usize, usize) -> Span,
    ctx: &ScanCtx<'_>,
    out: &mut Scan,
    environment: impl FnOnce(&mut Scan),
) {
    section(out, |out| {
        let own = container.get("image").and_then(|i| match i {
            Node::Scalar { text, at } => Some((text.as_str(), at.clone())),
            _ => None,
        });
        // A build's own entrypoint takes the command instead of the image's.
        let build_entrypoint = built.as_ref().is_some_and(|b| b.entrypoint);
        let image = match &built {
            Some(b) => Some((b.image, b.at.clone())),
            None => own,
        };
        if let Some((i, at)) = &image {
            pin_image(i, at.clone(), ctx, span, out);
        }
        // A command of its own replaces the image's entrypoint: the image no
        // longer says what runs.
        // (`command:` with nothing after it — a Helm block left out — sets none.)
        let entrypoint =
            container.get(keys.entrypoint).filter(|n| !matches!(n, Node::Scalar { text, .. } if text.is_empty()));
        let evidence = image.as_ref().map(|(i, _)| *i).filter(|_| entrypoint.is_none());
        let image = evidence.filter(|_| !build_entrypoint);
        let mut items = entrypoint.map(|n| items_of(n, text)).unwrap_or_default();
        items.extend(container.get(keys.args).map(|n| items_of(n, text)).unwrap_or_default());
        scan_items(&items, image, text, span, ctx, out);
        // Its environment is the engine's only when it runs the engine.
        if runs_engine(&items, evidence, ctx) {
            environment(out);
        }
    });
}

/// Scans one service or container: what `body` adds to `out` is a section
/// with the pin it recorded, if any.
fn section(out: &mut Scan, body: impl FnOnce(&mut Scan)) {
    let (refs, pins) = (out.refs.len(), out.pins.len());
    body(out);
    let pin = out.pins.get(pins).map(|p| p.0.clone());
    out.sections.push(Section { refs: refs..out.refs.len(), pin });
}
