//! Table rows: `{"--x", "N", "0", "help"}`, `{.flag = "--x", .doc = "..."}`,
//! and getopt's `{"x", required_argument, nullptr, 'x'}`.
//!
//! A row is an initializer list that holds a flag literal beside other
//! values. Each value's role comes from its field name when the source has
//! one (a designator, or the struct definition for positional rows) and from
//! its content otherwise.

use std::collections::HashMap;

use tree_sitter::Node;

use super::node_kind::KindName;

use super::candidate::Candidate;
use super::cst::{declarator_name, line, string_value, text};
use super::parsed::Parsed;
use super::roles::{kind_of_ident, looks, role_of_name, Looks, Role};
use crate::catalog::model::{Kind, MembersFrom};

/// Field names of every struct defined in a file, in declaration order.
pub(crate) fn struct_fields(p: &Parsed<'_>) -> HashMap<String, Vec<String>> {
    let mut out = HashMap::new();
    for node in p.nodes() {
        if !matches!(node.kind_name(), "struct_specifier" | "class_specifier") {
            continue;
        }
        let (Some(name), Some(body)) = (node.child_by_field_name("name"), node.child_by_field_name("body")) else {
            continue;
        };
        let mut fields = Vec::new();
        let mut cursor = body.walk();
        for decl in body.named_children(&mut cursor) {
            if decl.kind_name() != "field_declaration" {
                continue;
            }
            let mut dc = decl.walk();
            for d in decl.children_by_field_name("declarator", &mut dc) {
                if let Some(id) = declarator_name(d, p.src).map(str::to_string) {
                    fields.push(id);
                }
            }
        }
        if !fields.is_empty() {
            out.insert(text(name, p.src).to_string(), fields);
        }
    }
    out
}

/// Literal initialisers of struct fields, by field name:
/// `int32_t n_processors = 1;` → `n_processors` = `1`.
pub(crate) fn field_defaults(p: &Parsed<'_>) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for decl in p.nodes() {
        if decl.kind_name() != "field_declaration" {
            continue;
        }
        let (Some(d), Some(v)) = (decl.child_by_field_name("declarator"), decl.child_by_field_name("default_value"))
        else {
            continue;
        };
        let value = match v.kind_name() {
            "number_literal" => Some(text(v, p.src).trim_end_matches(['f', 'F', 'u', 'U', 'l', 'L']).to_string()),
            "true" | "false" => Some(text(v, p.src).to_string()),
            "unary_expression"
                if text(v, p.src).starts_with('-')
                    && v.named_child(0).is_some_and(|n| n.kind_name() == "number_literal") =>
            {
                Some(text(v, p.src).replace(' ', "").trim_end_matches(['f', 'F']).to_string())
            }
            _ => string_value(v, p.src),
        };
        if let (Some(name), Some(value)) = (declarator_name(d, p.src).map(str::to_string), value) {
            out.entry(name).or_insert(value);
        }
    }
    out
}

/// Declared types of struct fields, by field name: `double temperature;` →
/// `temperature` = `double`. The first declaration of a name wins.
pub(crate) fn field_types(p: &Parsed<'_>) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for decl in p.nodes() {
        if decl.kind_name() != "field_declaration" {
            continue;
        }
        let Some(ty) = decl.child_by_field_name("type") else { continue };
        let mut dc = decl.walk();
        for d in decl.children_by_field_name("declarator", &mut dc) {
            // A pointer to char is text, whatever the base type says.
            let pointer = d.kind_name() == "pointer_declarator";
            if let Some(name) = declarator_name(d, p.src).map(str::to_string) {
                let ty = text(ty, p.src).to_string();
                out.entry(name).or_insert(if pointer && ty.contains("char") { "char*".to_string() } else { ty });
            }
        }
    }
    out
}

/// One value of a row.
#[derive(Debug, Clone)]
enum Value {
    Str(String),
    Null,
    Number(String),
    Bool(bool),
    Ident(String),
    Strings(Vec<String>),
    Char(char),
    Other,
}

fn value_of(node: Node<'_>, src: &str) -> Value {
    if let Some(s) = string_value(node, src) {
        return Value::Str(s);
    }
    match node.kind_name() {
        "null" | "nullptr" => Value::Null,
        "number_literal" => Value::Number(text(node, src).trim_end_matches(['f', 'F', 'u', 'U', 'l', 'L']).to_string()),
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        "identifier" | "qualified_identifier" | "field_expression" => {
            let t = text(node, src);
            if t == "NULL" {
                Value::Null
            } else {
                Value::Ident(t.to_string())
            }
        }
        "char_literal" => text(node, src).trim_matches('\'').chars().next().map_or(Value::Other, Value::Char),
        "initializer_list" => {
            let mut cursor = node.walk();
            let strings: Vec<String> = node.named_children(&mut cursor).filter_map(|c| string_value(c, src)).collect();
            if strings.is_empty() {
                Value::Other
            } else {
                Value::Strings(strings)
            }
        }
        _ => Value::Other,
    }
}

/// The positional field names for a row, from its array's declared type.
fn row_fields<'m>(p: &Parsed<'_>, row: Node<'_>, structs: &'m HashMap<String, Vec<String>>) -> Option<&'m Vec<String>> {
    let src = p.src;
    let mut cur = p.parent(row);
    while let Some(n) = cur {
        if n.kind_name() == "declaration" || n.kind_name() == "field_declaration" {
            let ty = n.child_by_field_name("type").map(|t| text(t, src))?;
            return ty.split(|c: char| !(c.is_alphanumeric() || c == '_')).find_map(|w| structs.get(w));
        }
        if matches!(n.kind_name(), "function_definition" | "translation_unit") {
            return None;
        }
        cur = p.parent(n);
    }
    None
}

pub(crate) fn candidates(p: &Parsed<'_>, structs: &HashMap<String, Vec<String>>) -> Vec<Candidate> {
    let mut out = Vec::new();
    for node in p.nodes() {
        if node.kind_name() != "initializer_list" {
            continue;
        }
        let mut cursor = node.walk();
        let elems: Vec<Node<'_>> = node.named_children(&mut cursor).filter(|n| n.kind_name() != "comment").collect();
        if elems.len() < 2 {
            continue;
        }
        // (designator, value, node) per element
        let mut values: Vec<(Option<String>, Value, Node<'_>)> = Vec::new();
        for e in &elems {
            if e.kind_name() == "initializer_pair" {
                let designator = e
                    .child_by_field_name("designator")
                    .map(|d| text(d, p.src).trim_start_matches('.').trim().to_string());
                let v = e.child_by_field_name("value").map_or(Value::Other, |v| value_of(v, p.src));
                let vn = e.child_by_field_name("value").unwrap_or(*e);
                values.push((designator, v, vn));
            } else {
                values.push((None, value_of(*e, p.src), *e));
            }
        }
        if let Some(c) = getopt_row(p, &values) {
            out.push(c);
            continue;
        }
        if let Some(c) = keyed_row(p, &values, node, structs) {
            out.push(c);
            continue;
        }
        let has_flag = values.iter().any(|(d, v, _)| match v {
            Value::Str(s) => {
                (looks(s) == Looks::Flag || synopsis(s).is_some())
                    && d.as_deref().and_then(role_of_name) != Some(Role::Help)
            }
            _ => false,
        });
        let all_flags =
            values.iter().all(|(_, v, _)| matches!(v, Value::Str(s) if matches!(looks(s), Looks::Flag | Looks::Short)));
        if !has_flag || all_flags {
            continue;
        }
        let fields = row_fields(p, node, structs);
        if let Some(c) = row_candidate(p, &values, fields) {
            out.push(c);
        }
    }
    out
}

fn row_candidate(
    p: &Parsed<'_>,
    values: &[(Option<String>, Value, Node<'_>)],
    fields: Option<&Vec<String>>,
) -> Option<Candidate> {
    let mut c = Candidate::default();
    let mut pending: Vec<String> = Vec::new();
    let mut positional = 0usize;
    for (designator, value, node) in values {
        let field = match designator {
            Some(d) => Some(d.clone()),
            None => {
                let f = fields.and_then(|f| f.get(positional)).cloned();
                positional += 1;
                f
            }
        };
        let role = field.as_deref().and_then(role_of_name);
        if let (Value::Str(s), None | Some(Role::Name)) = (value, role) {
            if let Some((spellings, metavar)) = synopsis(s).filter(|_| c.name.is_empty()) {
                c.line = line(*node);
                let long = spellings.iter().position(|s| looks(s) == Looks::Flag).unwrap_or(0);
                c.aliases = spellings;
                c.name = c.aliases.remove(long);
                c.metavar = Some(metavar);
                continue;
            }
        }
        match value {
            Value::Str(s) if looks(s) == Looks::Flag && role != Some(Role::Help) => {
                let s = s.trim().trim_end_matches('=').to_string();
                if c.name.is_empty() {
                    c.name = s;
                    c.line = line(*node);
                } else {
                    c.aliases.push(s);
                }
            }
            Value::Str(s)
                if looks(s) == Looks::Short && matches!(role, None | Some(Role::Alias) | Some(Role::Name)) =>
            {
                c.aliases.push(s.clone())
            }
            Value::Strings(list) if list.iter().all(|s| matches!(looks(s), Looks::Flag | Looks::Short)) => {
                c.aliases.extend(list.iter().cloned())
            }
            Value::Strings(list) if role == Some(Role::Members) => {
                c.members = Some((
                    list.clone(),
                    MembersFrom { origin: "declared-choices".into(), location: p.loc(line(*node)), closed: true },
                ));
            }
            Value::Str(s) => match role {
                Some(Role::Metavar) => c.metavar = Some(s.clone()),
                Some(Role::Default) => c.default = Some(s.clone()),
                Some(Role::Help) => c.help = Some(s.clone()),
                Some(Role::Kind) => c.kind = kind_of_ident(s),
                Some(Role::Alias) if !s.is_empty() => c.aliases.push(s.clone()),
                Some(Role::Env) => c.env.push(s.clone()),
                Some(Role::Name) | Some(Role::Alias) | Some(Role::Members) | Some(Role::Scopes)
                | Some(Role::Excludes) => {}
                None => match looks(s) {
                    Looks::Prose if c.help.is_none() => c.help = Some(s.clone()),
                    Looks::Metavar if c.metavar.is_none() => c.metavar = Some(s.clone()),
                    // A word before the flag (a group tag) is no slot of it.
                    _ if c.name.is_empty() => {}
                    _ => pending.push(s.clone()),
                },
            },
            Value::Null => match role {
                Some(Role::Metavar) => c.metavar = Some(String::new()),
                Some(Role::Default) => c.default = Some(String::new()),
                Some(_) => {}
                None => pending.push(String::new()),
            },
            Value::Number(n) => {
                if matches!(role, None | Some(Role::Default)) {
                    c.default = Some(n.clone());
                }
            }
            Value::Bool(b) => {
                if matches!(role, None | Some(Role::Default)) {
                    c.default = Some(b.to_string());
                }
            }
            Value::Ident(id) => {
                if matches!(role, None | Some(Role::Kind)) {
                    if let Some(k) = kind_of_ident(id) {
                        c.kind = Some(k);
                    }
                }
            }
            Value::Char(ch) if ch.is_ascii_alphanumeric() && matches!(role, None | Some(Role::Alias)) => {
                c.aliases.push(format!("-{ch}"));
            }
            _ => {}
        }
    }
    if c.name.is_empty() {
        return None;
    }
    c.fill_slots(pending);
    Some(c)
}

/// A cell that writes an option as its usage does, spellings and a
/// placeholder: `-s,    --seed SEED`, `-npp n0,n1,...`, `       --mlock`
/// (padded to align the table). Each comma-separated part is a spelling
/// and at most one placeholder word; a single bare spelling is left to the
/// plain reading (it may be the name of a keyed row).
fn synopsis(s: &str) -> Option<(Vec<String>, String)> {
    static PARTS: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r",\s+").expect("valid regex"));
    let t = s.trim();
    if t == s && !t.contains(char::is_whitespace) {
        return None;
    }
    let mut spellings = Vec::new();
    let mut metavar = String::new();
    for part in PARTS.split(t) {
        let mut words = part.split_whitespace();
        let (Some(spelling), rest) = (words.next(), words.next()) else { return None };
        if words.next().is_some() || !matches!(looks(spelling), Looks::Flag | Looks::Short) {
            return None;
        }
        if let Some(m) = rest.filter(|_| metavar.is_empty()) {
            metavar = m.to_string();
        }
        spellings.push(spelling.to_string());
    }
    Some((spellings, metavar))
}

/// A map entry keyed by the flag: `{"--x", {Kind::kInt, "N", "32", "help"}}`.
/// The inner list is the spec; its positional fields come from the struct
/// the map's value type names.
fn keyed_row(
    p: &Parsed<'_>,
    values: &[(Option<String>, Value, Node<'_>)],
    row: Node<'_>,
    structs: &HashMap<String, Vec<String>>,
) -> Option<Candidate> {
    let [(None, Value::Str(key), key_node), (None, _, spec)] = values else { return None };
    if looks(key) != Looks::Flag || spec.kind_name() != "initializer_list" {
        return None;
    }
    let mut cursor = spec.walk();
    let inner: Vec<Node<'_>> = spec.named_children(&mut cursor).filter(|n| n.kind_name() != "comment").collect();
    let all_names =
        inner.iter().all(|n| string_value(*n, p.src).is_some_and(|s| matches!(looks(&s), Looks::Flag | Looks::Short)));
    if inner.is_empty() || all_names {
        return None;
    }
    // The map's declared type names the key type first, then the spec struct.
    let fields = row_fields(p, row, structs);
    let mut flat = vec![(Some("flag".to_string()), Value::Str(key.clone()), *key_node)];
    for (i, e) in inner.iter().enumerate() {
        if e.kind_name() == "initializer_pair" {
            let designator =
                e.child_by_field_name("designator").map(|d| text(d, p.src).trim_start_matches('.').trim().to_string());
            let v = e.child_by_field_name("value").unwrap_or(*e);
            flat.push((designator, value_of(v, p.src), v));
        } else {
            flat.push((fields.and_then(|f| f.get(i)).cloned(), value_of(*e, p.src), *e));
        }
    }
    row_candidate(p, &flat, None)
}

/// getopt_long's `struct option`: `{"name", required_argument, nullptr, 'n'}`.
fn getopt_row(p: &Parsed<'_>, values: &[(Option<String>, Value, Node<'_>)]) -> Option<Candidate> {
    let (_, Value::Str(name), node) = values.first()? else { return None };
    let arg = values.iter().find_map(|(_, v, _)| match v {
        Value::Ident(id) if id.ends_with("_argument") => Some(id.as_str()),
        _ => None,
    })?;
    if name.is_empty() || name.starts_with('-') || name.contains(char::is_whitespace) {
        return None;
    }
    let mut c = Candidate {
        name: format!("--{name}"),
        line: line(*node),
        takes_value: Some(arg != "no_argument"),
        ..Candidate::default()
    };
    if arg == "no_argument" {
        c.kind = Some(Kind::Switch);
    }
    if let Some((_, Value::Char(ch), _)) = values.get(3) {
        if ch.is_ascii_alphanumeric() {
            c.aliases.push(format!("-{ch}"));
        }
    }
    let _ = p;
    Some(c)
}

#[cfg(test)]
mod tests {
    use super::synopsis;

    #[test]
    fn usage_cells_give_spellings_and_a_placeholder() {
        let got = |s: &str| synopsis(s).map(|(names, metavar)| (names.join(" "), metavar));
        assert_eq!(got("-s,    --seed SEED"), Some(("-s --seed".into(), "SEED".into())));
        assert_eq!(got("-nwu n0,n1,..."), Some(("-nwu".into(), "n0,n1,...".into())));
        assert_eq!(got("       --lock-pages"), Some(("--lock-pages".into(), String::new())));
        assert_eq!(got("--seed"), None, "a bare spelling is read as it always was");
        assert_eq!(got("--seed is gone, use --rng"), None, "prose");
        assert_eq!(got("print the seed"), None);
    }
}
