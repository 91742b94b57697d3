//! Engine profiles: everything knobs knows about one engine that is not in a
//! catalogue — which files hold its configuration, how its argv and env keys
//! are read, its metric prefixes, its binaries and image names. Profiles are
//! data (`profiles/<engine>.toml`, built in, or `[profile.NAME]` in
//! knobs.toml); no rule, scanner or renderer names an engine.
//!
//! This file holds `Profile` itself, parsing, the built-in profiles and
//! which files a build reads; each table of a profile has a file of its
//! own: `extract_spec.rs` (`[extract]`), `era.rs` (`[[era]]`), `argv.rs`,
//! `go_spec.rs` (`[extract.go]`), `env.rs`, `metrics.rs`, `scopes.rs`, `images.rs`, `commands.rs`
//! (`[[command]]`, `[[renamed]]`), and `validate.rs` checks what serde
//! cannot. `[history]` (which tags are releases) is here, with `Profile`.

mod argv;
mod commands;
mod env;
mod era;
mod extract_spec;
mod go_spec;
mod images;
mod metrics;
mod scopes;
mod validate;

use serde::{Deserialize, Serialize};

pub use argv::ArgvSpec;
pub use commands::{CommandSpec, Invocation, Renamed};
pub use env::{EnvSpec, SwitchWords};
pub use era::Era;
pub use extract_spec::{EntrySpec, EnvTableSpec, ExtractSpec, GeneratorSpec, Language, PythonSpec};
pub use go_spec::GoSpec;
pub use images::{ImageSpec, ImageVariant};
pub use metrics::{separator_variants, MetricSpec};
pub use scopes::ScopeSpec;
pub use validate::{valid_name, ProfileError};

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
    /// first (`[[era]]`, see `era.rs`).
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
    /// Which tags make the engine's history (`[history]`).
    #[serde(default)]
    pub history: HistorySpec,
}

/// A profile's `[history]`: the tags `knobs sync --all-tags` reads.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistorySpec {
    /// A regex a release tag matches (`^v\d+\.\d+\.\d+`): other tags
    /// (a fork's `test/20250421`) are left out unless `--tags` names them.
    #[serde(default)]
    pub tags: Option<String>,
}

impl HistorySpec {
    /// True when `tag` is a release tag by the profile (every tag when it says none).
    pub fn release(&self, tag: &str) -> bool {
        self.tags.as_deref().and_then(|t| regex::Regex::new(t).ok()).is_none_or(|re| re.is_match(tag))
    }
}

impl Profile {
    /// Parses a profile from TOML text.
    pub fn parse(text: &str) -> Result<Profile, String> {
        let p: Profile = toml::from_str(text).map_err(|e| e.to_string())?;
        p.validate().map_err(|e| e.message)?;
        Ok(p)
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
            history: HistorySpec::default(),
        }
    }

    /// Which files are read for the build `tag`: those of the `[[era]]` it
    /// falls in, else (a newer tag, a branch, a commit) `extract`. Sync and
    /// the history key a tag by the files named here.
    pub fn extract_for(&self, tag: &str) -> &ExtractSpec {
        era::files_of(&self.eras, tag).unwrap_or(&self.extract)
    }

    /// The era `tag` falls in, by its position among `eras`; None: the newest.
    pub fn era_index(&self, tag: &str) -> Option<usize> {
        era::index_of(&self.eras, tag)
    }

    /// The profile as the era at position `era` runs its binaries: that
    /// era's `[[era.command]]`s replace the profile's of the same name, or
    /// are added; its scopes that do not inherit the common one are added;
    /// its switch words (or the next era's) replace the profile's. None
    /// when the era changes none of these.
    pub fn in_era(&self, era: usize) -> Option<Profile> {
        let switch = era::switch_of(&self.eras, era);
        let e = self.eras.get(era).filter(|e| e.changes_running() || switch.is_some())?;
        let mut p = self.clone();
        if let Some(words) = switch {
            p.env.switch = Some(words.clone());
        }
        p.scopes.era_not_inheriting.clone_from(&e.not_inheriting);
        for c in &e.commands {
            match p.commands.iter_mut().find(|k| k.name == c.name) {
                Some(k) => *k = c.clone(),
                None => p.commands.push(c.clone()),
            }
        }
        Some(p)
    }
}

/// The serde default of the keys that are on unless told.
fn yes() -> bool {
    true
}

/// The profiles built into knobs, by name.
pub fn builtin(name: &str) -> Option<Profile> {
    // Each is named after its file (a test holds them to it): only that
    // one is parsed, not every profile (start-up parsed all three).
    let file = crate::embedded::PROFILES.get_file(format!("{name}.toml"))?;
    file.contents_utf8().and_then(|t| Profile::parse(t).ok()).filter(|p| p.name == name)
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
    use regex::Regex;

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
    fn an_image_variant_of_an_era_is_checked() {
        let with = |extra: &str| Profile::parse(&format!("name = \"e\"\n[[images.variant]]\ntag = '.'\n{extra}\n"));
        assert!(with("until = \"v0.11.1rc1\"\npositionals = 0\nignored_positional = \"--model\"").is_ok());
        let err = with("until = \" v1\"").err().unwrap_or_default();
        assert!(err.contains("images.variant until ` v1` is not a tag such as `v0.11.1`"), "{err}");
        let err = with("ignored_positional = \"model\"").err().unwrap_or_default();
        assert!(err.contains("images.variant ignored_positional must be an option, such as `--model`"), "{err}");
    }

    /// vLLM: `vllm serve` takes the options it shares with the server
    /// module and its own; the module only the shared ones.
    #[test]
    fn a_scope_takes_the_options_of_the_scopes_it_includes() {
        let p = builtin("vllm").expect("vllm");
        let shared = vec!["serve".to_string()];
        let own = vec!["vllm-serve".to_string()];
        assert!(p.accepts(&shared, &[], Some("vllm-serve")));
        assert!(p.accepts(&own, &[], Some("vllm-serve")));
        assert!(p.accepts(&shared, &[], Some("serve")));
        assert!(!p.accepts(&own, &[], Some("serve")));
        assert!(!p.accepts(&shared, &[], Some("run-batch")));
        assert_eq!(p.binaries_accepting(&own, &[]), ["vllm serve"]);
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
            Some(Invocation::Engine { scope: Some("vllm-serve".into()), words: 2 })
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
