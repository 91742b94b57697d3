//! A tag's catalogue, materialised from its state on first use and kept:
//! each record with its line put back into its location.

use std::sync::OnceLock;

use super::{History, TagEntry};
use crate::catalog::model::{Catalog, Provenance};

impl History {
    /// The catalogue of the tag at `index`, materialised once.
    pub fn catalog_at(&self, index: usize) -> Option<&Catalog> {
        let entry = self.tags.get(index)?;
        let cells = self.derived.catalogs.get_or_init(|| self.tags.iter().map(|_| OnceLock::new()).collect());
        Some(cells.get(index)?.get_or_init(|| self.materialise(entry)))
    }

    /// The catalogue of a tag, if the history holds it.
    pub fn catalog(&self, tag: &str) -> Option<&Catalog> {
        self.catalog_at(self.index(tag)?)
    }

    fn materialise(&self, entry: &TagEntry) -> Catalog {
        let state = self.states.get(entry.state as usize).cloned().unwrap_or_default();
        let flags = state
            .flags
            .iter()
            .filter_map(|[r, line, members_line]| {
                let mut f = self.flags.get(*r as usize)?.clone();
                f.location = join_location(&f.location, *line);
                if let Some(m) = &mut f.members_from {
                    m.location = join_location(&m.location, *members_line);
                }
                Some(f)
            })
            .collect();
        let metrics = state
            .metrics
            .iter()
            .filter_map(|[r, line]| {
                let mut m = self.metrics.get(*r as usize)?.clone();
                m.location = join_location(&m.location, *line);
                Some(m)
            })
            .collect();
        let mut c = Catalog::new(
            Provenance {
                engine: self.engine.clone(),
                repo: self.repo.clone(),
                tag: entry.tag.clone(),
                commit: entry.commit.clone(),
                knobs_version: self.knobs_version.clone(),
            },
            flags,
            metrics,
        );
        c.env_keys = state
            .env_keys
            .iter()
            .filter_map(|[r, line]| {
                let mut k = self.env_keys.get(*r as usize)?.clone();
                k.location = join_location(&k.location, *line);
                Some(k)
            })
            .collect();
        c.normalise();
        c
    }
}

fn join_location(path: &str, line: u32) -> String {
    if line == 0 {
        path.to_string()
    } else {
        format!("{path}:{line}")
    }
}
