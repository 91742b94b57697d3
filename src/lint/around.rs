//! What a file's neighbours say about it, read through the run's
//! [`Input`] (inside the project only): a Helm template's chart values
//! (`templates/x.yaml` → `../values.yaml`: the image it runs and the values
//! it renders), the lists a chart's templates expand as a container's
//! command or arguments (for its `values.yaml`), and the image each compose
//! service's `build:` starts from (its Dockerfile's `FROM`). A file with
//! nothing said of it is scanned as usual.

use std::path::{Component, Path, PathBuf};

use super::dispatch;
use super::input::Input;
use super::scanners::{compose, dockerfile, template, yaml, Around, Scan};
use super::Settings;
use crate::catalog::model::Catalog;
use crate::kinds::FileKind;

/// The names a chart's values file goes by.
const VALUES: &[&str] = &["values.yaml", "values.yml"];

/// `path` joined to `dir` with `.` and `..` resolved by name; `None` when
/// it leaves the folder the run names files from.
fn joined(dir: &Path, path: &str) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in dir.join(path).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(n) => out.push(n),
            _ => return None,
        }
    }
    Some(out)
}

/// A neighbour's text, when it may be read and is there.
fn text_of(path: &Path, input: &dyn Input) -> Option<String> {
    input.confined(path).then(|| input.read(path).ok()).flatten().map(|t| t.text)
}

/// What the neighbours of `path` say of it.
fn around(path: &Path, text: &str, kind: FileKind, input: &dyn Input) -> Around {
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut around = Around::default();
    match kind {
        // A template of a chart: the chart's values, one folder up.
        FileKind::Yaml if dir.file_name().is_some_and(|n| n == "templates") && template::is_template(text) => {
            let chart = dir.parent().unwrap_or(Path::new(""));
            if let Some(values) = VALUES.iter().find_map(|v| text_of(&chart.join(v), input)) {
                around.values = yaml::load_each(&values).0;
            }
        }
        // A chart's values: what its templates expand as argv.
        FileKind::HelmValues => {
            let templates = dir.join("templates");
            let is_yaml = |p: &Path| p.extension().is_some_and(|e| e == "yaml" || e == "yml");
            for t in input.siblings(&templates.join("_"), &is_yaml) {
                let Some(t) = text_of(&t, input) else { continue };
                for bound in template::bound_lists(&t) {
                    if !around.bound.contains(&bound) {
                        around.bound.push(bound);
                    }
                }
            }
        }
        // A compose file: the image each service's build starts from.
        FileKind::Compose => {
            for (service, context, file) in compose::builds(&yaml::load_each(text).0) {
                let Some(context) = joined(dir, &context) else { continue };
                let Some(dockerfile) = joined(&context, &file) else { continue };
                if let Some(built) = text_of(&dockerfile, input).and_then(|t| dockerfile::final_image(&t)) {
                    around.built.insert(service, built);
                }
            }
        }
        _ => {}
    }
    around
}

/// The scan of a file whose neighbours say something of it; `None` when
/// they say nothing (it is scanned as usual).
pub fn scan(
    path: &Path,
    text: &str,
    kind: FileKind,
    settings: &Settings<'_>,
    catalog: &Catalog,
    input: &dyn Input,
) -> Option<Scan> {
    if !matches!(kind, FileKind::Yaml | FileKind::HelmValues | FileKind::Compose) {
        return None;
    }
    let around = around(path, text, kind, input);
    if around.is_empty() {
        return None;
    }
    Some(dispatch::scan_around(text, kind, settings, catalog, &around))
}
