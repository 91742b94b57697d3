//! Flags declared with Go's `flag` package, pflag or cobra: a call of a
//! flag set's method named for a type (`String`, `Bool`, `Int`, `Duration`,
//! `StringSlice`…), optionally with `Var` (the first argument a pointer to
//! fill) and `P` (a one-letter shorthand after the name), given the name,
//! the default and the usage: `cmd.Flags().StringP("file", "f", "", "…")`.
//! The flag is scoped to its cobra command: the first word of the `Use:`
//! of the command the receiver names (`serveCmd.Flags()` →
//! `serveCmd := &cobra.Command{Use: "serve", …}`).

use std::collections::BTreeMap;

use tree_sitter::Node;

use crate::catalog::model::{Flag, Kind};

use super::tree::{call, children, descendants, GoFile};

/// The flags a file declares, in source order.
pub fn flags(file: &GoFile, out: &mut Vec<Flag>) {
    let uses = commands(file);
    for n in descendants(file.root()) {
        let Some((callee, args)) = call(file, n) else { continue };
        let Some((receiver, method)) = callee.rsplit_once('.') else { continue };
        let Some((kind, var, short)) = method_shape(method) else { continue };
        let want = 3 + usize::from(var) + usize::from(short);
        if args.len() != want {
            continue;
        }
        let at = usize::from(var);
        let Some(name) = args.get(at).and_then(|a| file.string(*a)).filter(|n| is_flag_name(n)) else { continue };
        let shorthand = if short { args.get(at + 1).and_then(|a| file.string(*a)) } else { None };
        let Some(default) = args.get(want - 2).filter(|a| plain_value(file, **a)).map(|a| default_of(file, *a)) else {
            continue;
        };
        // The usage is text: `c.String("key", name, key)` is not a declaration.
        let Some(help) = args.get(want - 1).and_then(|a| usage(file, *a)) else { continue };
        let command = receiver.split(['.', '(']).next().unwrap_or("");
        let scopes = match uses.get(command) {
            Some(u) => vec![u.clone()],
            None => own_binary(file).into_iter().collect(),
        };
        out.push(Flag {
            name: format!("--{name}"),
            aliases: shorthand.filter(|s| s.len() == 1).map(|s| vec![format!("-{s}")]).unwrap_or_default(),
            metavar: String::new(),
            kind,
            default,
            auto_means: None,
            members: Vec::new(),
            members_from: None,
            help,
            location: file.location(n),
            negated: Vec::new(),
            env: Vec::new(),
            scopes,
            excludes: Vec::new(),
            removed: None,
            successors: Vec::new(),
            arity: None,
            nargs: None,
            list: false,
            deprecated: false,
        });
    }
}

/// A flag-set method's kind, and whether it takes a pointer (`Var`) and a
/// shorthand (`P`): `StringVarP` → (string, true, true).
fn method_shape(method: &str) -> Option<(Kind, bool, bool)> {
    let (rest, short) = match method.strip_suffix('P') {
        Some(r) => (r, true),
        None => (method, false),
    };
    let (ty, var) = match rest.strip_suffix("Var") {
        Some(t) if !t.is_empty() => (t, true),
        _ => (rest, false),
    };
    let kind =
        match ty {
            "Bool" => Kind::Switch,
            "Int" | "Int8" | "Int16" | "Int32" | "Int64" | "Uint" | "Uint8" | "Uint16" | "Uint32" | "Uint64"
            | "Count" => Kind::Int,
            "Float32" | "Float64" => Kind::Float,
            "String" | "Duration" | "StringSlice" | "StringArray" | "IntSlice" | "StringToString" | "IP"
            | "BytesHex" => Kind::String,
            _ => return None,
        };
    Some((kind, var, short))
}

/// The usage argument: a string literal, or literals joined with `+`.
fn usage(file: &GoFile, n: Node<'_>) -> Option<String> {
    match n.kind() {
        "binary_expression" => {
            let parts = children(n);
            Some(format!("{}{}", usage(file, *parts.first()?)?, usage(file, *parts.last()?)?))
        }
        _ => file.string(n),
    }
}

/// The binary a `package main` file outside the cobra commands builds:
/// its folder's name (`cmd/bench/bench.go` → `bench`); its `flag` calls
/// are that binary's, not the engine's.
fn own_binary(file: &GoFile) -> Option<String> {
    let package = children(file.root()).into_iter().find(|n| n.kind() == "package_clause")?;
    let name = children(package).first().map(|n| file.text_of(*n))?;
    if name != "main" {
        return None;
    }
    let folder = file.path.rsplit_once('/').map(|(dir, _)| dir)?;
    Some(folder.rsplit('/').next().unwrap_or(folder).to_string())
}

/// Flags of one name declared more than once (`--insecure` of `run`,
/// `pull` and `push`) made one, with every scope and alias; one declared
/// with no scope anywhere is accepted everywhere.
pub fn merge(flags: Vec<Flag>) -> Vec<Flag> {
    let mut out: Vec<Flag> = Vec::new();
    for f in flags {
        match out.iter_mut().find(|o| o.name == f.name) {
            Some(o) => {
                if o.scopes.is_empty() || f.scopes.is_empty() {
                    o.scopes.clear();
                } else {
                    o.scopes.extend(f.scopes);
                }
                o.aliases.extend(f.aliases);
                o.scopes.sort();
                o.scopes.dedup();
                o.aliases.sort();
                o.aliases.dedup();
            }
            None => out.push(f),
        }
    }
    out
}

/// A long flag's name: a letter, then letters, digits, `-`, `_` or `.`.
fn is_flag_name(n: &str) -> bool {
    n.len() > 1
        && n.starts_with(|c: char| c.is_ascii_alphabetic())
        && n.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// A default as declarations write it: not a pointer read or taken
/// (`*name`, `&x`), which a method given a value at run time is.
fn plain_value(file: &GoFile, n: Node<'_>) -> bool {
    n.kind() != "unary_expression" || file.text_of(n).starts_with(['-', '+'])
}

fn default_of(file: &GoFile, n: Node<'_>) -> String {
    match n.kind() {
        "int_literal" | "float_literal" | "true" | "false" => file.text_of(n).to_string(),
        _ => file.string(n).unwrap_or_default(),
    }
}

/// Each variable bound to a cobra command literal, and the first word of
/// its `Use:` (`serveCmd` → `serve`).
fn commands(file: &GoFile) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for n in descendants(file.root()) {
        if !matches!(n.kind(), "short_var_declaration" | "assignment_statement" | "var_spec") {
            continue;
        }
        let left = n.child_by_field_name("left").or_else(|| n.child_by_field_name("name"));
        let Some(name) = left.map(|l| children(l).first().copied().unwrap_or(l)).map(|l| file.text_of(l)) else {
            continue;
        };
        let Some(right) = n.child_by_field_name("right").or_else(|| n.child_by_field_name("value")) else { continue };
        for k in descendants(right).into_iter().filter(|k| k.kind() == "keyed_element") {
            let parts = children(k);
            let key = parts.first().map(|p| file.text_of(*p).trim()).unwrap_or("");
            if key != "Use" {
                continue;
            }
            let word = parts
                .get(1)
                .and_then(|v| children(*v).first().copied().or(Some(*v)))
                .and_then(|v| file.string(v))
                .and_then(|u| u.split_whitespace().next().map(str::to_string));
            if let Some(w) = word {
                out.entry(name.to_string()).or_insert(w);
                break;
            }
        }
    }
    out
}
