//! What scanners find and rules judge: references to flags, env knobs and
//! metrics, each with where it stands. Scanners never judge; rules never read
//! files.

use super::span::Span;

/// A value given to a flag or an env key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Value {
    /// The literal text, quotes removed; for a shell expansion such as
    /// `${MAX_SEQS:-2}`, its default (`2`) when it has one.
    pub text: Option<String>,
    pub span: Span,
    /// The variable a shell expansion reads, if any.
    pub var: Option<String>,
}

/// Where a flag reference was found, which decides how it is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FlagSite {
    /// In the argv of the engine: every flag is the engine's.
    Argv,
    /// Alone in an inline code span: judged only when it is a catalogue flag
    /// or a near miss of one.
    Loose,
    /// A key of a file of options the engine reads (`--config FILE`).
    Options,
    /// A key of such a file set to a boolean false.
    Dropped,
}

/// Which binary an argv belongs to, when the profile scopes options by binary.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Binary {
    /// As written (`llama-cli`, `llama serve`).
    pub command: String,
    /// The scope its options come from; `None` accepts every option.
    pub scope: Option<String>,
    /// The old name it is run by (`./main`), when the profile records a
    /// rename of it: its scope is the one the pinned build gives that name.
    pub renamed: Option<String>,
    /// How many positional words it takes, when the profile says: a bare
    /// word past them is refused.
    pub positionals: Option<usize>,
    /// Earlier builds' limits, oldest first: (until, limit), a build before
    /// `until` taking `limit` positional words (the profile's eras).
    pub earlier_positionals: Vec<(String, usize)>,
    /// The option a positional word stands for when this binary parses the
    /// word and ignores it (the profile's image variant says).
    pub ignored_positional: Option<String>,
    /// Its parser compares a `--` word as written, `_` not read as `-`,
    /// though the profile's parser reads it so (its `[[command]]` says).
    pub plain_underscores: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ref {
    Flag {
        name: String,
        span: Span,
        value: Option<Value>,
        site: FlagSite,
        /// The binary whose argv it is in, if known.
        binary: Option<std::sync::Arc<Binary>>,
        /// Written `--flag=value`.
        joined: bool,
        /// A flag that takes a value but was given none: what stood where
        /// the value should be.
        gap: Option<Gap>,
    },
    Env {
        key: String,
        span: Span,
        value: Option<Value>,
    },
    /// A metric name, or with `pattern` a glob or regex over names; `usage`
    /// says how a PromQL query uses it, when it was read from one.
    Metric {
        name: String,
        span: Span,
        pattern: bool,
        usage: Option<Box<Usage>>,
    },
    /// An env line no reader takes as it is written (`KEY = v`, `A-B=v`, a
    /// key set again further down), found by the env scanner.
    EnvLine {
        problem: EnvProblem,
        span: Span,
    },
    /// A bare word in an argv whose engine takes no positional arguments;
    /// `after` is the option before it, when there is one.
    Stray {
        word: String,
        span: Span,
        after: Option<String>,
        binary: Option<std::sync::Arc<Binary>>,
        /// Which positional word it is (0: the first), where the binary's
        /// limit varies by build: the pinned build's limit decides.
        index: Option<usize>,
    },
    /// A further value word of an option that takes several (`nargs="+"`,
    /// `"*"`, N): `--cuda-graph-bs 1 2 4` is the flag with `1`, then `2`
    /// and `4` as values of `flag`, each judged as the first is.
    Value {
        flag: String,
        value: Value,
    },
    /// A binary run by an old name (`./main`) that a version renamed.
    Program {
        span: Span,
        binary: std::sync::Arc<Binary>,
    },
    /// A `\` that escapes the space after it at the end of an engine's
    /// command line (a comment or blanks follow), where a continuation was
    /// meant: the command ends on that line. `next`: the line that then
    /// runs as a command of its own, when one follows.
    Broken {
        span: Span,
        next: Option<usize>,
    },
}

impl Ref {
    /// True when two references say the same thing and differ at most in
    /// where they stand, so the rules judge them alike: a flag, or a metric
    /// named outside a query (only these are compared). Every field is
    /// named, so that a field added later cannot be left out.
    pub fn same_but_place(&self, other: &Ref) -> bool {
        let same_value = |a: &Option<Value>, b: &Option<Value>| match (a, b) {
            (None, None) => true,
            (Some(Value { text, span: _, var }), Some(Value { text: t2, span: _, var: v2 })) => text == t2 && var == v2,
            _ => false,
        };
        match (self, other) {
            (
                Ref::Flag { name, span: _, value, site, binary, joined, gap },
                Ref::Flag { name: n2, span: _, value: v2, site: s2, binary: b2, joined: j2, gap: g2 },
            ) => name == n2 && site == s2 && joined == j2 && gap == g2 && binary == b2 && same_value(value, v2),
            (
                Ref::Metric { name, span: _, pattern, usage: None },
                Ref::Metric { name: n2, span: _, pattern: p2, usage: None },
            ) => name == n2 && pattern == p2,
            _ => false,
        }
    }
}

/// What is wrong with an env line as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EnvProblem {
    /// Spaces around `=` (the span covers them and the `=`); `before`: some
    /// stand between the key and `=`.
    Spaces { key: String, before: bool },
    /// A `-` in the key.
    Hyphen { key: String },
    /// The key is set again on `line`, which wins.
    Duplicate { key: String, line: usize },
}

/// How a PromQL query uses a metric selector.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Usage {
    /// The function the selector is handed to directly (`rate`, `increase`…).
    pub func: Option<String>,
    /// True when `histogram_quantile` reads this selector (directly, or
    /// through `rate`/`increase` and the like).
    pub quantile: bool,
    /// Label names the selector matches on, each with its place.
    pub labels: Vec<(String, Span)>,
    /// The names on the other side of an `or` the selector stands on one
    /// side of (`a or b`: a fallback across builds, where one side is
    /// expected to be empty).
    pub alternatives: Vec<String>,
    /// Read in a rule file that records series of its own: a name shaped
    /// as a recording (`a:b:c`) that none of them is, is a typo there.
    pub recordings_seen: bool,
}

/// What stood where a flag's value should be, when it was given none.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Gap {
    /// The argv ends after the flag.
    End,
    /// Another option follows it, and the engine's values may not start
    /// with `-`: the option is read as an option, the flag gets nothing.
    Option(String),
}
