//! A dataclass field's annotation read as the argparse options it becomes.
//! The annotation is flattened to a set of hints (unions, `Optional`,
//! `Annotated` opened; aliases such as `Mode = Literal[...]` traced to
//! their module), and the hints are tried in the order the engine's own
//! kwargs builder tries them: a config class (a JSON value), `bool` (a
//! switch with a `--no-` twin), `Literal` (members; open when `str` is in
//! the union), a collection (its element's kind), `int`, `float`, `dict`,
//! anything else a string.

use tree_sitter::Node;

use crate::catalog::model::Kind;

use super::module::Program;
use super::tree::{children, last_name, PyFile};
use super::value::{eval_in, Val};

/// One member of an annotation's union.
#[derive(Debug, Clone, PartialEq)]
pub enum Hint {
    Bool,
    Int,
    Float,
    Str,
    NoneType,
    Literal(Vec<Val>),
    /// `list[...]`, `tuple[...]`, `set[...]`: the element's hints.
    Collection(Vec<Hint>),
    Dict,
    /// A class the profile's decorators make a config (dataclass).
    Config,
    Other,
}

/// What argparse is given for a field, as far as a catalogue needs.
#[derive(Debug, Clone, PartialEq)]
pub struct ArgparseShape {
    pub kind: Kind,
    /// `BooleanOptionalAction`: a `--no-` twin.
    pub negatable: bool,
    pub members: Vec<String>,
    /// The members are the only values accepted.
    pub closed: bool,
    /// Takes one or more words (`nargs="+"`).
    pub many: bool,
}

/// Reads annotations against a program, with the decorators that make a
/// class a config.
pub struct Reader<'a, 'p> {
    pub program: &'a Program<'p>,
    pub config_decorators: &'a [String],
    /// Generics that stand for their first argument, as `Annotated` does
    /// (pydantic's `SkipValidation[int]`).
    pub wrappers: &'a [String],
}

const DEPTH: usize = 16;

impl<'p> Reader<'_, 'p> {
    /// The hints of an annotation node of `file`.
    pub fn hints(&self, file: usize, n: Node<'p>) -> Vec<Hint> {
        let mut out = Vec::new();
        self.collect(file, n, &mut out, 0);
        out
    }

    fn collect(&self, file: usize, n: Node<'p>, out: &mut Vec<Hint>, depth: usize) {
        if depth > DEPTH {
            out.push(Hint::Other);
            return;
        }
        let f = &self.program.files[file];
        match n.kind() {
            "type" | "parenthesized_expression" => {
                for c in children(n) {
                    self.collect(file, c, out, depth + 1);
                }
            }
            "union_type" => {
                for c in children(n) {
                    self.collect(file, c, out, depth + 1);
                }
            }
            "binary_operator" => {
                for side in ["left", "right"] {
                    if let Some(c) = n.child_by_field_name(side) {
                        self.collect(file, c, out, depth + 1);
                    }
                }
            }
            "none" => out.push(Hint::NoneType),
            "generic_type" | "subscript" => {
                let (head, args) = Self::generic(f, n);
                self.generic_hints(file, head, &args, out, depth);
            }
            "identifier" | "attribute" | "member_type" => self.named(file, last_name(f, n), out, depth),
            // A forward reference, `"ModelConfig"`.
            "string" => {
                let t = f.text_of(n).trim_matches(|c| c == '"' || c == '\'');
                if t.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '.') {
                    self.named(file, t.rsplit('.').next().unwrap_or(t), out, depth);
                } else {
                    out.push(Hint::Other);
                }
            }
            _ => out.push(Hint::Other),
        }
    }

    /// A generic's head name and its argument nodes.
    pub(super) fn generic<'n>(f: &'n PyFile, n: Node<'p>) -> (&'n str, Vec<Node<'p>>) {
        let parts = children(n);
        let head = parts.first().map(|h| last_name(f, *h)).unwrap_or("");
        let mut args = Vec::new();
        for p in parts.iter().skip(1) {
            if matches!(p.kind(), "type_parameter" | "tuple" | "expression_list") {
                args.extend(children(*p));
            } else {
                args.push(*p);
            }
        }
        (head, args)
    }

    fn generic_hints(&self, file: usize, head: &str, args: &[Node<'p>], out: &mut Vec<Hint>, depth: usize) {
        match head {
            "Optional" => {
                for a in args {
                    self.collect(file, *a, out, depth + 1);
                }
                out.push(Hint::NoneType);
            }
            "Union" => {
                for a in args {
                    self.collect(file, *a, out, depth + 1);
                }
            }
            w if w == "Annotated" || self.wrappers.iter().any(|x| x == w) => {
                if let Some(a) = args.first() {
                    self.collect(file, *a, out, depth + 1);
                }
            }
            "Literal" => {
                let mut vals = Vec::new();
                for a in args {
                    self.literal_values(file, *a, &mut vals, depth + 1);
                }
                out.push(Hint::Literal(vals));
            }
            "list" | "List" | "tuple" | "Tuple" | "set" | "Set" | "Sequence" | "frozenset" => {
                let mut elem = Vec::new();
                if let Some(a) = args.first() {
                    self.collect(file, *a, &mut elem, depth + 1);
                }
                out.push(Hint::Collection(elem));
            }
            "dict" | "Dict" | "Mapping" => out.push(Hint::Dict),
            _ => self.named(file, head, out, depth),
        }
    }

    /// The values inside `Literal[...]`, nested literals and aliases opened.
    fn literal_values(&self, file: usize, n: Node<'p>, vals: &mut Vec<Val>, depth: usize) {
        let mut inner = Vec::new();
        match n.kind() {
            "type" => {
                for c in children(n) {
                    self.literal_values(file, c, vals, depth + 1);
                }
                return;
            }
            "identifier" | "generic_type" | "subscript" | "attribute" => self.collect(file, n, &mut inner, depth + 1),
            _ => {
                vals.push(eval_in(self.program, file, n, None, depth));
                return;
            }
        }
        for h in inner {
            if let Hint::Literal(v) = h {
                vals.extend(v);
            } else {
                vals.push(Val::Unknown);
            }
        }
    }

    /// A bare name: a builtin, an alias traced to its definition, or a class.
    fn named(&self, file: usize, name: &str, out: &mut Vec<Hint>, depth: usize) {
        let hint = match name {
            "bool" => Hint::Bool,
            "int" => Hint::Int,
            "float" => Hint::Float,
            "str" => Hint::Str,
            "None" | "NoneType" => Hint::NoneType,
            "dict" | "Dict" => Hint::Dict,
            "list" | "List" | "tuple" | "Tuple" | "set" | "Set" => Hint::Collection(vec![Hint::Other]),
            _ => {
                if let Some(c) = self.program.class(name, file) {
                    let decorated = self.program.decorators(c);
                    if decorated.iter().any(|d| self.config_decorators.contains(d)) {
                        Hint::Config
                    } else {
                        Hint::Other
                    }
                } else if let Some((gf, g)) = self.program.global(name, file) {
                    let before = out.len();
                    self.collect(gf, g, out, depth + 1);
                    if out.len() > before {
                        return;
                    }
                    Hint::Other
                } else {
                    Hint::Other
                }
            }
        };
        out.push(hint);
    }
}

fn has(hints: &[Hint], pred: impl Fn(&Hint) -> bool) -> bool {
    hints.iter().any(pred)
}

/// The kind of a bare hint set, as a scalar (the element of a collection).
fn scalar(hints: &[Hint]) -> (Kind, Vec<String>, bool) {
    if let Some(Hint::Literal(v)) = hints.iter().find(|h| matches!(h, Hint::Literal(_))) {
        let closed = !has(hints, |h| *h == Hint::Str) && !v.contains(&Val::Unknown);
        return (Kind::Enum, sorted_members(v), closed);
    }
    let kind = if has(hints, |h| *h == Hint::Int) {
        Kind::Int
    } else if has(hints, |h| *h == Hint::Float) {
        Kind::Float
    } else {
        Kind::String
    };
    (kind, Vec::new(), false)
}

/// Members as argparse sorts them (numbers by value, strings by code point).
fn sorted_members(vals: &[Val]) -> Vec<String> {
    let mut nums: Vec<(f64, String)> = Vec::new();
    let mut strs: Vec<String> = Vec::new();
    for v in vals {
        match v {
            Val::Unknown => {}
            Val::Num(n) => nums.push((n.parse().unwrap_or(0.0), n.clone())),
            other => strs.push(other.display()),
        }
    }
    nums.sort_by(|a, b| a.0.total_cmp(&b.0));
    strs.sort();
    let mut out: Vec<String> = nums.into_iter().map(|(_, s)| s).collect();
    out.extend(strs);
    out.dedup();
    out
}

/// What the hints become, in the engine's order of tests.
pub fn derive(hints: &[Hint]) -> ArgparseShape {
    let mut d = ArgparseShape { kind: Kind::String, negatable: false, members: Vec::new(), closed: false, many: false };
    let literal = hints.iter().find_map(|h| if let Hint::Literal(v) = h { Some(v) } else { None });
    if has(hints, |h| *h == Hint::Config) {
        d.kind = Kind::String;
    } else if has(hints, |h| *h == Hint::Bool) {
        d.kind = Kind::Switch;
        d.negatable = true;
        return d;
    } else if let Some(v) = literal {
        d.kind = Kind::Enum;
        d.members = sorted_members(v);
        // A member known only at run time leaves the set open.
        d.closed = !has(hints, |h| *h == Hint::Str) && !v.contains(&Val::Unknown);
    } else if let Some(Hint::Collection(elem)) = hints.iter().find(|h| matches!(h, Hint::Collection(_))) {
        let (kind, members, closed) = scalar(elem);
        d.kind = kind;
        d.members = members;
        d.closed = closed;
        d.many = true;
    } else if has(hints, |h| *h == Hint::Int) {
        d.kind = Kind::Int;
    } else if has(hints, |h| *h == Hint::Float) {
        d.kind = Kind::Float;
    }
    // `None` in the union is one more accepted member.
    if has(hints, |h| *h == Hint::NoneType) && !d.members.is_empty() && !d.members.iter().any(|m| m == "None") {
        d.members.push("None".to_string());
    }
    d
}

#[cfg(test)]
mod tests {
    use super::super::tree::PyFile;
    use super::*;

    /// The fields of class `C` in `text` (one module, with `@config` the
    /// config decorator), as (name, kind, members, closed, negatable).
    fn read(text: &str) -> Vec<(String, Kind, Vec<String>, bool, bool)> {
        let files = vec![PyFile::parse("m.py", text.to_string()).expect("parse")];
        let program = Program::new(&files);
        let decorators = ["config".to_string()];
        let reader = Reader { program: &program, config_decorators: &decorators, wrappers: &[] };
        let class = program.class("C", 0).expect("class C");
        program
            .fields(class)
            .into_iter()
            .map(|f| {
                let d = derive(&reader.hints(f.file, f.annotation));
                (f.name, d.kind, d.members, d.closed, d.negatable)
            })
            .collect()
    }

    fn owned(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// The engine's order: a config class before `bool`, `bool` before a
    /// `Literal`, a collection's element, `None` a member of an optional enum.
    #[test]
    fn hints_are_tried_in_the_builders_order() {
        let text = r#"
from typing import Literal, Optional, Union

Mode = Literal["b", "a"]
Sizes = Literal[16, 8]

@config
class Inner:
    x: int = 1

class C:
    nested: Inner | None = None
    flag: bool | Inner = False
    toggle: Optional[bool] = None
    mode: Mode = "a"
    loose: Union[Mode, str] = "a"
    sizes: Sizes = 8
    maybe: Optional[Mode] = None
    many: list[Mode] = None
    counts: list[int] = None
    ratio: float | None = None
    table: dict[str, int] = None
    forward: "Inner" = None
    other: SomethingUnknown = None
"#;
        let got = read(text);
        let want = vec![
            ("nested".to_string(), Kind::String, vec![], false, false),
            ("flag".to_string(), Kind::String, vec![], false, false),
            ("toggle".to_string(), Kind::Switch, vec![], false, true),
            ("mode".to_string(), Kind::Enum, owned(&["a", "b"]), true, false),
            ("loose".to_string(), Kind::Enum, owned(&["a", "b"]), false, false),
            ("sizes".to_string(), Kind::Enum, owned(&["8", "16"]), true, false),
            ("maybe".to_string(), Kind::Enum, owned(&["a", "b", "None"]), true, false),
            ("many".to_string(), Kind::Enum, owned(&["a", "b"]), true, false),
            ("counts".to_string(), Kind::Int, vec![], false, false),
            ("ratio".to_string(), Kind::Float, vec![], false, false),
            ("table".to_string(), Kind::String, vec![], false, false),
            ("forward".to_string(), Kind::String, vec![], false, false),
            ("other".to_string(), Kind::String, vec![], false, false),
        ];
        assert_eq!(got, want);
    }

    /// A base's fields come first; a field redefined keeps its place.
    #[test]
    fn fields_of_bases_come_first() {
        let text = "class B:\n    a: int = 1\n    b: str = 'x'\nclass C(B):\n    c: float = 1.0\n    a: bool = False\n";
        let names: Vec<(String, Kind)> = read(text).into_iter().map(|f| (f.0, f.1)).collect();
        assert_eq!(
            names,
            [("a".to_string(), Kind::Switch), ("b".to_string(), Kind::String), ("c".to_string(), Kind::Float)]
        );
    }
}
