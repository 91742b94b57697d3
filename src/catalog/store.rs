//! Where catalogues live: embedded in the binary (the default, so knobs works
//! with no network and no config) or read from a directory.

use std::cmp::Ordering;
use std::path::{Path, PathBuf};

use include_dir::{include_dir, Dir};

use super::model::{Catalog, SCHEMA_VERSION};

pub(crate) static EMBEDDED: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/catalog");

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum StoreError {
    #[error("cannot read catalogue {}: {message}", path.display())]
    Read { path: PathBuf, message: String },
    #[error("catalogue {} is not valid: {message}", path.display())]
    Invalid { path: PathBuf, message: String },
    #[error("catalogue {} has schema {found}; this knobs reads schema {SCHEMA_VERSION} — upgrade knobs", path.display())]
    Schema { path: PathBuf, found: u32 },
    #[diagnostic(
        code(knobs::catalog::unknown_tag),
        help("run `knobs sync --tag TAG` to catalogue another version, or pass --catalog-dir")
    )]
    #[error("no catalogue for {engine} {tag}; known: {}", if known.is_empty() { "none".to_string() } else { known.join(", ") })]
    UnknownTag { engine: String, tag: String, known: Vec<String> },
    #[error("no catalogues for engine `{engine}` in {where_}")]
    Empty { engine: String, where_: String },
}

/// All catalogues of one source (embedded or a directory), newest last.
#[derive(Debug, Clone)]
pub struct Store {
    pub catalogs: Vec<Catalog>,
    /// Where they were read from, for messages.
    pub origin: String,
}

/// Orders tags such as `v1.0.13` < `v1.8.1` < `v1.10.0` by their numbers.
pub fn compare_tags(a: &str, b: &str) -> Ordering {
    fn parts(t: &str) -> Vec<u64> {
        t.trim_start_matches(|c: char| !c.is_ascii_digit())
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|p| p.parse().ok())
            .collect()
    }
    parts(a).cmp(&parts(b)).then_with(|| a.cmp(b))
}

/// `1.8.1` and `v1.8.1` name the same tag.
pub fn same_tag(a: &str, b: &str) -> bool {
    a == b || a.trim_start_matches('v') == b.trim_start_matches('v')
}

fn parse(path: &Path, text: &str) -> Result<Catalog, StoreError> {
    #[derive(serde::Deserialize)]
    struct Head {
        schema: u32,
    }
    let head: Head = toml::from_str(text)
        .map_err(|e| StoreError::Invalid { path: path.to_path_buf(), message: e.message().to_string() })?;
    if head.schema > SCHEMA_VERSION {
        return Err(StoreError::Schema { path: path.to_path_buf(), found: head.schema });
    }
    toml::from_str(text).map_err(|e| StoreError::Invalid { path: path.to_path_buf(), message: e.to_string() })
}

impl Store {
    /// The catalogues built into this binary.
    pub fn embedded() -> Result<Store, StoreError> {
        let mut catalogs = Vec::new();
        for engine in EMBEDDED.dirs() {
            for file in engine.files() {
                if file.path().extension().is_some_and(|e| e == "toml") {
                    let text = file.contents_utf8().unwrap_or("");
                    catalogs.push(parse(&Path::new("catalog").join(file.path()), text)?);
                }
            }
        }
        Ok(Store::sorted(catalogs, "the embedded catalogues".into()))
    }

    /// The catalogues under `dir` (`<dir>/<engine>/<tag>.toml`).
    pub fn from_dir(dir: &Path) -> Result<Store, StoreError> {
        let read_err =
            |path: &Path, e: std::io::Error| StoreError::Read { path: path.to_path_buf(), message: e.to_string() };
        let mut catalogs = Vec::new();
        let engines = std::fs::read_dir(dir).map_err(|e| read_err(dir, e))?;
        for engine in engines {
            let engine = engine.map_err(|e| read_err(dir, e))?.path();
            if !engine.is_dir() {
                continue;
            }
            for file in std::fs::read_dir(&engine).map_err(|e| read_err(&engine, e))? {
                let path = file.map_err(|e| read_err(&engine, e))?.path();
                if path.extension().is_some_and(|e| e == "toml") {
                    let text = std::fs::read_to_string(&path).map_err(|e| read_err(&path, e))?;
                    catalogs.push(parse(&path, &text)?);
                }
            }
        }
        Ok(Store::sorted(catalogs, dir.display().to_string()))
    }

    /// Embedded unless a directory is given.
    pub fn open(dir: Option<&Path>) -> Result<Store, StoreError> {
        match dir {
            Some(d) => Store::from_dir(d),
            None => Store::embedded(),
        }
    }

    fn sorted(mut catalogs: Vec<Catalog>, origin: String) -> Store {
        catalogs.sort_by(|a, b| {
            a.source.engine.cmp(&b.source.engine).then_with(|| compare_tags(&a.source.tag, &b.source.tag))
        });
        Store { catalogs, origin }
    }

    /// The tags catalogued for an engine, oldest first.
    pub fn tags(&self, engine: &str) -> Vec<String> {
        self.catalogs.iter().filter(|c| c.source.engine == engine).map(|c| c.source.tag.clone()).collect()
    }

    /// One engine's catalogue at a tag (`v1.8.1` or `1.8.1`).
    pub fn get(&self, engine: &str, tag: &str) -> Result<&Catalog, StoreError> {
        self.catalogs
            .iter()
            .find(|c| c.source.engine == engine && same_tag(&c.source.tag, tag))
            .ok_or_else(|| StoreError::UnknownTag { engine: engine.into(), tag: tag.into(), known: self.tags(engine) })
    }

    /// The newest catalogue of an engine.
    pub fn newest(&self, engine: &str) -> Result<&Catalog, StoreError> {
        self.catalogs
            .iter()
            .rev()
            .find(|c| c.source.engine == engine)
            .ok_or_else(|| StoreError::Empty { engine: engine.into(), where_: self.origin.clone() })
    }

    /// The tag given, else the pinned one, else the newest.
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

    #[test]
    fn tag_order_is_numeric() {
        let mut tags = vec!["v1.10.0", "v1.8.1", "v1.0.13", "v1.8.0"];
        tags.sort_by(|a, b| compare_tags(a, b));
        assert_eq!(tags, vec!["v1.0.13", "v1.8.0", "v1.8.1", "v1.10.0"]);
        assert!(same_tag("1.8.1", "v1.8.1"));
        assert!(!same_tag("1.8.1", "v1.8.10"));
    }
}
