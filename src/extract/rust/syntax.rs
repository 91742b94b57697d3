//! The tree-sitter-rust seam of the Rust reader: a file parsed once and
//! turned into owned items (structs with their fields, enums with their
//! variants), each with its attributes' arguments and doc comments. The
//! rest of this folder never sees a node.

use tree_sitter::{Node, Parser};

use crate::extract::ExtractError;

/// One argument of an attribute: `long`, `env = "X"`, `short = 'p'`,
/// `default_value("x")`, `value_parser = ["a", "b"]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Arg {
    pub key: String,
    pub value: Option<Value>,
}

/// The tokens after `=` (or inside the call's parentheses), read once.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Value {
    /// The tokens' text, joined without spaces (`ArgAction::SetTrue`, `1..`).
    pub text: String,
    /// Every string literal among the tokens, unquoted, in order.
    pub strings: Vec<String>,
    /// The char literal, when the value is one (`short = 'p'`).
    pub char: Option<char>,
    /// The value is one string literal alone.
    pub single: bool,
    /// The arguments inside, when the value is a call's parentheses
    /// (`derive(Clone, ValueEnum)` within `cfg_attr`).
    pub nested: Vec<Arg>,
}

impl Value {
    /// The value when it is one string literal alone.
    pub fn string(&self) -> Option<&str> {
        self.strings.first().filter(|_| self.single).map(String::as_str)
    }
}

/// An attribute: its path (`clap`, `arg`, `derive`, `doc`) and arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Attr {
    pub path: String,
    pub args: Vec<Arg>,
}

/// What is declared before an item: its attributes and doc lines.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Leading {
    pub attrs: Vec<Attr>,
    pub docs: Vec<String>,
}

impl Leading {
    /// The arguments of every attribute whose path is one of `paths`.
    pub fn args<'a>(&'a self, paths: &'a [&str]) -> impl Iterator<Item = &'a Arg> + 'a {
        self.attrs.iter().filter(|a| paths.contains(&a.path.as_str())).flat_map(|a| a.args.iter())
    }

    /// The names a `#[derive(...)]` lists, by their last segment.
    pub fn derives(&self) -> Vec<String> {
        self.attrs
            .iter()
            .filter(|a| a.path == "derive")
            .flat_map(|a| a.args.iter().map(|x| x.key.rsplit("::").next().unwrap_or("").to_string()))
            .collect()
    }

    fn take(&mut self) -> Leading {
        std::mem::take(self)
    }
}

/// A field of a struct, or a variant of an enum.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub name: String,
    /// The field's type as written (`Option<Vec<usize>>`); empty for a variant.
    pub ty: String,
    pub leading: Leading,
    pub line: usize,
}

/// A struct (`fields`) or an enum (`variants` in `fields`).
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub name: String,
    pub is_enum: bool,
    pub leading: Leading,
    pub fields: Vec<Member>,
    pub path: String,
    pub line: usize,
}

/// Parses `text` into its structs and enums (at the top of the file and in
/// inline modules).
pub fn items(path: &str, text: &str) -> Result<Vec<Item>, ExtractError> {
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_rust::LANGUAGE.into()).map_err(|e| ExtractError::Grammar(e.to_string()))?;
    let tree = parser.parse(text, None).ok_or_else(|| ExtractError::Parse { path: path.to_string() })?;
    let mut out = Vec::new();
    let src = Src { path, text };
    src.block(tree.root_node(), &mut out);
    Ok(out)
}

/// The literal keys `readers` (`env::var`, matched as the call's path or
/// its last segments: `std::env::var`) are called with in `text`, with
/// their lines, in order. A key built at run time is not a literal and is
/// not read; a call in a comment is no call.
pub fn env_reads(path: &str, text: &str, readers: &[String]) -> Result<Vec<(String, usize)>, ExtractError> {
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_rust::LANGUAGE.into()).map_err(|e| ExtractError::Grammar(e.to_string()))?;
    let tree = parser.parse(text, None).ok_or_else(|| ExtractError::Parse { path: path.to_string() })?;
    let src = Src { path, text };
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.kind() == "call_expression" {
            if let Some(key) = src.env_read(n, readers) {
                out.push((key, n.start_position().row + 1));
            }
        }
        let mut cursor = n.walk();
        let children: Vec<Node<'_>> = n.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    Ok(out)
}

struct Src<'a> {
    path: &'a str,
    text: &'a str,
}

impl Src<'_> {
    fn text_of(&self, n: Node<'_>) -> &str {
        self.text.get(n.byte_range()).unwrap_or("")
    }

    fn env_read(&self, call: Node<'_>, readers: &[String]) -> Option<String> {
        let function: String = self.text_of(call.child_by_field_name("function")?).split_whitespace().collect();
        let named = readers.iter().any(|r| function == *r || function.ends_with(&format!("::{r}")));
        if !named {
            return None;
        }
        let args = call.child_by_field_name("arguments")?;
        let first = args.named_child(0)?;
        (first.kind() == "string_literal").then(|| unquote(self.text_of(first)))
    }

    /// The items of a file or a module's body.
    fn block(&self, node: Node<'_>, out: &mut Vec<Item>) {
        let mut leading = Leading::default();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match child.kind() {
                "attribute_item" | "line_comment" | "block_comment" => self.lead(child, &mut leading),
                "struct_item" | "enum_item" => {
                    let leading = leading.take();
                    if let Some(item) = self.item(child, leading) {
                        out.push(item);
                    }
                }
                "mod_item" => {
                    leading = Leading::default();
                    if let Some(body) = child.child_by_field_name("body") {
                        self.block(body, out);
                    }
                }
                _ => leading = Leading::default(),
            }
        }
    }

    /// Adds an attribute or a doc line to what leads the next item; a
    /// plain comment is passed over.
    fn lead(&self, n: Node<'_>, leading: &mut Leading) {
        match n.kind() {
            "attribute_item" => {
                let mut cursor = n.walk();
                let attr = n.named_children(&mut cursor).find(|c| c.kind() == "attribute");
                if let Some(a) = attr.and_then(|a| self.attr(a)) {
                    leading.attrs.extend(cfg_attr(a));
                }
            }
            "line_comment" => {
                let t = self.text_of(n);
                if let Some(doc) = t.strip_prefix("///").filter(|d| !d.starts_with('/')) {
                    leading.docs.push(doc.trim_end_matches(['\n', '\r']).to_string());
                }
            }
            _ => {}
        }
    }

    fn attr(&self, a: Node<'_>) -> Option<Attr> {
        let path_node = a.named_child(0)?;
        let path = self.text_of(path_node).to_string();
        let mut args = Vec::new();
        if let Some(tt) = a.child_by_field_name("arguments") {
            for seg in segments(tt) {
                if let Some(arg) = self.arg(&seg) {
                    args.push(arg);
                }
            }
        } else if let Some(v) = a.child_by_field_name("value") {
            // `#[doc = "text"]`
            args.push(Arg { key: String::new(), value: Some(self.value(&[v])) });
        }
        Some(Attr { path, args })
    }

    /// One comma-separated part of an attribute's arguments.
    fn arg(&self, seg: &[Node<'_>]) -> Option<Arg> {
        let first = seg.first()?;
        // The key: an identifier or a path (`clap::ValueEnum`).
        let mut i = 0;
        let mut key = String::new();
        while let Some(n) = seg.get(i) {
            if matches!(n.kind(), "identifier" | "::" | "crate" | "self" | "super") || n.kind().ends_with("_identifier")
            {
                key.push_str(self.text_of(*n));
                i += 1;
            } else {
                break;
            }
        }
        if key.is_empty() {
            key = self.text_of(*first).to_string();
            i = 1;
        }
        let value = match seg.get(i) {
            Some(n) if n.kind() == "=" => Some(self.value(&seg[i + 1..])),
            Some(n) if n.kind() == "token_tree" => {
                let mut v = self.value(&inner(*n));
                v.nested = segments(*n).iter().filter_map(|seg| self.arg(seg)).collect();
                Some(v)
            }
            _ => None,
        };
        Some(Arg { key, value })
    }

    fn value(&self, nodes: &[Node<'_>]) -> Value {
        let mut v = Value::default();
        for n in nodes {
            v.text.push_str(self.text_of(*n));
            self.literals(*n, &mut v);
        }
        v.single = matches!(nodes, [n] if matches!(n.kind(), "string_literal" | "raw_string_literal"));
        v
    }

    fn literals(&self, n: Node<'_>, v: &mut Value) {
        match n.kind() {
            "string_literal" | "raw_string_literal" => v.strings.push(unquote(self.text_of(n))),
            "char_literal" => v.char = unquote_char(self.text_of(n)),
            _ => {
                let mut cursor = n.walk();
                for c in n.children(&mut cursor) {
                    self.literals(c, v);
                }
            }
        }
    }

    fn item(&self, n: Node<'_>, leading: Leading) -> Option<Item> {
        let name = self.text_of(n.child_by_field_name("name")?).to_string();
        let is_enum = n.kind() == "enum_item";
        let mut fields = Vec::new();
        if let Some(body) = n.child_by_field_name("body") {
            let mut lead = Leading::default();
            let mut cursor = body.walk();
            for c in body.named_children(&mut cursor) {
                match c.kind() {
                    "attribute_item" | "line_comment" | "block_comment" => self.lead(c, &mut lead),
                    "field_declaration" | "enum_variant" => {
                        let Some(fname) = c.child_by_field_name("name") else { continue };
                        let ty = c.child_by_field_name("type").map(|t| self.text_of(t)).unwrap_or("");
                        fields.push(Member {
                            name: self.text_of(fname).to_string(),
                            ty: ty.split_whitespace().collect(),
                            leading: lead.take(),
                            line: c.start_position().row + 1,
                        });
                    }
                    _ => lead = Leading::default(),
                }
            }
        }
        Some(Item { name, is_enum, leading, fields, path: self.path.to_string(), line: n.start_position().row + 1 })
    }
}

/// An attribute, or for `#[cfg_attr(feature = "clap", derive(ValueEnum),
/// value(name = "x"))]` the attributes it applies under its condition (the
/// condition taken as met: a build that serves the options has the feature).
fn cfg_attr(a: Attr) -> Vec<Attr> {
    if a.path != "cfg_attr" {
        return vec![a];
    }
    a.args.into_iter().skip(1).filter_map(|arg| Some(Attr { path: arg.key, args: arg.value?.nested })).collect()
}

/// The tokens of a token tree without its brackets.
fn inner(tt: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = tt.walk();
    let all: Vec<Node<'_>> = tt.children(&mut cursor).filter(|c| !c.is_extra()).collect();
    match all.len() {
        0..=2 => Vec::new(),
        n => all[1..n - 1].to_vec(),
    }
}

/// The tokens of a token tree split at its top-level commas.
fn segments(tt: Node<'_>) -> Vec<Vec<Node<'_>>> {
    let mut out = vec![Vec::new()];
    for n in inner(tt) {
        if n.kind() == "," {
            out.push(Vec::new());
        } else if let Some(last) = out.last_mut() {
            last.push(n);
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

/// A string literal's text: quotes and a raw string's hashes dropped, the
/// common escapes resolved.
fn unquote(lit: &str) -> String {
    if let Some(raw) = lit.strip_prefix('r') {
        let body = raw.trim_start_matches('#').trim_end_matches('#');
        return body.strip_prefix('"').and_then(|b| b.strip_suffix('"')).unwrap_or(body).to_string();
    }
    let body = lit.strip_prefix('"').and_then(|b| b.strip_suffix('"')).unwrap_or(lit);
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('\n') => {
                // A line continuation: the next line's leading space goes too.
                let rest: String = chars.by_ref().collect();
                out.push_str(rest.trim_start());
                break;
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

fn unquote_char(lit: &str) -> Option<char> {
    let body = lit.strip_prefix('\'')?.strip_suffix('\'')?;
    let mut chars = body.chars();
    match (chars.next(), chars.next()) {
        (Some('\\'), Some(c)) => Some(c),
        (Some(c), None) => Some(c),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attributes_fields_and_docs_are_read() {
        let src = "use clap::Parser;\n\n/// The app.\n#[derive(Parser, Debug)]\n#[clap(author, version)]\nstruct Args {\n    /// First line.\n    // a plain comment\n    /// Second line.\n    #[clap(default_value = \"a\\\"b\", long, short = 'x', env)]\n    model_id: Option<Vec<String>>,\n    #[arg(long, value_parser = [\"p\", r#\"q\"#])]\n    pub mode: String,\n}\n";
        let items = items("m.rs", src).expect("parsed");
        assert_eq!(items.len(), 1);
        let it = &items[0];
        assert_eq!((it.name.as_str(), it.is_enum, it.line), ("Args", false, 6));
        assert_eq!(it.leading.derives(), ["Parser", "Debug"]);
        assert_eq!(it.leading.docs, [" The app."]);
        let f = &it.fields[0];
        assert_eq!((f.name.as_str(), f.ty.as_str(), f.line), ("model_id", "Option<Vec<String>>", 11));
        assert_eq!(f.leading.docs, [" First line.", " Second line."]);
        let keys: Vec<&str> = f.leading.args(&["clap"]).map(|a| a.key.as_str()).collect();
        assert_eq!(keys, ["default_value", "long", "short", "env"]);
        let args: Vec<&Arg> = f.leading.args(&["clap"]).collect();
        assert_eq!(args[0].value.as_ref().and_then(Value::string), Some("a\"b"));
        assert_eq!(args[2].value.as_ref().and_then(|v| v.char), Some('x'));
        assert_eq!(args[3].value, None);
        let g = &it.fields[1];
        let vp = g.leading.args(&["arg"]).find(|a| a.key == "value_parser").and_then(|a| a.value.clone());
        assert_eq!(vp.map(|v| v.strings), Some(vec!["p".to_string(), "q".to_string()]));
    }

    #[test]
    fn enum_variants_keep_their_attributes() {
        let src = "#[derive(Clone, clap::ValueEnum)]\nenum Dtype {\n    Float16,\n    #[clap(name = \"bfloat16\")]\n    BFloat16,\n}\n";
        let items = items("m.rs", src).expect("parsed");
        let e = &items[0];
        assert!(e.is_enum);
        assert_eq!(e.leading.derives(), ["Clone", "ValueEnum"]);
        let names: Vec<&str> = e.fields.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["Float16", "BFloat16"]);
        let rename =
            e.fields[1].leading.args(&["clap"]).next().and_then(|a| a.value.as_ref()?.string().map(String::from));
        assert_eq!(rename.as_deref(), Some("bfloat16"));
    }

    #[test]
    fn cfg_attr_applies_what_it_wraps() {
        let src = "#[cfg_attr(feature = \"clap\", derive(Clone, ValueEnum))]\n#[derive(Debug)]\npub enum Pool {\n    Cls,\n    #[cfg_attr(feature = \"clap\", value(name = \"splade\"))]\n    Splade,\n}\n";
        let items = items("m.rs", src).expect("parsed");
        assert_eq!(items[0].leading.derives(), ["Clone", "ValueEnum", "Debug"]);
        let rename = items[0].fields[1]
            .leading
            .args(&["value"])
            .next()
            .and_then(|a| a.value.as_ref()?.string().map(String::from));
        assert_eq!(rename.as_deref(), Some("splade"));
    }

    #[test]
    fn env_reads_are_literal_calls_of_the_readers() {
        let src = "use std::env;\nfn f() {\n    let a = env::var(\"HF_TOKEN\");\n    // env::var(\"IN_A_COMMENT\")\n    let b = std::env::var_os(\"CUDA_VISIBLE_DEVICES\");\n    let c = env::var(format!(\"{}_X\", p));\n    let d = myenv::var(\"NOT_THIS\");\n}\n";
        let readers = ["env::var".to_string(), "env::var_os".to_string()];
        let got = env_reads("m.rs", src, &readers).expect("parsed");
        assert_eq!(got, [("HF_TOKEN".to_string(), 3), ("CUDA_VISIBLE_DEVICES".to_string(), 5)]);
    }
}
