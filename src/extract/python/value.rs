//! Values settled without running the code: literals, names traced to a
//! literal (in the function, its module, or another module), class
//! attributes (`EngineArgs.max_model_len` → the field's default), f-strings
//! whose parts are settled, `+` of strings or lists, `[m.value for m in E]`
//! over an enum class. What depends on run time is `Unknown`.

use std::cell::Cell;

use rustc_hash::FxHashMap;
use tree_sitter::Node;

use super::module::Program;
use super::tree::{all_children, call_args, children, last_name, unescape, unparen};

/// A value known before the program runs, or not.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Str(String),
    /// An integer or float, as written.
    Num(String),
    Bool(bool),
    None,
    List(Vec<Val>),
    Unknown,
}

impl Val {
    /// As argv would spell it: strings bare, `None` as nothing.
    pub fn display(&self) -> String {
        match self {
            Val::Str(s) => s.clone(),
            Val::Num(n) => n.clone(),
            Val::Bool(b) => if *b { "True" } else { "False" }.to_string(),
            Val::None | Val::Unknown => String::new(),
            Val::List(v) => format!("[{}]", v.iter().map(Val::display).collect::<Vec<_>>().join(", ")),
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }

    /// Every element a settled string or number, as member spellings. A
    /// `None` element (`choices=['awq', 'gptq', None]`) is no member: argv
    /// gives a word, and no word is `None`.
    pub fn members(&self) -> Option<Vec<String>> {
        match self {
            Val::List(v) => v
                .iter()
                .filter(|x| **x != Val::None)
                .map(|x| match x {
                    Val::Str(s) | Val::Num(s) => Some(s.clone()),
                    Val::Bool(_) => Some(x.display()),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }
}

/// Where names are looked up: a function's own bindings, then its module,
/// then the program.
pub struct Scope<'a, 'p> {
    pub program: &'a Program<'p>,
    pub file: usize,
    pub locals: FxHashMap<String, Val>,
    /// Local assignments not yet evaluated (read when a name is used).
    pub pending: FxHashMap<String, Node<'p>>,
}

impl<'a, 'p> Scope<'a, 'p> {
    pub fn new(program: &'a Program<'p>, file: usize) -> Self {
        Scope { program, file, locals: FxHashMap::default(), pending: FxHashMap::default() }
    }

    /// Evaluates an expression of this scope's file.
    pub fn eval(&self, n: Node<'p>) -> Val {
        eval_in(self.program, self.file, n, Some(self), 0)
    }
}

const DEPTH: usize = 24;

/// The most elements a settled list keeps: a longer one is `Unknown` (an
/// open choice), not a million members (vLLM's longest is a few hundred).
pub const MAX_ELEMENTS: usize = 10_000;
/// The longest settled string, in bytes.
pub const MAX_TEXT: usize = 256 * 1024;
/// What settling one value may cost: a step per node read, per element
/// copied and per 32 bytes of text built. `X1 = X0 + X0`, `X2 = X1 + X1`, …
/// doubles at each name: 11 names over 10,000 strings took 71 s and 1.9 GB.
pub const VALUE_STEPS: usize = 200_000;
/// What settling every value of one tag may cost: past it a value is
/// `Unknown`, and the extraction fails (the catalogue would be wrong).
pub const TAG_STEPS: usize = 50_000_000;

thread_local! {
    /// Steps left for the value being settled.
    static LEFT: Cell<usize> = const { Cell::new(VALUE_STEPS) };
    /// Steps spent on this thread's tag so far.
    static SPENT: Cell<usize> = const { Cell::new(0) };
}

/// Starts a tag's count of steps.
pub fn start_tag() {
    SPENT.with(|s| s.set(0));
}

/// Whether settling this tag's values ran out of steps.
pub fn tag_over() -> bool {
    SPENT.with(Cell::get) > TAG_STEPS
}

/// Takes `n` steps; false when the value's or the tag's steps are spent.
fn charge(n: usize) -> bool {
    let spent = SPENT.with(|s| {
        let v = s.get().saturating_add(n);
        s.set(v);
        v
    });
    LEFT.with(|l| match l.get().checked_sub(n) {
        Some(left) if spent <= TAG_STEPS => {
            l.set(left);
            true
        }
        _ => {
            l.set(0);
            false
        }
    })
}

/// The steps a value costs to copy.
fn size(v: &Val) -> usize {
    match v {
        Val::Str(s) | Val::Num(s) => 1 + s.len() / 32,
        Val::List(l) => 1 + l.iter().map(size).sum::<usize>(),
        _ => 1,
    }
}

/// A value copied if it is within the steps left, else `Unknown`.
fn copied(v: &Val) -> Val {
    if charge(size(v)) {
        v.clone()
    } else {
        Val::Unknown
    }
}

/// A string within the bounds, else `Unknown`.
fn text(s: String) -> Val {
    if s.len() <= MAX_TEXT && charge(s.len() / 32) {
        Val::Str(s)
    } else {
        Val::Unknown
    }
}

/// A list within the bounds (and every element settled or not), else
/// `Unknown`.
fn list(v: Vec<Val>) -> Val {
    if v.len() <= MAX_ELEMENTS && charge(v.len()) {
        Val::List(v)
    } else {
        Val::Unknown
    }
}

/// Evaluates `n` of `file`; `scope` gives local bindings when `n` is in a
/// function being read.
pub fn eval_in<'p>(
    program: &Program<'p>,
    file: usize,
    n: Node<'p>,
    scope: Option<&Scope<'_, 'p>>,
    depth: usize,
) -> Val {
    if depth == 0 {
        LEFT.with(|l| l.set(VALUE_STEPS));
    }
    if depth > DEPTH || !charge(1) {
        return Val::Unknown;
    }
    let f = &program.files[file];
    let n = unparen(n);
    let again = |m: Node<'p>| eval_in(program, file, m, scope, depth + 1);
    match n.kind() {
        "string" => {
            let mut out = String::new();
            for c in all_children(n) {
                match c.kind() {
                    "string_content" => out.push_str(f.text_of(c)),
                    "escape_sequence" => out.push_str(&unescape(f.text_of(c))),
                    "interpolation" => {
                        let Some(e) = c.child_by_field_name("expression") else { return Val::Unknown };
                        match again(e) {
                            Val::Str(s) | Val::Num(s) if out.len() + s.len() <= MAX_TEXT => out.push_str(&s),
                            _ => return Val::Unknown,
                        }
                    }
                    _ => {}
                }
            }
            text(out)
        }
        "concatenated_string" => {
            let mut out = String::new();
            for c in children(n) {
                match again(c) {
                    Val::Str(s) if out.len() + s.len() <= MAX_TEXT => out.push_str(&s),
                    _ => return Val::Unknown,
                }
            }
            text(out)
        }
        "integer" | "float" => Val::Num(f.text_of(n).replace('_', "")),
        "unary_operator" => match children(n).last().map(|c| again(*c)) {
            Some(Val::Num(x)) if f.text_of(n).starts_with('-') => Val::Num(format!("-{x}")),
            Some(v @ Val::Num(_)) => v,
            _ => Val::Unknown,
        },
        "true" => Val::Bool(true),
        "false" => Val::Bool(false),
        "none" => Val::None,
        "list" | "tuple" | "set" => {
            let items = children(n);
            if items.len() > MAX_ELEMENTS {
                return Val::Unknown;
            }
            list(items.into_iter().map(again).collect())
        }
        "binary_operator" => {
            let (Some(l), Some(r)) = (n.child_by_field_name("left"), n.child_by_field_name("right")) else {
                return Val::Unknown;
            };
            let op = n.child_by_field_name("operator").map(|o| f.text_of(o)).unwrap_or("");
            if op != "+" {
                return Val::Unknown;
            }
            match (again(l), again(r)) {
                (Val::Str(a), Val::Str(b)) if a.len() + b.len() <= MAX_TEXT => text(a + &b),
                (Val::List(mut a), Val::List(b)) if a.len() + b.len() <= MAX_ELEMENTS => {
                    a.extend(b);
                    list(a)
                }
                _ => Val::Unknown,
            }
        }
        "identifier" => {
            let name = f.text_of(n);
            if let Some(s) = scope {
                if let Some(v) = s.locals.get(name) {
                    return copied(v);
                }
                if let Some(p) = s.pending.get(name) {
                    return eval_in(program, s.file, *p, None, depth + 1);
                }
            }
            match program.global(name, file) {
                Some((gf, g)) => eval_in(program, gf, g, None, depth + 1),
                None => Val::Unknown,
            }
        }
        "attribute" => {
            let (Some(obj), Some(attr)) = (n.child_by_field_name("object"), n.child_by_field_name("attribute")) else {
                return Val::Unknown;
            };
            let attr = f.text_of(attr);
            let owner = f.text_of(obj);
            let owner = owner.rsplit('.').next().unwrap_or(owner);
            let Some(c) = program.class(owner, file) else { return Val::Unknown };
            match program.field(c, attr) {
                Some(fd) => fd.default.map(|d| field_default(program, fd.file, d, depth + 1)).unwrap_or(Val::Unknown),
                // An enum member without an annotation: `A = "a"`.
                None => class_attr(program, c.file, c.node, attr, depth + 1),
            }
        }
        "call" => call(program, file, n, scope, depth),
        "list_comprehension" => comprehension(program, file, n, depth),
        _ => Val::Unknown,
    }
}

/// A field's default as the dataclass reads it: `field(default=x)`,
/// `Field(default=x)`, `field(default_factory=lambda: x)` or the value.
pub fn field_default<'p>(program: &Program<'p>, file: usize, n: Node<'p>, depth: usize) -> Val {
    let f = &program.files[file];
    let n = unparen(n);
    if n.kind() == "call" {
        if let Some(callee) = n.child_by_field_name("function") {
            if matches!(last_name(f, callee), "field" | "Field") {
                let args = call_args(f, n);
                if let Some(d) = args.keyword("default").or_else(|| args.positional.first().copied()) {
                    return eval_in(program, file, d, None, depth + 1);
                }
                if let Some(fac) = args.keyword("default_factory") {
                    return match unparen(fac).kind() {
                        "lambda" => fac
                            .child_by_field_name("body")
                            .map(|b| eval_in(program, file, b, None, depth + 1))
                            .unwrap_or(Val::Unknown),
                        _ if matches!(f.text_of(fac), "list" | "dict" | "set") => Val::List(Vec::new()),
                        _ => Val::Unknown,
                    };
                }
                return Val::Unknown;
            }
        }
    }
    eval_in(program, file, n, None, depth)
}

/// `NAME = value` in a class body.
fn class_attr<'p>(program: &Program<'p>, file: usize, class: Node<'p>, name: &str, depth: usize) -> Val {
    let f = &program.files[file];
    let Some(body) = class.child_by_field_name("body") else { return Val::Unknown };
    for s in children(body) {
        for a in children(s).into_iter().filter(|a| a.kind() == "assignment") {
            if a.child_by_field_name("left").is_some_and(|l| f.text_of(l) == name) {
                if let Some(r) = a.child_by_field_name("right") {
                    return in_class_body(program, file, class, r, depth + 1);
                }
            }
        }
    }
    Val::Unknown
}

/// A value written in a class body, where a bare name is first an earlier
/// attribute of the class (`ALL = (FULL, BREAKABLE)`).
fn in_class_body<'p>(program: &Program<'p>, file: usize, class: Node<'p>, r: Node<'p>, depth: usize) -> Val {
    if depth > DEPTH {
        return Val::Unknown;
    }
    let f = &program.files[file];
    let r = unparen(r);
    match r.kind() {
        "identifier" => match class_attr(program, file, class, f.text_of(r), depth + 1) {
            Val::Unknown => eval_in(program, file, r, None, depth + 1),
            v => v,
        },
        "tuple" | "list" | "set" if children(r).iter().any(|c| c.kind() == "identifier") => {
            let items = children(r);
            if items.len() > MAX_ELEMENTS {
                return Val::Unknown;
            }
            list(items.into_iter().map(|c| in_class_body(program, file, class, c, depth + 1)).collect())
        }
        _ => eval_in(program, file, r, None, depth),
    }
}

/// The values of an enum class's members, in order.
pub fn enum_values<'p>(program: &Program<'p>, file: usize, class: Node<'p>, depth: usize) -> Option<Vec<Val>> {
    let f = &program.files[file];
    let body = class.child_by_field_name("body")?;
    let mut out = Vec::new();
    for s in children(body) {
        for a in children(s).into_iter().filter(|a| a.kind() == "assignment") {
            let (Some(l), Some(r)) = (a.child_by_field_name("left"), a.child_by_field_name("right")) else { continue };
            if l.kind() == "identifier" && !f.text_of(l).starts_with('_') {
                match eval_in(program, file, r, None, depth + 1) {
                    Val::Unknown => return None,
                    _ if out.len() >= MAX_ELEMENTS => return None,
                    v => out.push(v),
                }
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// `[x.value for x in Enum]` (or `x.name`, or `x`): the enum's members.
fn comprehension<'p>(program: &Program<'p>, file: usize, n: Node<'p>, depth: usize) -> Val {
    let f = &program.files[file];
    let parts = children(n);
    let (Some(body), Some(clause)) = (parts.first(), parts.get(1)) else { return Val::Unknown };
    if clause.kind() != "for_in_clause" || parts.len() > 2 {
        return Val::Unknown;
    }
    let (Some(var), Some(iter)) = (clause.child_by_field_name("left"), clause.child_by_field_name("right")) else {
        return Val::Unknown;
    };
    let Some(c) = program.class(last_name(f, iter), file) else { return Val::Unknown };
    let var = f.text_of(var);
    let body = f.text_of(*body);
    if body != format!("{var}.value") && body != var {
        return Val::Unknown;
    }
    enum_values(program, c.file, c.node, depth).map(Val::List).unwrap_or(Val::Unknown)
}

/// The few calls whose result is settled: string methods, `sorted`,
/// `list`, `str`, and `field(...)` defaults.
fn call<'p>(program: &Program<'p>, file: usize, n: Node<'p>, scope: Option<&Scope<'_, 'p>>, depth: usize) -> Val {
    let f = &program.files[file];
    let Some(callee) = n.child_by_field_name("function") else { return Val::Unknown };
    let args = call_args(f, n);
    let again = |m: Node<'p>| eval_in(program, file, m, scope, depth + 1);
    if callee.kind() == "attribute" {
        let (Some(obj), Some(m)) = (callee.child_by_field_name("object"), callee.child_by_field_name("attribute"))
        else {
            return Val::Unknown;
        };
        let Val::Str(s) = again(obj) else { return Val::Unknown };
        let strs: Vec<Option<String>> = args.positional.iter().map(|a| again(*a).as_str().map(String::from)).collect();
        return match (f.text_of(m), strs.as_slice()) {
            ("replace", [Some(a), Some(b)]) if b.len() <= a.len().max(1) || s.len() <= MAX_TEXT / b.len() => {
                text(s.replace(a.as_str(), b))
            }
            ("lower", []) => Val::Str(s.to_lowercase()),
            ("upper", []) => Val::Str(s.to_uppercase()),
            ("strip", []) => Val::Str(s.trim().to_string()),
            _ => Val::Unknown,
        };
    }
    match (f.text_of(callee), args.positional.as_slice()) {
        ("sorted", [x]) => match again(*x) {
            Val::List(mut v) => {
                v.sort_by_key(|a| a.display());
                Val::List(v)
            }
            _ => Val::Unknown,
        },
        ("list" | "tuple", [x]) => again(*x),
        ("str", [x]) => match again(*x) {
            Val::Unknown => Val::Unknown,
            v => Val::Str(v.display()),
        },
        ("field" | "Field", _) => field_default(program, file, n, depth),
        _ => Val::Unknown,
    }
}
