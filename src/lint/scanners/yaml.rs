//! YAML read with a real parser (saphyr) into a small tree that keeps, for
//! every node, where it is in the file: compose files, Kubernetes manifests,
//! Helm values and Prometheus rule files are walked on this tree, never
//! scanned as text. Multi-document files give one tree per document.

use std::ops::Range;

use saphyr::{LoadableYamlNode, MarkedYaml, Scalar, YamlData};

/// A YAML node and its byte range in the file. A quoted scalar's range is
/// its value inside the quotes (when it stays on one line).
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Scalar { text: String, at: Range<usize> },
    Seq { items: Vec<Node>, at: Range<usize> },
    Map { entries: Vec<(String, Range<usize>, Node)>, at: Range<usize> },
    Other { at: Range<usize> },
}

impl Node {
    pub fn at(&self) -> Range<usize> {
        match self {
            Node::Scalar { at, .. } | Node::Seq { at, .. } | Node::Map { at, .. } | Node::Other { at } => at.clone(),
        }
    }

    /// A mapping's value under `key`.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Map { entries, .. } => entries.iter().find(|(k, _, _)| k == key).map(|(_, _, v)| v),
            _ => None,
        }
    }

    /// The node at a dotted path (`spec.template.spec`).
    pub fn path(&self, path: &str) -> Option<&Node> {
        path.split('.').try_fold(self, |n, k| n.get(k))
    }

    pub fn str(&self) -> Option<&str> {
        match self {
            Node::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    pub fn items(&self) -> &[Node] {
        match self {
            Node::Seq { items, .. } => items,
            _ => &[],
        }
    }

    pub fn entries(&self) -> &[(String, Range<usize>, Node)] {
        match self {
            Node::Map { entries, .. } => entries,
            _ => &[],
        }
    }
}

/// The scalar at a dotted path (`image.tag`) in the first of `docs` that
/// has one.
pub fn scalar_at(docs: &[Node], path: &str) -> Option<String> {
    docs.iter().find_map(|d| d.path(path)?.str().map(str::to_string))
}

/// Why a YAML file could not be read: the byte offset and the parser's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub at: usize,
    pub message: String,
}

/// Character index → byte offset, for a text that is not all ASCII.
struct Offsets(Option<Vec<usize>>);

impl Offsets {
    fn new(text: &str) -> Self {
        if text.is_ascii() {
            return Offsets(None);
        }
        let mut v: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        v.push(text.len());
        Offsets(Some(v))
    }

    fn byte(&self, char_index: usize, len: usize) -> usize {
        match &self.0 {
            None => char_index.min(len),
            Some(v) => v.get(char_index).copied().unwrap_or(len),
        }
    }
}

/// Deepest nesting read: the parser (and any tree) recurses per level, so a
/// hostile file nested deeper is refused with a note instead.
const MAX_DEPTH: usize = 256;

/// Where `text` nests deeper than [`MAX_DEPTH`] (by indentation or by flow
/// brackets), if it does: a bound checked before parsing. Compact block
/// indicators at a line's start (`- - - x`, `? ? x`) nest as indentation
/// does, so they count as indentation.
fn too_deep(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut flow = 0usize;
    let mut quote: Option<u8> = None;
    let mut line_start = true;
    let mut indent = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        if line_start {
            let indicator = matches!(b, b'-' | b'?' | b':')
                && bytes.get(i + 1).is_none_or(|n| matches!(n, b' ' | b'\t' | b'\n' | b'\r'));
            if b == b' ' || b == b'\t' || indicator {
                indent += if indicator { 2 } else { 1 };
                if indent > MAX_DEPTH * 2 {
                    return Some(i);
                }
                continue;
            }
            line_start = false;
        }
        match (quote, b) {
            (_, b'\n') => {
                line_start = true;
                indent = 0;
            }
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(b),
            (None, b'[' | b'{') => {
                flow += 1;
                if flow > MAX_DEPTH {
                    return Some(i);
                }
            }
            (None, b']' | b'}') => flow = flow.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Every document of `text`.
pub fn load(text: &str) -> Result<Vec<Node>, YamlError> {
    if let Some(at) = too_deep(text) {
        return Err(YamlError { at, message: format!("nested deeper than {MAX_DEPTH} levels") });
    }
    let offsets = Offsets::new(text);
    let docs = MarkedYaml::load_from_str(text)
        .map_err(|e| YamlError { at: offsets.byte(e.marker().index(), text.len()), message: e.info().to_string() })?;
    Ok(docs.iter().map(|d| convert(d, text, &offsets)).collect())
}

/// The documents of a stream that parse, and an error for each that does
/// not: one bad document of a multi-document file does not hide the others,
/// however many there are. (Tried only when the whole stream fails; each
/// document is parsed on its own and its places moved to the file's, so the
/// cost stays linear in the file.)
pub fn load_each(text: &str) -> (Vec<Node>, Vec<YamlError>) {
    let whole = match load(text) {
        Ok(docs) => return (docs, Vec::new()),
        Err(e) => e,
    };
    let mut starts: Vec<usize> = vec![0];
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let rest = line.strip_prefix("---").map(|r| r.trim_end_matches(['\n', '\r']));
        if at > 0 && rest.is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t'])) {
            starts.push(at);
        }
        at += line.len();
    }
    if starts.len() < 2 {
        return (Vec::new(), vec![whole]);
    }
    starts.push(text.len());
    let (mut docs, mut errors) = (Vec::new(), Vec::new());
    for w in starts.windows(2) {
        // Each start is a line's first byte: a character boundary.
        match load(&text[w[0]..w[1]]) {
            Ok(d) => docs.extend(d.into_iter().map(|mut n| {
                shift(&mut n, w[0]);
                n
            })),
            Err(e) => errors.push(YamlError { at: e.at + w[0], message: e.message }),
        }
    }
    (docs, errors)
}

/// Moves every place in `node` on by `by` bytes (with a stack, no recursion).
fn shift(node: &mut Node, by: usize) {
    let mv = |r: &mut Range<usize>| *r = r.start + by..r.end + by;
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        match n {
            Node::Scalar { at, .. } | Node::Other { at } => mv(at),
            Node::Seq { items, at } => {
                mv(at);
                stack.extend(items.iter_mut());
            }
            Node::Map { entries, at } => {
                mv(at);
                for (_, key, value) in entries.iter_mut() {
                    mv(key);
                    stack.push(value);
                }
            }
        }
    }
}

fn range(n: &MarkedYaml<'_>, text: &str, offsets: &Offsets) -> Range<usize> {
    let start = offsets.byte(n.span.start.index(), text.len());
    let end = offsets.byte(n.span.end.index(), text.len()).max(start);
    start..end
}

/// A scalar's value range: inside its quotes when quoted on one line.
fn value_range(at: Range<usize>, text: &str) -> Range<usize> {
    let raw = text.get(at.clone()).unwrap_or("");
    let raw_trim = raw.trim_end();
    for q in ['"', '\''] {
        if raw_trim.len() >= 2 && raw_trim.starts_with(q) && raw_trim.ends_with(q) && !raw_trim.contains('\n') {
            return at.start + 1..at.start + raw_trim.len() - 1;
        }
    }
    at.start..at.start + raw_trim.len()
}

fn convert(n: &MarkedYaml<'_>, text: &str, offsets: &Offsets) -> Node {
    // Deep nesting is read with a stack of its own (no recursion).
    enum Frame<'a, 'b> {
        Seq {
            at: Range<usize>,
            rest: std::slice::Iter<'b, MarkedYaml<'a>>,
            done: Vec<Node>,
        },
        Map {
            at: Range<usize>,
            rest: Vec<(String, Range<usize>, &'b MarkedYaml<'a>)>,
            next: usize,
            done: Vec<(String, Range<usize>, Node)>,
        },
    }
    let leaf = |n: &MarkedYaml<'_>| -> Option<Node> {
        let at = range(n, text, offsets);
        let scalar = |s: String| Node::Scalar { text: s, at: value_range(at.clone(), text) };
        match &n.data {
            YamlData::Value(Scalar::String(s)) => Some(scalar(s.to_string())),
            YamlData::Value(Scalar::Null) => Some(scalar(String::new())),
            YamlData::Value(_) => {
                let raw = text.get(at.clone()).unwrap_or("").trim_end().to_string();
                Some(scalar(raw))
            }
            YamlData::Representation(s, _, _) => Some(scalar(s.to_string())),
            YamlData::Sequence(_) | YamlData::Mapping(_) | YamlData::Tagged(_, _) => None,
            _ => Some(Node::Other { at }),
        }
    };
    let mut stack: Vec<Frame<'_, '_>> = Vec::new();
    let mut current = n;
    loop {
        // Descend into `current` until a finished node is in hand.
        let mut node = loop {
            let mut cur = current;
            while let YamlData::Tagged(_, inner) = &cur.data {
                cur = inner;
            }
            if let Some(l) = leaf(cur) {
                break l;
            }
            let at = range(cur, text, offsets);
            match &cur.data {
                YamlData::Sequence(items) => {
                    let mut rest = items.iter();
                    match rest.next() {
                        Some(first) => {
                            stack.push(Frame::Seq { at, rest, done: Vec::new() });
                            current = first;
                        }
                        None => break Node::Seq { items: Vec::new(), at },
                    }
                }
                YamlData::Mapping(map) => {
                    let rest: Vec<(String, Range<usize>, &MarkedYaml<'_>)> = map
                        .iter()
                        .map(|(k, v)| {
                            let key = match leaf(k) {
                                Some(Node::Scalar { text, .. }) => text,
                                _ => String::new(),
                            };
                            (key, value_range(range(k, text, offsets), text), v)
                        })
                        .collect();
                    match rest.first() {
                        Some((_, _, v)) => {
                            current = v;
                            stack.push(Frame::Map { at, rest, next: 0, done: Vec::new() });
                        }
                        None => break Node::Map { entries: Vec::new(), at },
                    }
                }
                _ => break Node::Other { at },
            }
        };
        // Hand the finished node up, finishing parents whose last child it was.
        loop {
            match stack.pop() {
                None => return node,
                Some(Frame::Seq { at, mut rest, mut done }) => {
                    done.push(node);
                    match rest.next() {
                        Some(next) => {
                            current = next;
                            stack.push(Frame::Seq { at, rest, done });
                            break;
                        }
                        None => node = Node::Seq { items: done, at },
                    }
                }
                Some(Frame::Map { at, rest, next, mut done }) => {
                    let (k, kat, _) = &rest[next];
                    done.push((k.clone(), kat.clone(), node));
                    if let Some((_, _, v)) = rest.get(next + 1) {
                        current = v;
                        stack.push(Frame::Map { at, rest, next: next + 1, done });
                        break;
                    }
                    node = Node::Map { entries: done, at };
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_keep_their_places() {
        let text = "a: é\nb:\n  - --port\n  - \"8000\"\n  - 80\n---\nkind: Pod\ncmd: [x, 'y']\n";
        let docs = load(text).expect("parses");
        assert_eq!(docs.len(), 2);
        let b = docs[0].get("b").expect("b").items();
        let at = |n: &Node| &text[n.at()];
        assert_eq!((b[0].str(), at(&b[0])), (Some("--port"), "--port"));
        assert_eq!((b[1].str(), at(&b[1])), (Some("8000"), "8000"), "inside the quotes");
        assert_eq!((b[2].str(), at(&b[2])), (Some("80"), "80"), "a number keeps its text");
        assert_eq!(at(docs[0].get("a").expect("a")), "é");
        assert_eq!(docs[1].path("kind").and_then(Node::str), Some("Pod"));
        let cmd = docs[1].get("cmd").expect("cmd").items();
        assert_eq!(cmd.iter().map(at).collect::<Vec<_>>(), ["x", "y"]);
        let e = load("a: [\nb: c").expect_err("broken");
        assert!(e.at > 0 && !e.message.is_empty());
    }

    #[test]
    fn one_bad_document_does_not_hide_the_others() {
        let text = "a: 1\n---\nb: [unclosed\nc: 2\n---\nd: é\n";
        let (docs, errors) = load_each(text);
        assert_eq!(docs.len(), 2);
        assert_eq!(errors.len(), 1);
        // Places are the places in the whole text.
        let Some(Node::Scalar { at, .. }) = docs[1].get("d") else { panic!("d") };
        assert_eq!(&text[at.clone()], "é");
        assert!(errors[0].at > text.find("b:").expect("b") && errors[0].at < text.find("d:").expect("d"));
        // A single broken document is one error.
        let (docs, errors) = load_each("b: [unclosed\nc: 2\n");
        assert_eq!((docs.len(), errors.len()), (0, 1));
    }

    #[test]
    fn deep_nesting_is_read_without_recursion() {
        let text = format!("{}x{}\n", "[".repeat(20_000), "]".repeat(20_000));
        let e = load(&text).expect_err("refused");
        assert_eq!(e.message, "nested deeper than 256 levels");
        let block = |n: usize| (0..n).map(|i| format!("{}k{i}:\n", " ".repeat(i))).collect::<String>();
        assert!(load(&block(3000)).is_err(), "refused");
        // As deep as allowed: read.
        assert!(load(&block(500)).is_ok());
        let flow = format!("{}x{}\n", "[".repeat(200), "]".repeat(200));
        assert!(load(&flow).is_ok());
        // Compact block sequences and complex keys nest on one line (found
        // by a hostile review: 4,500 levels overflowed a thread's stack).
        for indicator in ["- ", "? "] {
            let e = load(&format!("{}x\n", indicator.repeat(5_000))).expect_err("refused");
            assert_eq!(e.message, "nested deeper than 256 levels");
            assert!(load(&format!("{}x\n", indicator.repeat(20))).is_ok(), "{indicator:?} x20 is read");
        }
        // A document marker and a negative number are not indicators.
        assert!(load(&format!("---\n{}", "-1\n".repeat(2000))).is_ok());
    }
}
