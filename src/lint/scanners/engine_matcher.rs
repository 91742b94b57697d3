//! The engine's profile compiled into matchers: which commands and images
//! run the engine (and how), with the needles that let a scanner skip text
//! that names none of them, and the tag patterns that turn an image
//! reference into a catalogue version. Built once per run, read by every
//! scanner through `ScanCtx`.

use std::sync::Arc;

use crate::catalog::profile::{ImageVariant, Invocation, Profile};
use crate::lint::refs::Binary;

/// The commands that run the engine: the profile's, and those knobs.toml adds.
#[derive(Debug, Clone)]
pub struct EngineMatcher {
    profile: Profile,
    /// Binaries and serve scripts named in knobs.toml: every option is theirs.
    extra: Vec<String>,
    /// Finds any word that may start an engine command line (a pre-filter).
    needles: aho_corasick::AhoCorasick,
    /// Finds `IMAGE:` for any engine image name (a pin's pre-filter).
    image_needles: Option<aho_corasick::AhoCorasick>,
    /// The profile's image-tag pattern, compiled once.
    image_tag: Option<regex::Regex>,
    /// The profile's image variants with their tag patterns compiled once.
    variants: Vec<(regex::Regex, usize)>,
    /// Every name `is_known` or `is_renamed` answers yes for: one lookup
    /// for the first word of every command of every script.
    names: rustc_hash::FxHashSet<String>,
    /// The length of the longest of `names`: a longer word (a metric name
    /// in a code span, a path) is none of them, known without hashing it.
    longest: usize,
}

impl EngineMatcher {
    pub fn new(profile: &Profile, extra: Vec<String>) -> EngineMatcher {
        let mut words: Vec<String> = profile.commands.iter().filter(|c| !c.foreign).map(|c| c.name.clone()).collect();
        words.extend(profile.images.names.iter().cloned());
        words.extend(extra.iter().cloned());
        // An old name counts only as a path: `./main`, `bin\server.exe`.
        for r in &profile.renamed {
            words.extend(["/", "\\"].map(|sep| format!("{sep}{}", r.name)));
        }
        words.retain(|w| !w.is_empty());
        let needles = aho_corasick::AhoCorasick::new(&words).unwrap_or_else(|_| {
            // Only a pattern set too large to build fails; then everything matches.
            aho_corasick::AhoCorasick::new([""]).expect("the empty pattern")
        });
        // Patterns were checked when the profile was loaded; one that does not
        // compile matches nothing here.
        let image_tag = profile.images.tag.as_deref().and_then(|re| regex::Regex::new(re).ok());
        let variants = (profile.images.variants.iter().enumerate())
            .filter_map(|(i, v)| regex::Regex::new(&v.tag).ok().map(|re| (re, i)))
            .collect();
        let pins: Vec<String> =
            profile.images.names.iter().filter(|n| !n.is_empty()).map(|n| format!("{n}:")).collect();
        let image_needles = aho_corasick::AhoCorasick::new(&pins).ok();
        let names: rustc_hash::FxHashSet<String> = (extra.iter().cloned())
            .chain(profile.commands.iter().map(|c| c.name.clone()))
            .chain(profile.renamed.iter().map(|r| r.name.clone()))
            .collect();
        let longest = names.iter().map(String::len).max().unwrap_or(0);
        EngineMatcher { profile: profile.clone(), extra, needles, image_needles, image_tag, variants, names, longest }
    }

    /// True when `text` names a command or image that runs the engine: only
    /// such text can hold the engine's argv.
    pub fn mentioned_in(&self, text: &str) -> bool {
        self.needles.is_match(text)
    }

    /// How a command word as written (`./bin/llama-server`, `radiance.exe`,
    /// `C:/Program Files/llama/llama-cli.exe`, `./main`) runs the engine,
    /// given the word after it. An old name of a renamed binary counts only
    /// when written as a path (`./main`, `bin/server`, `main.exe`): a bare
    /// `main` is a word of prose or another program.
    pub fn invocation_written(&self, word: &str, next: Option<&str>) -> Option<(Invocation, Option<Arc<Binary>>)> {
        let name = command_name(word);
        let path_like = word.contains(['/', '\\']) || name.len() < word.len();
        // An old name stays a path even where an era runs a binary by it.
        if self.profile.is_renamed(name) && !path_like {
            return None;
        }
        if let Some(found) = self.invocation(name, next) {
            return Some(found);
        }
        if !(path_like && self.profile.is_renamed(name)) {
            return None;
        }
        let binary = Binary { command: word.to_string(), renamed: Some(name.to_string()), ..Binary::default() };
        Some((Invocation::Engine { scope: None, words: 1 }, Some(Arc::new(binary))))
    }

    /// The same, given the two words after it: a subcommand of two words
    /// (`vllm bench latency`) when the profile names one.
    pub fn invocation_written_nested(
        &self,
        word: &str,
        next: Option<&str>,
        after: Option<&str>,
    ) -> Option<(Invocation, Option<Arc<Binary>>)> {
        if let (Some(n), Some(a)) = (next, after) {
            if self.profile.has_nested_subcommand(command_name(word), n) {
                return self.invocation_written(word, Some(&format!("{n} {a}")));
            }
        }
        self.invocation_written(word, next)
    }

    /// True when `name` is an old name of a renamed binary.
    pub fn is_renamed(&self, name: &str) -> bool {
        self.profile.is_renamed(name)
    }

    /// How a command (by basename) runs the engine, given the word after it.
    pub fn invocation(&self, command: &str, next: Option<&str>) -> Option<(Invocation, Option<Arc<Binary>>)> {
        if self.extra.iter().any(|e| e == command) {
            return Some((Invocation::Engine { scope: None, words: 1 }, None));
        }
        let inv = self.profile.invocation(command, next)?;
        let binary = self.binary(&inv, command, next);
        Some((inv, binary))
    }

    /// How `python -m MODULE` runs the engine, when the module is one of its commands.
    pub fn module_invocation(&self, module: &str) -> Option<(Invocation, Option<Arc<Binary>>)> {
        let inv = self.profile.module_invocation(module)?;
        let binary = self.binary(&inv, module, None);
        Some((inv, binary))
    }

    /// True when some command of the engine is a Python module.
    pub fn has_modules(&self) -> bool {
        self.profile.has_modules()
    }

    /// The binary an invocation runs, when its scope or its positionals
    /// matter (`llama serve`, `vllm serve` and its one positional).
    fn binary(&self, inv: &Invocation, command: &str, next: Option<&str>) -> Option<Arc<Binary>> {
        let Invocation::Engine { scope, words } = inv else { return None };
        let written = if *words > 1 { format!("{command} {}", next.unwrap_or("")) } else { command.to_string() };
        let positionals = self.profile.argv.positional_limits.get(&written).copied();
        let plain_underscores = self.profile.argv.underscores && !self.profile.underscores_of(command);
        let earlier_positionals: Vec<(String, usize)> = (self.profile.argv.positional_eras.iter())
            .filter_map(|era| era.limits.get(&written).map(|n| (era.until.clone(), *n)))
            .collect();
        if scope.is_none() && positionals.is_none() && !plain_underscores && earlier_positionals.is_empty() {
            return None;
        }
        Some(Arc::new(Binary {
            command: written,
            scope: scope.clone(),
            renamed: None,
            positionals,
            earlier_positionals,
            ignored_positional: None,
            plain_underscores,
        }))
    }

    /// True when `text` may pin an engine image (`radiance:` appears).
    pub fn may_pin(&self, text: &str) -> bool {
        self.image_needles.as_ref().is_some_and(|n| n.is_match(text))
    }

    /// Every `IMAGE:TAG` in `text` whose image is the engine's: the byte
    /// range of each tag. The image name stands alone (at the start, or
    /// after `/`, `=` or whitespace); the tag is `[A-Za-z0-9][A-Za-z0-9_.-]*`.
    pub fn image_refs(&self, text: &str) -> Vec<std::ops::Range<usize>> {
        let Some(needles) = &self.image_needles else { return Vec::new() };
        let b = text.as_bytes();
        let part_of_name = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-');
        let mut out = Vec::new();
        let mut resume = 0;
        for m in needles.find_overlapping_iter(text) {
            if m.start() < resume {
                continue;
            }
            let standalone = match m.start().checked_sub(1).map(|i| b[i]) {
                None => true,
                Some(c) => {
                    c == b'/' || c == b'=' || c.is_ascii_whitespace() || (c >= 0x80 && before_is_space(text, m.start()))
                }
            };
            if !standalone {
                continue;
            }
            let tag_start = m.end();
            if !b.get(tag_start).is_some_and(u8::is_ascii_alphanumeric) {
                continue;
            }
            let tag_end =
                tag_start + b[tag_start..].iter().position(|c| !part_of_name(*c)).unwrap_or(b.len() - tag_start);
            resume = tag_end;
            out.push(tag_start..tag_end);
        }
        out
    }

    /// Image repository names (last path segment) that run the engine.
    pub fn images(&self) -> &[String] {
        &self.profile.images.names
    }

    /// The image variant an engine image's tag runs: the first whose tag
    /// pattern matches and, with `until`, whose build comes before it.
    fn variant(&self, tag: &str) -> Option<&ImageVariant> {
        let pinned = self.image_tag(tag);
        let before =
            |until: &str| pinned.as_deref().is_some_and(|p| crate::catalog::tag::compare_tags(p, until).is_lt());
        let (_, i) = self
            .variants
            .iter()
            .find(|(re, i)| re.is_match(tag) && self.profile.images.variants[*i].until.as_deref().is_none_or(before))?;
        Some(&self.profile.images.variants[*i])
    }

    /// How an engine image with this tag runs, given `first`, the first word
    /// after the image: its variant's binary (or not the engine), and how many
    /// of the words after the image that binary's name took. An entrypoint
    /// that is a program of subcommands (`ollama`) takes the first word as its
    /// subcommand, or the image's CMD when no word follows.
    pub fn image_entrypoint(&self, tag: &str, first: Option<&str>) -> Option<(Invocation, usize)> {
        let v = self.variant(tag)?;
        if v.foreign {
            return Some((Invocation::Foreign, 0));
        }
        let words: Vec<&str> = v.command.as_deref()?.split_whitespace().collect();
        match words.as_slice() {
            // `python3 -m MODULE`: one of the engine's modules.
            [python, "-m", module, ..] if python.starts_with("python") => {
                self.profile.module_invocation(module).map(|i| (i, 0))
            }
            [command] if self.profile.has_subcommands(command) => match first {
                Some(word) => self.profile.invocation(command, Some(word)).map(|i| match i {
                    Invocation::Engine { words, .. } => (i, words - 1),
                    Invocation::Foreign => (i, 0),
                }),
                None => self.profile.invocation(command, v.cmd.as_deref()).map(|i| (i, 0)),
            },
            // `vllm serve`: a command and its subcommand.
            [command, rest @ ..] => self.profile.invocation(command, rest.first().copied()).map(|i| (i, 0)),
            [] => None,
        }
    }

    /// How many positional words the binary an image variant runs takes
    /// (`vllm serve`: the model), when the profile says.
    pub fn image_positionals(&self, tag: &str) -> Option<usize> {
        let v = self.variant(tag)?;
        if v.positionals.is_some() {
            return v.positionals;
        }
        let words: Vec<&str> = v.command.as_deref()?.split_whitespace().collect();
        // `[argv] positional_limits` names a module by itself, a command with its subcommand.
        let written = match words.as_slice() {
            [python, "-m", module, ..] if python.starts_with("python") => module.to_string(),
            _ => words.join(" "),
        };
        self.profile.argv.positional_limits.get(&written).copied()
    }

    /// The option a positional word stands for when the image's binary
    /// parses the word and ignores it (vLLM's OpenAI server module before
    /// the image ran `vllm serve`: the model served is `--model`'s).
    pub fn image_ignored_positional(&self, tag: &str) -> Option<String> {
        self.variant(tag)?.ignored_positional.clone()
    }

    /// The catalogue tag an engine image's tag pins.
    pub fn image_tag(&self, tag: &str) -> Option<String> {
        match (&self.profile.images.tag, &self.image_tag) {
            (None, _) => Some(tag.to_string()),
            (Some(_), Some(re)) => re.captures(tag)?.get(1).map(|m| m.as_str().to_string()),
            (Some(_), None) => None,
        }
    }

    /// True when `command` is one of the engine's commands or an old name
    /// of one (`is_known || is_renamed`), by one lookup.
    pub fn is_known_or_renamed(&self, command: &str) -> bool {
        command.len() <= self.longest && self.names.contains(command)
    }

    /// True when a word names one of the engine's commands (any kind).
    pub fn is_known(&self, command: &str) -> bool {
        self.extra.iter().any(|e| e == command) || self.profile.commands.iter().any(|c| c.name == command)
    }
}

/// A command word as a name: its last path segment (after `/` or `\`),
/// without a Windows `.exe` suffix (`C:/"Program Files"/llama/llama-server.exe`
/// → `llama-server`).
pub(crate) fn command_name(word: &str) -> &str {
    // Bytes, not chars: this runs for every command of every script.
    let b = word.as_bytes();
    let base = match b.iter().rposition(|&c| c == b'/' || c == b'\\') {
        Some(i) => &word[i + 1..],
        None => word,
    };
    let n = base.len();
    if n >= 4 && base.as_bytes()[n - 4] == b'.' && base.as_bytes()[n - 3..].eq_ignore_ascii_case(b"exe") {
        return &base[..n - 4];
    }
    base
}

/// True when the character ending at `at` is Unicode white space.
fn before_is_space(text: &str, at: usize) -> bool {
    text[..at].chars().next_back().is_some_and(char::is_whitespace)
}
