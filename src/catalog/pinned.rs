//! The judged build: what knobs knows of one engine ([`Known`]: its
//! profile, its catalogues and history, its overlay) and, drawn from it,
//! the build a command judges against ([`Pinned`]: that version's
//! catalogue with every version read beside it, the histories, and the
//! note when the build has no catalogue of its own). Built from an engine
//! name, a tag and the folders of synced catalogues; which tag a project
//! pins is the command layer's to say.

use std::path::PathBuf;

use super::history::History;
use super::model::Catalog;
use super::profile::Profile;
use super::semantics::{Semantics, SemanticsError};
use super::store::{Store, StoreError};

/// What knobs knows of one engine: its profile, its catalogues (embedded
/// and synced) with their history, and its overlay.
pub struct Known {
    /// The engine's name, as the profile and the catalogues' folders say it.
    pub engine: String,
    pub profile: Profile,
    pub store: Store,
    pub semantics: Semantics,
}

/// Why an engine's catalogues or overlay cannot be read.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum KnownError {
    #[error(transparent)]
    #[diagnostic(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    #[diagnostic(transparent)]
    Semantics(#[from] SemanticsError),
}

impl Known {
    /// The engine's catalogues (embedded, and synced under each folder of
    /// `dirs`, in rising precedence) and its overlay, with its profile.
    pub fn open(engine: &str, dirs: &[PathBuf], profile: Profile) -> Result<Known, KnownError> {
        let store = Store::open(engine, dirs)?;
        // The overlay is a hint, never a gate: what it names that a version
        // lacks is left out for that version (`knobs catalog check` lists it).
        let semantics = Semantics::open(engine, dirs)?;
        Ok(Known { engine: engine.to_string(), profile, store, semantics })
    }

    /// The catalogue of `tag` exactly (else the newest), with no nearest
    /// earlier tag standing in: what `knobs catalog show` prints.
    pub fn exact(&self, tag: Option<&str>) -> Result<&Catalog, StoreError> {
        self.store.select(&self.engine, tag)
    }

    /// The build `tag` names (else the newest) as a command judges it: its
    /// own catalogue, else — a tag with no catalogue of its own that follows
    /// a tag of the history (an untagged build, `v1.9.7-12-gabc`) — the
    /// nearest earlier tag's, with the note that says so.
    pub fn judged(&self, tag: Option<&str>) -> Result<Pinned<'_>, StoreError> {
        let (catalog, nearest) = match tag {
            Some(t) => self.store.judged_by(&self.engine, t)?,
            None => (self.store.newest(&self.engine)?, false),
        };
        let note = nearest.then(|| {
            format!(
                "{} {} has no catalogue of its own: judged against {}, the nearest earlier tag",
                self.engine,
                tag.unwrap_or_default(),
                catalog.source.tag
            )
        });
        Ok(Pinned {
            profile: &self.profile,
            semantics: &self.semantics,
            catalog,
            all: self.store.all(catalog),
            store: &self.store,
            note,
        })
    }
}

/// The build a command judges against, with everything read beside it.
pub struct Pinned<'k> {
    /// The engine's profile.
    pub profile: &'k Profile,
    /// The engine's overlay (a hint filtered by version, never a gate).
    pub semantics: &'k Semantics,
    /// The judged build's catalogue.
    pub catalog: &'k Catalog,
    /// The versions read beside it (another version's flag, the history of
    /// a flag, a scrape's comparison), oldest first: the catalogues in use,
    /// and `catalog` among them when it was set aside.
    pub all: &'k [Catalog],
    store: &'k Store,
    note: Option<String>,
}

impl<'k> Pinned<'k> {
    /// "X has no catalogue of its own: judged against Y, the nearest
    /// earlier tag", when the build is judged by another tag's catalogue.
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }

    /// Every tag of the engine at once, when a history is synced or embedded.
    pub fn history(&self) -> Option<&'k History> {
        self.store.history()
    }

    /// The embedded history set aside (another is in use), if there is one.
    pub fn aside_history(&self) -> Option<&'k History> {
        self.store.aside_history()
    }

    /// The build as the engine and tag name it: `radiance v1.8.1`.
    pub fn name(&self) -> String {
        format!("{} {}", self.catalog.source.engine, self.catalog.source.tag)
    }

    /// The build as a summary names it: `radiance v1.8.1`, or `embedded
    /// radiance v1.0.13` for an embedded catalogue used beside catalogues
    /// synced from another repository (the tag stays the last word).
    pub fn build(&self) -> String {
        let embedded = if self.store.is_foreign(self.catalog) { "embedded " } else { "" };
        format!("{embedded}{}", self.name())
    }

    /// The build with where it came from: `radiance v1.8.1 from R`.
    pub fn label(&self) -> String {
        self.store.label(self.catalog)
    }

    /// For a build set aside (an embedded catalogue of another repository
    /// than the synced ones), the sentence that marks it; else none.
    pub fn mark(&self) -> Option<String> {
        self.store.mark(self.catalog)
    }

    /// True when the build comes from a history of facts only (the one
    /// embedded in knobs): its help texts are not there.
    pub fn facts_only(&self) -> bool {
        self.store.from_history(self.catalog) && self.history().is_some_and(|h| h.facts_only)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn radiance() -> Known {
        let profile = crate::catalog::profile::builtin("radiance").unwrap_or_else(|| Profile::bare("radiance"));
        Known::open("radiance", &[], profile).expect("embedded radiance")
    }

    #[test]
    fn the_newest_is_judged_when_no_tag_is_named_and_no_note_is_made() {
        let known = radiance();
        let pinned = known.judged(None).expect("newest");
        assert_eq!(pinned.name(), "radiance v1.8.1");
        assert_eq!(pinned.build(), pinned.name());
        assert!(pinned.note().is_none() && pinned.mark().is_none());
        assert!(pinned.all.iter().any(|c| std::ptr::eq(c, pinned.catalog)));
    }

    #[test]
    fn an_unknown_tag_is_the_stores_error() {
        let known = radiance();
        let err = known.judged(Some("v0.0.1")).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.starts_with("no catalogue for radiance v0.0.1"), "{err}");
        assert!(known.exact(Some("v1.0.13")).is_ok());
    }
}
