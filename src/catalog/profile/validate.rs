//! What serde cannot check in a profile: its name, its regexes, its short
//! options, its eras and scoped files, its renames.

use regex::Regex;

use super::era;
use super::extract_spec::Language;
use super::Profile;

/// A profile that does not make sense, with what to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("profile `{engine}`: {message}")]
pub struct ProfileError {
    pub engine: String,
    pub message: String,
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
        if let Some(t) = &self.history.tags {
            Regex::new(t).map_err(|e| err(format!("history.tags is not a regex: {e}")))?;
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
            if let Some(u) = v.until.as_deref().filter(|u| !u.starts_with(|c: char| c.is_ascii_alphanumeric())) {
                return Err(err(format!("images.variant until `{u}` is not a tag such as `v0.11.1`")));
            }
            if v.ignored_positional.as_deref().is_some_and(|o| !o.starts_with('-')) {
                return Err(err("images.variant ignored_positional must be an option, such as `--model`".into()));
            }
        }
        if self.extract.language == Language::Python && self.extract.entries.is_empty() {
            return Err(err("a python [extract] needs at least one [[extract.entry]]".into()));
        }
        if self.extract.language == Language::Rust && self.extract.entries.is_empty() {
            return Err(err("a rust [extract] needs at least one [[extract.entry]] naming its clap struct".into()));
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
}

#[cfg(test)]
mod tests {
    use super::super::Profile;

    /// A Rust profile names the clap struct each binary parses into, or it
    /// is refused.
    #[test]
    fn a_rust_profile_names_its_struct() {
        let bare = "name = \"x\"\n[extract]\nlanguage = \"rust\"\n";
        assert_eq!(
            Profile::parse(bare).err().as_deref(),
            Some("a rust [extract] needs at least one [[extract.entry]] naming its clap struct")
        );
        let named = "name = \"x\"\n[extract]\nlanguage = \"rust\"\n[[extract.entry]]\nscope = \"s\"\nfile = \"src/main.rs\"\nfunctions = [\"Args\"]\n";
        assert!(Profile::parse(named).is_ok());
    }
}
