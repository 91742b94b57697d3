//! Kubernetes manifests (one or many documents): for the workloads that run
//! containers (Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job,
//! CronJob) and KServe's serving objects (an `InferenceService`'s predictor,
//! a `ServingRuntime`'s spec, which hold containers the same way), each
//! container's engine `image:` pins the version, `command:` and `args:` are
//! the argv given to the image, and `env:` names and values are env knobs.
//! Other containers and other kinds are left alone.

use super::container::{self, Keys};
use super::yaml::Node;
use super::{env_ref, Scan, ScanCtx};
use crate::lint::span::Span;

/// True when a document is a Kubernetes object.
pub fn is_manifest(doc: &Node) -> bool {
    doc.get("apiVersion").is_some() && doc.get("kind").is_some()
}

/// `command:` replaces the image's entrypoint; `args:` follow it.
const KEYS: Keys = Keys { entrypoint: "command", args: "args" };

/// The pod spec of a workload document.
fn pod_spec(doc: &Node) -> Option<&Node> {
    match doc.get("kind")?.str()? {
        "Pod" => doc.get("spec"),
        "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet" | "Job" | "ReplicationController" => {
            doc.path("spec.template.spec")
        }
        "CronJob" => doc.path("spec.jobTemplate.spec.template.spec"),
        // KServe: the predictor (and a runtime's spec) list containers as a pod does.
        "InferenceService" => doc.path("spec.predictor"),
        "ServingRuntime" | "ClusterServingRuntime" => doc.get("spec"),
        _ => None,
    }
}

pub fn scan(docs: &[Node], text: &str, span: &dyn Fn(usize, usize) -> Span, ctx: &ScanCtx<'_>, out: &mut Scan) {
    for spec in docs.iter().filter_map(pod_spec) {
        let containers = ["initContainers", "containers"].into_iter().filter_map(|k| spec.get(k));
        for c in containers.flat_map(Node::items) {
            // Each container pins its own version.
            container::scan(c, &KEYS, None, text, span, ctx, out, |out| {
                for var in c.get("env").map(Node::items).unwrap_or_default() {
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
