//! The keyword arguments of one `add_argument` call, as far as a catalogue
//! needs them, whether written in the call (`type=int, choices=[...]`) or
//! built from a dataclass field (`**kwargs["field"]`); and the flag they
//! make: the kind from `action=`/`type=`/`choices=`, members, the `--no-`
//! twin of a `BooleanOptionalAction`.

use crate::catalog::model::{Flag, Kind, MembersFrom};

use super::annotation::ArgparseShape;
use super::value::Val;

/// Choices of an option.
#[derive(Debug, Clone, PartialEq)]
pub enum Choices {
    /// The members, and whether nothing else is accepted.
    Known { members: Vec<String>, closed: bool, origin: &'static str, location: String },
    /// Computed when the program runs.
    RunTime,
}

/// The keyword arguments that matter.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Kw {
    /// The kind `type=` gives (none: argparse reads a string).
    pub kind: Option<Kind>,
    /// `action=`, by its last name (`store_true`, `BooleanOptionalAction`).
    pub action: Option<String>,
    pub choices: Option<Choices>,
    pub default: Option<Val>,
    pub help: Option<String>,
    pub nargs: Option<String>,
    pub metavar: Option<String>,
    /// More option strings (`flags` in the kwargs dict).
    pub flags: Vec<String>,
    /// The custom action takes no value word (its `nargs` is 0).
    pub no_value: bool,
    /// The custom action says the option is deprecated.
    pub deprecated: bool,
    /// The custom action refuses the option whenever it is given.
    pub refused: bool,
}

/// The action name argparse's `BooleanOptionalAction` has.
const BOOLEAN_OPTIONAL: &str = "BooleanOptionalAction";

impl Kw {
    /// The kwargs a field's annotation gives.
    pub fn derived(d: &ArgparseShape, default: Val, help: String, location: String) -> Kw {
        let mut kw = Kw { default: Some(default), help: Some(help), ..Kw::default() };
        if d.negatable {
            kw.action = Some(BOOLEAN_OPTIONAL.to_string());
            return kw;
        }
        kw.kind = Some(if d.kind == Kind::Enum { Kind::String } else { d.kind });
        if !d.members.is_empty() {
            kw.choices =
                Some(Choices::Known { members: d.members.clone(), closed: d.closed, origin: "annotation", location });
        }
        if d.many {
            kw.nargs = Some("+".to_string());
        }
        kw
    }

    /// Sets one key as a call or an override (`kw["type"] = int`) would.
    pub fn set(&mut self, key: &str, value: KwValue) {
        match (key, value) {
            ("type", KwValue::Kind(k)) => self.kind = Some(k),
            ("action", KwValue::Name(a)) => self.action = Some(a),
            ("choices", KwValue::Choices(c)) => self.choices = Some(c),
            ("default", KwValue::Val(v)) => self.default = Some(v),
            ("help", KwValue::Val(v)) => self.help = Some(v.display()),
            ("nargs", KwValue::Val(v)) => self.nargs = Some(v.display()),
            ("metavar", KwValue::Val(v)) => self.metavar = Some(v.display()),
            ("flags", KwValue::Val(Val::List(v))) => self.flags = v.iter().map(Val::display).collect(),
            _ => {}
        }
    }

    /// Removes a key (`del kw["nargs"]`).
    pub fn remove(&mut self, key: &str) {
        match key {
            "type" => self.kind = None,
            "action" => self.action = None,
            "choices" => self.choices = None,
            "default" => self.default = None,
            "nargs" => self.nargs = None,
            "metavar" => self.metavar = None,
            _ => {}
        }
    }

    /// The flag `names` (option strings) with these kwargs declare; `None`
    /// for a positional. `bool_actions` are custom actions that take an
    /// optional `true`/`false`.
    pub fn flag(&self, names: &[String], location: String, bool_actions: &[String]) -> Option<Flag> {
        let mut names: Vec<String> = names.iter().chain(&self.flags).cloned().collect();
        names.dedup();
        let name = names.iter().find(|n| n.starts_with("--")).or_else(|| names.iter().find(|n| n.starts_with('-')))?;
        let name = name.clone();
        let aliases: Vec<String> = names.iter().filter(|n| **n != name && n.starts_with('-')).cloned().collect();
        let action = self.action.as_deref().unwrap_or("store");
        let mut flag = Flag {
            name,
            aliases,
            metavar: self.metavar.clone().unwrap_or_default(),
            kind: Kind::String,
            default: self.default.as_ref().map(Val::display).unwrap_or_default(),
            auto_means: None,
            members: Vec::new(),
            members_from: None,
            help: self.help.clone().unwrap_or_default().trim().to_string(),
            location: location.clone(),
            negated: Vec::new(),
            env: Vec::new(),
            scopes: Vec::new(),
            excludes: Vec::new(),
            removed: None,
            arity: None,
            nargs: None,
            list: false,
            deprecated: false,
            successors: Vec::new(),
        };
        match action {
            "store_true" | "store_false" | "store_const" | "count" | "help" | "version" | "append_const" => {
                flag.kind = Kind::Switch;
            }
            BOOLEAN_OPTIONAL => {
                flag.kind = Kind::Switch;
                let long = std::iter::once(&flag.name).chain(&flag.aliases).filter(|n| n.starts_with("--"));
                flag.negated = long.map(|n| format!("--no-{}", &n[2..])).collect();
            }
            a if bool_actions.iter().any(|b| b == a) => {
                flag.kind = Kind::Enum;
                flag.members = vec!["false".to_string(), "true".to_string()];
                flag.members_from =
                    Some(MembersFrom { origin: "declared-choices".to_string(), location, closed: true });
            }
            _ => {
                flag.kind = self.kind.unwrap_or(Kind::String);
                if let Some(Choices::Known { members, closed, origin, location }) = &self.choices {
                    flag.kind = Kind::Enum;
                    flag.members = members.clone();
                    flag.members_from =
                        Some(MembersFrom { origin: origin.to_string(), location: location.clone(), closed: *closed });
                }
            }
        }
        // Deprecated where the source says so: the action, or the option's own help.
        flag.deprecated = self.deprecated || help_says_deprecated(&flag.help);
        if self.refused {
            flag.removed =
                Some(if flag.help.is_empty() { "refused whenever it is given".to_string() } else { flag.help.clone() });
        }
        match self.nargs.as_deref().map(str::trim) {
            _ if self.no_value => switch(&mut flag),
            Some("0") => switch(&mut flag),
            Some(n @ ("+" | "*" | "?")) if flag.kind != Kind::Switch => flag.nargs = Some(n.to_string()),
            Some(n) if flag.kind != Kind::Switch => flag.arity = n.parse::<u8>().ok().filter(|n| *n > 1),
            _ => {}
        }
        Some(flag)
    }
}

/// An option that takes no value word: a switch, whatever its type said.
fn switch(flag: &mut Flag) {
    flag.kind = Kind::Switch;
    flag.members.clear();
    flag.members_from = None;
}

/// A value given for one key of the kwargs.
#[derive(Debug, Clone)]
pub enum KwValue {
    Kind(Kind),
    Name(String),
    Choices(Choices),
    Val(Val),
}

/// The help says the option is deprecated: the word, not naming another
/// option right after it ("Replaces the deprecated --old" is the new one).
fn help_says_deprecated(help: &str) -> bool {
    let lower = help.to_ascii_lowercase();
    lower.match_indices("deprecated").any(|(at, w)| {
        let after = lower[at + w.len()..].trim_start().trim_start_matches(['`', '\'', '"']);
        !after.starts_with('-')
    })
}

#[cfg(test)]
mod tests {
    use super::help_says_deprecated;

    #[test]
    fn a_help_that_names_another_deprecated_option_is_not_deprecated() {
        assert!(help_says_deprecated("Deprecated. Use --image-processor-backend=pil instead."));
        assert!(help_says_deprecated("[Deprecated] Use --enable-prefill-cp instead."));
        assert!(help_says_deprecated("Note: --old-balance is deprecated now."));
        assert!(!help_says_deprecated("Use the legacy server. Replaces the deprecated --grpc-mode."));
        assert!(!help_says_deprecated("Replaces the deprecated `--grpc-mode`."));
        assert!(!help_says_deprecated("The port to listen on."));
    }
}
