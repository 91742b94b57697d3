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
    let (gf, dict) = program.global(table, file).filter(|(gf, _)| *gf == file)?;
    let dict = unparen(dict);
    if dict.kind() != "dictionary" {
        return None;
    }
    let f = &program.files[gf];
    let mut out = Vec::new();
    let mut comments: Vec<String> = Vec::new();
    for c in all_children(dict) {
        match c.kind() {
            "comment" => comments.push(f.text_of(c).trim_start_matches('#').trim().to_string()),
            "pair" => {
                let help = std::mem::take(&mut comments).join(" ").trim().to_string();
                let (Some(k), Some(v)) = (c.child_by_field_name("key"), c.child_by_field_name("value")) else {
                    continue;
                };
                let Some(name) = literal_string(f, k) else { continue };
                let (default, members) = reader_facts(program, gf, v, &name, choice_helpers);
                out.push(EnvKey { name, default, members, help, location: f.location(c), kind: String::new() });
            }
            _ => comments.clear(),
        }
    }
    Some(out)
}

/// The env keys a class's attributes name (`class Envs: KEY = EnvBool(False)`):
/// each `NAME = Reader(default, ...)` in its body, with the first argument
/// as the default when it is settled, the comment lines above as help, and
/// a keyword's literal key (`deprecated_name="OLD_KEY"`) as a key read too.
pub fn class_keys(program: &Program<'_>, file: usize, class: &str) -> Option<Vec<EnvKey>> {
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
                });
                for (_, v) in &args.keywords {
                    if let Some(old) = literal_string(f, *v).filter(|k| is_key(k) && k != name) {
                        out.push(EnvKey {
                            name: old,
                            default: String::new(),
                            members: Vec::new(),
                            help: format!("read when {name} is not set"),
                            location: f.location(*v),
                            kind: String::new(),
                        });
                    }
                }
            }
            _ => comments.clear(),
        }
    }
    Some(out)
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
