//! Helm `values.yaml`: an engine `image:` (`repo:tag`, or a map with
//! `repository` and `tag`) pins the version, and the list under each key the
//! project names (`[lint] helm_args`, default `extraArgs`, matched as the end
//! of a dotted path such as `engine.extraArgs`) is the engine's extra argv.
//! With the default key, a values file that names no engine image is left
//! alone (another chart's `extraArgs` are not the engine's), and so is a list
//! whose nearest `image:` is another program's (`sidecar.extraArgs`). An
//! `env:` (or `extraEnv:`) list or map whose nearest `image:` is the
//! engine's holds env knobs. A list the chart's own templates expand under
//! a container's `command:` (a whole command) or `args:` (the image's
//! arguments) is argv, whatever its key (vLLM's chart: `image.command`).

use super::argv::scan_items;
use super::container::items_of;
use super::invocation::{engine_image, pin_image};
use super::template::Use;
use super::yaml::Node;
use super::{env_ref, Scan, ScanCtx};
use crate::lint::span::Span;

/// The values keys that hold the engine container's environment.
const ENV_KEYS: &[&str] = &["env", "extraEnv"];

/// Env knobs of an `env:` list (`- name: K` / `value: V`) or map (`K: V`).
fn environment(n: &Node, span: &dyn Fn(usize, usize) -> Span, out: &mut Scan) {
    match n {
        Node::Seq { items, .. } => {
            for var in items {
                let (Some(Node::Scalar { text: k, at: kat }), Some(Node::Scalar { text: v, at: vat })) =
                    (var.get("name"), var.get("value"))
                else {
                    continue;
                };
                out.refs.push(env_ref(k, kat.clone(), v, vat.clone(), span));
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

/// Settings the Helm reader takes from knobs.toml.
pub struct HelmKeys<'a> {
    pub keys: &'a [String],
    /// The user named the keys: judged even without an engine image.
    pub named: bool,
    /// Values paths the chart's own templates expand under a container's
    /// `command:` or `args:` (see `template::bound_lists`).
    pub bound: &'a [(String, Use)],
}

/// Every node with its dotted path, walked with a stack.
fn walk(doc: &Node) -> Vec<(String, &Node)> {
    let mut out = Vec::new();
    let mut stack = vec![(String::new(), doc)];
    while let Some((path, n)) = stack.pop() {
        if let Node::Map { entries, .. } = n {
            for (k, _, v) in entries.iter().rev() {
                let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                stack.push((p, v));
            }
        }
        out.push((path, n));
    }
    out
}

/// An image reference a values node holds: `repo:tag`, or `{repository, tag}`.
fn image_of(n: &Node) -> Option<(String, std::ops::Range<usize>)> {
    match n {
        Node::Scalar { text, at } => Some((text.clone(), at.clone())),
        Node::Map { .. } => {
            let repo = n.get("repository")?.str()?;
            match n.get("tag") {
                Some(Node::Scalar { text, at }) if !text.is_empty() => Some((format!("{repo}:{text}"), at.clone())),
                _ => Some((repo.to_string(), n.get("repository")?.at())),
            }
        }
        _ => None,
    }
}

pub fn scan(
    docs: &[Node],
    keys: &HelmKeys<'_>,
    text: &str,
    span: &dyn Fn(usize, usize) -> Span,
    ctx: &ScanCtx<'_>,
    out: &mut Scan,
) {
    for doc in docs {
        let nodes = walk(doc);
        let mut engine: Option<String> = None;
        // Where each image is set (the map holding `image:`) and whether it is the engine's.
        let mut images: Vec<(&str, bool)> = Vec::new();
        for (path, n) in &nodes {
            if path.rsplit('.').next() != Some("image") {
                continue;
            }
            let Some((image, at)) = image_of(n) else { continue };
            let is_engine = engine_image(&image, ctx).is_some();
            images.push((path.strip_suffix("image").unwrap_or("").trim_end_matches('.'), is_engine));
            if is_engine {
                // A `tag:` of its own points at the tag; `repo:tag` at the string.
                let tag_at = if image.contains(':') && n.get("tag").is_some() { at.clone() } else { at };
                let before = out.pins.len();
                pin_image(&image, tag_at, ctx, span, out);
                if engine.is_none() || out.pins.len() > before {
                    engine = Some(image);
                }
            }
        }
        // Without an engine image, only a whole command the chart runs can
        // say that it is the engine.
        let gated = engine.is_none() && !keys.named;
        if gated && keys.bound.iter().all(|(_, u)| *u != Use::Command) {
            continue;
        }
        // Without an image in the file, the args are the engine's all the same.
        let image = engine.or_else(|| ctx.commands.images().first().cloned());
        for (path, n) in &nodes {
            let listed = keys.keys.iter().any(|k| path == k || path.ends_with(&format!(".{k}")));
            // With the default key, a list beside another program's image
            // (`sidecar.image` + `sidecar.extraArgs`) is that program's.
            let owner = (images.iter())
                .filter(|(at, _)| at.is_empty() || path.starts_with(&format!("{at}.")))
                .max_by_key(|(at, _)| at.len());
            let foreign = !keys.named && owner.is_some_and(|(_, is_engine)| !is_engine);
            // A list the chart's templates expand as a whole command, or as
            // the arguments of its container (the chart says so: no guess).
            let bound = keys.bound.iter().find(|(p, _)| p == path).map(|(_, u)| *u);
            match bound {
                Some(Use::Command) => scan_items(&items_of(n, text), None, text, span, ctx, out),
                _ if gated => {}
                Some(Use::Args) => scan_items(&items_of(n, text), image.as_deref(), text, span, ctx, out),
                None if listed && !foreign && matches!(n, Node::Seq { .. }) => {
                    scan_items(&items_of(n, text), image.as_deref(), text, span, ctx, out);
                }
                None => {}
            }
            // `env:` beside the engine's image: a list of `{name, value}` or a map.
            let last = path.rsplit('.').next().unwrap_or("");
            let engine_owned = owner.is_some_and(|(_, is_engine)| *is_engine);
            if ENV_KEYS.contains(&last) && engine_owned {
                environment(n, span, out);
            }
        }
    }
}
