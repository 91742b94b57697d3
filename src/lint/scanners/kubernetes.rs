//! Kubernetes manifests (one or many documents): for the workloads that run
//! containers (Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job,
//! CronJob), each container's engine `image:` pins the version, `command:`
//! and `args:` are the argv given to the image, and `env:` names and values
//! are env knobs. Other containers and other kinds are left alone.

use super::argv::scan_items;
use super::compose::items_of;
use super::invocation::{pin_image, runs_engine};
use super::yaml::Node;
use super::{env_ref, section, Scan, ScanCtx};
use crate::lint::span::Span;

/// True when a document is a Kubernetes object.
pub fn is_manifest(doc: &Node) -> bool {
    doc.get("apiVersion").is_some() && doc.get("kind").is_some()
}

/// The pod spec of a workload document.
fn pod_spec(doc: &Node) -> Option<&Node> {
    match doc.get("kind")?.str()? {
        "Pod" => doc.get("spec"),
        "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet" | "Job" | "ReplicationController" => {
            doc.path("spec.template.spec")
        }
        "CronJob" => doc.path("spec.jobTemplate.spec.template.spec"),
        _ => None,
    }
}

pub fn scan(docs: &[Node], text: &str, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan) {
    for spec in docs.iter().filter_map(pod_spec) {
        let containers = ["initContainers", "containers"].into_iter().filter_map(|k| spec.get(k));
        for container in containers.flat_map(Node::items) {
            // Each container pins its own version.
            section(out, |out| {
                let image = container.get("image").and_then(|i| match i {
                    Node::Scalar { text, at } => Some((text.as_str(), at.clone())),
                    _ => None,
                });
                if let Some((i, at)) = &image {
                    pin_image(i, at.clone(), ctx, span, out);
                }
                // `command:` replaces the image's entrypoint: the image no
                // longer says what runs.
                let command = container.get("command");
                let image = image.as_ref().map(|(i, _)| *i).filter(|_| command.is_none());
                let mut items = command.map(items_of).unwrap_or_default();
                items.extend(container.get("args").map(items_of).unwrap_or_default());
                scan_items(&items, image, text, span, ctx, out);
                // Its env is the engine's only when it runs the engine.
                if !runs_engine(&items, image, ctx) {
                    return;
                }
                for var in container.get("env").map(Node::items).unwrap_or_default() {
                    let (Some(Node::Scalar { text: k, at: kat }), Some(Node::Scalar { text: v, at: vat })) =
                        (var.get("name"), var.get("value"))
                    else {
                        continue;
                    };
                    out.refs.push(env_ref(k, kat.clone(), v, vat.clone(), span));
                }
            });
        }
    }
}
