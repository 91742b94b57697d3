//! compose files (`compose.yaml`, `docker-compose.yml`): per service, an
//! engine `image:` pins the version; `entrypoint:` and `command:` (a list,
//! or a string split as compose splits it) are the argv given to the image;
//! `environment:` (a list of `KEY=value` or a map) holds env knobs. Services
//! of other images keep their commands to themselves.

use super::container::{self, Keys};
use super::yaml::Node;
use super::{env_ref, Scan, ScanCtx};
use crate::lint::span::Span;

/// An `entrypoint:` replaces the image's; `command:` follows it.
const KEYS: Keys = Keys { entrypoint: "entrypoint", args: "command" };

/// Env knobs of an `environment:` list (`KEY=value`) or map (`KEY: value`).
fn environment(node: &Node, span: &dyn Fn(usize, usize) -> Span, out: &mut Scan) {
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
            container::scan(service, &KEYS, text, span, ctx, out, |out| {
                if let Some(env) = service.get("environment") {
                    environment(env, span, out);
                }
            });
        }
    }
}
