//! Where a catalogue of a store came from, as messages say it: embedded in
//! knobs or synced, materialised from a history, or set aside (an embedded
//! catalogue of another repository than the synced ones, marked wherever
//! the build is named).

use super::Store;
use crate::catalog::model::Catalog;
use crate::catalog::tag::same_tag;

impl Store {
    /// The notes for catalogue files that replace the embedded catalogue of
    /// their tag and differ from it: the file is used, and a reader should
    /// know that it is not what knobs ships (a pull request may bring one).
    pub fn differing(&self) -> &[(std::path::PathBuf, String)] {
        &self.differ
    }

    /// True when `c` was materialised from the embedded history set aside.
    fn in_aside_history(&self, c: &Catalog) -> bool {
        self.aside_history().is_some_and(|h| h.catalog(&c.source.tag).is_some_and(|own| std::ptr::eq(own, c)))
    }

    /// True when the history in use is the one embedded in knobs.
    pub fn history_is_embedded(&self) -> bool {
        self.history_embedded
    }

    /// True when `c` is a catalogue embedded in knobs (not synced).
    pub fn is_embedded(&self, c: &Catalog) -> bool {
        // A synced catalogue replaces the embedded one of its tag, so the tag says.
        if self.embedded.contains(&c.source.tag) || self.in_aside_history(c) {
            return true;
        }
        self.history_embedded && !self.catalogs.iter().any(|own| same_tag(&own.source.tag, &c.source.tag))
    }

    /// True when `c` was materialised from the history (no catalogue file
    /// of its own tag is in use).
    pub fn from_history(&self, c: &Catalog) -> bool {
        self.history.as_ref().is_some_and(|h| h.catalog(&c.source.tag).is_some_and(|own| std::ptr::eq(own, c)))
    }

    /// True when `c` is an embedded catalogue of another repository than
    /// the synced ones: set aside, used only because a tag named it.
    pub fn is_foreign(&self, c: &Catalog) -> bool {
        !self.synced_repos.is_empty() && self.is_embedded(c) && !self.synced_repos.contains(&c.source.repo)
    }

    /// The build with where it came from, as a sentence names it:
    /// `radiance v1.8.1 from R`, or `radiance v1.0.13 embedded in knobs
    /// (from fixtures/radiance.git)`.
    pub fn label(&self, c: &Catalog) -> String {
        let s = &c.source;
        if self.is_embedded(c) {
            format!("{} {} embedded in knobs (from {})", s.engine, s.tag, s.repo)
        } else {
            format!("{} {} from {}", s.engine, s.tag, s.repo)
        }
    }

    /// For a catalogue set aside, the sentence that marks it; else none.
    pub fn mark(&self, c: &Catalog) -> Option<String> {
        self.is_foreign(c).then(|| {
            format!(
                "{} {} is the catalogue embedded in knobs (from {}), not one synced from {}: run `knobs sync --tag {}` to catalogue it from there",
                c.source.engine,
                c.source.tag,
                c.source.repo,
                self.synced_repos.join(", "),
                c.source.tag
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_catalogues_of_another_repository_are_set_aside() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("radiance");
        std::fs::create_dir_all(&dir).expect("mkdir");
        let mut c = Store::embedded("radiance").expect("embedded").get("radiance", "v1.8.1").expect("v1.8.1").clone();
        c.source.repo = "git@host:team/radiance".into();
        std::fs::write(dir.join("v1.8.1.toml"), c.to_toml().expect("toml")).expect("write");
        let store = Store::open("radiance", &[tmp.path().to_path_buf()]).expect("open");
        // Only the synced one is in use; the embedded 1.0.13 is named by its tag.
        assert_eq!(store.tags(), ["v1.8.1"]);
        let old = store.get("radiance", "v1.0.13").expect("named");
        assert!(store.is_foreign(old) && !store.is_foreign(store.newest("radiance").expect("newest")));
        let tags: Vec<&str> = store.all(old).iter().map(|c| c.source.tag.as_str()).collect();
        assert_eq!(tags, ["v1.0.13", "v1.8.1"]);
        assert_eq!(store.all(store.newest("radiance").expect("newest")).len(), 1);
        assert!(store.mark(old).is_some_and(|m| m.contains("not one synced from git@host:team/radiance")));
        // Synced from the embedded catalogues' own repository: nothing is set aside.
        c.source.repo = "fixtures/radiance.git".into();
        std::fs::write(dir.join("v1.8.1.toml"), c.to_toml().expect("toml")).expect("write");
        let store = Store::open("radiance", &[tmp.path().to_path_buf()]).expect("open");
        assert_eq!(store.tags(), ["v1.0.13", "v1.8.1"]);
        assert!(store.mark(store.get("radiance", "v1.0.13").expect("v1.0.13")).is_none());
    }
}
