//! The words a parse-chain branch accepts for its value: an if-chain in the
//! branch's body comparing one value with literals (`value == "none"`,
//! `strcmp(argv[i], "json") == 0`), whose last `else` refuses the rest — a
//! throw, an error call, or a flag that marks the argument bad
//! (`invalid_param = true`, read by the loop that runs the chain).

use tree_sitter::Node;

use super::cst::{self, call_args, call_name, line, string_value, text, unparen_condition};
use super::node_kind::KindName;
use super::parsed::Parsed;

/// Names of a variable that, set to `true`, marks an argument refused.
fn marks_refusal(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    ["invalid", "error", "bad", "fail", "reject"].iter().any(|w| l.contains(w))
}

/// True when `n` refuses: a throw, an exit or error call, or `invalid = true`.
fn refuses(n: Node<'_>, src: &str) -> bool {
    cst::preorder(n).into_iter().any(|c| match c.kind_name() {
        "throw_statement" => true,
        "call_expression" => call_name(c, src).is_some_and(|name| {
            let l = name.to_ascii_lowercase();
            l == "exit" || l == "abort" || l.contains("throw") || l.contains("fail") || l.contains("die")
        }),
        "assignment_expression" => {
            let right = c.child_by_field_name("right").map(|r| r.kind_name());
            let left = c.child_by_field_name("left");
            let name = left.map(|l| match l.child_by_field_name("field") {
                Some(f) => text(f, src),
                None => text(l, src),
            });
            right == Some("true") && name.is_some_and(marks_refusal)
        }
        _ => false,
    })
}

/// The subject and literal of one comparison: `s == "x"`, `"x" == s`,
/// `strcmp(s, "x") == 0`, `!strcmp(s, "x")`.
fn compared<'s>(n: Node<'_>, src: &'s str) -> Option<(&'s str, String)> {
    let n = unparen_condition(n);
    let strcmp = |call: Node<'_>| -> Option<(&'s str, String)> {
        if call.kind_name() != "call_expression" || !call_name(call, src)?.to_ascii_lowercase().contains("cmp") {
            return None;
        }
        match call_args(call).as_slice() {
            [a, b] => match (string_value(*a, src), string_value(*b, src)) {
                (None, Some(lit)) => Some((text(*a, src).trim(), lit)),
                (Some(lit), None) => Some((text(*b, src).trim(), lit)),
                _ => None,
            },
            _ => None,
        }
    };
    match n.kind_name() {
        "binary_expression" => {
            let op = text(n.child_by_field_name("operator")?, src);
            let (l, r) = (unparen_condition(n.child_by_field_name("left")?), n.child_by_field_name("right")?);
            if op != "==" {
                return None;
            }
            if text(r, src).trim() == "0" {
                return strcmp(l);
            }
            match (string_value(l, src), string_value(r, src)) {
                (None, Some(lit)) if !cst::is_string(l) => Some((text(l, src).trim(), lit)),
                (Some(lit), None) if !cst::is_string(r) => Some((text(r, src).trim(), lit)),
                _ => None,
            }
        }
        "unary_expression" if n.child(0).is_some_and(|o| text(o, src) == "!") => {
            strcmp(unparen_condition(n.child_by_field_name("argument")?))
        }
        _ => None,
    }
}

/// The literals a condition compares `subject` with, `||` by `||`; None
/// when any operand is something else. The first link names the subject.
fn words_of(cond: Node<'_>, subject: &mut Option<String>, src: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut operands = vec![unparen_condition(cond)];
    while let Some(n) = operands.pop() {
        let is_or = n.kind_name() == "binary_expression"
            && n.child_by_field_name("operator").is_some_and(|o| text(o, src) == "||");
        if is_or {
            operands.push(unparen_condition(n.child_by_field_name("right")?));
            operands.push(unparen_condition(n.child_by_field_name("left")?));
            continue;
        }
        let (s, lit) = compared(n, src)?;
        if lit.starts_with('-') && lit.len() > 1 {
            return None; // another option's spelling: a chain of options
        }
        match subject {
            Some(known) if known != s => return None,
            Some(_) => {}
            None => *subject = Some(s.to_string()),
        }
        words.push(lit);
    }
    Some(words)
}

/// The words of the if-chain starting at `first`, and whether the rest is
/// refused; None when a link tests something else.
fn chain_words(first: Node<'_>, src: &str) -> Option<(Vec<String>, bool)> {
    let mut subject = None;
    let mut words = Vec::new();
    let mut cur = first;
    loop {
        words.extend(words_of(cur.child_by_field_name("condition")?, &mut subject, src)?);
        let alt = match cur.child_by_field_name("alternative") {
            None => {
                // No else: refused when the statement after the chain refuses.
                let mut next = first.next_named_sibling();
                while let Some(n) = next.filter(|n| n.kind_name() == "comment") {
                    next = n.next_named_sibling();
                }
                let closed = next.is_some_and(|n| n.kind_name() != "if_statement" && refuses(n, src));
                return Some((words, closed));
            }
            Some(alt) => alt,
        };
        let inner = if alt.kind_name() == "else_clause" { alt.named_child(0) } else { Some(alt) };
        match inner {
            Some(i) if i.kind_name() == "if_statement" => cur = i,
            Some(i) => return Some((words, refuses(i, src))),
            None => return Some((words, false)),
        }
    }
}

/// The member set a parse branch's body gives its value: the first if-chain
/// over one value (not inside another chain's `else`) that lists at least
/// two words or refuses the rest; its line. `stop` marks an `if` of the
/// next option's chain, where the branch's own code ends.
pub(crate) fn members(
    p: &Parsed<'_>,
    body: Node<'_>,
    stop: impl Fn(Node<'_>) -> bool,
) -> Option<(Vec<String>, bool, usize)> {
    for &n in p.subtree(body) {
        if n.kind_name() != "if_statement" || n == body {
            continue;
        }
        if stop(n) {
            break;
        }
        if p.parent(n).is_some_and(|up| up.kind_name() == "else_clause") {
            continue;
        }
        let Some((mut words, closed)) = chain_words(n, p.src) else { continue };
        let mut seen = rustc_hash::FxHashSet::default();
        words.retain(|w| seen.insert(w.clone()));
        if words.len() >= 2 || (closed && !words.is_empty()) {
            return Some((words, closed, line(n)));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::cpp::parsed::parse;
    use crate::extract::cpp::SourceFile;

    fn read(src: &str) -> Option<(Vec<String>, bool, usize)> {
        let file = SourceFile::new("x.cpp", src);
        let tree = parse(&file).expect("parses");
        let p = Parsed::new(&file, &tree);
        let body = p.nodes().find(|n| {
            n.kind_name() == "compound_statement" && p.parent(*n).is_some_and(|u| u.kind_name() == "if_statement")
        })?;
        members(&p, body, |_| false)
    }

    /// The shapes of a chain-era branch, each ending in a refusal or not.
    #[test]
    fn a_branch_chain_over_its_value_gives_its_members() {
        let flagged =
            "void f() { if (a == \"--m\") { std::string v(argv[i]);\n if (v == \"x\" || v == \"\") { m = 1; }\n \
                       else if (v == \"y\") { m = 2; }\n else { invalid_param = true; break; } } }\n";
        assert_eq!(read(flagged), Some((vec!["x".into(), "".into(), "y".into()], true, 2)));
        let strcmp = "void f() { if (a == \"--f\") { if (std::strcmp(argv[i], \"json\") == 0) { j = true; } \
                      else if (!strcmp(argv[i], \"text\")) { j = false; } else { throw std::invalid_argument(\"f\"); } } }\n";
        assert_eq!(read(strcmp), Some((vec!["json".into(), "text".into()], true, 1)));
        let open = "void f() { if (a == \"--n\") { if (v == \"auto\") { n = -1; } else if (v == \"all\") { n = 9; } \
                    else { n = std::stoi(v); } } }\n";
        assert_eq!(read(open), Some((vec!["auto".into(), "all".into()], false, 1)), "falls through to a number");
        let mixed = "void f() { if (a == \"--q\") { if (v == \"a\") { q = 1; } else if (w == \"b\") { q = 2; } \
                     else { bad = true; } } }\n";
        assert_eq!(read(mixed), None, "two subjects are not one value's members");
        let quiet =
            "void f() { if (a == \"--s\") { if (++i >= argc) { invalid_param = true; break; } s = argv[i]; } }\n";
        assert_eq!(read(quiet), None, "a bounds check compares no word");
    }
}
