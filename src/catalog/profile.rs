//! Engine profiles: everything knobs knows about one engine that is not in a
//! catalogue — which files hold its configuration, how its argv and env keys
//! are read, its metric prefixes, its binaries and image names. Profiles are
//! data (`profiles/<engine>.toml`, built in, or `[profile.NAME]` in
//! knobs.toml); no rule, scanner or renderer names an engine.

use std::collections::BTreeMap;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::era::{self, Era};
use super::tag::compare_tags;

/// One engine, as knobs reads and judges it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// The engine's name: the catalogue folder, `--engine NAME`.
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub extract: ExtractSpec,
    /// Older eras whose builds read other files than `extract`, oldest
    /// first (`[[era]]`, see `src/catalog/era.rs`).
    #[serde(default, rename = "era")]
    pub eras: Vec<Era>,
    #[serde(default)]
    pub metrics: MetricSpec,
    #[serde(default)]
    pub argv: ArgvSpec,
    #[serde(default)]
    pub env: EnvSpec,
    #[serde(default)]
    pub scopes: ScopeSpec,
    #[serde(default)]
    pub images: ImageSpec,
    #[serde(default, rename = "command")]
    pub commands: Vec<CommandSpec>,
    /// Binaries renamed between versions, oldest rename first.
    #[serde(default)]
    pub renamed: Vec<Renamed>,
}

/// A binary renamed between versions: from the tag `since` on, the program
/// that was `name` is `to` (llama.cpp's `main` became `llama-cli`, and
/// later `llama-completion`). A build older than every rename of a name
/// still has the binary under that name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Renamed {
    pub name: String,
    pub to: String,
    pub since: String,
}

/// Which files of the engine's tree are read, and for what.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractSpec {
    /// Files holding the option table and its validators.
    #[serde(default)]
    pub config: Vec<String>,
    /// Read for struct definitions and field defaults only (missing ones are skipped).
    #[serde(default)]
    pub headers: Vec<String>,
    /// More files whose functions the option handlers call to validate values.
    #[serde(default)]
    pub validators: Vec<String>,
    /// Path prefixes read for metric registrations; empty reads every
    /// source file (of the language) that mentions a prefix.
    #[serde(default)]
    pub metrics: Vec<String>,
    /// Config files that are one binary's own parser, with that binary's
    /// scope: an option read only there is accepted only by it (llama.cpp's
    /// old server). Every other config file's options are unscoped.
    #[serde(default)]
    pub scoped: BTreeMap<String, String>,
    /// The language of the source: `cpp` (the default) or `python`.
    #[serde(default)]
    pub language: Language,
    /// Python: files and folders whose `.py` files are read for classes,
    /// functions and aliases that the entry functions name.
    #[serde(default)]
    pub sources: Vec<String>,
    /// Python: the functions that build each binary's argument parser.
    #[serde(default, rename = "entry")]
    pub entries: Vec<EntrySpec>,
    /// Python: the dict of engine-wide env keys.
    #[serde(default)]
    pub env: Option<EnvTableSpec>,
    /// Python: the names of the engine's argparse helpers.
    #[serde(default)]
    pub python: PythonSpec,
}

/// The language an engine's source is read in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    #[default]
    Cpp,
    Python,
}

/// A function that builds the parser of one binary (a scope): the first of
/// `functions` defined at the top of `file` (names change between versions).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntrySpec {
    pub scope: String,
    pub file: String,
    pub functions: Vec<String>,
}

/// Where the engine-wide env keys are declared: a dict named `table` in
/// `file`; `choices` are the helpers called as (key, default, members).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvTableSpec {
    pub file: String,
    pub table: String,
    #[serde(default)]
    pub choices: Vec<String>,
}

/// The engine's own helpers around argparse, by name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PythonSpec {
    /// Functions that turn a dataclass into argparse kwargs per field.
    #[serde(default)]
    pub kwargs_functions: Vec<String>,
    /// Custom argparse actions that take an optional `true`/`false`.
    #[serde(default)]
    pub bool_actions: Vec<String>,
    /// Decorators that make a class a config (its option takes JSON).
    #[serde(default)]
    pub config_decorators: Vec<String>,
    /// Generics that stand for their first argument, as `Annotated` does.
    #[serde(default)]
    pub wrappers: Vec<String>,
    /// What the metrics client appends to a counter's name on export.
    #[serde(default)]
    pub counter_suffix: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricSpec {
    /// Metric name prefixes the engine exports (`radiance:`).
    #[serde(default)]
    pub prefixes: Vec<String>,
    /// Prefixes a name is often written under by mistake for the other.
    #[serde(default)]
    pub pairs: Vec<[String; 2]>,
    /// Said when a name is under the wrong one of a pair.
    #[serde(default)]
    pub pair_hint: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgvSpec {
    /// `--flag=value` is accepted.
    #[serde(default = "yes")]
    pub equals: bool,
    /// An option taking a value consumes the next word even when it starts with `-`.
    #[serde(default)]
    pub dash_values: bool,
    /// In a `--` word, `_` reads as `-`.
    #[serde(default)]
    pub underscores: bool,
    /// The engine takes positional arguments (a bare word is not refused).
    #[serde(default = "yes")]
    pub positionals: bool,
    /// How many positional words a binary takes, by the binary as written
    /// (`vllm serve` → 1, `vllm run-batch` → 0): a word past them is refused.
    #[serde(default)]
    pub positional_limits: BTreeMap<String, usize>,
    /// `--opt.key value` sets a key under `--opt` (an option that takes
    /// JSON): the option written is the part before the first `.`.
    #[serde(default)]
    pub dotted: bool,
    /// Short options whose value may be attached to them (`-O3`, `-O=3`).
    #[serde(default)]
    pub attached: Vec<String>,
    /// A unique prefix of a long option is that option (argparse's
    /// abbreviations); a prefix of several is refused.
    #[serde(default)]
    pub abbreviations: bool,
    /// The option that names a YAML file of options (`--config FILE`), its
    /// keys the options' names without dashes.
    #[serde(default)]
    pub config: Option<String>,
    /// A `false` in that file is dropped: the option keeps its default.
    #[serde(default)]
    pub config_drops_false: bool,
    /// A switch takes `--switch=value` (false: the parser refuses a value
    /// given to an option that takes none, as argparse does).
    #[serde(default = "yes")]
    pub switch_values: bool,
}

impl Default for ArgvSpec {
    fn default() -> Self {
        ArgvSpec {
            equals: true,
            dash_values: false,
            underscores: false,
            positionals: true,
            positional_limits: BTreeMap::new(),
            dotted: false,
            attached: Vec::new(),
            abbreviations: false,
            config: None,
            config_drops_false: false,
            switch_values: true,
        }
    }
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvSpec {
    /// An env key names the flag in upper snake case, optionally behind a
    /// service prefix; otherwise only the keys the source declares count.
    #[serde(default = "yes")]
    pub convention: bool,
    /// `[from, to]`: a negatable option also reads its key with `from`
    /// replaced by `to` (`LLAMA_ARG_MMAP` → `LLAMA_ARG_NO_MMAP`).
    #[serde(default)]
    pub negated: Option<[String; 2]>,
    /// The prefix only this engine's keys carry (`LLAMA_ARG_`): a key with
    /// it is evidence that an env file is the engine's.
    #[serde(default)]
    pub prefix: Option<String>,
    /// Keys of the engine's flags that other programs read too (`PORT`,
    /// `LOG_LEVEL`): on their own, no evidence that a file is the engine's.
    #[serde(default)]
    pub shared: Vec<String>,
}

impl Default for EnvSpec {
    fn default() -> Self {
        EnvSpec { convention: true, negated: None, prefix: None, shared: Vec::new() }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScopeSpec {
    /// The scope every binary inherits (`LLAMA_EXAMPLE_COMMON`).
    #[serde(default)]
    pub common: Option<String>,
    /// Scopes that do not inherit `common`.
    #[serde(default)]
    pub not_inheriting: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageSpec {
    /// Image repository names (the last path segment) that run the engine.
    #[serde(default)]
    pub names: Vec<String>,
    /// A regex over the image tag whose group 1 is the catalogue tag.
    #[serde(default)]
    pub tag: Option<String>,
    /// Image variants by tag: which binary the entrypoint runs.
    #[serde(default, rename = "variant")]
    pub variants: Vec<ImageVariant>,
}

/// An image whose tag matches `tag` runs `command` (or, when `foreign`,
/// something that is not the engine's option table).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageVariant {
    pub tag: String,
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub foreign: bool,
}

/// A binary that runs (or does not run) the engine's option table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandSpec {
    pub name: String,
    /// The scope whose options it accepts; none: every option.
    #[serde(default)]
    pub scope: Option<String>,
    /// It parses its own arguments: its flags are not judged.
    #[serde(default)]
    pub foreign: bool,
    /// `llama serve …`: subcommand → scope.
    #[serde(default)]
    pub subcommands: BTreeMap<String, String>,
    /// The name is a Python module, run as `python -m NAME` (an interpreter
    /// in front of it, never as a command word of its own).
    #[serde(default)]
    pub module: bool,
}

/// A profile that does not make sense, with what to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("profile `{engine}`: {message}")]
pub struct ProfileError {
    pub engine: String,
    pub message: String,
}

/// How a command line's first words run the engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invocation {
    /// The engine's argv follows; `scope` says which options it accepts.
    Engine { scope: Option<String>, words: usize },
    /// A binary with its own parser: nothing it takes is the engine's.
    Foreign,
}

/// True for an engine name that is safe as a folder name: letters, digits,
/// `.`, `-`, `_`, not starting with a dot (`llama.cpp`, `whisper.cpp`).
pub fn valid_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && !s.starts_with('.')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

impl Profile {
    /// Parses a profile from TOML text.
    pub fn parse(text: &str) -> Result<Profile, String> {
        let p: Profile = toml::from_str(text).map_err(|e| e.to_string())?;
        p.validate().map_err(|e| e.message)?;
        Ok(p)
    }

    /// Checks what serde cannot: names and regexes.
    pub fn validate(&self) -> Result<(), ProfileError> {
        let err = |message: String| ProfileError { engine: self.name.clone(), message };
        if !valid_name(&self.name) {
            return Err(err("the name must be letters, digits, `.`, `-` or `_`, e.g. `llama.cpp`".into()));
        }
        if let Some(t) = &self.images.tag {
            let re = Regex::new(t).map_err(|e| err(format!("images.tag is not a regex: {e}")))?;
            if re.captures_len() < 2 {
                return Err(err("images.tag needs a group that captures the tag".into()));
            }
        }
        for a in &self.argv.attached {
            if !(a.len() == 2 && a.starts_with('-') && a.as_bytes()[1].is_ascii_alphabetic()) {
                return Err(err(format!("argv.attached `{a}` is not a short option such as `-O`")));
            }
        }
        if self.argv.config.as_ref().is_some_and(|c| !c.starts_with('-')) {
            return Err(err("argv.config must be an option, such as `--config`".into()));
        }
        for v in &self.images.variants {
            Regex::new(&v.tag).map_err(|e| err(format!("images.variant tag is not a regex: {e}")))?;
        }
        if self.extract.language == Language::Python && self.extract.entries.is_empty() {
            return Err(err("a python [extract] needs at least one [[extract.entry]]".into()));
        }
        if self.metrics.prefixes.iter().any(|p| p.is_empty()) {
            return Err(err("an empty metric prefix".into()));
        }
        for [a, b] in &self.metrics.pairs {
            if !self.metrics.prefixes.contains(a) || !self.metrics.prefixes.contains(b) {
                return Err(err(format!("pair [{a}, {b}] names a prefix not in metrics.prefixes")));
            }
        }
        era::validate(&self.eras).map_err(err)?;
        era::check_scoped(&self.extract).map_err(|m| err(format!("[extract] {m}")))?;
        for r in &self.renamed {
            if !self.commands.iter().any(|c| c.name == r.to) {
                return Err(err(format!("renamed `{}` → `{}`: `{}` is not a [[command]]", r.name, r.to, r.to)));
            }
            if self.commands.iter().any(|c| c.name == r.name) {
                return Err(err(format!("renamed `{}` is still a [[command]] of its own", r.name)));
            }
        }
        Ok(())
    }

    /// A profile for an engine knobs has no data about: its name is its only
    /// command, and every other rule is the default.
    pub fn bare(name: &str) -> Profile {
        Profile {
            name: name.to_string(),
            description: String::new(),
            extract: ExtractSpec::default(),
            eras: Vec::new(),
            metrics: MetricSpec::default(),
            argv: ArgvSpec::default(),
            env: EnvSpec::default(),
            scopes: ScopeSpec::default(),
            images: ImageSpec { names: vec![name.to_string()], tag: None, variants: Vec::new() },
            commands: vec![CommandSpec { name: name.to_string(), ..CommandSpec::default() }],
            renamed: Vec::new(),
        }
    }

    /// Which files are read for the build `tag`: those of the `[[era]]` it
    /// falls in, else (a newer tag, a branch, a commit) `extract`. Sync and
    /// the history key a tag by the files named here.
    pub fn extract_for(&self, tag: &str) -> &ExtractSpec {
        era::era_of(&self.eras, tag).map_or(&self.extract, |e| &e.extract)
    }

    /// How a command (by its basename) and the word after it run the engine.
    pub fn invocation(&self, command: &str, next: Option<&str>) -> Option<Invocation> {
        let c = self.commands.iter().find(|c| c.name == command && !c.module)?;
        self.invocation_of(c, next)
    }

    /// How `python -m MODULE` runs the engine, when the module is one of its commands.
    pub fn module_invocation(&self, module: &str) -> Option<Invocation> {
        let c = self.commands.iter().find(|c| c.name == module && c.module)?;
        self.invocation_of(c, None)
    }

    /// True when some command of the profile is a Python module.
    pub fn has_modules(&self) -> bool {
        self.commands.iter().any(|c| c.module)
    }

    fn invocation_of(&self, c: &CommandSpec, next: Option<&str>) -> Option<Invocation> {
        if c.foreign {
            return Some(Invocation::Foreign);
        }
        if !c.subcommands.is_empty() {
            // `llama serve …`; an unknown subcommand is not judged.
            return match next.and_then(|n| c.subcommands.get(n)) {
                Some(scope) => Some(Invocation::Engine { scope: Some(scope.clone()), words: 2 }),
                None => Some(Invocation::Foreign),
            };
        }
        Some(Invocation::Engine { scope: c.scope.clone(), words: 1 })
    }

    /// True when an option with these scopes and excludes is accepted under
    /// `scope` (a binary's scope; `None` accepts everything).
    pub fn accepts(&self, scopes: &[String], excludes: &[String], scope: Option<&str>) -> bool {
        let Some(scope) = scope else { return true };
        if excludes.iter().any(|e| e == scope) {
            return false;
        }
        // An option the source scopes nowhere is in the common scope.
        let implicit;
        let scopes = match (scopes.is_empty(), &self.scopes.common) {
            (true, Some(c)) => {
                implicit = [c.clone()];
                &implicit[..]
            }
            (true, None) => return true,
            (false, _) => scopes,
        };
        if scopes.iter().any(|s| s == scope) {
            return true;
        }
        let inherits = !self.scopes.not_inheriting.iter().any(|s| s == scope);
        inherits && self.scopes.common.as_ref().is_some_and(|c| scopes.contains(c))
    }

    /// The binaries whose scope accepts an option, for messages.
    pub fn binaries_accepting(&self, scopes: &[String], excludes: &[String]) -> Vec<String> {
        let mut out = Vec::new();
        for c in &self.commands {
            if c.foreign {
                continue;
            }
            if c.subcommands.is_empty() {
                if self.accepts(scopes, excludes, c.scope.as_deref()) {
                    out.push(if c.module { format!("python -m {}", c.name) } else { c.name.clone() });
                }
            } else {
                for (sub, scope) in &c.subcommands {
                    if self.accepts(scopes, excludes, Some(scope)) {
                        out.push(format!("{} {sub}", c.name));
                    }
                }
            }
        }
        out
    }

    /// True when `name` is an old name of a binary renamed in some version.
    pub fn is_renamed(&self, name: &str) -> bool {
        self.renamed.iter().any(|r| r.name == name)
    }

    /// What the binary once called `name` is in the build `tag`: the latest
    /// rename at or before `tag`, each earlier one before it; empty when
    /// the build is older than every rename (the name is still its own).
    pub fn renames_at(&self, name: &str, tag: &str) -> Vec<&Renamed> {
        let mut hops: Vec<&Renamed> = (self.renamed.iter())
            .filter(|r| r.name == name && compare_tags(&r.since, tag) != std::cmp::Ordering::Greater)
            .collect();
        hops.sort_by(|a, b| compare_tags(&a.since, &b.since));
        hops
    }

    /// The scope of a binary by name (`llama-server` → its example's).
    pub fn scope_of(&self, command: &str) -> Option<&str> {
        self.commands.iter().find(|c| c.name == command && !c.foreign && !c.module).and_then(|c| c.scope.as_deref())
    }

    /// The same metric name under the paired prefix.
    pub fn paired_name(&self, name: &str) -> Option<String> {
        for [a, b] in &self.metrics.pairs {
            if let Some(rest) = name.strip_prefix(a.as_str()) {
                return Some(format!("{b}{rest}"));
            }
            if let Some(rest) = name.strip_prefix(b.as_str()) {
                return Some(format!("{a}{rest}"));
            }
        }
        None
    }

    /// True when `name` starts with one of the engine's metric prefixes.
    pub fn is_metric_name(&self, name: &str) -> bool {
        self.metrics.prefixes.iter().any(|p| name.starts_with(p.as_str()))
    }
}

/// The profiles built into knobs, by name.
pub fn builtin(name: &str) -> Option<Profile> {
    builtins().into_iter().find(|p| p.name == name)
}

/// Every built-in profile.
pub fn builtins() -> Vec<Profile> {
    crate::embedded::PROFILES
        .files()
        .filter(|f| f.path().extension().is_some_and(|e| e == "toml"))
        .filter_map(|f| f.contents_utf8().and_then(|t| Profile::parse(t).ok()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_profile_parses_and_is_named_after_its_file() {
        let mut seen = 0;
        for f in crate::embedded::PROFILES.files() {
            let text = f.contents_utf8().expect("utf-8");
            let p = Profile::parse(text).unwrap_or_else(|e| panic!("{}: {e}", f.path().display()));
            assert_eq!(Some(format!("{}.toml", p.name).as_str()), f.path().to_str());
            seen += 1;
        }
        assert!(seen >= 2, "radiance and llama.cpp are built in");
    }

    /// `[extract] language` is C++ unless told; a Python profile names the
    /// functions that build its parsers, or it is refused.
    #[test]
    fn the_extract_language_is_cpp_unless_a_python_profile_says() {
        assert_eq!(builtin("radiance").expect("radiance").extract.language, Language::Cpp);
        let vllm = builtin("vllm").expect("vllm");
        assert_eq!(vllm.extract.language, Language::Python);
        assert!(vllm.extract.entries.iter().any(|e| e.scope == "serve"));
        let bare = "name = \"x\"\n[extract]\nlanguage = \"python\"\n";
        assert_eq!(
            Profile::parse(bare).err().as_deref(),
            Some("a python [extract] needs at least one [[extract.entry]]")
        );
        let odd = "name = \"x\"\n[extract]\nlanguage = \"ruby\"\n";
        assert!(Profile::parse(odd).err().is_some_and(|e| e.contains("unknown variant `ruby`")));
    }

    #[test]
    fn names_may_contain_dots_but_not_escape() {
        assert!(valid_name("llama.cpp") && valid_name("whisper.cpp") && valid_name("radiance"));
        for bad in ["", "..", "../x", "a/b", "/abs", ".hidden", "sp ace"] {
            assert!(!valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn scopes_inherit_common_except_where_told() {
        let p = builtin("llama.cpp").expect("llama.cpp");
        let common = vec!["LLAMA_EXAMPLE_COMMON".to_string()];
        let server = vec!["LLAMA_EXAMPLE_SERVER".to_string()];
        assert!(p.accepts(&common, &[], Some("LLAMA_EXAMPLE_CLI")));
        assert!(!p.accepts(&common, &[], Some("LLAMA_EXAMPLE_DOWNLOAD")));
        assert!(!p.accepts(&[], &[], Some("LLAMA_EXAMPLE_DOWNLOAD")), "unscoped is common");
        assert!(p.accepts(&[], &[], Some("LLAMA_EXAMPLE_SERVER")));
        assert!(!p.accepts(&server, &[], Some("LLAMA_EXAMPLE_CLI")));
        assert!(!p.accepts(&common, &server, Some("LLAMA_EXAMPLE_SERVER")));
        assert_eq!(
            p.invocation("llama", Some("serve")),
            Some(Invocation::Engine { scope: Some("LLAMA_EXAMPLE_SERVER".into()), words: 2 })
        );
        assert_eq!(p.invocation("llama-bench", None), Some(Invocation::Foreign));
        assert_eq!(image_tag(&p, "server-cuda-b4100").as_deref(), Some("b4100"));
        let r = builtin("radiance").expect("radiance");
        assert_eq!(r.paired_name("radiance:x_total").as_deref(), Some("vllm:x_total"));
        assert_eq!(image_tag(&r, "1.0.13").as_deref(), Some("1.0.13"));
    }

    /// Facts read in llama.cpp's history (`git log`, `git tag --contains`):
    /// `main` became `llama-cli` in the first tag holding the rename commit
    /// (b3183), and the old `llama-cli` program became `llama-completion`
    /// in b7356, when `llama-cli` became a new program.
    #[test]
    fn a_renamed_binary_is_what_the_build_calls_it() {
        let p = builtin("llama.cpp").expect("llama.cpp");
        let to = |name: &str, tag: &str| p.renames_at(name, tag).last().map(|r| (r.to.clone(), r.since.clone()));
        assert_eq!(to("main", "b3040"), None, "older than the rename: `main` is its own");
        assert_eq!(to("main", "b3183"), Some(("llama-cli".into(), "b3183".into())));
        assert_eq!(to("main", "b4100"), Some(("llama-cli".into(), "b3183".into())));
        assert_eq!(to("main", "b7356"), Some(("llama-completion".into(), "b7356".into())));
        assert_eq!(to("main", "b10573").map(|t| t.0), Some("llama-completion".into()));
        assert_eq!(p.renames_at("main", "b10573").len(), 2, "both hops, oldest first");
        assert_eq!(to("server", "b10573").map(|t| t.0), Some("llama-server".into()));
        assert!(p.is_renamed("quantize") && !p.is_renamed("llama-server"));
        assert!(builtin("radiance").expect("radiance").renamed.is_empty());
        let bad = "name = \"x\"\n[[command]]\nname = \"x\"\n[[renamed]]\nname = \"old\"\nto = \"new\"\nsince = \"1\"\n";
        assert_eq!(Profile::parse(bad).err().as_deref(), Some("renamed `old` → `new`: `new` is not a [[command]]"));
        let kept = "name = \"x\"\n[[command]]\nname = \"x\"\n[[renamed]]\nname = \"x\"\nto = \"x\"\nsince = \"1\"\n";
        assert_eq!(Profile::parse(kept).err().as_deref(), Some("renamed `x` is still a [[command]] of its own"));
    }

    /// The catalogue tag an image tag pins, read with the profile's
    /// `images.tag` the way the image scanners read it.
    fn image_tag(p: &Profile, tag: &str) -> Option<String> {
        match &p.images.tag {
            Some(re) => Regex::new(re).ok()?.captures(tag)?.get(1).map(|m| m.as_str().to_string()),
            None => Some(tag.to_string()),
        }
    }

    /// vLLM's profile as data: the subcommands and the module, the image
    /// tags (the OpenAI image and the ROCm builds' names), the argv keys.
    #[test]
    fn vllm_is_data() {
        let p = builtin("vllm").expect("vllm");
        assert_eq!(
            p.invocation("vllm", Some("serve")),
            Some(Invocation::Engine { scope: Some("serve".into()), words: 2 })
        );
        assert_eq!(p.invocation("vllm", Some("chat")), Some(Invocation::Foreign), "a client, its own options");
        assert_eq!(p.invocation("vllm.entrypoints.openai.api_server", None), None, "a module is not a command word");
        assert_eq!(
            p.module_invocation("vllm.entrypoints.openai.api_server"),
            Some(Invocation::Engine { scope: Some("serve".into()), words: 1 })
        );
        assert_eq!(p.module_invocation("http.server"), None);
        assert_eq!(image_tag(&p, "v0.10.0").as_deref(), Some("v0.10.0"));
        assert_eq!(image_tag(&p, "rocm6.3.1_vllm_0.8.5_20250521").as_deref(), Some("0.8.5"));
        assert_eq!(image_tag(&p, "latest"), None);
        // vLLM's post-releases are tags of their own (git tag: v0.8.5.post1).
        assert_eq!(image_tag(&p, "v0.8.5.post1").as_deref(), Some("v0.8.5.post1"));
        assert_eq!(image_tag(&p, "v0.9.0rc2").as_deref(), Some("v0.9.0rc2"));
        assert_eq!(p.argv.positional_limits.get("vllm serve"), Some(&1));
        assert_eq!(p.argv.attached, ["-O"]);
        assert!(p.argv.dotted && p.argv.abbreviations && !p.argv.switch_values && p.argv.config_drops_false);
        assert_eq!(
            p.binaries_accepting(&["serve".into()], &[]),
            ["vllm serve", "python -m vllm.entrypoints.openai.api_server"]
        );
        for other in ["radiance", "llama.cpp"] {
            let a = &builtin(other).expect(other).argv;
            assert!(!a.dotted && a.attached.is_empty() && !a.abbreviations && a.switch_values && a.config.is_none());
            assert!(a.positional_limits.is_empty());
        }
        let bad = "name = \"x\"\n[argv]\nattached = [\"O\"]\n";
        assert_eq!(Profile::parse(bad).err().as_deref(), Some("argv.attached `O` is not a short option such as `-O`"));
        let bad = "name = \"x\"\n[argv]\nconfig = \"config\"\n";
        assert_eq!(Profile::parse(bad).err().as_deref(), Some("argv.config must be an option, such as `--config`"));
    }
}
