//! `kw = get_kwargs(Cls)`: the argparse kwargs each field of a dataclass
//! gives (its annotation, default and docstring, the builder's special
//! cases), with the overrides the class's own methods write into the dict
//! (`kw["f"]["type"] = ...`, `del kw["f"]["nargs"]`).

use rustc_hash::FxHashMap;
use tree_sitter::Node;

use crate::catalog::model::Kind;

use super::annotation::{derive, Reader};
use super::kwargs::Kw;
use super::module::ClassDef;
use super::parser_walk::{param_name, Bind, Frame, Walker};
use super::tree::{call_args, children, last_name, statements};
use super::value::{field_default, Scope, Val};

impl<'a, 'p> Walker<'a, 'p> {
    /// `get_kwargs(Cls)`: the kwargs of each field of `Cls`, with the
    /// overrides its methods write.
    pub(super) fn kwargs_call(&mut self, fr: &Frame<'a, 'p>, call: Node<'p>) -> Option<Vec<(String, Kw)>> {
        let f = &self.program.files[fr.scope.file];
        let callee = call.child_by_field_name("function")?;
        if !self.names.kwargs_functions.iter().any(|k| k == last_name(f, callee)) {
            return None;
        }
        let arg = *call_args(f, call).positional.first()?;
        let cname = f.text_of(arg);
        let class = if cname == "cls" { fr.cls } else { self.program.class(last_name(f, arg), fr.scope.file) };
        let Some(class) = class else {
            self.warnings.push(format!("{}: the fields of `{cname}` were not found", f.location(call)));
            return Some(Vec::new());
        };
        Some(self.class_kwargs(class))
    }

    fn class_kwargs(&mut self, class: ClassDef<'p>) -> Vec<(String, Kw)> {
        let reader = Reader {
            program: self.program,
            config_decorators: self.names.config_decorators,
            wrappers: self.names.wrappers,
        };
        let mut out = Vec::new();
        for fd in self.program.fields(class) {
            let hints = reader.hints(fd.file, fd.annotation);
            let mut d = derive(&hints);
            if d.kind == Kind::Int {
                d.kind = self.names.special.get(&fd.name).copied().unwrap_or(Kind::Int);
            }
            let default = fd.default.map(|n| field_default(self.program, fd.file, n, 0)).unwrap_or(Val::Unknown);
            let loc = self.program.files[fd.file].location(fd.node);
            out.push((fd.name.clone(), Kw::derived(&d, default, fd.doc.clone(), loc)));
        }
        // Overrides the class's own methods write into the dict.
        let mut fr =
            Frame { scope: Scope::new(self.program, class.file), binds: FxHashMap::default(), cls: Some(class) };
        for (file, m) in self.program.methods(class) {
            let Some(params) = m.child_by_field_name("parameters") else { continue };
            let f = &self.program.files[file];
            fr.scope = Scope::new(self.program, file);
            fr.binds.clear();
            for p in children(params) {
                if let Some(n) = param_name(p) {
                    fr.binds.insert(f.text_of(n).to_string(), Bind::Kwargs(out.clone()));
                }
            }
            let Some(body) = m.child_by_field_name("body") else { continue };
            let before: Vec<(String, Bind)> = fr.binds.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            self.overrides(&mut fr, body);
            for (k, _) in before {
                if let Some(Bind::Kwargs(changed)) = fr.binds.get(&k) {
                    if *changed != out {
                        out = changed.clone();
                        break;
                    }
                }
            }
        }
        out
    }

    /// Only the `kw["f"]["k"] = v` and `del` statements of a method.
    fn overrides(&mut self, fr: &mut Frame<'a, 'p>, block: Node<'p>) {
        for s in statements(block) {
            match s.kind() {
                "expression_statement" => {
                    for c in children(s).into_iter().filter(|c| c.kind() == "assignment") {
                        if let Some(l) = c.child_by_field_name("left") {
                            if self.kw_key(fr, l).is_some() {
                                self.assign(fr, c);
                            }
                        }
                    }
                }
                "delete_statement" => self.statement(fr, s),
                "if_statement" | "for_statement" | "with_statement" => {
                    for c in children(s) {
                        if c.kind() == "block" {
                            self.overrides(fr, c);
                        }
                    }
                }
                _ => {}
            }
        }
    }
}
