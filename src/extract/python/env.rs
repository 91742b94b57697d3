//! The engine's own env keys: one module-level dict (`NAME = {"KEY":
//! lambda: os.getenv("KEY", "default"), ...}`), each key with the default
//! its reader passes when the value is literal, the members a choices
//! helper lists (`helper("KEY", "default", ["a", "b"])`), and the comment
//! lines above it as help.

use tree_sitter::Node;

use crate::catalog::model::EnvKey;

use super::module::Program;
use super::tree::{all_children, call_args, children, last_name, literal_string, unparen, PyFile};
use super::value::{eval_in, Val};

/// The env keys of the dict `table` in `file`; `choice_helpers` are the
/// functions that take (key, default, members).
pub fn env_keys(program: &Program<'_>, file: usize, table: &str, choice_helpers: &[String]) -> Option<Vec<EnvKey>> {
    let (f, pairs) = dict_pairs(program, file, table)?;
    let mut out = Vec::new();
    for p in pairs {
        let Some(name) = literal_string(f, p.key) else { continue };
        let (default, members) = reader_facts(program, file, p.value, &name, choice_helpers);
        out.push(EnvKey { name, default, members, help: p.help, location: f.location(p.pair), ..Default::default() });
    }
    Some(out)
}

/// One `key: value` of a dict of env keys, with the comment lines above it.
struct Pair<'t> {
    pair: Node<'t>,
    key: Node<'t>,
    value: Node<'t>,
    help: String,
}

/// The pairs of the dict assigned to `table` at the top of `file` (not one
/// imported from another file), each with the comment lines above it as help.
fn dict_pairs<'p>(program: &'p Program<'_>, file: usize, table: &str) -> Option<(&'p PyFile, Vec<Pair<'p>>)> {
    let (_, dict) = program.global(table, file).filter(|(gf, _)| *gf == file)?;
    let dict = unparen(dict);
    if dict.kind() != "dictionary" {
        return None;
    }
    let f = &program.files[file];
    let mut out = Vec::new();
    let mut comments: Vec<String> = Vec::new();
    for c in all_children(dict) {
        match c.kind() {
            "comment" => comments.push(f.text_of(c).trim_start_matches('#').trim().to_string()),
            "pair" => {
                let help = std::mem::take(&mut comments).join(" ").trim().to_string();
                if let (Some(key), Some(value)) = (c.child_by_field_name("key"), c.child_by_field_name("value")) {
                    out.push(Pair { pair: c, key, value, help });
                }
            }
            _ => comments.clear(),
        }
    }
    Some((f, out))
}

/// The env keys a class's attributes name (`class Envs: KEY = EnvBool(False)`):
/// each `NAME = Reader(default, ...)` in its body, with the first argument
/// as the default when it is settled, the comment lines above as help, and
/// a keyword's literal key (`deprecated_name="OLD_KEY"`) as a key read too,
/// deprecated for the attribute when the keyword is one of `deprecating`.
pub fn class_keys(program: &Program<'_>, file: usize, class: &str, deprecating: &[String]) -> Option<Vec<EnvKey>> {
    let c = program.class(class, file).filter(|c| c.file == file)?;
    let f = &program.files[file];
    let body = c.node.child_by_field_name("body")?;
    let mut out = Vec::new();
    let mut comments: Vec<String> = Vec::new();
    for s in all_children(body) {
        match s.kind() {
            "comment" => comments.push(f.text_of(s).trim_start_matches('#').trim().to_string()),
            "expression_statement" => {
                let help = std::mem::take(&mut comments).join(" ").trim().to_string();
                let Some(a) = children(s).into_iter().find(|a| a.kind() == "assignment") else { continue };
                let (Some(l), Some(r)) = (a.child_by_field_name("left"), a.child_by_field_name("right")) else {
                    continue;
                };
                let name = f.text_of(l);
                let r = unparen(r);
                if l.kind() != "identifier" || !is_key(name) || r.kind() != "call" {
                    continue;
                }
                let args = call_args(f, r);
                let default = settled(program, file, args.positional.first().copied().or(args.keyword("default")));
                out.push(EnvKey {
                    name: name.to_string(),
                    default,
                    members: Vec::new(),
                    help,
                    location: f.location(a),
                    kind: String::new(),
                    ..Default::default()
                });
                for (keyword, v) in &args.keywords {
                    if let Some(old) = literal_string(f, *v).filter(|k| is_key(k) && k != name) {
                        let deprecated = deprecating.iter().any(|d| d == keyword);
                        out.push(EnvKey {
                            name: old,
                            default: String::new(),
                            members: Vec::new(),
                            help: format!("read when {name} is not set"),
                            location: f.location(*v),
                            kind: String::new(),
                            deprecated,
                            successor: if deprecated { name.to_string() } else { String::new() },
                        });
                    }
                }
            }
            _ => comments.clear(),
        }
    }
    Some(out)
}

/// The deprecated keys of the dict `table` in `file`: each literal key, its
/// successor the value when it is a literal key, or the literal key its
/// call's keyword `successor` names (`_Deprecated(replacement="NEW")`), the
/// comment lines above as help.
pub fn deprecated_keys(program: &Program<'_>, file: usize, table: &str, successor: &str) -> Option<Vec<EnvKey>> {
    let (f, pairs) = dict_pairs(program, file, table)?;
    let mut out = Vec::new();
    for p in pairs {
        let Some(name) = literal_string(f, p.key).filter(|k| is_key(k)) else { continue };
        let v = unparen(p.value);
        let next = match v.kind() {
            "call" => call_args(f, v).keyword(successor).and_then(|n| literal_string(f, n)),
            _ => literal_string(f, v),
        };
        let successor = next.filter(|n| is_key(n)).unwrap_or_default();
        out.push(EnvKey {
            name,
            help: p.help,
            location: f.location(p.pair),
            deprecated: true,
            successor,
            ..Default::default()
        });
    }
    Some(out)
}

/// The engine-wide env keys: the dict's or the class's, then those the
/// scanned files call for, each key once (its first place kept).
pub fn engine_keys(
    program: &Program<'_>,
    table: &crate::catalog::profile::EnvTableSpec,
    scanned: Vec<crate::catalog::model::EnvKey>,
    warnings: &mut Vec<String>,
) -> Vec<crate::catalog::model::EnvKey> {
    let mut keys = Vec::new();
    if !table.file.is_empty() {
        let file = program.file_index(&table.file);
        if !table.table.is_empty() {
            match file.and_then(|i| env_keys(program, i, &table.table, &table.choices)) {
                Some(k) => keys.extend(k),
                None => warnings.push(format!("no dict `{}` of env keys in {}", table.table, table.file)),
            }
        }
        // A tag older than the class's file reads its keys elsewhere: said
        // only when the file is there without the class.
        if let (false, Some(i)) = (table.class.is_empty(), file) {
            match class_keys(program, i, &table.class, &table.deprecated.keywords) {
                Some(k) => keys.extend(k),
                None => warnings.push(format!("no class `{}` of env keys in {}", table.class, table.file)),
            }
        }
        // The dict of deprecated keys is newer than the class: a tag without
        // it says nothing.
        let dep = &table.deprecated;
        if let Some(k) =
            file.filter(|_| !dep.table.is_empty()).and_then(|i| deprecated_keys(program, i, &dep.table, &dep.successor))
        {
            keys.extend(k);
        }
    }
    keys.extend(scanned);
    // Each key once, at its first place; deprecated when any place says so.
    let mut at: rustc_hash::FxHashMap<String, usize> = rustc_hash::FxHashMap::default();
    let mut out: Vec<crate::catalog::model::EnvKey> = Vec::new();
    for k in keys {
        match at.get(&k.name) {
            Some(&i) if k.deprecated && !out[i].deprecated => {
                out[i].deprecated = true;
                out[i].successor = k.successor;
            }
            Some(_) => {}
            None => {
                at.insert(k.name.clone(), out.len());
                out.push(k);
            }
        }
    }
    out
}

/// An env key's spelling: capitals, digits and `_`, a letter or `_` first.
pub fn is_key(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase() || c == '_')
        && name.len() > 1
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// The default and members a key's reader gives, found in its expression.
fn reader_facts(
    program: &Program<'_>,
    file: usize,
    v: Node<'_>,
    key: &str,
    helpers: &[String],
) -> (String, Vec<String>) {
    let f = &program.files[file];
    let mut default = String::new();
    let mut members = Vec::new();
    let mut stack = vec![v];
    while let Some(n) = stack.pop() {
        if n.kind() == "call" {
            if let Some(callee) = n.child_by_field_name("function") {
                let name = last_name(f, callee);
                let args = call_args(f, n);
                let names_key = args.positional.first().and_then(|a| literal_string(f, *a)).is_some_and(|k| k == key);
                if names_key && helpers.iter().any(|h| h == name) {
                    default = settled(program, file, args.positional.get(1).copied());
                    members = args
                        .positional
                        .get(2)
                        .map(|m| eval_in(program, file, *m, None, 0))
                        .and_then(|m| m.members())
                        .unwrap_or_default();
                    break;
                }
                if names_key && is_reader(f, callee) && default.is_empty() {
                    default = settled(program, file, args.positional.get(1).copied().or(args.keyword("default")));
                }
            }
        }
        stack.extend(children(n).into_iter().rev());
    }
    (default, members)
}

/// `os.getenv`, `os.environ.get`, `getenv`.
fn is_reader(f: &PyFile, callee: Node<'_>) -> bool {
    let t = f.text_of(callee);
    t.ends_with("getenv") || t.ends_with("environ.get")
}

fn settled(program: &Program<'_>, file: usize, n: Option<Node<'_>>) -> String {
    match n.map(|n| eval_in(program, file, n, None, 0)) {
        Some(v @ (Val::Str(_) | Val::Num(_) | Val::Bool(_))) => v.display(),
        _ => String::new(),
    }
}
