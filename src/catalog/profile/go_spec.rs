//! A Go profile's `[extract.go]`: how the engine's own helpers read env
//! keys (which kind each gives, where its default is), which standard
//! parsers give a value its kind, and where flags are declared. The env
//! keys' reader calls, scan folders and prefixes are `[extract.env]`'s.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What the Go reader follows, by name.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoSpec {
    /// A reader (one of `[extract.env] readers`) → the kind of value it
    /// parses (`Uint = "uint"`: `Uint("OLLAMA_NUM_PARALLEL", 1)`). Kinds:
    /// `bool`, `int`, `uint`, `float`, `duration`, `url`, `string`.
    #[serde(default)]
    pub kinds: BTreeMap<String, String>,
    /// A reader → the position (1 = the key) of its argument that is the
    /// key's default (`Uint = 2`).
    #[serde(default)]
    pub defaults: BTreeMap<String, usize>,
    /// A parse function → the kind of a key whose value it is given, directly
    /// (`strconv.ParseBool(Var("K"))`) or through a variable the value was
    /// bound to (`if s := Var("K"); s != "" { time.ParseDuration(s) }`).
    #[serde(default)]
    pub parsers: BTreeMap<String, String>,
    /// Functions holding a table of the keys' descriptions: each literal
    /// `{"KEY", value, "description"}` in their bodies gives KEY its help
    /// (Ollama's `AsMap`).
    #[serde(default)]
    pub descriptions: Vec<String>,
    /// Folders and files read for flags (`flag`, pflag and cobra calls:
    /// `cmd.Flags().StringP("name", "n", "", "help")`), each scoped to the
    /// first word of its cobra command's `Use:`.
    #[serde(default)]
    pub flags: Vec<String>,
}

impl GoSpec {
    /// True when `callee` (`os.Getenv`, `envconfig.Bool`, `Bool`) is the
    /// reader `name`: a dotted name is matched whole, a bare one also
    /// behind any package (`Bool` is `envconfig.Bool`).
    pub fn calls(callee: &str, name: &str) -> bool {
        callee == name || (!name.contains('.') && callee.rsplit_once('.').is_some_and(|(_, last)| last == name))
    }

    /// The entry of `table` for `callee`, by `calls`.
    pub fn lookup<'a, V>(table: &'a BTreeMap<String, V>, callee: &str) -> Option<&'a V> {
        table.get(callee).or_else(|| table.iter().find(|(k, _)| GoSpec::calls(callee, k)).map(|(_, v)| v))
    }
}
