//! Where catalogues live: embedded in the binary (so knobs works with no
//! network and no config) and in folders of synced catalogues
//! (`<dir>/<engine>/<tag>.toml`). Both are read and merged; for the same tag
//! a folder's catalogue wins over the embedded one, and a later folder over
//! an earlier one. Only the engine asked for is parsed.
//!
//! One provenance at a time: once a catalogue of the engine has been synced,
//! the repository it came from wins. An embedded catalogue of another
//! repository is set aside — no default, no history, no "another version's
//! flag" — and used only when a tag names it (the command line or `[pin]
//! tag`); then it is marked as embedded wherever the build is named.

use std::path::{Path, PathBuf};

use crate::diag::FileError;

use super::history::{History, HistoryError, FILE_NAME as HISTORY};
use super::model::{Catalog, SCHEMA_VERSION};
use super::semantics::FILE_NAME as SEMANTICS;
use super::tag::{compare_tags, same_tag};

mod lookup;
mod provenance;

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum StoreError {
    #[error("cannot read catalogue {}: {message}", path.display())]
    Read { path: PathBuf, message: String },
    /// A catalogue that does not parse, has the wrong types, or a schema
    /// newer than this knobs reads: pointing at the place.
    #[error(transparent)]
    #[diagnostic(transparent)]
    File(Box<FileError>),
    #[diagnostic(
        code(knobs::catalog::unknown_tag),
        help("run `knobs sync --tag TAG` to catalogue another version (it writes beside knobs.toml)")
    )]
    #[error("no catalogue for {engine} {tag}; known: {}", known_list(known, *count))]
    UnknownTag { engine: String, tag: String, known: Vec<String>, count: usize },
    #[error(transparent)]
    #[diagnostic(transparent)]
    History(#[from] HistoryError),
    #[diagnostic(
        code(knobs::catalog::empty),
        help(
            "run `knobs sync --engine {engine} --repo URL --tag TAG` to catalogue a version; lint reads the \
             `catalog/` beside knobs.toml (`[pin] engine = \"{engine}\"`), or the folder `--catalog-dir DIR` names"
        )
    )]
    #[error("no catalogues for engine `{engine}` in {where_}")]
    Empty { engine: String, where_: String },
}

/// The tags a message lists: all of them, or the nearest of many.
fn known_list(known: &[String], count: usize) -> String {
    if known.is_empty() {
        "none".to_string()
    } else if count > known.len() {
        format!("{} … ({count} tags catalogued; these are the nearest)", known.join(", "))
    } else {
        known.join(", ")
    }
}

/// One engine's catalogues from every source, oldest first.
#[derive(Debug, Clone)]
pub struct Store {
    /// The catalogues in use: every synced one, and the embedded ones of
    /// the synced repositories (all embedded ones when nothing is synced).
    pub catalogs: Vec<Catalog>,
    /// Where they were read from, for messages.
    pub origin: String,
    /// Embedded catalogues of another repository than the synced ones, each
    /// beside the catalogues in use (sorted): what a command that names its
    /// tag judges against, so that its version list holds it too.
    aside: Vec<Vec<Catalog>>,
    /// Tags whose catalogue (in use or set aside) is the embedded one.
    embedded: Vec<String>,
    /// The repositories synced catalogues came from (none: nothing synced).
    synced_repos: Vec<String>,
    /// Every tag of a history (`history.json`): a synced one, else the
    /// embedded one when nothing of another repository was synced. A
    /// catalogue file of a tag wins over the history's.
    history: Option<History>,
    /// True when the history is the one embedded in knobs.
    history_embedded: bool,
    /// The embedded history when another is in use (synced from another
    /// repository, or only some tags of it): a tag only it holds is still
    /// judged by it, marked, as an embedded catalogue set aside is. Parsed
    /// on first use.
    aside_history: Option<(PathBuf, &'static str)>,
    aside_parsed: std::sync::OnceLock<Option<History>>,
    /// Catalogue files of a folder (path, `engine tag`) that replace an embedded
    /// catalogue of the same tag and say otherwise than it does.
    differ: Vec<(PathBuf, String)>,
}

/// True when two catalogues of one tag say the same: the same source
/// (the knobs version that wrote it and the schema aside) and the same
/// flags, metrics and env keys.
fn same_content(a: &Catalog, b: &Catalog) -> bool {
    let (x, y) = (&a.source, &b.source);
    (&x.engine, &x.repo, &x.tag, &x.commit) == (&y.engine, &y.repo, &y.tag, &y.commit)
        && a.flags == b.flags
        && a.metrics == b.metrics
        && a.env_keys == b.env_keys
}

/// Parses catalogue text; schemas up to this knobs' are read.
pub fn parse(path: &Path, text: &str) -> Result<Catalog, StoreError> {
    #[derive(serde::Deserialize)]
    struct Head {
        schema: u32,
    }
    let invalid =
        |e: toml::de::Error| StoreError::File(Box::new(FileError::from_toml(path, text, "a valid catalogue", &e)));
    let max = super::model::MAX_ENTRIES;
    // Tables counted before they are built (a 100,000-flag file cost 300 MB
    // to parse); an inline array of them is counted once parsed.
    let tables = |header: &str| text.lines().filter(|l| l.trim_start().starts_with(header)).count();
    let counts =
        [("flags", tables("[[flag]]")), ("metrics", tables("[[metric]]")), ("env keys", tables("[[env_key]]"))];
    if let Some((what, n)) = counts.into_iter().find(|(_, n)| *n > max) {
        return Err(too_many(path, text, what, n));
    }
    let head: Head = toml::from_str(text).map_err(invalid)?;
    if head.schema > SCHEMA_VERSION {
        let at = crate::diag::find_key(text, "schema");
        return Err(StoreError::File(Box::new(
            FileError::new(
                path,
                text,
                at,
                format!("catalogue {} has schema {}", path.display(), head.schema),
                &format!("this knobs reads schema {SCHEMA_VERSION} and older"),
            )
            .with_help("upgrade knobs, or sync the catalogue again with this one"),
        )));
    }
    let catalog: Catalog = toml::from_str(text).map_err(invalid)?;
    let counts =
        [("flags", catalog.flags.len()), ("metrics", catalog.metrics.len()), ("env keys", catalog.env_keys.len())];
    if let Some((what, n)) = counts.into_iter().find(|(_, n)| *n > max) {
        return Err(too_many(path, text, what, n));
    }
    Ok(catalog)
}

/// The error for a catalogue holding `n` of `what`, over the most knobs reads.
fn too_many(path: &Path, text: &str, what: &str, n: usize) -> StoreError {
    let max = super::model::MAX_ENTRIES;
    StoreError::File(Box::new(
        FileError::new(
            path,
            text,
            None,
            format!("catalogue {} holds {n} {what}, more than the {max} knobs reads", path.display()),
            &format!("the largest engine's catalogue holds about 600; knobs reads at most {max}"),
        )
        .with_help("a catalogue this large is not an engine's: sync it again from the engine's source"),
    ))
}

fn is_catalogue(name: &str) -> bool {
    name.ends_with(".toml") && name != SEMANTICS
}

impl Store {
    /// The engine's catalogues built into this binary.
    pub fn embedded(engine: &str) -> Result<Store, StoreError> {
        Store::open(engine, &[])
    }

    /// The engine's embedded catalogues merged with those under each folder
    /// in `dirs` (`<dir>/<engine>/<tag>.toml`); a folder that does not exist
    /// adds nothing.
    pub fn open(engine: &str, dirs: &[PathBuf]) -> Result<Store, StoreError> {
        let mut catalogs: Vec<Catalog> = Vec::new();
        let mut synced: Vec<(String, String)> = Vec::new();
        let mut origins = vec!["the embedded catalogues".to_string()];
        let mut embedded_history = None;
        let mut history: Option<History> = None;
        let mut differ = Vec::new();
        if let Some(dir) = crate::embedded::CATALOGS.get_dir(engine) {
            for file in dir.files() {
                let name = file.path().file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                if is_catalogue(&name) {
                    let text = file.contents_utf8().unwrap_or("");
                    catalogs.push(parse(&Path::new("catalog").join(file.path()), text)?);
                } else if name == HISTORY {
                    let text = file.contents_utf8().unwrap_or("");
                    // Parsed only when it is used (below).
                    embedded_history = Some((Path::new("catalog").join(file.path()), text));
                }
            }
        }
        for dir in dirs {
            let folder = dir.join(engine);
            let entries = match std::fs::read_dir(&folder) {
                Ok(e) => e,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(StoreError::Read { path: folder, message: e.to_string() }),
            };
            origins.push(dir.display().to_string());
            let synced_history = folder.join(HISTORY);
            if synced_history.is_file() {
                let text = crate::confine::read_to_string(dir, &synced_history, crate::bounded::CONFIG)
                    .map_err(|e| StoreError::Read { path: synced_history.clone(), message: e.to_string() })?;
                let h = History::parse(&synced_history, &text)?;
                // A later folder's history wins, as its catalogues do.
                if h.engine == engine {
                    synced.push((String::new(), h.repo.clone()));
                    history = Some(h);
                }
            }
            let mut paths: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.file_name().is_some_and(|n| is_catalogue(&n.to_string_lossy())))
                .collect();
            paths.sort();
            for path in paths {
                let text = crate::confine::read_to_string(dir, &path, crate::bounded::CONFIG)
                    .map_err(|e| StoreError::Read { path: path.clone(), message: e.to_string() })?;
                let c = parse(&path, &text)?;
                // The file's name is how a pin finds it: a catalogue of
                // another tag under this name would be read as this tag.
                let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                if !same_tag(&stem, &c.source.tag) {
                    let e = FileError::new(
                        &path,
                        &text,
                        crate::diag::find_key(&text, "tag"),
                        format!("catalogue {} holds tag {}, not {stem}", path.display(), c.source.tag),
                        &format!("the file name says {stem}"),
                    )
                    .with_help(format!("rename it {}.toml, or sync {stem} again", c.source.tag));
                    return Err(StoreError::File(Box::new(e)));
                }
                // A synced catalogue replaces the same tag from earlier
                // sources; one that differs from the embedded one is said.
                let from_binary = !synced.iter().any(|(tag, _)| same_tag(tag, &c.source.tag));
                if catalogs
                    .iter()
                    .any(|old| from_binary && !same_content(old, &c) && same_tag(&old.source.tag, &c.source.tag))
                {
                    differ.push((path.clone(), format!("{} {}", c.source.engine, c.source.tag)));
                }
                catalogs
                    .retain(|old| !(old.source.engine == c.source.engine && same_tag(&old.source.tag, &c.source.tag)));
                synced.retain(|(tag, _)| !same_tag(tag, &c.source.tag));
                synced.push((c.source.tag.clone(), c.source.repo.clone()));
                catalogs.push(c);
            }
        }
        catalogs.retain(|c| c.source.engine == engine);
        catalogs.sort_by(|a, b| compare_tags(&a.source.tag, &b.source.tag));
        let is_synced = |c: &Catalog| synced.iter().any(|(tag, _)| !tag.is_empty() && *tag == c.source.tag);
        let embedded: Vec<String> = catalogs.iter().filter(|c| !is_synced(c)).map(|c| c.source.tag.clone()).collect();
        let mut synced_repos: Vec<String> = synced.into_iter().map(|(_, repo)| repo).collect();
        synced_repos.sort();
        synced_repos.dedup();
        // Embedded catalogues of a repository nothing was synced from are set aside.
        let (foreign, catalogs): (Vec<Catalog>, Vec<Catalog>) = catalogs.into_iter().partition(|c| {
            !synced_repos.is_empty() && embedded.contains(&c.source.tag) && !synced_repos.contains(&c.source.repo)
        });
        let aside = foreign
            .into_iter()
            .map(|c| {
                let mut with = catalogs.clone();
                with.push(c);
                with.sort_by(|a, b| compare_tags(&a.source.tag, &b.source.tag));
                with
            })
            .collect();
        // The embedded history, like the embedded catalogues, only beside
        // what was synced from its own repository.
        let history_embedded = history.is_none();
        let mut aside_history = None;
        let history = match (history, embedded_history) {
            (Some(h), embedded) => {
                aside_history = embedded;
                Some(h)
            }
            (None, None) => None,
            (None, Some((path, text))) => {
                let used =
                    synced_repos.is_empty() || synced_repos.contains(&History::repo_of(text).unwrap_or_default());
                if used {
                    Some(History::parse(&path, text)?)
                } else {
                    aside_history = Some((path, text));
                    None
                }
            }
        };
        let history_embedded = history_embedded && history.is_some();
        Ok(Store {
            catalogs,
            origin: origins.join(" and "),
            aside,
            embedded,
            synced_repos,
            history,
            history_embedded,
            aside_history,
            aside_parsed: std::sync::OnceLock::new(),
            differ,
        })
    }

    /// The versions a command judging against `pinned` reads beside it: the
    /// catalogues in use, with `pinned` among them when it was set aside.
    pub fn all(&self, pinned: &Catalog) -> &[Catalog] {
        self.aside
            .iter()
            .find(|with| with.iter().any(|c| std::ptr::eq(c, pinned)))
            .map_or(self.catalogs.as_slice(), Vec::as_slice)
    }

    /// The engine's history, when one is synced or embedded.
    pub fn history(&self) -> Option<&History> {
        self.history.as_ref()
    }

    /// The embedded history set aside (another is in use, or catalogues of
    /// another repository are), if there is one and it reads.
    pub fn aside_history(&self) -> Option<&History> {
        self.aside_parsed
            .get_or_init(|| self.aside_history.as_ref().and_then(|(path, text)| History::parse(path, text).ok()))
            .as_ref()
    }

    /// The engines with embedded catalogues.
    pub fn embedded_engines() -> Vec<String> {
        let mut out: Vec<String> = crate::embedded::CATALOGS
            .dirs()
            .filter(|d| d.files().any(|f| f.path().file_name().is_some_and(|n| is_catalogue(&n.to_string_lossy()))))
            .map(|d| d.path().display().to_string())
            .collect();
        out.sort();
        out
    }

    /// The engines with an embedded history (nothing is parsed).
    pub fn embedded_histories() -> Vec<String> {
        let mut out: Vec<String> = crate::embedded::CATALOGS
            .dirs()
            .filter(|d| d.files().any(|f| f.path().file_name().is_some_and(|n| n == HISTORY)))
            .map(|d| d.path().display().to_string())
            .collect();
        out.sort();
        out
    }

    /// The tags of an engine's embedded catalogues, from their file names
    /// (nothing is parsed).
    pub fn embedded_tags(engine: &str) -> Vec<String> {
        let Some(dir) = crate::embedded::CATALOGS.get_dir(engine) else { return Vec::new() };
        let mut tags: Vec<String> = dir
            .files()
            .filter(|f| f.path().file_name().is_some_and(|n| is_catalogue(&n.to_string_lossy())))
            .filter_map(|f| f.path().file_stem().map(|s| s.to_string_lossy().into_owned()))
            .collect();
        tags.sort_by(|a, b| compare_tags(a, b));
        tags
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
        let mut builds = vec!["b10573", "b4100", "b999"];
        builds.sort_by(|a, b| compare_tags(a, b));
        assert_eq!(builds, ["b999", "b4100", "b10573"]);
    }

    #[test]
    fn a_folder_adds_tags_and_wins_for_the_same_tag() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("radiance");
        std::fs::create_dir_all(&dir).expect("mkdir");
        let mut c = Store::embedded("radiance").expect("embedded").get("radiance", "v1.8.1").expect("v1.8.1").clone();
        c.flags.retain(|f| f.name != "--port");
        std::fs::write(dir.join("v1.8.1.toml"), c.to_toml().expect("toml")).expect("write");
        c.source.tag = "v1.9.0".into();
        std::fs::write(dir.join("v1.9.0.toml"), c.to_toml().expect("toml")).expect("write");
        let store = Store::open("radiance", &[tmp.path().to_path_buf()]).expect("open");
        assert_eq!(store.tags(), ["v1.0.13", "v1.8.1", "v1.9.0"]);
        assert!(store.get("radiance", "v1.8.1").expect("synced").flag("--port").is_none(), "the folder's v1.8.1 wins");
        assert!(Store::open("radiance", &[tmp.path().join("missing")]).is_ok());
    }
}
