//! compose files (`compose.yaml`, `docker-compose.yml`): per service, an
//! engine `image:` pins the version; `entrypoint:` and `command:` (a list,
//! or a string split as compose splits it) are the argv given to the image;
//! `environment:` (a list of `KEY=value` or a map) holds env knobs. Services
//! of other images keep their commands to themselves. A service built from
//! a Dockerfile (`build:`) runs what that Dockerfile starts `FROM`: an
//! engine image there is the service's image and pins it (read beside the
//! compose file by `around`). The `env_file:` files of a service that runs
//! the engine are named, to be read as the engine's env files.

use std::collections::HashMap;

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

/// The image a service's build starts from (its Dockerfile's last `FROM`),
/// and whether that Dockerfile sets an entrypoint of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Built {
    pub image: String,
    pub entrypoint: bool,
}

/// Each service's build, as written: (service, context folder, Dockerfile
/// path from the context). `build: ./dir` or `build: {context, dockerfile}`.
pub fn builds(docs: &[Node]) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for doc in docs {
        for (name, _, service) in doc.get("services").map(Node::entries).unwrap_or_default() {
            let (context, dockerfile) = match service.get("build") {
                Some(Node::Scalar { text, .. }) => (text.as_str(), "Dockerfile"),
                Some(b @ Node::Map { .. }) => (
                    b.get("context").and_then(Node::str).unwrap_or("."),
                    b.get("dockerfile").and_then(Node::str).unwrap_or("Dockerfile"),
                ),
                _ => continue,
            };
            out.push((name.clone(), context.to_string(), dockerfile.to_string()));
        }
    }
    out
}

/// The files a service's `env_file:` names (one, or a list; an entry may
/// be a map with `path:`).
fn env_files(service: &Node) -> Vec<String> {
    let one = |n: &Node| n.str().or_else(|| n.get("path").and_then(Node::str)).map(str::to_string);
    match service.get("env_file") {
        Some(n @ Node::Scalar { .. }) => one(n).into_iter().collect(),
        Some(Node::Seq { items, .. }) => items.iter().filter_map(one).collect(),
        _ => Vec::new(),
    }
}

pub fn scan(
    docs: &[Node],
    text: &str,
    built: &HashMap<String, Built>,
    span: &dyn Fn(usize, usize) -> Span,
    ctx: &ScanCtx<'_>,
    out: &mut Scan,
) {
    for doc in docs {
        let Some(services) = doc.get("services") else { continue };
        for (name, _, service) in services.entries() {
            let from = built.get(name).zip(service.get("build")).map(|(b, node)| container::Built {
                image: &b.image,
                at: node.at(),
                entrypoint: b.entrypoint,
            });
            // Each service pins its own version.
            container::scan(service, &KEYS, from, text, span, ctx, out, |out| {
                if let Some(env) = service.get("environment") {
                    environment(env, span, out);
                }
                out.env_files.extend(env_files(service));
            });
        }
    }
}
