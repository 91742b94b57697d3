//! A clap derive struct's fields as flags, read as clap's derive reads them:
//! `long` (the field name in the struct's `rename_all`, kebab-case unless
//! said) or `long = "x"`; `short` (the field's first letter) or `short =
//! 'x'`; `env` (the field name in `rename_all_env`, upper snake case unless
//! said) or `env = "X"`; the kind from the field's type and `action`; the
//! members of a `ValueEnum` enum, a `value_parser = [..]` list or clap 3's
//! `possible_values`; `default_value` and `default_value_t`; doc comments
//! (or `help = ".."`) as help. A field with neither `long` nor `short` is
//! positional, and `skip`/`subcommand` fields are no option; `flatten`
//! reads the named struct's fields in place.

use crate::catalog::model::{Flag, Kind, MembersFrom};

use super::case::rename;
use super::syntax::{Arg, Item, Member, Value};

/// The attributes clap's derive reads on a field or a struct: clap 4's
/// `arg` and `command`, clap 3's `clap`, structopt's own.
pub const FIELD_ATTRS: &[&str] = &["arg", "command", "clap", "structopt"];
const STRUCT_ATTRS: &[&str] = &["command", "clap", "structopt"];
/// A variant's attributes.
pub const VARIANT_ATTRS: &[&str] = &["value", "clap", "arg_enum"];
/// The derives that make an enum's variants a value's members.
const ENUM_DERIVES: &[&str] = &["ValueEnum", "ArgEnum"];
/// How deep `flatten` is followed.
const MAX_DEPTH: usize = 8;

/// Every struct and enum of the files read, by name (the first of a name kept).
pub struct Decls<'a> {
    pub items: &'a [Item],
}

impl<'a> Decls<'a> {
    /// The item called `name`: the one declared in the file `near` if any
    /// (two crates may each have a `Dtype`), else the first read.
    fn named(&self, name: &str, is_enum: bool, near: &str) -> Option<&'a Item> {
        let mut found = self.items.iter().filter(|i| i.name == name && i.is_enum == is_enum);
        let first = found.clone().next();
        found.find(|i| i.path == near).or(first)
    }

    /// The accepted values of a `ValueEnum` enum: each variant's name in
    /// the enum's `rename_all` (kebab-case unless said) or its `name`, and
    /// its aliases; `skip`ped variants left out.
    fn members(&self, ty: &str, near: &str) -> Option<(Vec<String>, String)> {
        let item = self.named(ty, true, near)?;
        if !item.leading.derives().iter().any(|d| ENUM_DERIVES.contains(&d.as_str())) {
            return None;
        }
        let rule = string_of(item.leading.args(VARIANT_ATTRS).chain(item.leading.args(STRUCT_ATTRS)), "rename_all")
            .unwrap_or_else(|| "kebab-case".to_string());
        let mut members = Vec::new();
        for v in &item.fields {
            let args: Vec<&Arg> = v.leading.args(VARIANT_ATTRS).collect();
            if args.iter().any(|a| a.key == "skip") {
                continue;
            }
            let name = string_of(args.iter().copied(), "name").unwrap_or_else(|| rename(&v.name, &rule));
            members.push(name);
            for a in args.iter().filter(|a| a.key == "alias" || a.key == "aliases") {
                members.extend(a.value.iter().flat_map(|x| x.strings.iter().cloned()));
            }
        }
        Some((members, format!("{}:{}", item.path, item.line)))
    }
}

/// The first string value given to `key` among `args`.
fn string_of<'a>(args: impl Iterator<Item = &'a Arg>, key: &str) -> Option<String> {
    args.filter(|a| a.key == key).find_map(|a| a.value.as_ref()?.string().map(String::from))
}

/// Reads `item`'s fields into `out`, following `flatten` into other
/// structs (a struct not found is a warning).
pub fn struct_flags(item: &Item, decls: &Decls<'_>, depth: usize, out: &mut Vec<Flag>, warnings: &mut Vec<String>) {
    let rule = string_of(item.leading.args(STRUCT_ATTRS), "rename_all").unwrap_or_else(|| "kebab-case".to_string());
    let env_rule = string_of(item.leading.args(STRUCT_ATTRS), "rename_all_env")
        .unwrap_or_else(|| "SCREAMING_SNAKE_CASE".to_string());
    for field in &item.fields {
        let args: Vec<&Arg> = field.leading.args(FIELD_ATTRS).collect();
        let has = |k: &str| args.iter().any(|a| a.key == k);
        if has("skip") || has("subcommand") {
            continue;
        }
        if has("flatten") {
            let ty = peel(&field.ty).1;
            match decls.named(ty, false, &item.path) {
                Some(inner) if depth < MAX_DEPTH => struct_flags(inner, decls, depth + 1, out, warnings),
                _ => warnings.push(format!(
                    "{}:{}: `{}` flattens `{ty}`, which is not a struct of the files read; its options are not in the catalogue",
                    item.path, field.line, field.name
                )),
            }
            continue;
        }
        let at = Field { field, args: &args, rule: &rule, env_rule: &env_rule, path: &item.path };
        if let Some(flag) = at.flag(decls) {
            out.push(flag);
        }
    }
}

/// `Option<Vec<T>>` → (["Option", "Vec"], "T"): the wrappers, then the
/// last segment of the inner type's path.
pub fn peel(ty: &str) -> (Vec<&str>, &str) {
    let mut wrappers = Vec::new();
    let mut t = ty.trim();
    while let Some((head, rest)) = t.split_once('<') {
        let head = head.rsplit("::").next().unwrap_or(head);
        match (head, rest.strip_suffix('>')) {
            ("Option" | "Vec", Some(inner)) => {
                wrappers.push(head);
                t = inner.trim();
            }
            _ => break,
        }
    }
    (wrappers, t.rsplit("::").next().unwrap_or(t))
}

fn scalar_kind(ty: &str) -> Kind {
    match ty {
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => Kind::Int,
        "NonZeroUsize" | "NonZeroU32" | "NonZeroU64" | "NonZeroU16" | "NonZeroU8" => Kind::Int,
        "f32" | "f64" => Kind::Float,
        _ => Kind::String,
    }
}

struct Field<'a> {
    field: &'a Member,
    args: &'a [&'a Arg],
    rule: &'a str,
    env_rule: &'a str,
    path: &'a str,
}

impl Field<'_> {
    fn has(&self, key: &str) -> bool {
        self.args.iter().any(|a| a.key == key)
    }

    fn value(&self, key: &str) -> Option<&Value> {
        self.args.iter().find(|a| a.key == key).and_then(|a| a.value.as_ref())
    }

    fn values<'b>(&'b self, keys: &'b [&str]) -> impl Iterator<Item = &'b Value> + 'b {
        self.args.iter().filter(|a| keys.contains(&a.key.as_str())).filter_map(|a| a.value.as_ref())
    }

    fn flag(&self, decls: &Decls<'_>) -> Option<Flag> {
        let name = &self.field.name;
        let cased = rename(name, self.rule);
        let long =
            self.has("long").then(|| self.value("long").and_then(Value::string).map_or(cased.clone(), String::from));
        let short = self
            .has("short")
            .then(|| self.value("short").and_then(|v| v.char).or_else(|| cased.chars().next()))
            .flatten();
        let (flag_name, mut aliases) = match (&long, short) {
            (Some(l), s) => (format!("--{l}"), s.map(|c| format!("-{c}")).into_iter().collect::<Vec<_>>()),
            (None, Some(s)) => (format!("-{s}"), Vec::new()),
            // A positional argument: no flag.
            (None, None) => return None,
        };
        for v in self.values(&["alias", "aliases", "visible_alias", "visible_aliases"]) {
            aliases.extend(v.strings.iter().map(|a| format!("--{a}")));
        }
        for v in self.values(&["short_alias", "short_aliases", "visible_short_alias", "visible_short_aliases"]) {
            aliases.extend(v.char.map(|c| format!("-{c}")));
        }
        let env = self.has("env").then(|| {
            self.value("env").and_then(Value::string).map_or_else(|| rename(name, self.env_rule), String::from)
        });
        let location = format!("{}:{}", self.path, self.field.line);
        let mut flag = Flag {
            name: flag_name,
            aliases,
            metavar: String::new(),
            kind: Kind::String,
            default: String::new(),
            auto_means: None,
            members: Vec::new(),
            members_from: None,
            help: self.help(),
            location: location.clone(),
            negated: Vec::new(),
            env: env.into_iter().collect(),
            scopes: Vec::new(),
            excludes: Vec::new(),
            removed: None,
            successors: Vec::new(),
            arity: None,
            nargs: None,
            list: self.has("value_delimiter"),
            deprecated: false,
        };
        flag.deprecated = flag.help.to_ascii_lowercase().contains("deprecated");
        let (wrappers, inner) = peel(&self.field.ty);
        let action = self.value("action").map(|v| v.text.rsplit("::").next().unwrap_or("").to_string());
        let counted =
            self.values(&["parse"]).any(|v| v.text.contains("from_occurrences") || v.text.contains("from_flag"));
        let switch = match action.as_deref() {
            Some("SetTrue" | "SetFalse" | "Count" | "Help" | "HelpShort" | "HelpLong" | "Version") => true,
            Some("Set" | "Append") => false,
            _ => counted || (wrappers.is_empty() && inner == "bool" && !self.takes_value()),
        };
        if switch {
            flag.kind = Kind::Switch;
            return Some(flag);
        }
        flag.metavar = self
            .value("value_name")
            .and_then(Value::string)
            .map_or_else(|| rename(name, "SCREAMING_SNAKE_CASE"), String::from);
        flag.default = self.default(decls, inner);
        let listed: Vec<String> = self
            .values(&["value_parser", "possible_values", "possible_value"])
            .flat_map(|v| v.strings.clone())
            .collect();
        if !listed.is_empty() {
            flag.kind = Kind::Enum;
            flag.members = listed;
            flag.members_from = Some(closed(location));
        } else if let Some((members, at)) = decls.members(inner, self.path) {
            flag.kind = Kind::Enum;
            flag.members = members;
            flag.members_from = Some(closed(at));
        } else if inner == "bool" {
            flag.kind = Kind::Enum;
            flag.members = vec!["true".to_string(), "false".to_string()];
            flag.members_from = Some(closed(location));
        } else {
            flag.kind = scalar_kind(inner);
        }
        if wrappers.starts_with(&["Option", "Option"]) {
            flag.nargs = Some("?".to_string());
        }
        if let Some(n) = self.value("num_args").map(|v| v.text.as_str()) {
            match n {
                "1.." | "1..=usize::MAX" => flag.nargs = Some("+".to_string()),
                "0.." | ".." => flag.nargs = Some("*".to_string()),
                "0..=1" => flag.nargs = Some("?".to_string()),
                n => flag.arity = n.parse::<u8>().ok().filter(|n| *n > 1),
            }
        }
        Some(flag)
    }

    /// Whether clap 3's `takes_value = true` (or a value parser) makes a
    /// `bool` field take a value word.
    fn takes_value(&self) -> bool {
        self.value("takes_value").is_some_and(|v| v.text == "true")
            || self.value("num_args").is_some_and(|v| v.text != "0")
    }

    /// The doc comment's first paragraph (as clap's short help), or `help`.
    fn help(&self) -> String {
        if let Some(h) = self.value("help").and_then(Value::string) {
            return h.trim().to_string();
        }
        let mut words: Vec<&str> = Vec::new();
        for line in &self.field.leading.docs {
            let line = line.trim();
            if line.is_empty() {
                if !words.is_empty() {
                    break;
                }
                continue;
            }
            words.push(line);
        }
        words.join(" ")
    }

    /// `default_value = ".."`, or `default_value_t`'s expression: a literal
    /// as written, an enum's variant as its member.
    fn default(&self, decls: &Decls<'_>, inner: &str) -> String {
        if let Some(v) = self.value("default_value") {
            return v.string().map_or_else(|| v.text.clone(), String::from);
        }
        if let Some(v) = self.value("default_values") {
            return v.strings.join(",");
        }
        let Some(v) = self.value("default_value_t") else { return String::new() };
        if let Some(s) = v.strings.first() {
            return s.clone();
        }
        if let Some((ty, variant)) = v.text.rsplit_once("::") {
            if ty.rsplit("::").next() == Some(inner) && decls.members(inner, self.path).is_some() {
                let rule = decls
                    .named(inner, true, self.path)
                    .and_then(|e| string_of(e.leading.args(VARIANT_ATTRS), "rename_all"))
                    .unwrap_or_else(|| "kebab-case".to_string());
                let renamed = decls.named(inner, true, self.path).and_then(|e| {
                    let v = e.fields.iter().find(|f| f.name == variant)?;
                    string_of(v.leading.args(VARIANT_ATTRS), "name")
                });
                return renamed.unwrap_or_else(|| rename(variant, &rule));
            }
        }
        number(&v.text)
    }
}

/// A literal as written, a number's type suffix (`3000u16`, `0.5_f32`)
/// and digit separators dropped.
fn number(text: &str) -> String {
    if !text.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        return text.to_string();
    }
    let cut = text.find(['u', 'i', 'f']).unwrap_or(text.len());
    text[..cut].replace('_', "")
}

fn closed(location: String) -> MembersFrom {
    MembersFrom { origin: "declared-choices".to_string(), location, closed: true }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::rust::syntax::items;

    /// Name, kind, aliases, default, env keys, members.
    type View<'a> = (&'a str, Kind, Vec<&'a str>, &'a str, Vec<&'a str>, Vec<&'a str>);

    fn flags(src: &str) -> (Vec<Flag>, Vec<String>) {
        let items = items("launcher/src/main.rs", src).expect("parsed");
        let decls = Decls { items: &items };
        let args = decls.named("Args", false, "launcher/src/main.rs").expect("Args");
        let (mut out, mut warnings) = (Vec::new(), Vec::new());
        struct_flags(args, &decls, 0, &mut out, &mut warnings);
        (out, warnings)
    }

    #[test]
    fn types_and_attributes_make_kinds() {
        let src = r#"
#[derive(Clone, Copy, Debug, ValueEnum)]
enum Quantize {
    /// doc
    Awq,
    BitsandbytesNf4,
    #[value(name = "fp8_e5m2")]
    Fp8e5m2,
    #[value(skip)]
    Hidden,
}

#[derive(Parser)]
#[command(rename_all_env = "SCREAMING_SNAKE_CASE")]
struct Args {
    /// The port.
    ///
    /// More text.
    #[clap(default_value = "3000", long, short, env)]
    port: u16,
    #[arg(long, env = "HF_TOKEN")]
    token: Option<String>,
    #[clap(long, env, value_enum)]
    quantize: Option<Quantize>,
    #[clap(long, env)]
    sharded: Option<bool>,
    #[clap(long, env)]
    json_output: bool,
    #[clap(long = "ratio", default_value_t = 0.3)]
    waiting_ratio: f32,
    #[clap(long, env, value_delimiter = ',')]
    cuda_graphs: Option<Vec<usize>>,
    #[arg(long, value_parser = ["a", "b"], default_value_t = String::from("a"))]
    mode: String,
    #[arg(long, default_value_t = Quantize::BitsandbytesNf4)]
    fallback: Quantize,
    #[arg(short = 'v', action = clap::ArgAction::Count)]
    verbose: u8,
    model: String,
    #[clap(skip)]
    internal: usize,
}
"#;
        let (f, warnings) = flags(src);
        assert!(warnings.is_empty());
        let view: Vec<View<'_>> = f
            .iter()
            .map(|f| {
                (
                    f.name.as_str(),
                    f.kind,
                    f.aliases.iter().map(String::as_str).collect(),
                    f.default.as_str(),
                    f.env.iter().map(String::as_str).collect(),
                    f.members.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        let none: Vec<&str> = Vec::new();
        assert_eq!(
            view,
            [
                ("--port", Kind::Int, vec!["-p"], "3000", vec!["PORT"], none.clone()),
                ("--token", Kind::String, none.clone(), "", vec!["HF_TOKEN"], none.clone()),
                (
                    "--quantize",
                    Kind::Enum,
                    none.clone(),
                    "",
                    vec!["QUANTIZE"],
                    vec!["awq", "bitsandbytes-nf4", "fp8_e5m2"]
                ),
                ("--sharded", Kind::Enum, none.clone(), "", vec!["SHARDED"], vec!["true", "false"]),
                ("--json-output", Kind::Switch, none.clone(), "", vec!["JSON_OUTPUT"], none.clone()),
                ("--ratio", Kind::Float, none.clone(), "0.3", none.clone(), none.clone()),
                ("--cuda-graphs", Kind::Int, none.clone(), "", vec!["CUDA_GRAPHS"], none.clone()),
                ("--mode", Kind::Enum, none.clone(), "a", none.clone(), vec!["a", "b"]),
                (
                    "--fallback",
                    Kind::Enum,
                    none.clone(),
                    "bitsandbytes-nf4",
                    none.clone(),
                    vec!["awq", "bitsandbytes-nf4", "fp8_e5m2"]
                ),
                ("-v", Kind::Switch, none.clone(), "", none.clone(), none.clone()),
            ]
        );
        assert_eq!(f[0].help, "The port.");
        assert_eq!(f[0].metavar, "PORT");
        assert_eq!(f[0].location, "launcher/src/main.rs:20");
        assert!(f[6].list);
        assert_eq!(f[2].members_from.as_ref().map(|m| m.location.as_str()), Some("launcher/src/main.rs:3"));
    }

    #[test]
    fn flattened_structs_are_read_in_place() {
        let src = "#[derive(Args)]\nstruct Common {\n    #[arg(long)]\n    hostname: String,\n}\n#[derive(Parser)]\nstruct Args {\n    #[command(flatten)]\n    common: Common,\n    #[clap(flatten)]\n    gone: Missing,\n    #[arg(long)]\n    port: u16,\n}\n";
        let (f, warnings) = flags(src);
        let names: Vec<&str> = f.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["--hostname", "--port"]);
        assert_eq!(
            warnings,
            ["launcher/src/main.rs:11: `gone` flattens `Missing`, which is not a struct of the files read; its options are not in the catalogue"]
        );
    }

    #[test]
    fn an_enum_in_the_structs_own_file_wins() {
        let mut all = items("other/src/lib.rs", "#[derive(ValueEnum)]\nenum Dtype {\n    Int8,\n}\n").expect("parsed");
        let main = "#[derive(ValueEnum)]\nenum Dtype {\n    Float16,\n}\n#[derive(Parser)]\nstruct Args {\n    #[arg(long)]\n    dtype: Dtype,\n}\n";
        all.extend(items("launcher/src/main.rs", main).expect("parsed"));
        let decls = Decls { items: &all };
        let args = decls.named("Args", false, "launcher/src/main.rs").expect("Args");
        let (mut out, mut warnings) = (Vec::new(), Vec::new());
        struct_flags(args, &decls, 0, &mut out, &mut warnings);
        assert_eq!(out[0].members, ["float16"]);
    }

    #[test]
    fn types_are_peeled() {
        assert_eq!(peel("Option<Vec<usize>>"), (vec!["Option", "Vec"], "usize"));
        assert_eq!(peel("std::path::PathBuf"), (vec![], "PathBuf"));
        assert_eq!(peel("Option<HashMap<String,String>>"), (vec!["Option"], "HashMap<String,String>"));
    }
}
