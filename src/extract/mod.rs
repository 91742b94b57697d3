//! The extractor: C++ source in, catalogue entries out.
//!
//! This is the only part of knobs that knows tree-sitter. It does not assume
//! one idiom for the help table: several strategies each look for their own
//! shape (table rows, builder calls, if-chains, usage texts) and propose
//! candidates; the candidates are merged by flag name. Enum members come from
//! the validator — the code that refuses a value — never from help text alone.

mod calls;
mod chain;
mod cst;
mod handler;
mod infer;
mod metrics;
pub mod queries;
pub mod roles;
mod rows;
pub mod text;
mod usage;
mod validator;

use std::collections::BTreeMap;

use tree_sitter::{Parser, Tree};

use cst::KindName;

use crate::catalog::model::{Flag, Kind, MembersFrom, Metric};

/// One source file read from the pinned tree.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Path inside the repository, with `/` separators.
    pub path: String,
    pub text: String,
    /// The text with `#define` lines blanked, as the parser reads it.
    masked: String,
}

impl SourceFile {
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> Self {
        let text = text.into();
        let masked = mask_macros(&text);
        SourceFile { path: path.into(), text, masked }
    }
}

/// Something the extractor could not read cleanly, pointing into the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}: {}", self.path, self.line, self.column, self.message)
    }
}

#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub enum ExtractError {
    #[diagnostic(
        code(knobs::extract::no_flags),
        help("if the help table uses a shape knobs does not know, point [extract] config at the right file")
    )]
    #[error(
        "no flags found in {path}: none of the known shapes (table rows, builder calls, if-chains, usage text) matched"
    )]
    NoFlags { path: String },
    #[error("the C++ grammar could not be loaded: {0}")]
    Grammar(String),
    #[error("tree-sitter could not parse {path}")]
    Parse { path: String },
}

/// A partial flag proposed by one strategy; merged with others by name.
#[derive(Debug, Clone, Default)]
pub(crate) struct Candidate {
    pub name: String,
    pub aliases: Vec<String>,
    pub metavar: Option<String>,
    pub default: Option<String>,
    pub help: Option<String>,
    /// A kind the source states (a kind field, a template argument, a setter).
    pub kind: Option<Kind>,
    /// A kind the parse code suggests (`std::stoi` on the value).
    pub evidence: Option<Kind>,
    /// True when the declaration shows the flag takes a value.
    pub takes_value: Option<bool>,
    pub members: Option<(Vec<String>, MembersFrom)>,
    pub line: usize,
    /// 0 declaration, 1 comparison in a parse chain, 2 usage text.
    pub rank: u8,
    /// Which configuration file declared it.
    pub file: usize,
    /// The struct field a parse branch assigns (`params.n_threads = …`).
    pub field: Option<String>,
    /// What stands for each placeholder of a format-string help.
    pub help_args: Vec<HelpArg>,
    /// Spellings that turn the option off.
    pub negated: Vec<String>,
    pub env: Vec<String>,
    pub scopes: Vec<String>,
    pub excludes: Vec<String>,
    /// The message of an option that always refuses.
    pub removed: Option<String>,
    /// Value words after the option, when more than one.
    pub arity: Option<u8>,
    /// The value is a comma-separated list.
    pub list: bool,
    /// A declaration that would have said so if it limited its scopes.
    pub scope_known: bool,
}

/// What a format-string help's argument stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum HelpArg {
    /// A field of the settings struct: its initialiser is the value.
    Field(String),
    /// `field ? "yes" : "no"` on a boolean field.
    Choice {
        field: String,
        yes: String,
        no: String,
    },
    Text(String),
    /// Computed at run time.
    Unknown,
}

impl Candidate {
    /// Fills metavar and default from leftover short strings, in source
    /// order (the common order is flag, metavar, default, help), then notes
    /// whether the flag takes a value.
    pub(crate) fn fill_slots(&mut self, pending: Vec<String>) {
        let mut pending = pending.into_iter();
        if self.metavar.is_none() && self.default.is_none() {
            match (pending.next(), pending.next()) {
                (Some(a), Some(b)) => {
                    self.metavar = Some(a);
                    self.default = Some(b);
                }
                (Some(a), None) => self.default = Some(a),
                _ => {}
            }
        } else if self.default.is_none() {
            self.default = pending.next();
        } else if self.metavar.is_none() {
            self.metavar = pending.next();
        }
        self.takes_value = self.metavar.as_ref().map(|m| !m.is_empty());
    }
}

/// A parsed file with what the strategies share: its tree and every node of
/// it in source order, walked once for all of them.
pub(crate) struct Parsed<'s> {
    pub path: &'s str,
    pub src: &'s str,
    pub tree: &'s Tree,
    pub nodes: Vec<tree_sitter::Node<'s>>,
    /// Each node's parent as an index into `nodes` (the root's is itself).
    parents: Vec<usize>,
    /// A node's index in `nodes`, by its id: made on the first `parent` call.
    index: std::sync::OnceLock<rustc_hash::FxHashMap<usize, usize>>,
}

impl<'s> Parsed<'s> {
    fn new(file: &'s SourceFile, tree: &'s Tree) -> Self {
        // One walk: every node in source order, with its parent.
        let mut nodes = Vec::new();
        let mut parents = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        let mut cursor = tree.root_node().walk();
        'outer: loop {
            parents.push(stack.last().copied().unwrap_or(0));
            nodes.push(cursor.node());
            if cursor.goto_first_child() {
                stack.push(nodes.len() - 1);
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    continue 'outer;
                }
                if !cursor.goto_parent() {
                    break 'outer;
                }
                stack.pop();
            }
        }
        Parsed { path: &file.path, src: &file.masked, tree, nodes, parents, index: std::sync::OnceLock::new() }
    }

    /// A node's parent, looked up rather than searched for from the root
    /// (as `Node::parent` does).
    pub fn parent(&self, node: tree_sitter::Node<'s>) -> Option<tree_sitter::Node<'s>> {
        let index = self.index.get_or_init(|| self.nodes.iter().enumerate().map(|(i, n)| (n.id(), i)).collect());
        let i = *index.get(&node.id())?;
        (i != 0).then(|| self.nodes[self.parents[i]])
    }

    pub fn loc(&self, line: usize) -> String {
        format!("{}:{}", self.path, line)
    }

    /// Every node, depth first, in source order.
    pub fn nodes(&self) -> impl Iterator<Item = tree_sitter::Node<'s>> + '_ {
        self.nodes.iter().copied()
    }
}

fn parse(file: &SourceFile) -> Result<Tree, ExtractError> {
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_cpp::LANGUAGE.into()).map_err(|e| ExtractError::Grammar(e.to_string()))?;
    parser.parse(&file.masked, None).ok_or_else(|| ExtractError::Parse { path: file.path.clone() })
}

/// Parses files on every core (the largest first, so that no core is left
/// with a big one at the end); results in the order given.
fn parse_all(files: &[&SourceFile]) -> Vec<Result<Tree, ExtractError>> {
    use rayon::prelude::*;
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(files[i].text.len()));
    let mut trees: Vec<(usize, Result<Tree, ExtractError>)> =
        order.par_iter().with_max_len(1).map(|&i| (i, parse(files[i]))).collect();
    trees.sort_by_key(|(i, _)| *i);
    trees.into_iter().map(|(_, t)| t).collect()
}

/// Blanks `#define` and `#undef` lines (and their continuations), keeping
/// every byte offset and line break. A directive between `}` and `else` — a
/// macro defined inside a parse loop — is legal C++, but tree-sitter cannot
/// place it and loses the rest of the chain; macro bodies declare no flags.
/// An `<inttypes.h>` macro after a literal (`"%" PRIu32`) becomes the
/// conversion it stands for, inside the literal, at the same length.
fn mask_macros(text: &str) -> String {
    static PRI: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r#""(\s*)(?:PRI|SCN)([diouxX])(?:8|16|32|64|LEAST\d+|FAST\d+|MAX|PTR)\b"#)
            .expect("valid regex")
    });
    let text = &*PRI.replace_all(text, |c: &regex::Captures<'_>| {
        let whole = &c[0];
        let mut s = format!("{}\"", &c[2]);
        s.extend(std::iter::repeat_n(' ', whole.len() - s.len()));
        s
    });
    let mut out = String::with_capacity(text.len());
    let mut continued = false;
    for line in text.split_inclusive('\n') {
        let directive = line.trim_start().strip_prefix('#').map(str::trim_start);
        let is_macro = directive.is_some_and(|d| d.starts_with("define") || d.starts_with("undef"));
        if is_macro || continued {
            continued = line.trim_end_matches(['\n', '\r']).ends_with('\\');
            for c in line.chars() {
                if c == '\n' || c == '\r' {
                    out.push(c);
                } else {
                    // as many spaces as the character has bytes
                    out.extend(std::iter::repeat_n(' ', c.len_utf8()));
                }
            }
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Regions tree-sitter could not parse, as warnings (one per outermost region).
fn parse_warnings(p: &Parsed<'_>) -> Vec<Warning> {
    let mut out = Vec::new();
    let mut stack = vec![p.tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            let pos = node.start_position();
            out.push(Warning {
                path: p.path.to_string(),
                line: pos.row + 1,
                column: pos.column + 1,
                message: if node.is_missing() {
                    format!("parse error: expected `{}` here", node.kind_name())
                } else {
                    "parse error: this region is not C++ that tree-sitter understands; flags in it may be missed"
                        .to_string()
                },
            });
            continue;
        }
        if node.has_error() {
            let mut cursor = node.walk();
            let children: Vec<_> = node.children(&mut cursor).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    out.sort_by_key(|w| (w.line, w.column));
    out
}

/// The files one extraction reads.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sources<'a> {
    /// The option table and its validator (at least one file).
    pub config: &'a [SourceFile],
    /// Read for struct definitions and field defaults only.
    pub headers: &'a [SourceFile],
    /// Files whose functions the option handlers call to validate values.
    pub validators: &'a [SourceFile],
    /// Tree-sitter queries (from `knobs.toml`) for shapes knobs does not know.
    pub queries: &'a [String],
}

/// Extracts the flags of `config` (the help table and validator); `companions`
/// (headers beside it) are read for struct definitions only.
pub fn extract_flags(
    config: &SourceFile,
    companions: &[SourceFile],
) -> Result<(Vec<Flag>, Vec<Warning>), ExtractError> {
    extract(&Sources { config: std::slice::from_ref(config), headers: companions, ..Sources::default() })
}

/// Extracts the flags the sources declare.
pub fn extract(src: &Sources<'_>) -> Result<(Vec<Flag>, Vec<Warning>), ExtractError> {
    use rayon::prelude::*;
    // Every file is parsed (and walked) once, all at the same time.
    let files: Vec<&SourceFile> = src.config.iter().chain(src.validators).chain(src.headers).collect();
    let trees = parse_all(&files);
    let configs = src.config.len();
    let code_files = configs + src.validators.len();
    let mut parsed = Vec::new();
    let mut headers = Vec::new();
    for (i, (f, tree)) in files.iter().zip(trees.iter()).enumerate() {
        match tree {
            Ok(t) if i < code_files => parsed.push((*f, t)),
            // A header that does not parse only lacks struct facts.
            Ok(t) => headers.push((*f, t)),
            Err(_) if i >= code_files => {}
            Err(_) => return Err(ExtractError::Parse { path: f.path.clone() }),
        }
    }
    let parsed: Vec<Parsed<'_>> = parsed.par_iter().map(|(f, t)| Parsed::new(f, t)).collect();
    let headers: Vec<Parsed<'_>> = headers.par_iter().map(|(f, t)| Parsed::new(f, t)).collect();
    let mut warnings: Vec<Warning> = parsed[..configs].iter().flat_map(parse_warnings).collect();
    let mut structs = std::collections::HashMap::new();
    let mut field_defaults = std::collections::HashMap::new();
    let mut field_types = std::collections::HashMap::new();
    let facts: Vec<_> = parsed[..configs]
        .par_iter()
        .chain(headers.par_iter())
        .map(|p| (rows::struct_fields(p), rows::field_defaults(p), rows::field_types(p)))
        .collect();
    for (fields, defaults, types) in facts {
        for (k, v) in fields {
            structs.entry(k).or_insert(v);
        }
        for (k, v) in defaults {
            field_defaults.entry(k).or_insert(v);
        }
        for (k, v) in types {
            field_types.entry(k).or_insert(v);
        }
    }
    let code = handler::Code::new(&parsed);
    // The strategies read each file on their own: side by side.
    let found: Vec<Vec<Candidate>> = parsed[..configs]
        .par_iter()
        .enumerate()
        .map(|(i, p)| {
            let ((mut found, rows), (calls, (chain, usage))) = rayon::join(
                || (queries::candidates(p, src.queries), rows::candidates(p, &structs)),
                || {
                    rayon::join(
                        || calls::candidates(p, i, &code),
                        || rayon::join(|| chain::candidates(p), || usage::candidates(p)),
                    )
                },
            );
            found.extend(rows);
            found.extend(calls);
            found.extend(chain);
            found.extend(usage);
            for c in &mut found {
                c.file = i;
            }
            found
        })
        .collect();
    let cands: Vec<Candidate> = found.into_iter().flatten().collect();
    let mut merged = merge(cands);
    for p in &parsed[..configs] {
        validator::attach_members(p, &mut merged, &mut warnings);
    }
    for c in merged.values_mut() {
        // A format-string help: its placeholders filled from the fields'
        // initialisers (`string_format("… (default: %d)", params.n_ctx)`).
        if !c.help_args.is_empty() {
            if let Some(fmt) = &c.help {
                let values: Vec<Option<String>> = c
                    .help_args
                    .iter()
                    .map(|a| match a {
                        HelpArg::Text(t) => Some(t.clone()),
                        HelpArg::Field(f) => field_defaults.get(f).cloned(),
                        HelpArg::Choice { field, yes, no } => match field_defaults.get(field).map(String::as_str) {
                            Some("true") => Some(yes.clone()),
                            Some("false") => Some(no.clone()),
                            _ => None,
                        },
                        HelpArg::Unknown => None,
                    })
                    .collect();
                c.help = Some(text::fill_format(fmt, &values));
            }
        }
        // A value bound to a field (`add_option("--x", o.x, …)`) has the
        // field's declared type.
        if c.kind.is_none() && c.evidence.is_none() {
            c.evidence = c.field.as_ref().and_then(|f| field_types.get(f)).and_then(|t| roles::kind_of_ident(t));
        }
        // Where the source states no default, the literal initialiser of the
        // field a parse branch assigns is the default (`int n_processors = 1;`).
        // Not for switches: `--no-gpu` sets `use_gpu`, whose default is the field's.
        if c.default.as_deref().is_none_or(str::is_empty) && c.takes_value == Some(true) {
            if let Some(d) = c.field.as_ref().and_then(|f| field_defaults.get(f)) {
                c.default = Some(d.clone());
            }
        }
    }
    let flags: Vec<Flag> = merged.into_values().map(|c| infer::finish(c, &parsed[..configs])).collect();
    if flags.is_empty() {
        let path = src.config.iter().map(|c| c.path.as_str()).collect::<Vec<_>>().join(", ");
        return Err(ExtractError::NoFlags { path });
    }
    Ok((flags, warnings))
}

/// Extracts every metric registered in `files` under one of `prefixes`.
pub fn extract_metrics(files: &[SourceFile], prefixes: &[String]) -> Result<(Vec<Metric>, Vec<Warning>), ExtractError> {
    use crate::catalog::model::MetricType;
    let mut found: BTreeMap<String, Metric> = BTreeMap::new();
    let mut warnings = Vec::new();
    use rayon::prelude::*;
    // Only files that name a prefix are parsed; all of them at once.
    let named: Vec<&SourceFile> = files.iter().filter(|f| metrics::mentions_metric(&f.text, prefixes)).collect();
    let read: Vec<(Vec<Warning>, Vec<Metric>)> = named
        .par_iter()
        .map(|f| {
            let tree = parse(f)?;
            let p = Parsed::new(f, &tree);
            Ok((parse_warnings(&p), metrics::registrations(&p, prefixes)))
        })
        .collect::<Result<_, ExtractError>>()?;
    for (w, registered) in read {
        warnings.extend(w);
        for m in registered {
            match found.get_mut(&m.name) {
                // Several sightings of one name: the first typed one wins,
                // and labels, help found elsewhere are kept.
                Some(old) => {
                    if old.kind == MetricType::Untyped && m.kind != MetricType::Untyped {
                        old.kind = m.kind;
                        old.location = m.location;
                    }
                    if old.help.is_empty() {
                        old.help = m.help;
                    }
                    for l in m.labels {
                        if !old.labels.contains(&l) {
                            old.labels.push(l);
                        }
                    }
                }
                None => {
                    found.insert(m.name.clone(), m);
                }
            }
        }
    }
    Ok((found.into_values().collect(), warnings))
}

/// Merges candidates by name: the strongest source fills each field first.
fn merge(mut cands: Vec<Candidate>) -> BTreeMap<String, Candidate> {
    cands.sort_by_key(|c| (c.rank, c.line));
    // A usage line or comparison may name a flag by an alias first; map aliases
    // to the declared long name.
    let mut out: BTreeMap<String, Candidate> = BTreeMap::new();
    let mut key_of: std::collections::HashMap<String, String> = std::collections::HashMap::new();
    for c in cands {
        let key = key_of.get(&c.name).cloned().unwrap_or_else(|| c.name.clone());
        match out.get_mut(&key) {
            None => {
                for s in std::iter::once(&c.name).chain(&c.aliases).chain(&c.negated) {
                    key_of.entry(s.clone()).or_insert_with(|| key.clone());
                }
                out.insert(key, c);
            }
            Some(m) => {
                for a in c.aliases {
                    if a != m.name && !m.aliases.contains(&a) {
                        key_of.entry(a.clone()).or_insert_with(|| key.clone());
                        m.aliases.push(a);
                    }
                }
                // The same option declared twice (one per binary): both
                // scopes; one declaration with none makes it unscoped.
                let unscoped = (m.scope_known && m.scopes.is_empty()) || (c.scope_known && c.scopes.is_empty());
                m.scope_known |= c.scope_known;
                m.list |= c.list;
                for (into, from) in [
                    (&mut m.negated, c.negated),
                    (&mut m.env, c.env),
                    (&mut m.scopes, c.scopes),
                    (&mut m.excludes, c.excludes),
                ] {
                    for v in from {
                        if !into.contains(&v) {
                            into.push(v);
                        }
                    }
                }
                if unscoped {
                    m.scopes.clear();
                }
                fill(&mut m.metavar, c.metavar);
                fill(&mut m.default, c.default);
                fill(&mut m.help, c.help);
                fill(&mut m.kind, c.kind);
                fill(&mut m.evidence, c.evidence);
                fill(&mut m.takes_value, c.takes_value);
                fill(&mut m.field, c.field);
                fill(&mut m.removed, c.removed);
                fill(&mut m.arity, c.arity);
                match (&mut m.members, c.members) {
                    (None, theirs) => m.members = theirs,
                    // Two declarations with their own sets (one per binary): the union.
                    (Some((mine, from)), Some((theirs, _))) if from.origin.starts_with("validator") => {
                        for t in theirs {
                            if !mine.contains(&t) {
                                mine.push(t);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    out
}

fn fill<T>(slot: &mut Option<T>, value: Option<T>) {
    if slot.is_none() {
        *slot = value;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masking_keeps_offsets() {
        let text = "a\n  #define X(y) \\\n    z \"é\"\nb\n";
        let m = mask_macros(text);
        assert_eq!(m.len(), text.len());
        assert_eq!(m.lines().count(), text.lines().count());
        assert!(m.starts_with("a\n") && m.ends_with("b\n"));
        assert!(!m.contains("define") && !m.contains('z'));
        let pri = "f(\"ctx: %\" PRIu32 \"\\n\", n);\n";
        let m = mask_macros(pri);
        assert_eq!(m.len(), pri.len());
        assert!(m.starts_with("f(\"ctx: %u\""), "{m}");
    }
}
