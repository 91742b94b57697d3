//! The Python files read, as one program: every module-level class,
//! function and assignment by name, so that a name used in one module (an
//! imported config class, a `Literal` alias) is traced to where another
//! defines it. A name is looked up in its own module first, then in every
//! other module read, in path order.

use rustc_hash::FxHashMap;
use tree_sitter::Node;

use super::tree::{children, decorators, definition, literal_string, statements, PyFile};

/// A class definition: its bases by name, its decorators, its body.
#[derive(Clone, Copy)]
pub struct ClassDef<'p> {
    pub file: usize,
    pub node: Node<'p>,
}

/// A dataclass field (or a class attribute with an annotation).
#[derive(Clone)]
pub struct Field<'p> {
    pub name: String,
    pub file: usize,
    pub annotation: Node<'p>,
    pub default: Option<Node<'p>>,
    /// The attribute docstring: the string statement right after it.
    pub doc: String,
    pub node: Node<'p>,
}

/// Every file, and its top-level names.
pub struct Program<'p> {
    pub files: &'p [PyFile],
    classes: FxHashMap<&'p str, Vec<ClassDef<'p>>>,
    functions: FxHashMap<&'p str, Vec<(usize, Node<'p>)>>,
    /// Module-level `NAME = value` (and `NAME: T = value`, `type NAME = value`).
    globals: FxHashMap<&'p str, Vec<(usize, Node<'p>)>>,
}

/// First the definition in `file`, else the first in any file.
fn pick<T: Copy>(list: Option<&Vec<T>>, file: usize, file_of: impl Fn(&T) -> usize) -> Option<T> {
    let list = list?;
    list.iter().find(|d| file_of(d) == file).or_else(|| list.first()).copied()
}

impl<'p> Program<'p> {
    pub fn new(files: &'p [PyFile]) -> Program<'p> {
        let mut p = Program {
            files,
            classes: FxHashMap::default(),
            functions: FxHashMap::default(),
            globals: FxHashMap::default(),
        };
        for (i, f) in files.iter().enumerate() {
            p.index_block(i, f, f.root(), 0);
        }
        p
    }

    /// Top-level definitions, also those under a module-level `if`/`try`
    /// (`if TYPE_CHECKING:` imports, version switches).
    fn index_block(&mut self, i: usize, f: &'p PyFile, block: Node<'p>, depth: usize) {
        if depth > 16 {
            return;
        }
        for s in statements(block) {
            let d = definition(s);
            match d.kind() {
                "class_definition" => {
                    if let Some(n) = d.child_by_field_name("name") {
                        self.classes.entry(f.text_of(n)).or_default().push(ClassDef { file: i, node: d });
                    }
                }
                "function_definition" => {
                    if let Some(n) = d.child_by_field_name("name") {
                        self.functions.entry(f.text_of(n)).or_default().push((i, d));
                    }
                }
                "expression_statement" => {
                    for a in children(d) {
                        if a.kind() == "assignment" {
                            if let (Some(l), Some(r)) = (a.child_by_field_name("left"), a.child_by_field_name("right"))
                            {
                                if l.kind() == "identifier" {
                                    self.globals.entry(f.text_of(l)).or_default().push((i, r));
                                }
                            }
                        }
                    }
                }
                "type_alias_statement" => {
                    if let (Some(l), Some(r)) = (d.child_by_field_name("left"), d.child_by_field_name("right")) {
                        let name = f.text_of(l).split('[').next().unwrap_or("").trim();
                        self.globals.entry(name).or_default().push((i, r));
                    }
                }
                "if_statement" | "try_statement" => {
                    for c in children(d) {
                        match c.kind() {
                            "block" => self.index_block(i, f, c, depth + 1),
                            "else_clause" | "elif_clause" | "except_clause" | "finally_clause" => {
                                for b in children(c).into_iter().filter(|b| b.kind() == "block") {
                                    self.index_block(i, f, b, depth + 1);
                                }
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
    }

    pub fn class(&self, name: &str, file: usize) -> Option<ClassDef<'p>> {
        pick(self.classes.get(name), file, |c| c.file)
    }

    pub fn function(&self, name: &str, file: usize) -> Option<(usize, Node<'p>)> {
        pick(self.functions.get(name), file, |(f, _)| *f)
    }

    /// A function defined at the top of one file.
    pub fn function_in(&self, name: &str, file: usize) -> Option<Node<'p>> {
        self.functions.get(name)?.iter().find(|(f, _)| *f == file).map(|(_, n)| *n)
    }

    /// What an entry of the profile names in one file: a function at its
    /// top, `Class.method` (with the class), or `__main__`, the block of
    /// its `if __name__ == "__main__":`.
    pub fn entry_in(&self, name: &str, file: usize) -> Option<(Node<'p>, Option<ClassDef<'p>>)> {
        if name == "__main__" {
            let f = &self.files[file];
            return statements(f.root())
                .into_iter()
                .filter(|s| s.kind() == "if_statement")
                .find_map(|s| {
                    let cond: String = s
                        .child_by_field_name("condition")
                        .map(|c| f.text_of(c).replace('\'', "\""))
                        .unwrap_or_default();
                    let cond: String = cond.split_whitespace().collect();
                    (cond == "__name__==\"__main__\"" || cond == "\"__main__\"==__name__")
                        .then(|| s.child_by_field_name("consequence"))
                        .flatten()
                })
                .map(|b| (b, None));
        }
        if let Some((class, method)) = name.split_once('.') {
            let c = self.classes.get(class)?.iter().find(|c| c.file == file).copied()?;
            return self.method(c, method).map(|(_, m)| (m, Some(c)));
        }
        self.function_in(name, file).map(|f| (f, None))
    }

    pub fn global(&self, name: &str, file: usize) -> Option<(usize, Node<'p>)> {
        pick(self.globals.get(name), file, |(f, _)| *f)
    }

    pub fn file_index(&self, path: &str) -> Option<usize> {
        self.files.iter().position(|f| f.path == path)
    }

    /// The classes a class names as its bases (those the program defines).
    pub fn bases(&self, c: ClassDef<'p>) -> Vec<ClassDef<'p>> {
        let f = &self.files[c.file];
        let Some(list) = c.node.child_by_field_name("superclasses") else { return Vec::new() };
        children(list)
            .into_iter()
            .filter(|b| b.kind() != "keyword_argument")
            .filter_map(|b| {
                let t = f.text_of(b);
                let head = t.split('[').next().unwrap_or(t);
                self.class(head.rsplit('.').next().unwrap_or(head).trim(), c.file)
            })
            .collect()
    }

    /// The class and its bases, the class first, each once.
    pub fn lineage(&self, c: ClassDef<'p>) -> Vec<ClassDef<'p>> {
        let mut out = vec![c];
        let mut i = 0;
        while i < out.len() && out.len() < 64 {
            for b in self.bases(out[i]) {
                if !out.iter().any(|o| o.node.id() == b.node.id()) {
                    out.push(b);
                }
            }
            i += 1;
        }
        out
    }

    pub fn decorators(&self, c: ClassDef<'p>) -> Vec<String> {
        decorators(&self.files[c.file], c.node)
    }

    /// A method of the class or the nearest base that defines it, with the
    /// class it was found in.
    pub fn method(&self, c: ClassDef<'p>, name: &str) -> Option<(ClassDef<'p>, Node<'p>)> {
        for k in self.lineage(c) {
            let f = &self.files[k.file];
            let body = k.node.child_by_field_name("body")?;
            for s in statements(body) {
                let d = definition(s);
                if d.kind() == "function_definition"
                    && d.child_by_field_name("name").is_some_and(|n| f.text_of(n) == name)
                {
                    return Some((k, d));
                }
            }
        }
        None
    }

    /// Every method of the class and its bases, bases first.
    pub fn methods(&self, c: ClassDef<'p>) -> Vec<(usize, Node<'p>)> {
        let mut out = Vec::new();
        for k in self.lineage(c).into_iter().rev() {
            let Some(body) = k.node.child_by_field_name("body") else { continue };
            for s in statements(body) {
                let d = definition(s);
                if d.kind() == "function_definition" {
                    out.push((k.file, d));
                }
            }
        }
        out
    }

    /// The class's own annotated attributes, in order, with docstrings.
    pub fn own_fields(&self, c: ClassDef<'p>) -> Vec<Field<'p>> {
        let f = &self.files[c.file];
        let Some(body) = c.node.child_by_field_name("body") else { return Vec::new() };
        let stmts = statements(body);
        let mut out: Vec<Field<'p>> = Vec::new();
        for (i, s) in stmts.iter().enumerate() {
            if s.kind() != "expression_statement" {
                continue;
            }
            let Some(a) = children(*s).into_iter().find(|a| a.kind() == "assignment") else { continue };
            let (Some(l), Some(t)) = (a.child_by_field_name("left"), a.child_by_field_name("type")) else { continue };
            if l.kind() != "identifier" {
                continue;
            }
            let ann = f.text_of(t);
            if ann.starts_with("ClassVar") || ann.contains(".ClassVar") || ann.starts_with("InitVar") {
                continue;
            }
            let doc = stmts
                .get(i + 1)
                .filter(|n| n.kind() == "expression_statement")
                .and_then(|n| {
                    let c = children(*n);
                    (c.len() == 1).then(|| c[0])
                })
                .and_then(|n| literal_string(f, n))
                .map(|d| clean_doc(&d))
                .unwrap_or_default();
            out.push(Field {
                name: f.text_of(l).to_string(),
                file: c.file,
                annotation: t,
                default: a.child_by_field_name("right"),
                doc,
                node: a,
            });
        }
        out
    }

    /// The dataclass fields of a class: its bases' first (a base's field
    /// redefined keeps its place and takes the new definition).
    pub fn fields(&self, c: ClassDef<'p>) -> Vec<Field<'p>> {
        let mut out: Vec<Field<'p>> = Vec::new();
        for k in self.lineage(c).into_iter().rev() {
            for fd in self.own_fields(k) {
                match out.iter_mut().find(|o| o.name == fd.name) {
                    Some(o) => *o = fd,
                    None => out.push(fd),
                }
            }
        }
        out
    }

    /// A field of the class (or a base) by name.
    pub fn field(&self, c: ClassDef<'p>, name: &str) -> Option<Field<'p>> {
        self.fields(c).into_iter().find(|f| f.name == name)
    }
}

/// A docstring as help: common indentation removed, lines joined as
/// paragraphs are, ends trimmed.
pub fn clean_doc(doc: &str) -> String {
    let lines: Vec<&str> = doc.lines().collect();
    let indent = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out: Vec<String> = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let l = if i == 0 { l.trim() } else { l.get(indent..).unwrap_or(l.trim()) };
        out.push(l.trim_end().to_string());
    }
    out.join("\n").trim().to_string()
}
