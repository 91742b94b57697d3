//! What a lint run is set to do, validated: the engine and its catalogues,
//! the commands that run it, which rules run where and how severe each is,
//! which files a walk leaves out. [`Settings::resolve`] turns a knobs.toml
//! and the command line's overrides into them, pointing into knobs.toml
//! when a rule name, severity or glob there is wrong; the lint reads only
//! the result.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use globset::{GlobMatcher, GlobSet};

use super::rules::{self, Rule, Severity, RULES};
use super::scanners::{self, EngineMatcher};
use crate::catalog::history::History;
use crate::catalog::model::Catalog;
use crate::catalog::pinned::Pinned;
use crate::catalog::profile::Profile;
use crate::catalog::tag::{compare_tags, same_tag};
use crate::config::{Config, Located};
use crate::diag::FileError;
use crate::fsutil::normalized;

/// Labels Prometheus or its service discovery add to every scraped series.
pub const DEFAULT_TARGET_LABELS: &[&str] =
    &["job", "instance", "namespace", "pod", "container", "node", "service", "endpoint"];

/// Largest file linted by default; larger ones are skipped with a note.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 1024 * 1024;

/// The commands that run the engine beyond the profile's: knobs.toml's
/// `engine_commands` and its serve scripts (`serve_scripts`).
pub fn engine_commands(cfg: &Config) -> Vec<String> {
    let mut extra = cfg.engine_commands.clone();
    extra.extend(cfg.serve_scripts.iter().cloned());
    extra
}

/// Why settings cannot be made: a rule, severity or glob that is not one.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum SettingsError {
    /// In knobs.toml, pointing at the text.
    #[error(transparent)]
    #[diagnostic(transparent)]
    Config(Box<FileError>),
    /// On the command line (`--select`, `--ignore`).
    #[error("{option} names no rule `{item}`")]
    UnknownRule {
        option: &'static str,
        item: String,
        #[help]
        help: String,
    },
}

impl From<FileError> for SettingsError {
    fn from(e: FileError) -> Self {
        SettingsError::Config(Box::new(e))
    }
}

/// What the command line says over every knobs.toml of a run.
#[derive(Debug, Default, Clone)]
pub struct Overrides {
    /// `--select`: only these rules (codes).
    pub select: Option<Vec<&'static str>>,
    /// `--ignore`: never these rules (codes), beside knobs.toml's.
    pub ignore: Vec<&'static str>,
    /// Keep the text of files with findings (`--fix`, `--diff`).
    pub keep_text: bool,
    /// Keep a report of every file (`-vv`).
    pub keep_clean: bool,
    /// The working directory paths are shown from (knobs.toml's globs are
    /// matched from its own folder).
    pub cwd: PathBuf,
    /// `--fail-on`: the least severity that fails the run, over knobs.toml's.
    pub fail_on: Option<Severity>,
    /// `--tag` was named: it wins over every pin in the files.
    pub tag: bool,
}

impl Overrides {
    /// `--select` and `--ignore` (names or codes, comma-separated or repeated).
    pub fn new(select: &[String], ignore: &[String]) -> Result<Overrides, SettingsError> {
        let select = (!select.is_empty()).then(|| rule_codes(select, "--select")).transpose()?;
        let ignore = rule_codes(ignore, "--ignore")?;
        Ok(Overrides { select, ignore, ..Overrides::default() })
    }
}

/// Lint settings, validated.
pub struct Settings<'a> {
    /// The engine's profile.
    pub profile: &'a Profile,
    /// The catalogue files are judged against unless a trio pins another.
    pub catalog: &'a Catalog,
    /// Every catalogued version of the engine, oldest first.
    pub all: &'a [Catalog],
    /// Every tag of the engine at once, when a history is synced or
    /// embedded: a pin to any of its tags is judged by that tag.
    pub history: Option<&'a History>,
    /// The embedded history set aside (another is in use): a pin to a tag
    /// only it holds is judged by it.
    pub aside_history: Option<&'a History>,
    /// The commands that run the engine (the profile's and knobs.toml's).
    pub commands: EngineMatcher,
    /// Finds the engine's metric names.
    pub metrics: scanners::metrics::Matcher,
    pub env_files: Vec<String>,
    /// Severity per rule code; `None` turns a rule off.
    pub severity: HashMap<&'static str, Option<Severity>>,
    pub max_file_size: u64,
    /// `--select`: only these rules (codes); `None`: all.
    pub select: Option<Vec<&'static str>>,
    /// `--ignore`: never these rules (codes).
    pub ignore: Vec<&'static str>,
    /// `[lint.per-file-ignores]`: files matching a glob skip these rules.
    pub per_file_ignores: Vec<(GlobMatcher, Vec<&'static str>)>,
    /// `[lint] exclude`: files a walk leaves out.
    pub exclude: GlobSet,
    /// Where paths are shown from, and the folder of the knobs.toml whose
    /// `exclude` and `per-file-ignores` globs these are (they are written
    /// from there, whatever the working directory).
    pub cwd: PathBuf,
    pub config_dir: Option<PathBuf>,
    /// Keep the whole text of files with findings (to apply fixes).
    pub keep_text: bool,
    /// Keep a report of every file, even one with nothing to say (`-vv`
    /// names each file's version).
    pub keep_clean: bool,
    /// Labels a scrape adds to every series: never unknown.
    pub target_labels: Vec<String>,
    /// Dotted keys of Helm values that hold the engine's extra args; set by
    /// the user when `helm_args_named` (else the default, judged only in a
    /// values file that names an engine image).
    pub helm_args: Vec<String>,
    pub helm_args_named: bool,
    /// `[lint] fail_on` under `--fail-on`: the least severity that fails the run.
    pub fail_on: Severity,
    /// `--tag` was named on the command line: every file is judged against
    /// `catalog`, whatever version it pins.
    pub tag_forced: bool,
    /// knobs.toml pins a tag (`[pin] tag`): it, not a build in a monitoring
    /// file's reach, judges that file.
    pub pin_named: bool,
    /// `[metrics] builds`: the fleet a monitoring file with no pin of its
    /// own is judged against, each build in turn.
    pub fleet: Vec<&'a Catalog>,
    /// What the rules work out about each catalogue of `all` (same order).
    derived: Vec<rules::CatalogFacts>,
    /// The same for `catalog` when it is not one of `all` (a tag of the history).
    own_derived: rules::CatalogFacts,
    /// Per era of the profile (same order), the profile and commands as
    /// that era's builds have their binaries; None: the profile's own.
    eras: Vec<Option<(Profile, EngineMatcher)>>,
}

impl<'a> Settings<'a> {
    /// Settings for an engine: its commands and metric names from the profile
    /// and knobs.toml's extra commands and serve scripts.
    pub fn new(profile: &'a Profile, catalog: &'a Catalog, all: &'a [Catalog], extra_commands: Vec<String>) -> Self {
        Settings {
            profile,
            catalog,
            all,
            history: None,
            aside_history: None,
            eras: (0..profile.eras.len())
                .map(|i| profile.in_era(i).map(|p| (EngineMatcher::new(&p, extra_commands.clone()), p)))
                .map(|e| e.map(|(m, p)| (p, m)))
                .collect(),
            commands: EngineMatcher::new(profile, extra_commands),
            metrics: scanners::metrics::Matcher::new(&profile.metrics.prefixes),
            env_files: Vec::new(),
            severity: HashMap::new(),
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            select: None,
            ignore: Vec::new(),
            per_file_ignores: Vec::new(),
            exclude: GlobSet::empty(),
            cwd: PathBuf::new(),
            config_dir: None,
            keep_text: false,
            keep_clean: false,
            target_labels: DEFAULT_TARGET_LABELS.iter().map(|s| s.to_string()).collect(),
            helm_args: vec!["extraArgs".to_string()],
            helm_args_named: false,
            fail_on: Severity::Warning,
            tag_forced: false,
            pin_named: false,
            fleet: Vec::new(),
            derived: all.iter().map(|_| rules::CatalogFacts::default()).collect(),
            own_derived: rules::CatalogFacts::default(),
        }
    }

    /// The profile and the commands as the build `tag` has its binaries
    /// (its era's `[[era.command]]`s), so a binary is judged by the scope
    /// and parser it had then.
    pub fn at_tag(&self, tag: &str) -> (&Profile, &EngineMatcher) {
        match self.profile.era_index(tag).and_then(|i| self.eras.get(i)).and_then(Option::as_ref) {
            Some((p, m)) => (p, m),
            None => (self.profile, &self.commands),
        }
    }

    /// The same, with the engine's history to judge pins by.
    pub fn with_history(mut self, history: Option<&'a History>) -> Self {
        self.history = history;
        self
    }

    /// The same, with the embedded history set aside for tags only it holds.
    pub fn with_aside_history(mut self, history: Option<&'a History>) -> Self {
        self.aside_history = history;
        self
    }

    /// What a note on a pin judged by the nearest earlier catalogue adds
    /// when there is no history (which would hold every tag): how to get
    /// the pin's own.
    pub(crate) fn sync_hint(&self, pin: &str) -> String {
        if self.history.is_some() {
            String::new()
        } else {
            format!(" catalogued (run `knobs sync --tag {}`)", self.spelled(pin))
        }
    }

    /// `pin` as the engine's repository spells its tags (`0.9.0` where the
    /// tags are `v0.10.0`), so that the `knobs sync --tag` a note suggests
    /// names a tag that exists.
    pub(crate) fn spelled(&self, pin: &str) -> String {
        match self.oldest() {
            Some(known) => crate::catalog::tag::spelled_like(pin, known),
            None => pin.to_string(),
        }
    }

    /// The oldest build anything is catalogued for (a catalogue file or a
    /// tag of a history).
    fn oldest(&self) -> Option<&str> {
        let tags = self.all.iter().map(|c| c.source.tag.as_str());
        let history = [self.history, self.aside_history].into_iter().flatten().filter_map(|h| h.tags.first());
        tags.chain(history.map(|t| t.tag.as_str())).min_by(|a, b| compare_tags(a, b))
    }

    /// What a note on a pin older than every catalogued build says after
    /// naming it: that `what` (`the file is`) is not judged, and how to
    /// catalogue the pin.
    pub(crate) fn unjudged(&self, pin: &str, what: &str) -> String {
        let oldest = self.oldest().unwrap_or_default();
        format!(
            "older than every catalogued build (the oldest is {oldest}), so {what} not judged (run `knobs sync --tag {}` to catalogue it)",
            self.spelled(pin)
        )
    }

    /// The catalogue a pin to `tag` is judged against: a catalogued
    /// version's, else the history's own of that tag, else (with or without a history) — an untagged or
    /// uncatalogued build — the nearest earlier tag's (the second value is
    /// then true). `None`: nothing catalogued at or before it.
    /// Under `--tag`, every pin is judged against the build it names.
    pub(crate) fn pinned(&self, tag: &str) -> Option<(&'a Catalog, bool)> {
        if self.tag_forced {
            return Some((self.catalog, false));
        }
        let all: &'a [Catalog] = self.all;
        if let Some(c) = all.iter().find(|c| same_tag(&c.source.tag, tag)) {
            return Some((c, false));
        }
        if let Some(c) = self.aside_history.and_then(|h| h.catalog(tag)) {
            if self.history.is_none_or(|h| h.catalog(tag).is_none()) {
                return Some((c, false));
            }
        }
        let file = all.iter().rev().find(|c| compare_tags(&c.source.tag, tag).is_le());
        let Some(h) = self.history else {
            // No history: the nearest earlier catalogue file, if one is.
            return file.map(|f| (f, true));
        };
        if let Some(c) = h.catalog(tag) {
            return Some((c, false));
        }
        let Some(earlier) = h.nearest_before(tag).and_then(|i| h.catalog_at(i)) else {
            return file.map(|f| (f, true));
        };
        match file {
            Some(f) if compare_tags(&f.source.tag, &earlier.source.tag).is_gt() => Some((f, true)),
            _ => Some((earlier, true)),
        }
    }

    /// The settings one knobs.toml gives, with the command line's overrides,
    /// for the build a run judges against.
    pub fn resolve(cfg: &Config, overrides: &Overrides, pinned: &Pinned<'a>) -> Result<Self, SettingsError> {
        let mut settings = Settings::new(pinned.profile, pinned.catalog, pinned.all, engine_commands(cfg))
            .with_history(pinned.history())
            .with_aside_history(pinned.aside_history());
        settings.env_files = cfg.env_files.clone();
        settings.severity = severities(cfg)?;
        settings.keep_text = overrides.keep_text;
        settings.keep_clean = overrides.keep_clean;
        settings.tag_forced = overrides.tag;
        settings.pin_named = cfg.tag.is_some();
        for build in &cfg.builds {
            let Some((c, _)) = settings.pinned(&build.value) else {
                let message = format!(
                    "[metrics] builds: no catalogue of {} {} or of a build before it",
                    pinned.catalog.source.engine, build.value
                );
                let help = format!("`knobs sync --tag {}` writes one", build.value);
                return Err(cfg.error_at(build.span.clone(), message, "this build", Some(help)).into());
            };
            if !settings.fleet.iter().any(|f| std::ptr::eq(*f, c)) {
                settings.fleet.push(c);
            }
        }
        settings.cwd = overrides.cwd.clone();
        settings.config_dir = cfg.path.as_deref().and_then(Path::parent).map(|d| normalized(&overrides.cwd.join(d)));
        if let Some(labels) = &cfg.target_labels {
            settings.target_labels = labels.clone();
        }
        if !cfg.helm_args.is_empty() {
            settings.helm_args = cfg.helm_args.clone();
            settings.helm_args_named = true;
        }
        settings.max_file_size = cfg.max_file_size.unwrap_or(DEFAULT_MAX_FILE_SIZE);
        // knobs.toml's value was checked when it was read (`error` or `warning`).
        let configured = (cfg.fail_on.as_deref() == Some("error")).then_some(Severity::Error);
        settings.fail_on = overrides.fail_on.or(configured).unwrap_or(Severity::Warning);
        let cfg_select =
            cfg.select.iter().map(|s| rule_code(cfg, s, "[lint] select")).collect::<Result<Vec<_>, _>>()?;
        settings.select = overrides.select.clone().or((!cfg_select.is_empty()).then_some(cfg_select));
        settings.ignore = overrides.ignore.clone();
        for s in &cfg.ignore {
            settings.ignore.push(rule_code(cfg, s, "[lint] ignore")?);
        }
        for (glob, rules) in &cfg.per_file_ignores {
            let matcher = globset::Glob::new(&glob.value)
                .map_err(|e| {
                    cfg.error_at(glob.span.clone(), format!("invalid glob `{}`: {e}", glob.value), "this glob", None)
                })?
                .compile_matcher();
            let codes =
                rules.iter().map(|r| rule_code(cfg, r, "[lint.per-file-ignores]")).collect::<Result<Vec<_>, _>>()?;
            settings.per_file_ignores.push((matcher, codes));
        }
        let patterns: Vec<String> = cfg.exclude.iter().map(|e| e.value.clone()).collect();
        settings.exclude = crate::walk::globs(&patterns).map_err(|e| {
            let span = cfg.exclude.first().map(|e| e.span.clone()).unwrap_or(0..0);
            cfg.error_at(span, format!("invalid [lint] exclude glob: {e}"), "here", None)
        })?;
        Ok(settings)
    }

    /// The severity a rule reports at in this run; `None`: off.
    pub(crate) fn severity_of(&self, rule: &Rule) -> Option<Severity> {
        self.severity.get(rule.code).copied().unwrap_or(Some(rule.severity))
    }

    /// True when a rule runs on a file (as shown): not off, selected, not
    /// ignored, not ignored for this file.
    pub(crate) fn enabled(&self, rule: &Rule, path: &str) -> bool {
        self.severity_of(rule).is_some()
            && self.select.as_ref().is_none_or(|s| s.contains(&rule.code))
            && !self.ignore.contains(&rule.code)
            && !self
                .per_file_ignores
                .iter()
                .any(|(g, codes)| codes.contains(&rule.code) && g.is_match(self.seen_from_config(path)))
    }

    /// A path as shown (from the working directory) as knobs.toml's globs
    /// see it: from the knobs.toml's folder (`cd archive && knobs lint`
    /// still matches `"archive/**"`); as shown when there is no knobs.toml
    /// or the file is outside its folder.
    pub(crate) fn seen_from_config(&self, shown: impl AsRef<Path>) -> PathBuf {
        let shown = shown.as_ref();
        let Some(dir) = &self.config_dir else { return shown.to_path_buf() };
        let abs = normalized(&self.cwd.join(shown));
        abs.strip_prefix(dir).map_or_else(|_| shown.to_path_buf(), Path::to_path_buf)
    }

    /// True when `[lint] exclude` leaves out a file (as shown).
    pub(crate) fn excluded(&self, shown: &Path) -> bool {
        !self.exclude.is_empty() && self.exclude.is_match(self.seen_from_config(shown))
    }

    /// What the rules have worked out about `catalog`, when it is one of
    /// `all` or the run's own.
    pub(crate) fn derived(&self, catalog: &Catalog) -> Option<&rules::CatalogFacts> {
        match self.all.iter().position(|c| std::ptr::eq(c, catalog)) {
            Some(i) => self.derived.get(i),
            None => std::ptr::eq(self.catalog, catalog).then_some(&self.own_derived),
        }
    }
}

/// `[lint.severity]`, checked against the rules, pointing into knobs.toml.
fn severities(cfg: &Config) -> Result<HashMap<&'static str, Option<Severity>>, SettingsError> {
    let mut out = HashMap::new();
    for (rule, level) in &cfg.severity {
        let code = rule_code(cfg, rule, "[lint.severity]")?;
        let sev = match level.value.as_str() {
            "error" => Some(Severity::Error),
            "warning" => Some(Severity::Warning),
            "off" => None,
            _ => {
                return Err(cfg
                    .error_at(
                        level.span.clone(),
                        "invalid severity".into(),
                        "not a severity",
                        Some("use `error`, `warning` or `off`".into()),
                    )
                    .into())
            }
        };
        out.insert(code, sev);
    }
    Ok(out)
}

/// The code of a rule knobs.toml names in `table`, or an error pointing at
/// the name, with the nearest rule.
fn rule_code(cfg: &Config, name: &Located<String>, table: &str) -> Result<&'static str, SettingsError> {
    match rules::find(&name.value) {
        Some(r) => Ok(r.code),
        None => {
            let help = match nearest_rule(&name.value) {
                Some(n) => format!("did you mean `{n}`? `knobs rules` lists the rule codes and names"),
                None => "`knobs rules` lists the rule codes and names".into(),
            };
            let message = format!("{table} names no rule `{}`", name.value);
            Err(cfg.error_at(name.span.clone(), message, "unknown rule", Some(help)).into())
        }
    }
}

/// Rule codes from names or codes on the command line.
fn rule_codes(list: &[String], option: &'static str) -> Result<Vec<&'static str>, SettingsError> {
    let mut out = Vec::new();
    for item in list.iter().flat_map(|s| s.split(',')).map(str::trim).filter(|s| !s.is_empty()) {
        match rules::find(item) {
            Some(r) => out.push(r.code),
            None => {
                let help = nearest_rule(item)
                    .map_or("`knobs rules` lists the rules".to_string(), |n| format!("did you mean `{n}`?"));
                return Err(SettingsError::UnknownRule { option, item: item.to_string(), help });
            }
        }
    }
    Ok(out)
}

/// The rule code or name nearest a misspelt one.
fn nearest_rule(name: &str) -> Option<&'static str> {
    crate::suggest::suggest(name, RULES.iter().flat_map(|r| [r.code, r.name]))
}
