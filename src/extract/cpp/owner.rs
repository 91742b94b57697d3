//! Which flag a validator belongs to: the flag its message names, the
//! branch of a parse chain it sits in, the variable it checks or the
//! function it is in. Asked once per refusal, so every answer is a lookup:
//! the flags' spellings and identifiers are indexed once, each climb
//! through enclosing branches is remembered for every node it passed, and
//! each function's locals are read once. A 30,000-branch chain in which
//! every branch refuses costs as much per branch as a short one.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use rustc_hash::FxHashMap;
use tree_sitter::Node;

use super::candidate::Candidate;
use super::cst::{self, function_name_node, string_value, text};
use super::node_kind::KindName;
use super::parsed::Parsed;
use super::text::flag_ident;

/// The flags of one extraction, indexed for the owner questions.
pub(crate) struct Owners<'t> {
    /// A spelling (`_` read as `-`: gflags accepts both) → the first flag,
    /// in name order, whose name or alias it is.
    spelling: FxHashMap<String, String>,
    /// A flag's identifier (`--max-seqs` → `max_seqs`) → the first flag.
    ident: FxHashMap<String, String>,
    /// Flags whose identifier is not a plain word: matched by scanning.
    odd: Vec<(String, String)>,
    longest: usize,
    /// The answer of a climb, for every node it passed through.
    climbs: FxHashMap<usize, Option<String>>,
    /// A function's locals: name → (start, the flag its initializer names).
    locals: FxHashMap<usize, FxHashMap<&'t str, (usize, Option<String>)>>,
    /// The function holding a node, for every node a climb to it passed.
    functions: FxHashMap<usize, Option<Node<'t>>>,
}

fn spelling(s: &str) -> String {
    s.replace('_', "-")
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl<'t> Owners<'t> {
    pub(crate) fn new(flags: &BTreeMap<String, Candidate>) -> Self {
        let mut o = Owners {
            spelling: FxHashMap::default(),
            ident: FxHashMap::default(),
            odd: Vec::new(),
            longest: 0,
            climbs: FxHashMap::default(),
            locals: FxHashMap::default(),
            functions: FxHashMap::default(),
        };
        for (k, c) in flags {
            for s in std::iter::once(k).chain(&c.aliases) {
                o.spelling.entry(spelling(s)).or_insert_with(|| k.clone());
            }
            let id = flag_ident(k);
            if !id.is_empty() && id.bytes().all(is_word) {
                o.longest = o.longest.max(id.len());
                o.ident.entry(id).or_insert_with(|| k.clone());
            } else {
                o.odd.push((id, k.clone()));
            }
        }
        o
    }

    fn by_spelling(&self, s: &str) -> Option<String> {
        self.spelling.get(&spelling(s)).cloned()
    }

    /// The first flag (in name order) whose identifier `text` mentions, as
    /// `mentions_ident` judges: every word of the text, and every tail of it
    /// after a `_`, is looked up.
    fn mentioned(&self, text: &str) -> Option<String> {
        let bytes = text.as_bytes();
        let mut best: Option<&String> = None;
        fn consider<'a>(k: &'a String, best: &mut Option<&'a String>) {
            if best.is_none_or(|b| k < b) {
                *best = Some(k);
            }
        }
        let mut i = 0;
        while i < bytes.len() {
            if !is_word(bytes[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && is_word(bytes[i]) {
                i += 1;
            }
            let word = &text[start..i];
            let trimmed = word.trim_end_matches('_').len();
            let starts =
                std::iter::once(0).chain(word.bytes().enumerate().filter(|(_, b)| *b == b'_').map(|(k, _)| k + 1));
            for from in starts.filter(|&f| f < word.len()) {
                for to in trimmed.max(from + 1)..=word.len() {
                    if to - from > self.longest {
                        break;
                    }
                    if let Some(k) = self.ident.get(&word[from..to]) {
                        consider(k, &mut best);
                    }
                }
            }
        }
        for (id, k) in &self.odd {
            if mentions_ident(text, id) {
                consider(k, &mut best);
            }
        }
        best.cloned()
    }

    /// The first flag a message names, by a spelling of it.
    pub(crate) fn named(&self, msg: &str) -> Option<String> {
        static FLAG: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(r"--[A-Za-z0-9][A-Za-z0-9_.-]*").expect("valid regex"));
        FLAG.find_iter(msg).find_map(|m| self.by_spelling(m.as_str()))
    }

    /// The flag a validator at `node` belongs to: one its message names,
    /// else the innermost enclosing branch whose condition names one, else
    /// the function it sits in.
    pub(crate) fn owner(&mut self, p: &Parsed<'t>, node: Node<'t>, msg: &str) -> Option<String> {
        if let Some(found) = self.named(msg) {
            return Some(found);
        }
        // Every node passed has the climb's answer: it depends only on the
        // branches above, which the climb from any of them meets alike.
        let mut path = Vec::new();
        let mut cur = p.parent(node);
        let found = loop {
            let Some(n) = cur else { break None };
            if let Some(known) = self.climbs.get(&n.id()) {
                break known.clone();
            }
            path.push(n.id());
            if n.kind_name() == "if_statement" {
                if let Some(f) = n.child_by_field_name("condition").and_then(|c| self.in_condition(p, c)) {
                    break Some(f);
                }
            }
            if n.kind_name() == "function_definition" {
                break function_name_node(n).and_then(|d| self.mentioned(&text(d, p.src).to_ascii_lowercase()));
            }
            cur = p.parent(n);
        };
        for id in path {
            self.climbs.insert(id, found.clone());
        }
        found
    }

    fn in_condition(&self, p: &Parsed<'t>, cond: Node<'t>) -> Option<String> {
        cst::preorder(cond)
            .into_iter()
            .find_map(|lit| string_value(lit, p.src).and_then(|s| self.by_spelling(&s)))
            .or_else(|| self.mentioned(&text(cond, p.src).to_ascii_lowercase()))
    }

    /// A flag literal in the initializer of a local the condition compares:
    /// `const auto& m = fs.get("--mode"); if (m != "a" && ...)`. The first
    /// local (in source order, before the condition) of a compared name that
    /// has no initializer or whose initializer names a flag decides.
    /// The function definition holding `node` (above it, not itself). A
    /// climb remembers its answer for every node it passes, so conditions
    /// nested thousands deep cost one climb in all, not one each.
    pub(crate) fn function_of(&mut self, p: &Parsed<'t>, node: Node<'t>) -> Option<Node<'t>> {
        let mut passed = Vec::new();
        let mut scope = p.parent(node);
        let found = loop {
            let Some(s) = scope else { break None };
            if let Some(known) = self.functions.get(&s.id()) {
                break *known;
            }
            if s.kind_name() == "function_definition" {
                break Some(s);
            }
            passed.push(s.id());
            scope = p.parent(s);
        };
        for id in passed {
            self.functions.insert(id, found);
        }
        found
    }

    pub(crate) fn compared_local(
        &mut self,
        p: &Parsed<'t>,
        cond: Node<'t>,
        flags: &BTreeMap<String, Candidate>,
    ) -> Option<String> {
        let scope = self.function_of(p, cond)?;
        let locals = self.locals.entry(scope.id()).or_insert_with(|| {
            let mut out: FxHashMap<&'t str, (usize, Option<String>)> = FxHashMap::default();
            for decl in cst::preorder(scope) {
                if decl.kind_name() != "init_declarator" {
                    continue;
                }
                let Some(name) =
                    decl.child_by_field_name("declarator").map(|d| text(d, p.src).trim_start_matches(['&', '*', ' ']))
                else {
                    continue;
                };
                let decides = match decl.child_by_field_name("value") {
                    None => Some(None),
                    Some(value) => cst::preorder(value)
                        .into_iter()
                        .find_map(|lit| string_value(lit, p.src).filter(|s| flags.contains_key(s)))
                        .map(Some),
                };
                if let Some(d) = decides {
                    out.entry(name).or_insert((decl.start_byte(), d));
                }
            }
            out
        });
        let mut first: Option<&(usize, Option<String>)> = None;
        for n in cst::preorder(cond) {
            if n.kind_name() != "identifier" {
                continue;
            }
            if let Some(d) = locals.get(text(n, p.src)).filter(|d| d.0 <= cond.start_byte()) {
                if first.is_none_or(|f| d.0 < f.0) {
                    first = Some(d);
                }
            }
        }
        first.and_then(|d| d.1.clone())
    }
}

/// True when `ident` stands in `text` as a whole identifier or its tail,
/// allowing member decorations (`m_ident`, `ident_`, `cfg.ident`).
fn mentions_ident(text: &str, ident: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices(ident).any(|(i, m)| {
        let before = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        let mut end = i + m.len();
        while end < bytes.len() && bytes[end] == b'_' {
            end += 1;
        }
        let after = end >= bytes.len() || !is_word(bytes[end]);
        before && after
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(names: &[&str]) -> BTreeMap<String, Candidate> {
        names.iter().map(|n| (n.to_string(), Candidate { name: n.to_string(), ..Candidate::default() })).collect()
    }

    /// The index answers as a scan of every flag with `mentions_ident` does.
    #[test]
    fn the_index_agrees_with_a_scan() {
        let f = flags(&["--max-seqs", "--seqs", "--port", "--a.b", "--x"]);
        let o = Owners::new(&f);
        let texts = [
            "m_max_seqs_ != 0",
            "cfg.max_seqs",
            "maxseqs",
            "opts.port_ > 1",
            "report(x)",
            "a.b == 1",
            "support",
            "x__",
            "",
            "seqs_max",
        ];
        for t in texts {
            let scan = f.keys().find(|k| mentions_ident(t, &flag_ident(k))).cloned();
            assert_eq!(o.mentioned(t), scan, "{t}");
        }
        assert_eq!(o.by_spelling("--max_seqs").as_deref(), Some("--max-seqs"));
    }

    /// The remembered function of a node is the one a fresh climb finds, in
    /// whatever order nodes are asked (nested bodies, a lambda, top level).
    #[test]
    fn the_remembered_function_agrees_with_a_climb() {
        use crate::extract::cpp::parsed::parse;
        use crate::extract::cpp::SourceFile;
        let shapes = [
            "int g;\nvoid f(int a) { if (a) { if (a > 1) { if (a > 2) { x(); } } } }\nvoid h() { auto l = [](int b) { if (b) {} }; }\n",
            "struct S { void m() { while (1) { if (c) break; } } };\n",
        ];
        for shape in shapes {
            let file = SourceFile::new("core/config.cpp", shape);
            let tree = parse(&file).expect("parses");
            let p = Parsed::new(&file, &tree);
            let climb = |n: Node<'_>| {
                let mut s = p.parent(n);
                while let Some(x) = s.filter(|x| x.kind_name() != "function_definition") {
                    s = p.parent(x);
                }
                s.map(|x| x.id())
            };
            let nodes: Vec<Node<'_>> = p.nodes().collect();
            let mut forwards = Owners::new(&flags(&[]));
            let mut backwards = Owners::new(&flags(&[]));
            for (n, m) in nodes.iter().zip(nodes.iter().rev()) {
                assert_eq!(forwards.function_of(&p, *n).map(|x| x.id()), climb(*n), "{shape}: {}", n.kind_name());
                assert_eq!(backwards.function_of(&p, *m).map(|x| x.id()), climb(*m), "{shape}: {}", m.kind_name());
            }
        }
    }
}
