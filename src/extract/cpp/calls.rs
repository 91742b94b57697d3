//! Builder calls: `add_flag("--x", "N", "help").set_default("0").set_env("X")`,
//! `cli.add<int>("--x", 2048)`, `opts.option("--x").describe("...")`.
//!
//! A call declares a flag when a flag literal is one of its arguments and the
//! call either reads like a declaration or carries more than the name (other
//! arguments, chained setters). Look-ups such as `args.get("--x")` do not.

use tree_sitter::Node;

use super::candidate::{Candidate, HelpArg};
use super::code::Code;
use super::cst::{bound_field, call_args, call_name, call_template_args, chained_calls, line, string_value, text};
use super::handler;
use super::help_text::{chosen_text, format_help};
use super::node_kind::KindName;
use super::operator_chain::operator_link;
use super::parsed::Parsed;
use super::roles::{kind_of_call_name, kind_of_ident, looks, Looks};
use super::setters::apply_setter;
use crate::catalog::model::Kind;

/// Call names that read or test a flag rather than declare it.
fn is_lookup(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    const LOOKUPS: &[&str] = &[
        "get",
        "has",
        "count",
        "find",
        "contains",
        "value",
        "at",
        "lookup",
        "isset",
        "is_set",
        "present",
        "exists",
        "erase",
        "remove",
        "compare",
        "starts_with",
        "startswith",
        "ends_with",
        "rfind",
        "strcmp",
        "strncmp",
        "strcasecmp",
        "equals",
        "eq",
        "streq",
        "matches",
        "match",
        "printf",
        "fprintf",
        "snprintf",
        "sprintf",
        "puts",
        "fputs",
        "format",
        "print",
        "println",
        "log",
        "warn",
        "error",
        "fail",
        "die",
        "reject",
        "throw",
        "string",
        "basic_string",
        "string_view",
        "push_back",
        "emplace_back",
        "append",
        "insert",
        "emplace",
        "operator[]",
        "get_int",
        "get_string",
        "get_bool",
        "get_float",
        "get_double",
        "value_of",
        "option_value",
        "require",
        "need",
        "expect",
    ];
    LOOKUPS.contains(&n.as_str()) || n.starts_with("get_") || n.starts_with("is_") || n.starts_with("has_")
}

pub(crate) fn candidates(p: &Parsed<'_>, file: usize, code: &Code<'_>) -> Vec<Candidate> {
    let mut out = Vec::new();
    for node in p.nodes() {
        if node.kind_name() != "call_expression" {
            continue;
        }
        if let Some(c) = operator_link(p, node) {
            out.push(c);
            continue;
        }
        let Some(name) = call_name(node, p.src) else { continue };
        if is_lookup(name) {
            continue;
        }
        let args = call_args(node);
        let declares = declaring(name);
        let names_a_flag = |a: &Node<'_>| {
            string_value(*a, p.src).is_some_and(|s| looks(&s) == Looks::Flag || spellings(&s).is_some())
                || flag_list(*a, p.src, declares).is_some()
        };
        if !args.iter().any(names_a_flag) || in_handler(p, node) {
            continue;
        }
        if let Some(c) = call_candidate(p, node, name, &args, file, code) {
            out.push(c);
        }
    }
    out
}

/// True when `call` is inside the handler of a declaration: a lambda given
/// to a call that names a flag (`add_opt(llama_arg({"--log-file"}, …,
/// [](gpt_params &, const std::string & value) { log_param_pair_parse(false,
/// "--log-file", value); }))`). What it calls with the flag's name uses
/// the option; it declares none (its `false` is no default).
fn in_handler(p: &Parsed<'_>, call: Node<'_>) -> bool {
    let mut cur = call;
    while let Some(parent) = p.parent(cur) {
        if cur.kind_name() == "lambda_expression" && parent.kind_name() == "argument_list" {
            let names = |a: &Node<'_>| {
                string_value(*a, p.src).is_some_and(|s| looks(&s) == Looks::Flag)
                    || flag_list(*a, p.src, true).is_some()
            };
            return p.parent(parent).is_some_and(|outer| call_args(outer).iter().any(names));
        }
        if parent.kind_name() == "function_definition" {
            return false;
        }
        cur = parent;
    }
    false
}

/// `"--port,-p"`: several spellings in one literal (at least one long).
fn spellings(s: &str) -> Option<Vec<String>> {
    if !s.contains(',') {
        return None;
    }
    let names: Vec<String> = s.split(',').map(|p| p.trim().to_string()).collect();
    let all_flags = names.iter().all(|n| matches!(looks(n), Looks::Flag | Looks::Short));
    (all_flags && names.iter().any(|n| looks(n) == Looks::Flag)).then_some(names)
}

/// A call name that reads like declaring an option (`add_flag`, `common_arg`).
fn declaring(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    ["add", "flag", "opt", "arg", "def", "decl", "reg", "param", "knob", "switch"].iter().any(|w| n.contains(w))
}

/// `{"-t", "--threads"}`: an initializer list of flag names — at least one
/// long, or only single-dash ones (`{"-npp"}`) in a declaring call.
fn flag_list(n: Node<'_>, src: &str, declaring: bool) -> Option<Vec<String>> {
    if n.kind_name() != "initializer_list" {
        return None;
    }
    let mut cursor = n.walk();
    let names: Vec<String> = n
        .named_children(&mut cursor)
        .filter(|c| c.kind_name() != "comment")
        .map(|c| string_value(c, src))
        .collect::<Option<_>>()?;
    let all_flags = !names.is_empty() && names.iter().all(|s| matches!(looks(s), Looks::Flag | Looks::Short));
    (all_flags && (declaring || names.iter().any(|s| looks(s) == Looks::Flag))).then_some(names)
}

/// Reads one declaring call's arguments, then its template argument, its
/// name and its chained setters, into a candidate.
fn call_candidate(
    p: &Parsed<'_>,
    call: Node<'_>,
    name: &str,
    args: &[Node<'_>],
    file: usize,
    code: &Code<'_>,
) -> Option<Candidate> {
    let mut r = Reading::default();
    // Right after the names, a one-word string is the value hint (`"N"`, `"n0,n1,..."`).
    let mut after_names = false;
    for a in args {
        let hint_slot = std::mem::take(&mut after_names);
        if let Some(names) = flag_list(*a, p.src, declaring(name)) {
            after_names = r.names(names, *a);
        } else if let Some((fmt, fmt_args)) = format_help(*a, p.src) {
            r.help(fmt, fmt_args);
        } else if let Some(help) = chosen_text(*a, p.src) {
            r.help(help, Vec::new());
        } else if a.kind_name() == "lambda_expression" {
            r.handler(handler::read(p, file, *a, code));
        } else if let Some(s) = string_value(*a, p.src) {
            r.string(s, *a, hint_slot && args.len() >= 3);
        } else {
            r.other(*a, p.src);
        }
    }
    r.finish(p, call, name, code)
}

/// What a declaring call's arguments have said so far.
#[derive(Default)]
struct Reading {
    c: Candidate,
    /// Short strings not placed yet: the metavar and default slots, in order.
    pending: Vec<String>,
    /// How many arguments said more than the name.
    evidence: usize,
    /// How many lists of names (`{"-t", "--threads"}`) came.
    lists: usize,
}

impl Reading {
    /// A list of names: the first long one is the name; with only
    /// single-dash ones, the first. A second list is the spellings that turn
    /// the flag off. True when a value hint may follow.
    fn names(&mut self, names: Vec<String>, a: Node<'_>) -> bool {
        let c = &mut self.c;
        self.lists += 1;
        self.evidence += 1;
        if self.lists == 2 && !c.name.is_empty() {
            c.negated.extend(names);
            return false;
        }
        let first_long = names.iter().position(|n| looks(n) == Looks::Flag).unwrap_or(0);
        for (i, n) in names.into_iter().enumerate() {
            if c.name.is_empty() && i == first_long {
                c.name = n;
                c.line = line(a);
            } else if !c.aliases.contains(&n) {
                c.aliases.push(n);
            }
        }
        true
    }

    /// A computed help (a format call, a ternary): the first one counts.
    fn help(&mut self, help: String, args: Vec<HelpArg>) {
        if self.c.help.is_none() {
            self.c.help = Some(help);
            self.c.help_args = args;
            self.evidence += 1;
        }
    }

    /// A lambda that parses the value: what its body shows.
    fn handler(&mut self, h: handler::Handler) {
        let c = &mut self.c;
        c.kind = c.kind.or(h.kind);
        c.evidence = c.evidence.or(h.evidence);
        c.takes_value = Some(h.values > 0 && h.kind != Some(Kind::Switch));
        if h.values > 1 {
            c.arity = u8::try_from(h.values).ok();
        }
        if c.members.is_none() {
            c.members = h.members;
        }
        c.removed = c.removed.take().or(h.removed);
        c.list |= h.list;
        c.scope_known = true;
        self.evidence += 1;
    }

    /// A string literal, by what it looks like; `hint_slot` when it comes
    /// right after the names of a call with at least three arguments.
    fn string(&mut self, s: String, a: Node<'_>, hint_slot: bool) {
        let c = &mut self.c;
        if hint_slot && self.lists > 0 && c.metavar.is_none() && looks(&s) == Looks::Value {
            c.metavar = Some(s);
            self.evidence += 1;
            return;
        }
        if let Some(names) = spellings(&s) {
            for n in names {
                if c.name.is_empty() && looks(&n) == Looks::Flag {
                    c.name = n;
                    c.line = line(a);
                } else if !c.aliases.contains(&n) {
                    c.aliases.push(n);
                }
            }
            return;
        }
        match looks(&s) {
            Looks::Flag => {
                let s = s.trim_end_matches('=').to_string();
                if c.name.is_empty() {
                    c.name = s;
                    c.line = line(a);
                } else {
                    c.aliases.push(s);
                }
            }
            Looks::Short => c.aliases.push(s),
            Looks::Prose if c.help.is_none() => {
                c.help = Some(s);
                self.evidence += 1;
            }
            Looks::Metavar if c.metavar.is_none() => {
                c.metavar = Some(s);
                self.evidence += 1;
            }
            // A second value hint (`"START", "END"`).
            Looks::Metavar if c.arity.is_none() && c.help.is_none() => {
                if let Some(m) = c.metavar.as_mut() {
                    m.push(' ');
                    m.push_str(&s);
                }
                self.evidence += 1;
            }
            _ => {
                self.pending.push(s);
                self.evidence += 1;
            }
        }
    }

    /// Any other argument: a literal default, a kind, the bound field.
    fn other(&mut self, a: Node<'_>, src: &str) {
        let c = &mut self.c;
        match a.kind_name() {
            "number_literal" => {
                c.default = Some(text(a, src).to_string());
                self.evidence += 1;
            }
            "true" | "false" => {
                c.default = Some(text(a, src).to_string());
                c.kind = c.kind.or(Some(Kind::Switch));
                self.evidence += 1;
            }
            "qualified_identifier" => {
                if let Some(k) = kind_of_ident(text(a, src)) {
                    c.kind = Some(k);
                    self.evidence += 1;
                }
            }
            // The variable the value is stored in: its type is the kind.
            "field_expression" | "pointer_expression" if c.field.is_none() => {
                c.field = bound_field(a, src);
            }
            _ => {}
        }
    }

    /// The call's template argument, its name and its setters; then the
    /// candidate, when the call declared one.
    fn finish(mut self, p: &Parsed<'_>, call: Node<'_>, name: &str, code: &Code<'_>) -> Option<Candidate> {
        let c = &mut self.c;
        if let Some(t) = call_template_args(call, p.src) {
            if let Some(k) = kind_of_ident(t.trim_matches(['<', '>']).trim()) {
                c.kind = Some(k);
                self.evidence += 1;
            }
        }
        if let Some(k) = kind_of_call_name(name) {
            c.kind = c.kind.or(Some(k));
        }
        for setter in chained_calls(p, call) {
            if apply_setter(p, setter, c, Some(code)) {
                self.evidence += 1;
            }
        }
        if c.name.is_empty() || (!declaring(name) && self.evidence == 0) {
            return None;
        }
        let mut c = self.c;
        let takes_value = c.takes_value;
        c.fill_slots(self.pending);
        // A handler's parameters say it more surely than the slots.
        if takes_value.is_some() {
            c.takes_value = takes_value;
        }
        Some(c)
    }
}
