//! Options generated from a dataclass's fields, read without running the
//! generator: `add_cli_args_from_dataclass(parser, ServerArgs)` (SGLang)
//! declares one option per field annotated `Annotated[T, Arg(...)]` (or
//! `Annotated[T, "help"]`). The profile names the generator, its metadata
//! class and what the metadata's keywords mean (`[[extract.python.generators]]`);
//! the field's type gives the option's kind as the generator's own tests
//! do: an `action` first, then `Literal[...]` (its members), a list (a
//! varying count of its element's kind), `bool` (the profile's action),
//! `int`/`float`, anything else a string.

use tree_sitter::Node;

use crate::catalog::model::Kind;
use crate::catalog::profile::GeneratorSpec;

use super::annotation::{Hint, Reader};
use super::kwargs::{Choices, Kw, KwValue};
use super::module::Field;
use super::parser_walk::{type_kind, Bind, Frame, Walker};
use super::tree::{call_args, children, last_name, literal_string, unparen};
use super::value::{field_default, Scope, Val};

/// What a field's metadata says, its keywords read as the profile maps them.
struct Meta<'p> {
    /// (meaning, value node) for each keyword.
    keywords: Vec<(String, Node<'p>)>,
    /// A bare string's help (`Annotated[int, "help"]`).
    help: Option<String>,
}

impl<'a, 'p> Walker<'a, 'p> {
    /// A call of one of the profile's generators: the options of the class
    /// it is given. False when `c` calls none.
    pub(super) fn generator_call(&mut self, fr: &Frame<'a, 'p>, c: Node<'p>) -> bool {
        let f = &self.program.files[fr.scope.file];
        let Some(callee) = c.child_by_field_name("function") else { return false };
        let name = last_name(f, callee);
        let Some(spec) = self.names.generators.iter().find(|g| g.function == name) else { return false };
        let args = call_args(f, c);
        let class = args.positional.iter().find_map(|a| {
            let t = f.text_of(*a);
            match (t, fr.binds.get(t)) {
                (_, Some(Bind::Parser)) => None,
                ("cls" | "self", _) => fr.cls,
                _ => self.program.class(last_name(f, *a), fr.scope.file),
            }
        });
        let Some(class) = class else {
            self.warnings.push(format!(
                "{}: the class whose fields {} turns into options was not found",
                f.location(c),
                spec.function
            ));
            return true;
        };
        let only = spec.fields.as_ref().and_then(|k| args.keyword(k)).map(|n| fr.scope.eval(n).members());
        if let Some(None) = only {
            self.warnings.push(format!(
                "{}: the fields {} is limited to are known only at run time; every field is read",
                f.location(c),
                spec.function
            ));
        }
        let only = only.flatten();
        for fd in self.program.fields(class) {
            if only.as_ref().is_some_and(|o| !o.contains(&fd.name)) {
                continue;
            }
            self.generated(spec, &fd);
        }
        true
    }

    /// The option one field gives, if its annotation carries the metadata.
    fn generated(&mut self, spec: &GeneratorSpec, fd: &Field<'p>) {
        let Some((inner, meta)) = self.annotated(spec, fd.file, fd.annotation) else { return };
        let f = &self.program.files[fd.file];
        let scope = Scope::new(self.program, fd.file);
        let value = |m: &str| meta.keywords.iter().find(|(k, _)| k == m).map(|(_, v)| *v);
        if value("skip").is_some_and(|v| scope.eval(v) == Val::Bool(true)) {
            return;
        }
        let default = fd.default.map(|n| field_default(self.program, fd.file, n, 0)).unwrap_or(Val::Unknown);
        let help = match value("help") {
            Some(h) => scope.eval(h).display(),
            None => meta.help.clone().unwrap_or_default(),
        };
        let mut kw = Kw { default: Some(default), help: Some(help), ..Kw::default() };
        let name = match value("name").map(|n| scope.eval(n)) {
            Some(Val::Str(s)) => s,
            _ => format!("--{}", fd.name.replace('_', "-")),
        };
        if let Some(a) = value("flags") {
            match scope.eval(a) {
                Val::List(v) => kw.flags = v.iter().filter_map(|x| x.as_str().map(str::to_string)).collect(),
                Val::None => {}
                _ => self.warnings.push(format!("{}: the names of {name} are known only at run time", f.location(a))),
            }
        }
        let location = f.location(fd.node);
        let choices = value("choices").map(|c| match scope.eval(c).members() {
            Some(members) => {
                Choices::Known { members, closed: true, origin: "declared-choices", location: f.location(c) }
            }
            None => Choices::RunTime,
        });
        let nargs = value("nargs").map(|n| scope.eval(n).display()).filter(|n| !n.is_empty());
        let parser = value("type").map(|t| type_kind(f.text_of(t)));
        if let Some(a) = value("action") {
            kw.action = Some(match scope.eval(a) {
                Val::Str(s) => s,
                _ => last_name(f, a).to_string(),
            });
            if let Some(d) = value("kwargs").map(unparen).filter(|d| d.kind() == "dictionary") {
                for pair in children(d).into_iter().filter(|p| p.kind() == "pair") {
                    let (Some(k), Some(v)) = (pair.child_by_field_name("key"), pair.child_by_field_name("value"))
                    else {
                        continue;
                    };
                    if let Some(k) = literal_string(f, k) {
                        let v = match k.as_str() {
                            "type" => KwValue::Kind(type_kind(f.text_of(v))),
                            _ => KwValue::Val(scope.eval(v)),
                        };
                        kw.set(&k, v);
                    }
                }
            }
            self.settle_action(&mut kw, fd.file);
        } else {
            let reader = Reader {
                program: self.program,
                config_decorators: self.names.config_decorators,
                wrappers: self.names.wrappers,
            };
            let hints: Vec<Hint> = reader.hints(fd.file, inner).into_iter().filter(|h| *h != Hint::NoneType).collect();
            match hints.as_slice() {
                [Hint::Literal(vals)] => {
                    let members: Vec<String> = vals.iter().map(Val::display).collect();
                    kw.kind = Some(parser.unwrap_or(Kind::String));
                    kw.choices = choices.or(Some(if vals.contains(&Val::Unknown) {
                        Choices::RunTime
                    } else {
                        Choices::Known { members, closed: true, origin: "annotation", location: location.clone() }
                    }));
                }
                [Hint::Collection(elem)] if parser.is_none() => {
                    kw.kind = Some(scalar_kind(elem));
                    kw.nargs = Some(nargs.clone().unwrap_or_else(|| spec.list_nargs.clone()));
                    kw.choices = choices;
                }
                [Hint::Bool] => kw.action = Some(spec.bool_action.clone()),
                other => {
                    kw.kind = Some(parser.unwrap_or_else(|| scalar_kind(other)));
                    kw.choices = choices;
                    kw.nargs = nargs;
                }
            }
        }
        if let Some(Choices::RunTime) = kw.choices {
            self.warnings.push(format!("{location}: the choices of {name} are computed at run time (open)"));
        }
        if let Some(flag) = kw.flag(&[name], location, self.names.bool_actions) {
            self.flags.push(flag);
        }
    }

    /// `Annotated[T, Meta(...)]` (through an alias such as `A = Annotated`):
    /// `T` and the metadata, or None when the field carries none.
    fn annotated(&self, spec: &GeneratorSpec, file: usize, n: Node<'p>) -> Option<(Node<'p>, Meta<'p>)> {
        let f = &self.program.files[file];
        let mut n = n;
        while n.kind() == "type" && n.named_child_count() == 1 {
            n = n.named_child(0)?;
        }
        if !matches!(n.kind(), "generic_type" | "subscript") {
            return None;
        }
        let (head, args) = Reader::generic(f, n);
        if !self.is_annotated(head, file) {
            return None;
        }
        let (inner, rest) = args.split_first()?;
        for a in rest {
            let mut a = *a;
            while a.kind() == "type" && a.named_child_count() == 1 {
                a = a.named_child(0)?;
            }
            let a = unparen(a);
            if matches!(a.kind(), "string" | "concatenated_string") {
                let help = literal_string(f, a).unwrap_or_else(|| Scope::new(self.program, file).eval(a).display());
                return Some((*inner, Meta { keywords: Vec::new(), help: Some(help) }));
            }
            let is_meta = a.kind() == "call"
                && a.child_by_field_name("function").is_some_and(|c| last_name(f, c) == spec.metadata);
            if is_meta {
                let args = call_args(f, a);
                let keywords = args
                    .keywords
                    .iter()
                    .map(|(k, v)| (spec.keywords.get(k).cloned().unwrap_or_else(|| k.clone()), *v))
                    .collect();
                return Some((*inner, Meta { keywords, help: None }));
            }
        }
        None
    }

    /// `Annotated`, `typing.Annotated`, or a module's alias of it (`A = Annotated`).
    fn is_annotated(&self, head: &str, file: usize) -> bool {
        if head == "Annotated" {
            return true;
        }
        self.program.global(head, file).is_some_and(|(gf, g)| {
            let t = self.program.files[gf].text_of(g);
            t == "Annotated" || t.ends_with(".Annotated")
        })
    }
}

/// The kind a generator infers from a scalar type: `int` and `float`
/// alone are theirs, anything else (a union of several) a string.
fn scalar_kind(hints: &[Hint]) -> Kind {
    match hints {
        [Hint::Int] => Kind::Int,
        [Hint::Float] => Kind::Float,
        _ => Kind::String,
    }
}
