//! Which catalogue of a store a tag names: its own (a file, the history,
//! one set aside), the nearest earlier one for a build with none of its
//! own, the newest; and the tags an unknown one is told of.

use super::{Store, StoreError};
use crate::catalog::model::Catalog;
use crate::catalog::tag::{compare_tags, same_tag};

/// How many tags an unknown-tag message names at most.
const NEAREST: usize = 8;

impl Store {
    /// The tags catalogued (files and history), oldest first.
    pub fn tags(&self) -> Vec<String> {
        let mut tags: Vec<String> = self.catalogs.iter().map(|c| c.source.tag.clone()).collect();
        if let Some(h) = &self.history {
            tags.extend(
                h.tags
                    .iter()
                    .filter(|t| !tags.iter().any(|own| same_tag(own, &t.tag)))
                    .map(|t| t.tag.clone())
                    .collect::<Vec<_>>(),
            );
            tags.sort_by(|a, b| compare_tags(a, b));
        }
        tags
    }

    /// The catalogue at a tag (`v1.8.1` or `1.8.1`): one in use, else one
    /// set aside (a tag names it).
    pub fn get(&self, engine: &str, tag: &str) -> Result<&Catalog, StoreError> {
        let named = |c: &&Catalog| same_tag(&c.source.tag, tag);
        self.catalogs
            .iter()
            .find(named)
            .or_else(|| self.history.as_ref().and_then(|h| h.catalog(tag)))
            .or_else(|| self.aside.iter().flatten().filter(|c| self.is_foreign(c)).find(named))
            .or_else(|| self.aside_history().and_then(|h| h.catalog(tag)))
            .ok_or_else(|| {
                let mut known = self.tags();
                known.extend(self.aside.iter().flatten().filter(|c| self.is_foreign(c)).map(|c| c.source.tag.clone()));
                known.sort_by(|a, b| compare_tags(a, b));
                known.dedup();
                let count = known.len();
                if count > NEAREST {
                    let at = known.partition_point(|k| compare_tags(k, tag).is_lt());
                    let from = at.saturating_sub(NEAREST / 2).min(count - NEAREST);
                    known = known[from..from + NEAREST].to_vec();
                }
                StoreError::UnknownTag { engine: engine.into(), tag: tag.into(), known, count }
            })
    }

    /// The catalogue a build of `tag` is judged by: its own, else the
    /// history's nearest earlier tag (an untagged or uncatalogued build);
    /// the second value is true when it is not the tag's own.
    pub fn judged_by(&self, engine: &str, tag: &str) -> Result<(&Catalog, bool), StoreError> {
        match self.get(engine, tag) {
            Ok(c) => Ok((c, false)),
            Err(e) => {
                let Some(h) = &self.history else { return Err(e) };
                let earlier = h.nearest_before(tag).and_then(|i| h.catalog_at(i));
                let file = self.catalogs.iter().rev().find(|c| compare_tags(&c.source.tag, tag).is_le());
                match (earlier, file) {
                    (Some(a), Some(b)) if compare_tags(&b.source.tag, &a.source.tag).is_gt() => Ok((b, true)),
                    (Some(a), _) => Ok((a, true)),
                    (None, Some(b)) => Ok((b, true)),
                    (None, None) => Err(e),
                }
            }
        }
    }

    /// The newest catalogue (of the files and the history).
    pub fn newest(&self, engine: &str) -> Result<&Catalog, StoreError> {
        let file = self.catalogs.last();
        let history = self.history.as_ref().and_then(|h| h.catalog_at(h.tags.len().checked_sub(1)?));
        match (file, history) {
            (Some(f), Some(h)) if compare_tags(&h.source.tag, &f.source.tag).is_gt() => Ok(h),
            (Some(f), _) => Ok(f),
            (None, Some(h)) => Ok(h),
            (None, None) => Err(StoreError::Empty { engine: engine.into(), where_: self.origin.clone() }),
        }
    }

    /// The tag given, else the newest.
    pub fn select(&self, engine: &str, tag: Option<&str>) -> Result<&Catalog, StoreError> {
        match tag {
            Some(t) => self.get(engine, t),
            None => self.newest(engine),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::history::{History, FILE_NAME as HISTORY};

    #[test]
    fn a_history_adds_every_tag_it_holds_and_judges_an_uncatalogued_one_by_the_nearest_earlier() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("radiance");
        std::fs::create_dir_all(&dir).expect("mkdir");
        let embedded = Store::embedded("radiance").expect("embedded");
        let base = embedded.get("radiance", "v1.8.1").expect("v1.8.1").clone();
        let mut h = History::new("radiance", &base.source.repo);
        for (i, tag) in ["v1.9.0", "v1.9.1", "v1.9.2", "v1.9.3", "v1.9.4", "v1.9.5", "v1.9.6", "v1.9.7", "v2.0.0"]
            .iter()
            .enumerate()
        {
            let mut c = base.clone();
            c.source.tag = tag.to_string();
            if i == 8 {
                c.flags.retain(|f| f.name != "--port");
            }
            h.add(if i == 8 { "two" } else { "one" }, &c);
        }
        std::fs::write(dir.join(HISTORY), h.to_json().expect("json")).expect("write");
        let store = Store::open("radiance", &[tmp.path().to_path_buf()]).expect("open");
        assert!(store.history().is_some() && !store.history_is_embedded());
        assert_eq!(store.tags().len(), 11, "two embedded files and nine tags of the history");
        assert_eq!(store.newest("radiance").expect("newest").source.tag, "v2.0.0");
        assert!(store.get("radiance", "v2.0.0").expect("v2.0.0").flag("--port").is_none());
        assert!(store.get("radiance", "1.9.3").expect("v1.9.3").flag("--port").is_some());
        let (c, nearest) = store.judged_by("radiance", "v1.9.7-12-gabc").expect("judged");
        assert_eq!((c.source.tag.as_str(), nearest), ("v1.9.7", true));
        let (c, nearest) = store.judged_by("radiance", "v1.8.1").expect("own");
        assert_eq!((c.source.tag.as_str(), nearest), ("v1.8.1", false));
        assert!(store.from_history(store.get("radiance", "v1.9.0").expect("v1.9.0")));
        assert!(!store.from_history(c));
        let err = store.get("radiance", "v1.9.55").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("(11 tags catalogued; these are the nearest)"), "{err}");
        assert!(err.contains("v1.9.5, v1.9.6") && !err.contains("v1.0.13"), "{err}");
    }
}
