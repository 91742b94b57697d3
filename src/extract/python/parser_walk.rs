//! The functions that build an argument parser, read without running
//! them: each `add_argument` call is an option; a call that hands the
//! parser on (`EngineArgs.add_cli_args(parser)`, `make_arg_parser(p)`) is
//! followed into the function or method it names; `kw = get_kwargs(Cls)`
//! binds the options a dataclass's fields give, overrides such as
//! `kw["f"]["type"] = ...` change them, and `for key, value in
//! kw.items(): add_argument(f"--{key...}", **value)` declares one option
//! per field.

use rustc_hash::{FxHashMap, FxHashSet};
use tree_sitter::Node;

use crate::catalog::model::{Flag, Kind};

use super::kwargs::{Choices, Kw, KwValue};
use super::module::{ClassDef, Program};
use super::tree::{call_args, children, last_name, statements, unparen};
use super::value::{Scope, Val};

/// The names the profile gives the engine's helpers.
pub struct Names<'a> {
    /// Functions that turn a dataclass into a dict of kwargs per field.
    pub kwargs_functions: &'a [String],
    /// Custom actions that take an optional `true`/`false`.
    pub bool_actions: &'a [String],
    /// Decorators that make a class a config (a JSON-valued option).
    pub config_decorators: &'a [String],
    /// Generics read as their first argument (`SkipValidation[int]`).
    pub wrappers: &'a [String],
    /// Integer fields the kwargs builder gives a parser of their own.
    pub special: FxHashMap<String, Kind>,
    /// Functions that declare an option per annotated dataclass field.
    pub generators: &'a [crate::catalog::profile::GeneratorSpec],
}

/// What a name in a function stands for.
#[derive(Clone)]
pub(super) enum Bind {
    /// A dict of kwargs per field (`get_kwargs(Cls)`).
    Kwargs(Vec<(String, Kw)>),
    /// One field's kwargs (the loop's `value`).
    Entry(Box<Kw>),
    /// The parser, or a group of it.
    Parser,
}

pub(super) struct Frame<'a, 'p> {
    pub(super) scope: Scope<'a, 'p>,
    pub(super) binds: FxHashMap<String, Bind>,
    pub(super) cls: Option<ClassDef<'p>>,
}

/// Walks the parser-building functions of a program.
pub struct Walker<'a, 'p> {
    pub(super) program: &'a Program<'p>,
    pub(super) names: &'a Names<'a>,
    pub flags: Vec<Flag>,
    pub warnings: Vec<String>,
    stack: FxHashSet<usize>,
    nesting: usize,
    /// Functions entered so far: a source whose calls fan out (each
    /// function calling the next ten times) is cut off, not walked for hours.
    visits: usize,
}

const MAX_DEPTH: usize = 16;
/// Functions one entry's walk enters at most (vLLM's real parsers take a
/// few hundred).
const MAX_VISITS: usize = 20_000;
const MAX_NESTING: usize = 64;
const KEYS: [&str; 8] = ["type", "action", "choices", "default", "help", "nargs", "metavar", "flags"];

impl<'a, 'p> Walker<'a, 'p> {
    pub fn new(program: &'a Program<'p>, names: &'a Names<'a>) -> Self {
        Walker {
            program,
            names,
            flags: Vec::new(),
            warnings: Vec::new(),
            stack: FxHashSet::default(),
            nesting: 0,
            visits: 0,
        }
    }

    /// Reads a function (or method, with the class it was called on), or a
    /// module's `if __name__ == "__main__":` block.
    pub fn function(&mut self, file: usize, func: Node<'p>, cls: Option<ClassDef<'p>>) {
        if self.visits >= MAX_VISITS {
            if self.visits == MAX_VISITS {
                self.visits += 1;
                self.warnings.push(format!(
                    "the calls that build the parser enter more than {MAX_VISITS} functions: the rest is not read"
                ));
            }
            return;
        }
        if self.stack.len() > MAX_DEPTH || !self.stack.insert(func.id()) {
            return;
        }
        self.visits += 1;
        let f = &self.program.files[file];
        let mut fr = Frame { scope: Scope::new(self.program, file), binds: FxHashMap::default(), cls };
        if let Some(params) = func.child_by_field_name("parameters") {
            for p in children(params) {
                if let Some(n) = param_name(p).map(|n| f.text_of(n)).filter(|n| !matches!(*n, "self" | "cls")) {
                    fr.binds.insert(n.to_string(), Bind::Parser);
                }
            }
        }
        let body = if func.kind() == "block" { Some(func) } else { func.child_by_field_name("body") };
        if let Some(body) = body {
            self.block(&mut fr, body);
        }
        self.stack.remove(&func.id());
    }

    fn block(&mut self, fr: &mut Frame<'a, 'p>, block: Node<'p>) {
        // Blocks nested deeper than any parser-building code are not read.
        if self.nesting > MAX_NESTING {
            return;
        }
        self.nesting += 1;
        for s in statements(block) {
            self.statement(fr, s);
        }
        self.nesting -= 1;
    }

    pub(super) fn statement(&mut self, fr: &mut Frame<'a, 'p>, s: Node<'p>) {
        let f = &self.program.files[fr.scope.file];
        match s.kind() {
            "expression_statement" | "return_statement" => {
                for c in children(s) {
                    match unparen(c).kind() {
                        "assignment" => self.assign(fr, c),
                        "call" => {
                            self.call(fr, unparen(c));
                        }
                        _ => {}
                    }
                }
            }
            "delete_statement" => {
                for t in children(s) {
                    let targets = if t.kind() == "expression_list" { children(t) } else { vec![t] };
                    for t in targets {
                        if let Some((var, field, key)) = self.kw_key(fr, t) {
                            if let Some(kw) = self.kw_mut(fr, &var, &field) {
                                kw.remove(&key);
                            }
                        }
                    }
                }
            }
            "for_statement" => {
                let (Some(left), Some(right), Some(body)) =
                    (s.child_by_field_name("left"), s.child_by_field_name("right"), s.child_by_field_name("body"))
                else {
                    return;
                };
                // `for key, value in kwargs.items():`
                let over = unparen(right);
                let dict = (over.kind() == "call")
                    .then(|| over.child_by_field_name("function"))
                    .flatten()
                    .filter(|c| c.kind() == "attribute" && last_name(f, *c) == "items")
                    .and_then(|c| c.child_by_field_name("object"))
                    .and_then(|o| match fr.binds.get(f.text_of(o)) {
                        Some(Bind::Kwargs(k)) => Some(k.clone()),
                        _ => None,
                    });
                let vars: Vec<&str> = children(left).iter().map(|c| f.text_of(*c)).collect();
                match (dict, vars.as_slice()) {
                    (Some(entries), [key, value]) => {
                        for (field, kw) in entries {
                            fr.scope.locals.insert(key.to_string(), Val::Str(field));
                            fr.binds.insert(value.to_string(), Bind::Entry(Box::new(kw)));
                            self.block(fr, body);
                        }
                    }
                    (None, _) => match fr.scope.eval(right) {
                        // `for arg, type in [("--x", str), ...]:` over a literal list.
                        Val::List(items) => {
                            let vars: Vec<String> = if left.kind() == "identifier" {
                                vec![f.text_of(left).to_string()]
                            } else {
                                vars.iter().map(|v| v.to_string()).collect()
                            };
                            for item in items {
                                let parts = match (&item, vars.len()) {
                                    (_, 1) => vec![item.clone()],
                                    (Val::List(p), n) if p.len() == n => p.clone(),
                                    _ => vec![Val::Unknown; vars.len()],
                                };
                                for (v, x) in vars.iter().zip(parts) {
                                    fr.scope.locals.insert(v.clone(), x);
                                }
                                self.block(fr, body);
                            }
                        }
                        _ => self.block(fr, body),
                    },
                    _ => self.block(fr, body),
                }
            }
            "if_statement" | "with_statement" | "try_statement" | "while_statement" => {
                for c in children(s) {
                    match c.kind() {
                        "block" => self.block(fr, c),
                        "else_clause" | "elif_clause" | "except_clause" | "finally_clause" => {
                            for b in children(c).into_iter().filter(|b| b.kind() == "block") {
                                self.block(fr, b);
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }

    /// `var["field"]["key"]` with `var` a kwargs dict or entry.
    pub(super) fn kw_key(&self, fr: &Frame<'a, 'p>, n: Node<'p>) -> Option<(String, String, String)> {
        let f = &self.program.files[fr.scope.file];
        if n.kind() != "subscript" {
            return None;
        }
        let key = fr.scope.eval(n.child_by_field_name("subscript")?).as_str()?.to_string();
        let inner = n.child_by_field_name("value")?;
        if inner.kind() == "identifier" {
            return Some((f.text_of(inner).to_string(), String::new(), key));
        }
        if inner.kind() != "subscript" {
            return None;
        }
        let field = fr.scope.eval(inner.child_by_field_name("subscript")?).as_str()?.to_string();
        let var = inner.child_by_field_name("value").filter(|v| v.kind() == "identifier")?;
        Some((f.text_of(var).to_string(), field, key))
    }

    pub(super) fn kw_mut<'b>(&self, fr: &'b mut Frame<'a, 'p>, var: &str, field: &str) -> Option<&'b mut Kw> {
        match fr.binds.get_mut(var)? {
            Bind::Kwargs(list) => list.iter_mut().find(|(f, _)| f == field).map(|(_, k)| k),
            Bind::Entry(kw) if field.is_empty() => Some(kw),
            _ => None,
        }
    }

    pub(super) fn assign(&mut self, fr: &mut Frame<'a, 'p>, a: Node<'p>) {
        let f = &self.program.files[fr.scope.file];
        let (Some(left), Some(right)) = (a.child_by_field_name("left"), a.child_by_field_name("right")) else {
            return;
        };
        if let Some((var, field, key)) = self.kw_key(fr, left) {
            if KEYS.contains(&key.as_str()) {
                let v = self.kw_value(fr, &key, right);
                if let Some(kw) = self.kw_mut(fr, &var, &field) {
                    kw.set(&key, v);
                }
            }
            return;
        }
        let name = (left.kind() == "identifier").then(|| f.text_of(left).to_string());
        let right = unparen(right);
        if right.kind() == "call" {
            if let Some(kwargs) = self.kwargs_call(fr, right) {
                if let Some(n) = name {
                    fr.binds.insert(n, Bind::Kwargs(kwargs));
                }
                return;
            }
            let made = right.child_by_field_name("function").is_some_and(|c| makes_parser(last_name(f, c)));
            let hands_parser = self.call(fr, right) || made;
            if let Some(n) = name {
                // `kw = cls._customize(kw)` keeps `kw`; a group of the parser is a parser.
                if hands_parser {
                    fr.binds.insert(n, Bind::Parser);
                }
            }
            return;
        }
        if let Some(n) = name {
            if right.kind() == "subscript" {
                if let Some(kw) = self.field_kw(fr, right) {
                    fr.binds.insert(n, Bind::Entry(Box::new(kw)));
                    return;
                }
            }
            fr.binds.remove(&n);
            fr.scope.pending.insert(n, right);
        }
    }

    pub(super) fn kw_value(&self, fr: &Frame<'a, 'p>, key: &str, v: Node<'p>) -> KwValue {
        let f = &self.program.files[fr.scope.file];
        // `default=kw["f"]["default"]`: the value the dict holds.
        if let Some((var, field, k)) = self.kw_key(fr, unparen(v)) {
            let held = match fr.binds.get(&var) {
                Some(Bind::Kwargs(list)) => list.iter().find(|(f, _)| *f == field).map(|(_, kw)| kw.clone()),
                Some(Bind::Entry(kw)) if field.is_empty() => Some((**kw).clone()),
                _ => None,
            };
            if let Some(kw) = held {
                return match k.as_str() {
                    "default" => KwValue::Val(kw.default.unwrap_or(Val::Unknown)),
                    "help" => KwValue::Val(Val::Str(kw.help.unwrap_or_default())),
                    _ => KwValue::Val(Val::Unknown),
                };
            }
        }
        match key {
            "type" => KwValue::Kind(type_kind(f.text_of(v))),
            "action" => match fr.scope.eval(v) {
                Val::Str(s) => KwValue::Name(s),
                _ => KwValue::Name(last_name(f, v).to_string()),
            },
            "choices" => {
                let loc = f.location(v);
                KwValue::Choices(match fr.scope.eval(v).members() {
                    Some(members) => {
                        Choices::Known { members, closed: true, origin: "declared-choices", location: loc }
                    }
                    None => Choices::RunTime,
                })
            }
            _ => KwValue::Val(fr.scope.eval(v)),
        }
    }

    /// A call: an option declared, or the parser handed on (followed).
    /// True when the call is given the parser (its result is one too).
    fn call(&mut self, fr: &mut Frame<'a, 'p>, c: Node<'p>) -> bool {
        let f = &self.program.files[fr.scope.file];
        let Some(callee) = c.child_by_field_name("function") else { return false };
        let args = call_args(f, c);
        let method = last_name(f, callee);
        if callee.kind() == "attribute" && method == "add_argument" {
            self.add_argument(fr, c);
            return false;
        }
        if self.generator_call(fr, c) {
            return false;
        }
        let receiver = callee.child_by_field_name("object");

        let on_parser = receiver.is_some_and(|o| matches!(fr.binds.get(f.text_of(o)), Some(Bind::Parser)));
        let given = args
            .positional
            .iter()
            .chain(args.keywords.iter().map(|(_, v)| v))
            .any(|a| matches!(fr.binds.get(f.text_of(*a)), Some(Bind::Parser)));
        if on_parser {
            return true;
        }
        if !given {
            return false;
        }
        match receiver {
            Some(obj) => {
                let owner = f.text_of(obj);
                let class = match owner {
                    "cls" | "self" => fr.cls,
                    "super()" => fr.cls.and_then(|c| self.program.bases(c).into_iter().next()),
                    _ => self.program.class(last_name(f, obj), fr.scope.file),
                };
                if let Some(class) = class {
                    // The method runs in the file of the class that defines it.
                    if let Some((owner_class, m)) = self.program.method(class, method) {
                        let cls = if owner == "super()" { fr.cls } else { Some(class) };
                        self.function(owner_class.file, m, cls);
                    }
                }
            }
            None => {
                if let Some((file, func)) = self.program.function(method, fr.scope.file) {
                    self.function(file, func, None);
                }
            }
        }
        true
    }

    fn add_argument(&mut self, fr: &mut Frame<'a, 'p>, c: Node<'p>) {
        let f = &self.program.files[fr.scope.file];
        let args = call_args(f, c);
        let mut names = Vec::new();
        for p in &args.positional {
            match fr.scope.eval(*p) {
                Val::Str(s) => names.push(s),
                _ => {
                    self.warnings
                        .push(format!("{}: an option name known only at run time was passed over", f.location(*p)));
                    return;
                }
            }
        }
        let mut kw = Kw::default();
        for s in &args.splats {
            let s = unparen(*s);
            match self.splat(fr, s) {
                Some(k) => kw = k,
                None => self.warnings.push(format!(
                    "{}: the keyword arguments `**{}` were not traced to a dataclass field",
                    f.location(s),
                    f.text_of(s)
                )),
            }
        }
        for (k, v) in &args.keywords {
            let value = self.kw_value(fr, k, *v);
            kw.set(k, value);
        }
        self.settle_action(&mut kw, fr.scope.file);
        if let Some(Choices::RunTime) = kw.choices {
            if let Some(n) = names.first() {
                self.warnings.push(format!("{}: the choices of {n} are computed at run time (open)", f.location(c)));
            }
        }
        if let Some(flag) = kw.flag(&names, f.location(c), self.names.bool_actions) {
            self.flags.push(flag);
        }
    }

    /// The kwargs a `**splat` stands for: a field's (`**kw["f"]`), a loop's
    /// entry, or a dict literal built from one (`**{**kw["f"], "default": None}`).
    fn splat(&self, fr: &Frame<'a, 'p>, s: Node<'p>) -> Option<Kw> {
        let f = &self.program.files[fr.scope.file];
        match s.kind() {
            "identifier" => match fr.binds.get(f.text_of(s)) {
                Some(Bind::Entry(k)) => Some((**k).clone()),
                _ => None,
            },
            "subscript" => self.field_kw(fr, s),
            "dictionary" => {
                let mut kw = Kw::default();
                for c in children(s) {
                    match c.kind() {
                        "dictionary_splat" => kw = self.splat(fr, unparen(*children(c).first()?))?,
                        "pair" => {
                            let key = fr.scope.eval(c.child_by_field_name("key")?);
                            let key = key.as_str()?;
                            let value = self.kw_value(fr, key, c.child_by_field_name("value")?);
                            kw.set(key, value);
                        }
                        _ => return None,
                    }
                }
                Some(kw)
            }
            _ => None,
        }
    }

    /// `kw["field"]` with `kw` a kwargs dict: that field's kwargs.
    fn field_kw(&self, fr: &Frame<'a, 'p>, s: Node<'p>) -> Option<Kw> {
        let f = &self.program.files[fr.scope.file];
        let var = s.child_by_field_name("value").map(|v| f.text_of(v))?;
        let field = fr.scope.eval(s.child_by_field_name("subscript")?);
        match fr.binds.get(var) {
            Some(Bind::Kwargs(list)) => {
                list.iter().find(|(n, _)| Some(n.as_str()) == field.as_str()).map(|(_, k)| k.clone())
            }
            _ => None,
        }
    }
}

/// The kind an argparse `type=` gives: `int`, `float`, a wrapper of one
/// (`optional_type(int)`), else a string.
pub(super) fn type_kind(text: &str) -> Kind {
    let inner = text.rsplit('(').next().unwrap_or(text).trim_end_matches(')').trim();
    match inner.rsplit('.').next().unwrap_or(inner) {
        "int" => Kind::Int,
        "float" => Kind::Float,
        _ => Kind::String,
    }
}

/// A call that makes a parser or a part of one: argparse's class (or a
/// subclass named like it), a subcommand's parser, a group.
fn makes_parser(callee: &str) -> bool {
    callee.ends_with("ArgumentParser")
        || matches!(callee, "add_parser" | "add_argument_group" | "add_mutually_exclusive_group")
}

/// A parameter's name (`x`, `x: T`, `x=1`, `x: T = 1`).
pub(super) fn param_name(p: Node<'_>) -> Option<Node<'_>> {
    match p.kind() {
        "identifier" => Some(p),
        _ => p.child_by_field_name("name").or_else(|| children(p).into_iter().find(|c| c.kind() == "identifier")),
    }
}
