//! Parse chains: `if (arg == "--x" || arg == "-x") { ... } else if (...)`,
//! `strcmp(argv[i], "--x") == 0`, `arg.rfind("--x=", 0) == 0`.
//!
//! The flag literals compared in one condition are one flag (the first long
//! one is its name, else the first short one); the branch body says whether
//! it takes a value and how the value is parsed.

use tree_sitter::Node;

use super::node_kind::KindName;

use super::candidate::Candidate;
use super::chain_values;
use super::cst::{self, call_name, line, string_value, text};
use super::parsed::Parsed;
use super::roles::{looks, Looks};
use crate::catalog::model::{Kind, MembersFrom};

/// Functions that compare a string against a literal.
fn is_compare_call(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "strcmp"
            | "strncmp"
            | "strcasecmp"
            | "_stricmp"
            | "stricmp"
            | "compare"
            | "equals"
            | "eq"
            | "streq"
            | "starts_with"
            | "startswith"
            | "rfind"
            | "find"
            | "match"
            | "matches"
            | "is"
            | "equal"
            | "iequals"
            | "has_prefix"
            | "str_eq"
            | "arg_is"
            | "is_flag"
            | "is_arg"
    )
}

/// True when a flag literal sits in a comparison.
fn in_comparison(p: &Parsed<'_>, lit: Node<'_>) -> bool {
    let src = p.src;
    let Some(parent) = p.parent(lit) else { return false };
    match parent.kind_name() {
        "binary_expression" => {
            parent.child_by_field_name("operator").is_some_and(|op| matches!(text(op, src), "==" | "!="))
        }
        "argument_list" => p
            .parent(parent)
            .filter(|c| c.kind_name() == "call_expression")
            .and_then(|c| call_name(c, src))
            .is_some_and(is_compare_call),
        _ => false,
    }
}

pub(crate) fn candidates(p: &Parsed<'_>) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    let mut seen_ifs = rustc_hash::FxHashSet::default();
    let mut owners = rustc_hash::FxHashMap::default();
    for node in p.nodes() {
        if !cst::is_string(node) {
            continue;
        }
        let Some(value) = string_value(node, p.src) else { continue };
        if !matches!(looks(&value), Looks::Flag | Looks::Short) || !in_comparison(p, node) {
            continue;
        }
        let Some(stmt) = condition_owner(p, node, &mut owners) else { continue };
        if !seen_ifs.insert(stmt.id()) {
            continue;
        }
        let Some(cond) = stmt.child_by_field_name("condition") else { continue };
        let mut c = Candidate { rank: 1, line: line(node), ..Candidate::default() };
        // The spellings taken so far: one condition may hold thousands.
        let mut spelled = rustc_hash::FxHashSet::default();
        for &n in p.subtree(cond) {
            if !cst::is_string(n) || !in_comparison(p, n) {
                continue;
            }
            let Some(s) = string_value(n, p.src) else { continue };
            match looks(&s) {
                Looks::Flag => {
                    let s = s.trim_end_matches('=').to_string();
                    if c.name.is_empty() {
                        spelled.insert(s.clone());
                        c.name = s;
                    } else if spelled.insert(s.clone()) {
                        c.aliases.push(s);
                    }
                }
                Looks::Short => c.aliases.push(s),
                _ => {}
            }
        }
        // Only single-dash spellings (`-npp`): the first is the name.
        if c.name.is_empty() && !c.aliases.is_empty() {
            c.name = c.aliases.remove(0);
        }
        if c.name.is_empty() {
            continue;
        }
        if let Some(body) = stmt.child_by_field_name("consequence").or_else(|| stmt.child_by_field_name("body")) {
            read_body(p, body, &mut c);
        }
        out.push(c);
    }
    out
}

/// The `if` whose condition holds the literal. Every node climbed through
/// has the same answer as the literal (it is inside that condition or it is
/// not), so `known` remembers each climb: the literals of one long `||`
/// chain are climbed once in all, not once each.
fn condition_owner<'t>(
    p: &Parsed<'t>,
    lit: Node<'t>,
    known: &mut rustc_hash::FxHashMap<usize, Option<Node<'t>>>,
) -> Option<Node<'t>> {
    let mut path = Vec::new();
    let mut cur = lit;
    let owner = loop {
        if let Some(found) = known.get(&cur.id()) {
            break *found;
        }
        path.push(cur.id());
        let Some(parent) = p.parent(cur) else { break None };
        if parent.kind_name() == "if_statement" {
            let cond = parent.child_by_field_name("condition");
            break cond
                .filter(|c| c.start_byte() <= cur.start_byte() && cur.end_byte() <= c.end_byte())
                .map(|_| parent);
        }
        if matches!(parent.kind_name(), "compound_statement" | "function_definition" | "translation_unit") {
            break None;
        }
        cur = parent;
    };
    for id in path {
        known.insert(id, owner);
    }
    owner
}

/// Reads a branch body: does it consume a value, and how is it parsed?
fn read_body(p: &Parsed<'_>, body: Node<'_>, c: &mut Candidate) {
    let mut int = false;
    let mut float = false;
    let mut auto = false;
    let mut consumes = false;
    let mut sets_true = false;
    let mut sets_constant = false;
    // Read up to the first nested if-chain only: in `if (…) { if (…) { … } }`
    // nested 20,000 deep, each body is read to its inner `if`, not through.
    for &n in p.subtree(body) {
        match n.kind_name() {
            // a nested if-chain belongs to its own flags
            "if_statement" if n != body && has_flag_comparison(p, n) => break,
            "call_expression" => {
                let name = call_name(n, p.src).unwrap_or("").to_ascii_lowercase();
                match name.as_str() {
                    "stoi" | "stol" | "stoll" | "stoul" | "stoull" | "atoi" | "atol" | "atoll" | "strtol"
                    | "strtoul" | "strtoll" | "strtoull" | "from_chars" | "parse_int" | "to_int" | "parse_uint"
                    | "parse_positive" | "parse_size" | "parse_count" => int = true,
                    "stof" | "stod" | "stold" | "atof" | "strtod" | "strtof" | "parse_float" | "parse_double"
                    | "to_double" | "to_float" => float = true,
                    _ => {}
                }
                if name.contains("need")
                    || name.contains("next")
                    || name.contains("value")
                    || name.contains("take")
                    || name.contains("require")
                    || name.contains("arg")
                {
                    consumes = true;
                }
            }
            "update_expression" | "subscript_expression" if p.holds_increment(n) => consumes = true,
            "string_literal" if string_value(n, p.src).as_deref() == Some("auto") => auto = true,
            // A value read through a macro or helper: `ARGV_NEXT`, `optarg`.
            "identifier" => {
                let id = text(n, p.src).to_ascii_lowercase();
                if id.contains("next") || id.contains("optarg") || id.contains("need") {
                    consumes = true;
                }
            }
            "assignment_expression" => {
                // In `a = b = … = v` every assignment gets `v`: it is judged
                // at the innermost one, which the walk reaches next (following
                // the chain from each of 8,000 links took 7 s).
                let right = n.child_by_field_name("right");
                // A constant (`= true`, `= 0`, `= "fast"`) sets; anything else
                // (`= ARGV_NEXT`, `= argv[++i]`) reads a value.
                match right.map(|r| r.kind_name()) {
                    Some("assignment_expression") => {}
                    Some("true") => sets_true = true,
                    Some("false" | "number_literal" | "string_literal" | "null" | "char_literal") => {
                        sets_constant = true
                    }
                    None => {}
                    Some(_) => consumes = true,
                }
                if c.field.is_none() {
                    c.field = n
                        .child_by_field_name("left")
                        .filter(|l| l.kind_name() == "field_expression")
                        .and_then(|l| l.child_by_field_name("field"))
                        .map(|f| text(f, p.src).to_string());
                }
            }
            _ => {}
        }
    }
    c.evidence = if auto && int {
        Some(Kind::AutoOrInt)
    } else if float {
        Some(Kind::Float)
    } else if int {
        Some(Kind::Int)
    } else if (sets_true || sets_constant) && !consumes {
        // The branch sets a constant and reads no word: the parser's own
        // word that the option is a switch (`params.verbosity = 1`), over
        // any default or help of another shape.
        Some(Kind::Switch)
    } else {
        None
    };
    c.takes_value = Some(consumes || int || float);
    // An if-chain over the value inside the branch: its words, closed when
    // its last `else` refuses (`invalid_param = true`).
    if consumes {
        if let Some((words, closed, at)) = chain_values::members(p, body, |n| has_flag_comparison(p, n)) {
            let from = MembersFrom { origin: "validator-comparisons".into(), location: p.loc(at), closed };
            c.members = Some((words, from));
        }
    }
}

fn has_flag_comparison(p: &Parsed<'_>, stmt: Node<'_>) -> bool {
    let Some(cond) = stmt.child_by_field_name("condition") else { return false };
    p.subtree(cond).iter().any(|&n| {
        cst::is_string(n)
            && string_value(n, p.src).is_some_and(|s| matches!(looks(&s), Looks::Flag | Looks::Short))
            && in_comparison(p, n)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::cpp::parsed::parse;
    use crate::extract::cpp::SourceFile;

    /// The file's list of `++` answers as each node's text does.
    #[test]
    fn increments_are_found_as_the_text_holds_them() {
        for src in
            ["int f(char** argv, int i) { return v[v[v[++i]]] + a+++b + c++ + argv[i++][0]; }\n", "int x = 1 + +2;\n"]
        {
            let file = SourceFile::new("core/config.cpp", src);
            let tree = parse(&file).expect("parses");
            let p = Parsed::new(&file, &tree);
            for n in p.nodes() {
                assert_eq!(p.holds_increment(n), text(n, p.src).contains("++"), "{src}: {}", n.kind_name());
            }
        }
    }

    /// Every link of `a = b = … = v` gets `v`: judged once, at the
    /// innermost, the branch reads as it did when each link was followed.
    #[test]
    fn an_assignment_chain_is_judged_by_its_last_value() {
        let src = "void f(std::string a) {\n  if (a == \"--x\") { p.x = q.y = r.z = true; }\n  \
                   if (a == \"--y\") { p.y = q.y = next_arg(); }\n  if (a == \"--z\") { p.z = q.z = 0; }\n}\n";
        let file = SourceFile::new("core/config.cpp", src);
        let tree = parse(&file).expect("parses");
        let p = Parsed::new(&file, &tree);
        let bodies: Vec<Node<'_>> = p
            .nodes()
            .filter(|n| n.kind_name() == "if_statement")
            .filter_map(|n| n.child_by_field_name("consequence"))
            .collect();
        let read: Vec<(Option<Kind>, Option<bool>, Option<String>)> = bodies
            .iter()
            .map(|b| {
                let mut c = Candidate::default();
                read_body(&p, *b, &mut c);
                (c.evidence, c.takes_value, c.field)
            })
            .collect();
        assert_eq!(
            read,
            [
                (Some(Kind::Switch), Some(false), Some("x".to_string())),
                (None, Some(true), Some("y".to_string())),
                // A constant set and no word read: the parser's switch.
                (Some(Kind::Switch), Some(false), Some("z".to_string())),
            ]
        );
    }
}
