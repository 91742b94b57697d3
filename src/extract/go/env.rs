//! Env keys a Go engine reads: every call of one of the profile's readers
//! (`os.Getenv`, `os.LookupEnv`, the engine's own `Var`, `Bool`, `Uint`)
//! whose first argument is a literal key. Its kind comes from the reader
//! (`[extract.go] kinds`: `Uint` parses an unsigned integer) or from the
//! parse calls its value is given to (`[extract.go] parsers`), directly
//! (`strconv.ParseBool(Var("K"))`) or through the variable it is bound to
//! (`if s := Var("K"); s != "" { d, err := time.ParseDuration(s) }`); a
//! value parsed two ways (a duration, else an integer) takes either. Its
//! default is the reader's default argument (`[extract.go] defaults`), its
//! help the doc comment of the `var` it is assigned to, or the description
//! a table function (`AsMap`) gives it.

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

use crate::catalog::model::EnvKey;
use crate::catalog::profile::GoSpec;

use super::tree::{ancestor, call, children, descendants, doc_comment, GoFile};

/// One key as the files read so far give it, its kinds gathered.
#[derive(Default)]
pub struct Keys {
    keys: BTreeMap<String, (EnvKey, BTreeSet<String>)>,
    help: BTreeMap<String, String>,
}

/// How a file's keys are read: by which readers, and which keys are kept.
pub struct Reading<'a> {
    pub go: &'a GoSpec,
    pub readers: &'a [String],
    /// Only keys starting with one of these are kept (none: every key).
    pub prefixes: &'a [String],
}

impl Keys {
    /// Reads the keys of one file into the set.
    pub fn read(&mut self, file: &GoFile, how: &Reading<'_>) {
        let constants = constants(file);
        for n in descendants(file.root()) {
            if n.kind() == "function_declaration" {
                self.descriptions(file, n, how.go);
            }
            let Some((callee, args)) = call(file, n) else { continue };
            if !how.readers.iter().any(|r| GoSpec::calls(callee, r)) {
                continue;
            }
            // The key as a literal, or a name the file binds to one
            // (`const baseURLEnv = "OLLAMA_X"`; `Var(baseURLEnv)`).
            let key = args.first().and_then(|a| match a.kind() {
                "identifier" => constants.get(file.text_of(*a)).cloned(),
                _ => file.string(*a),
            });
            let Some(key) = key.filter(|k| is_key(k)) else { continue };
            if !(how.prefixes.is_empty() || how.prefixes.iter().any(|p| key.starts_with(p.as_str()))) {
                continue;
            }
            let mut kinds = BTreeSet::new();
            if let Some(k) = GoSpec::lookup(&how.go.kinds, callee) {
                kinds.insert(k.clone());
            } else {
                parsed_as(file, n, how.go, &mut kinds);
            }
            let default = GoSpec::lookup(&how.go.defaults, callee)
                .and_then(|at| args.get(at.saturating_sub(1)))
                .and_then(|a| literal(file, *a))
                .unwrap_or_default();
            let help = ancestor(n, &["var_spec", "const_spec"]).map(|v| doc_comment(file, v)).unwrap_or_default();
            let entry = self.keys.entry(key.clone()).or_insert_with(|| {
                let k = EnvKey {
                    name: key,
                    default: String::new(),
                    members: Vec::new(),
                    help: String::new(),
                    location: file.location(n),
                    kind: String::new(),
                    ..Default::default()
                };
                (k, BTreeSet::new())
            });
            if entry.0.default.is_empty() {
                entry.0.default = default;
            }
            if entry.0.help.is_empty() {
                entry.0.help = help;
            }
            entry.1.extend(kinds);
        }
    }

    /// `{"KEY", value, "description"}` literals in a table function's body.
    fn descriptions(&mut self, file: &GoFile, f: Node<'_>, go: &GoSpec) {
        let name = f.child_by_field_name("name").map(|n| file.text_of(n)).unwrap_or("");
        if !go.descriptions.iter().any(|d| d == name) {
            return;
        }
        for lit in descendants(f).into_iter().filter(|n| n.kind() == "literal_value") {
            let elements: Vec<Node<'_>> =
                children(lit).into_iter().filter_map(|e| children(e).first().copied()).collect();
            if elements.len() < 3 {
                continue;
            }
            let first = elements.first().and_then(|e| file.string(*e));
            let last = elements.last().and_then(|e| file.string(*e));
            if let (Some(k), Some(d)) = (first.filter(|k| is_key(k)), last) {
                self.help.entry(k).or_insert(d);
            }
        }
    }

    /// The keys read, each with its kinds joined (`duration|int`) and the
    /// table's description where there is one.
    pub fn into_keys(self) -> Vec<EnvKey> {
        let help = self.help;
        self.keys
            .into_values()
            .map(|(mut k, kinds)| {
                k.kind = kinds.into_iter().collect::<Vec<_>>().join("|");
                if let Some(d) = help.get(&k.name) {
                    k.help = d.clone();
                }
                k
            })
            .collect()
    }
}

/// The kinds of the parse calls the value of the reader call `read` is
/// given to: the call wrapping it (through calls that pass it on as their
/// first argument, `strings.TrimSpace`), or the variable it is bound to,
/// wherever the statement's block gives that name to a parser.
fn parsed_as(file: &GoFile, read: Node<'_>, go: &GoSpec, kinds: &mut BTreeSet<String>) {
    let mut value = read;
    while let Some(outer) = value.parent().filter(|p| p.kind() == "argument_list").and_then(|a| a.parent()) {
        let Some((callee, args)) = call(file, outer) else { break };
        if args.first().map(|a| a.id()) != Some(value.id()) {
            break;
        }
        if let Some(k) = GoSpec::lookup(&go.parsers, callee) {
            kinds.insert(k.clone());
            return;
        }
        value = outer;
    }
    // `s := Var("K")`, `s = Var("K")`, `var s = Var("K")`: the first name bound.
    let Some(list) = value.parent().filter(|p| p.kind() == "expression_list") else { return };
    let Some(statement) = list.parent() else { return };
    let name = match statement.kind() {
        "short_var_declaration" | "assignment_statement" => statement.child_by_field_name("left"),
        "var_spec" => statement.child_by_field_name("name"),
        _ => None,
    };
    let Some(name) = name.map(|l| children(l).first().copied().unwrap_or(l)).map(|l| file.text_of(l)) else {
        return;
    };
    if name == "_" || name.is_empty() {
        return;
    }
    // The statement's scope: the `if` it is the initializer of, else its block.
    let Some(scope) = statement.parent() else { return };
    for n in descendants(scope) {
        if n.start_byte() < statement.end_byte() {
            continue;
        }
        let Some((callee, args)) = call(file, n) else { continue };
        let Some(k) = GoSpec::lookup(&go.parsers, callee) else { continue };
        if args.first().is_some_and(|a| a.kind() == "identifier" && file.text_of(*a) == name) {
            kinds.insert(k.clone());
        }
    }
}

/// Names the file binds to a string literal, once (`const x = "K"`, `var
/// x = "K"`); a name bound twice is left out.
fn constants(file: &GoFile) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut twice = BTreeSet::new();
    for n in descendants(file.root()).into_iter().filter(|n| matches!(n.kind(), "const_spec" | "var_spec")) {
        let names: Vec<Node<'_>> = children(n).into_iter().filter(|c| c.kind() == "identifier").collect();
        let Some(value) = n.child_by_field_name("value").map(children) else { continue };
        if let ([name], [v]) = (names.as_slice(), value.as_slice()) {
            if let Some(text) = file.string(*v) {
                if out.insert(file.text_of(*name).to_string(), text).is_some() {
                    twice.insert(file.text_of(*name).to_string());
                }
            }
        }
    }
    out.retain(|k, _| !twice.contains(k));
    out
}

/// A literal default as written: a number, `true`/`false`, a string's value.
fn literal(file: &GoFile, n: Node<'_>) -> Option<String> {
    match n.kind() {
        "int_literal" | "float_literal" | "true" | "false" => Some(file.text_of(n).replace('_', "")),
        "unary_expression" => Some(file.text_of(n).to_string()),
        _ => file.string(n),
    }
}

/// An env key's shape: a letter or `_`, then letters, digits and `_`.
pub fn is_key(k: &str) -> bool {
    k.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}
