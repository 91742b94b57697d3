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

/// What the extractor found.
#[derive(Debug, Clone, Default)]
pub struct Extraction {
    pub flags: Vec<Flag>,
    pub metrics: Vec<Metric>,
    pub warnings: Vec<Warning>,
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
    /// The struct field a parse branch assigns (`params.n_threads = …`).
    pub field: Option<String>,
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

/// A parsed file with what the strategies share.
pub(crate) struct Parsed<'s> {
    pub path: &'s str,
    pub src: &'s str,
    pub tree: Tree,
}

impl Parsed<'_> {
    pub fn loc(&self, line: usize) -> String {
        format!("{}:{}", self.path, line)
    }
}

fn parse(file: &SourceFile) -> Result<Parsed<'_>, ExtractError> {
    let mut parser = Parser::new();
    parser.set_language(&tree_sitter_cpp::LANGUAGE.into()).map_err(|e| ExtractError::Grammar(e.to_string()))?;
    let tree = parser.parse(&file.masked, None).ok_or_else(|| ExtractError::Parse { path: file.path.clone() })?;
    Ok(Parsed { path: &file.path, src: &file.masked, tree })
}

/// Blanks `#define` and `#undef` lines (and their continuations), keeping
/// every byte offset and line break. A directive between `}` and `else` — a
/// macro defined inside a parse loop — is legal C++, but tree-sitter cannot
/// place it and loses the rest of the chain; macro bodies declare no flags.
fn mask_macros(text: &str) -> String {
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
                    format!("parse error: expected `{}` here", node.kind())
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

/// Extracts the flags of `config` (the help table and validator); `companions`
/// (headers beside it) are read for struct definitions only.
pub fn extract_flags(
    config: &SourceFile,
    companions: &[SourceFile],
) -> Result<(Vec<Flag>, Vec<Warning>), ExtractError> {
    extract_flags_with(config, companions, &[])
}

/// Like [`extract_flags`], with user queries (from `knobs.toml`) for shapes
/// the built-in strategies do not know.
pub fn extract_flags_with(
    config: &SourceFile,
    companions: &[SourceFile],
    queries: &[String],
) -> Result<(Vec<Flag>, Vec<Warning>), ExtractError> {
    let parsed = parse(config)?;
    let mut warnings = parse_warnings(&parsed);
    let mut structs = rows::struct_fields(&parsed);
    let mut field_defaults = rows::field_defaults(&parsed);
    let mut field_types = rows::field_types(&parsed);
    for c in companions {
        if let Ok(p) = parse(c) {
            for (k, v) in rows::struct_fields(&p) {
                structs.entry(k).or_insert(v);
            }
            for (k, v) in rows::field_defaults(&p) {
                field_defaults.entry(k).or_insert(v);
            }
            for (k, v) in rows::field_types(&p) {
                field_types.entry(k).or_insert(v);
            }
        }
    }
    let mut cands = queries::candidates(&parsed, queries);
    cands.extend(rows::candidates(&parsed, &structs));
    cands.extend(calls::candidates(&parsed));
    cands.extend(chain::candidates(&parsed));
    cands.extend(usage::candidates(&parsed));
    let mut merged = merge(cands);
    validator::attach_members(&parsed, &mut merged, &mut warnings);
    // Where the source states no default, the literal initialiser of the
    // field a parse branch assigns is the default (`int n_processors = 1;`).
    // Not for switches: `--no-gpu` sets `use_gpu`, whose default is the field's.
    for c in merged.values_mut() {
        // A value bound to a field (`add_option("--x", o.x, …)`) has the
        // field's declared type.
        if c.kind.is_none() && c.evidence.is_none() {
            c.evidence = c.field.as_ref().and_then(|f| field_types.get(f)).and_then(|t| roles::kind_of_ident(t));
        }
        if c.default.as_deref().is_none_or(str::is_empty) && c.takes_value == Some(true) {
            if let Some(d) = c.field.as_ref().and_then(|f| field_defaults.get(f)) {
                c.default = Some(d.clone());
            }
        }
    }
    let flags: Vec<Flag> = merged.into_values().map(|c| infer::finish(c, &parsed)).collect();
    if flags.is_empty() {
        return Err(ExtractError::NoFlags { path: config.path.clone() });
    }
    Ok((flags, warnings))
}

/// Extracts every metric registered in `files`.
pub fn extract_metrics(files: &[SourceFile]) -> Result<(Vec<Metric>, Vec<Warning>), ExtractError> {
    let mut found: BTreeMap<String, Metric> = BTreeMap::new();
    let mut warnings = Vec::new();
    for f in files {
        if !metrics::mentions_metric(&f.text) {
            continue;
        }
        let p = parse(f)?;
        warnings.extend(parse_warnings(&p));
        for m in metrics::registrations(&p) {
            match found.get(&m.name) {
                Some(old)
                    if old.kind != crate::catalog::model::MetricType::Untyped
                        || m.kind == crate::catalog::model::MetricType::Untyped => {}
                _ => {
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
    for c in cands {
        let key = out
            .iter()
            .find(|(k, v)| **k == c.name || v.aliases.contains(&c.name))
            .map(|(k, _)| k.clone())
            .unwrap_or_else(|| c.name.clone());
        match out.get_mut(&key) {
            None => {
                out.insert(key, c);
            }
            Some(m) => {
                for a in c.aliases {
                    if a != m.name && !m.aliases.contains(&a) {
                        m.aliases.push(a);
                    }
                }
                fill(&mut m.metavar, c.metavar);
                fill(&mut m.default, c.default);
                fill(&mut m.help, c.help);
                fill(&mut m.kind, c.kind);
                fill(&mut m.evidence, c.evidence);
                fill(&mut m.takes_value, c.takes_value);
                fill(&mut m.members, c.members);
                fill(&mut m.field, c.field);
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
    }
}
