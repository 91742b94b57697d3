//! What changed between two catalogued versions: flags added, removed and
//! renamed, kinds, defaults and members that moved, metrics that came, went
//! or changed type or labels. The same comparison sets a synced catalogue
//! against the embedded one of its tag (what the source says that the
//! reconstruction did not), and names the two repositories when they differ.

use serde::Serialize;

use super::model::{Catalog, Flag, Metric};
use super::store::{Store, StoreError};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rename {
    pub from: String,
    pub to: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub flag: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<(String, String)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<(String, String)>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub members_added: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub members_removed: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricChange {
    pub metric: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub r#type: Option<(String, String)>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub labels_added: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub labels_removed: Vec<String>,
}

/// The repositories of the two sides, when they are not the same one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Repos {
    pub from: String,
    pub to: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CatalogDiff {
    pub engine: String,
    pub from: String,
    pub to: String,
    pub flags_added: Vec<String>,
    pub flags_removed: Vec<String>,
    pub flags_renamed: Vec<Rename>,
    pub flags_changed: Vec<Change>,
    pub metrics_added: Vec<String>,
    pub metrics_removed: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub metrics_changed: Vec<MetricChange>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repos: Option<Repos>,
}

impl CatalogDiff {
    pub fn is_empty(&self) -> bool {
        self.flags_added.is_empty()
            && self.flags_removed.is_empty()
            && self.flags_renamed.is_empty()
            && self.flags_changed.is_empty()
            && self.metrics_added.is_empty()
            && self.metrics_removed.is_empty()
            && self.metrics_changed.is_empty()
    }
}

fn change(a: &Flag, b: &Flag) -> Option<Change> {
    let c = Change {
        flag: b.name.clone(),
        kind: (a.kind != b.kind).then(|| (a.kind.as_str().to_string(), b.kind.as_str().to_string())),
        default: (a.default != b.default).then(|| (a.default.clone(), b.default.clone())),
        members_added: b.members.iter().filter(|m| !a.members.contains(m)).cloned().collect(),
        members_removed: a.members.iter().filter(|m| !b.members.contains(m)).cloned().collect(),
    };
    let changed =
        c.kind.is_some() || c.default.is_some() || !c.members_added.is_empty() || !c.members_removed.is_empty();
    changed.then_some(c)
}

fn metric_change(a: &Metric, b: &Metric) -> Option<MetricChange> {
    let c = MetricChange {
        metric: b.name.clone(),
        r#type: (a.kind != b.kind).then(|| (a.kind.as_str().to_string(), b.kind.as_str().to_string())),
        labels_added: b.labels.iter().filter(|l| !a.labels.contains(l)).cloned().collect(),
        labels_removed: a.labels.iter().filter(|l| !b.labels.contains(l)).cloned().collect(),
    };
    (c.r#type.is_some() || !c.labels_added.is_empty() || !c.labels_removed.is_empty()).then_some(c)
}

/// Compares `from` with `to`. A flag that disappears while a new one appears
/// with the same (non-empty) help is a rename.
pub fn diff(from: &Catalog, to: &Catalog) -> CatalogDiff {
    let mut added: Vec<&Flag> = to.flags.iter().filter(|f| from.flag(&f.name).is_none()).collect();
    let mut removed: Vec<&Flag> = from.flags.iter().filter(|f| to.flag(&f.name).is_none()).collect();
    let mut renamed = Vec::new();
    let mut changes = Vec::new();
    removed.retain(|old| {
        let twin = added.iter().position(|new| !old.help.is_empty() && new.help == old.help);
        match twin {
            Some(i) => {
                let new = added.remove(i);
                renamed.push(Rename { from: old.name.clone(), to: new.name.clone() });
                changes.extend(change(old, new));
                false
            }
            None => true,
        }
    });
    for old in &from.flags {
        // The flag of the same name first: a spelling that is another
        // flag's alias too (llama.cpp's `-l` beside `--logit-bias -l`) is
        // not that other flag changed.
        let same = to.flags.iter().find(|f| f.name == old.name).or_else(|| to.flag(&old.name));
        if let Some(new) = same {
            changes.extend(change(old, new));
        }
    }
    changes.sort_by(|a, b| a.flag.cmp(&b.flag));
    CatalogDiff {
        engine: to.source.engine.clone(),
        from: from.source.tag.clone(),
        to: to.source.tag.clone(),
        flags_added: added.iter().map(|f| f.name.clone()).collect(),
        flags_removed: removed.iter().map(|f| f.name.clone()).collect(),
        flags_renamed: renamed,
        flags_changed: changes,
        metrics_added: to.metrics.iter().filter(|m| from.metric(&m.name).is_none()).map(|m| m.name.clone()).collect(),
        metrics_removed: from.metrics.iter().filter(|m| to.metric(&m.name).is_none()).map(|m| m.name.clone()).collect(),
        metrics_changed: from
            .metrics
            .iter()
            .filter_map(|a| to.metric(&a.name).and_then(|b| metric_change(a, b)))
            .collect(),
        repos: (from.source.repo != to.source.repo)
            .then(|| Repos { from: from.source.repo.clone(), to: to.source.repo.clone() }),
    }
}

/// Why a synced catalogue cannot be set against the embedded one of its tag.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum EmbeddedDiffError {
    #[error(transparent)]
    #[diagnostic(transparent)]
    Store(#[from] StoreError),
    #[error("knobs embeds no catalogue of {engine} {tag} to set the synced one against")]
    #[diagnostic(help("`knobs --version` lists the embedded catalogues"))]
    NoneEmbedded { engine: String, tag: String },
    #[error("{engine} {tag} has no synced catalogue to set against the embedded one")]
    // The help says `{tag}` literally, as it always has (issue 28 changes
    // no output); naming the tag is a fix of its own.
    #[diagnostic(help("run `knobs sync --tag {{tag}}` to catalogue it from the source"))]
    NoneSynced { engine: String, tag: String },
}

/// The synced catalogue of `tag` in `store` set against the embedded one
/// of the same tag, with the synced one (for the lead that names it).
pub fn against_embedded<'s>(
    store: &'s Store,
    engine: &str,
    tag: &str,
) -> Result<(CatalogDiff, &'s Catalog), EmbeddedDiffError> {
    let synced = store.get(engine, tag)?;
    let embedded = Store::embedded(engine)?;
    let Ok(from) = embedded.get(engine, tag) else {
        return Err(EmbeddedDiffError::NoneEmbedded { engine: engine.into(), tag: tag.into() });
    };
    if store.is_embedded(synced) {
        return Err(EmbeddedDiffError::NoneSynced { engine: engine.into(), tag: tag.into() });
    }
    Ok((diff(from, synced), synced))
}

/// The warning when two versions of an engine in `store` come from different
/// repositories, so that a difference may be theirs, not the versions'.
pub fn repos_warning(store: &Store, engine: &str, from: &Catalog, to: &Catalog) -> String {
    let repo = |c: &Catalog| {
        let embedded = if store.is_embedded(c) { ", embedded in knobs" } else { "" };
        format!("{}{embedded}", crate::pictures::visible(&c.source.repo))
    };
    format!(
        "{engine} {} and {} come from different repositories ({}; {}): a difference may be the repositories', not the versions'",
        from.source.tag,
        to.source.tag,
        repo(from),
        repo(to)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::model::Provenance;

    /// A catalogue with a flag `-l` beside another flag whose alias is
    /// `-l` (as llama.cpp's b3499 has): set against itself, nothing changed.
    #[test]
    fn a_flag_is_matched_by_its_own_name_before_another_s_alias() {
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/catalog/radiance/v1.8.1.toml"))
            .unwrap_or_default();
        let mut c: Catalog = toml::from_str(&text).expect("the embedded catalogue");
        let mut long = c.flags[0].clone();
        long.name = "--long".into();
        long.aliases = vec!["-l".into()];
        long.kind = crate::catalog::model::Kind::Float;
        let mut short = c.flags[0].clone();
        short.name = "-l".into();
        short.aliases.clear();
        short.kind = crate::catalog::model::Kind::String;
        c.flags.extend([long, short]);
        c.normalise();
        let other =
            Catalog::new(Provenance { tag: "x".into(), ..c.source.clone() }, c.flags.clone(), c.metrics.clone());
        assert!(diff(&c, &other).flags_changed.is_empty(), "{:?}", diff(&c, &other).flags_changed);
    }
}
