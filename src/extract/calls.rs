//! Builder calls: `add_flag("--x", "N", "help").set_default("0").set_env("X")`,
//! `cli.add<int>("--x", 2048)`, `opts.option("--x").describe("...")`.
//!
//! A call declares a flag when a flag literal is one of its arguments and the
//! call either reads like a declaration or carries more than the name (other
//! arguments, chained setters). Look-ups such as `args.get("--x")` do not.

use tree_sitter::Node;

use super::cst::KindName;

use super::candidate::{Candidate, HelpArg};
use super::cst::{self, call_args, call_name, call_template_args, chained_calls, line, string_value, text};
use super::handler::{self, Code};
use super::parsed::Parsed;
use super::roles::{kind_of_call_name, kind_of_ident, looks, role_of_name, Looks, Role};
use crate::catalog::model::{Kind, MembersFrom};

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
        if !args.iter().any(names_a_flag) {
            continue;
        }
        if let Some(c) = call_candidate(p, node, name, &args, file, code) {
            out.push(c);
        }
    }
    out
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

/// The struct field a bound argument names: `o.port`, `&c.threads`, `cfg->x`.
fn bound_field(mut n: Node<'_>, src: &str) -> Option<String> {
    loop {
        match n.kind_name() {
            "field_expression" => return n.child_by_field_name("field").map(|f| text(f, src).to_string()),
            "pointer_expression" => n = n.child_by_field_name("argument")?,
            _ => return None,
        }
    }
}

/// One link of an option list built with call operators:
/// `desc.add_options()("help,h", "…")("threads,t", value<int>()->default_value(4), "…")`.
/// Each link names an option without dashes (`long` or `long,s`), then
/// optionally a value semantic, then the help.
fn operator_link(p: &Parsed<'_>, call: Node<'_>) -> Option<Candidate> {
    let function = call.child_by_field_name("function")?;
    if function.kind_name() != "call_expression" {
        return None;
    }
    // The chain must hold at least two named links, or start from a call
    // that says it adds options, so that `f()(x, y)` alone is not a flag.
    let mut links = 0;
    let mut root = call;
    while let Some(f) = root.child_by_field_name("function").filter(|f| f.kind_name() == "call_expression") {
        if call_args(root).first().and_then(|a| string_value(*a, p.src)).is_some_and(|s| option_name(&s).is_some()) {
            links += 1;
        }
        root = f;
    }
    let root_says_options = call_name(root, p.src).is_some_and(|n| n.to_ascii_lowercase().contains("option"));
    let parent_is_link = p.parent(call).is_some_and(|g| {
        g.kind_name() == "call_expression"
            && g.child_by_field_name("function") == Some(call)
            && call_args(g).first().and_then(|a| string_value(*a, p.src)).is_some_and(|s| option_name(&s).is_some())
    });
    if links + usize::from(parent_is_link) < 2 && !root_says_options {
        return None;
    }
    let args = call_args(call);
    let first = args.first()?;
    let (long, short) = option_name(&string_value(*first, p.src)?)?;
    if args.len() < 2 {
        return None;
    }
    let mut c = Candidate { name: format!("--{long}"), line: line(*first), ..Candidate::default() };
    if let Some(s) = short {
        c.aliases.push(format!("-{s}"));
    }
    let mut semantic = false;
    for a in &args[1..] {
        if let Some(s) = string_value(*a, p.src) {
            if c.help.is_none() {
                c.help = Some(s);
            }
            continue;
        }
        if a.kind_name() == "call_expression" {
            semantic = true;
            let root = cst::chain_root(*a);
            if let Some(t) = call_template_args(root, p.src) {
                c.kind = kind_of_ident(t.trim_matches(['<', '>']).trim());
            }
            if let Some(name) = call_name(root, p.src) {
                c.kind = c.kind.or(kind_of_call_name(name));
            }
            if let Some(field) = call_args(root).first().and_then(|b| bound_field(*b, p.src)) {
                c.field = Some(field);
            }
            for setter in chained_calls(p, root) {
                apply_setter(p, setter, &mut c, None);
            }
        }
    }
    c.takes_value = Some(semantic && c.kind != Some(Kind::Switch));
    if !semantic {
        c.kind = Some(Kind::Switch);
    }
    Some(c)
}

/// `threads,t` → (`threads`, `t`); `cache-type` → (`cache-type`, none).
fn option_name(s: &str) -> Option<(String, Option<String>)> {
    let (long, short) = match s.split_once(',') {
        Some((l, sh)) => (l, Some(sh)),
        None => (s, None),
    };
    let word = |w: &str| {
        w.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
            && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    };
    if long.len() < 2 || !word(long) || short.is_some_and(|sh| sh.chars().count() != 1 || !word(sh)) {
        return None;
    }
    Some((long.to_string(), short.map(str::to_string)))
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

/// A help text chosen by a ternary (`ex == X ? "…" : "…"`): the general
/// (else) branch, the one most binaries print.
fn chosen_text(mut n: Node<'_>, src: &str) -> Option<String> {
    loop {
        if n.kind_name() != "conditional_expression" {
            return None;
        }
        let alt = n.child_by_field_name("alternative")?;
        if let Some(s) = string_value(alt, src) {
            return Some(s);
        }
        n = alt;
    }
}

/// The help a format call builds: its format string (`format("… %d", x)`)
/// and what stands for each placeholder.
fn format_help(n: Node<'_>, src: &str) -> Option<(String, Vec<HelpArg>)> {
    if n.kind_name() != "call_expression" {
        return None;
    }
    let name = call_name(n, src)?.to_ascii_lowercase();
    if !(name.contains("format") || name.contains("printf") || name == "str" || name.ends_with("_str")) {
        return None;
    }
    let mut args = call_args(n).into_iter();
    let first = args.next()?;
    let fmt = string_value(first, src)
        .or_else(|| chosen_text(first, src))
        .or_else(|| cst::preorder(first).into_iter().find_map(|c| string_value(c, src)))?;
    Some((fmt, args.map(|a| help_arg(a, src)).collect()))
}

/// What a format argument stands for: a field of the settings (whose
/// initialiser is the default), a literal, or a choice on a field.
fn help_arg(n: Node<'_>, src: &str) -> HelpArg {
    help_arg_within(n, src, 64)
}

/// [`help_arg`], reading at most `depth` nested casts, calls and choices.
fn help_arg_within(n: Node<'_>, src: &str, depth: usize) -> HelpArg {
    let Some(depth) = depth.checked_sub(1) else { return HelpArg::Unknown };
    let help_arg = |n: Node<'_>, src: &str| help_arg_within(n, src, depth);
    if let Some(s) = string_value(n, src) {
        return HelpArg::Text(s);
    }
    match n.kind_name() {
        "number_literal" => HelpArg::Text(text(n, src).to_string()),
        "field_expression" => match n.child_by_field_name("field").map(|f| text(f, src)) {
            // `params.x.c_str()`'s inner field is reached through the call.
            Some(f) => HelpArg::Field(f.to_string()),
            None => HelpArg::Unknown,
        },
        "cast_expression" | "parenthesized_expression" => n
            .child_by_field_name("value")
            .or_else(|| n.named_child(u32::try_from(n.named_child_count().saturating_sub(1)).unwrap_or(0)))
            .map_or(HelpArg::Unknown, |v| help_arg(v, src)),
        "call_expression" => {
            // `params.hostname.c_str()`: the field.
            let object = n
                .child_by_field_name("function")
                .filter(|f| f.kind_name() == "field_expression")
                .and_then(|f| f.child_by_field_name("argument"));
            match object {
                Some(o) if matches!(call_name(n, src), Some("c_str" | "data" | "str")) => help_arg(o, src),
                _ => HelpArg::Unknown,
            }
        }
        "conditional_expression" => {
            let cond = n.child_by_field_name("condition").map(|c| help_arg(c, src));
            let yes = n.child_by_field_name("consequence").and_then(|c| string_value(c, src));
            let no = n.child_by_field_name("alternative").and_then(|c| string_value(c, src));
            match (cond, yes, no) {
                (Some(HelpArg::Field(f)), Some(yes), Some(no)) => HelpArg::Choice { field: f, yes, no },
                _ => HelpArg::Unknown,
            }
        }
        _ => HelpArg::Unknown,
    }
}

fn call_candidate(
    p: &Parsed<'_>,
    call: Node<'_>,
    name: &str,
    args: &[Node<'_>],
    file: usize,
    code: &Code<'_>,
) -> Option<Candidate> {
    let mut c = Candidate::default();
    let mut pending = Vec::new();
    let mut evidence = 0usize;
    let mut lists = 0usize;
    // Right after the names, a one-word string is the value hint (`"N"`, `"n0,n1,..."`).
    let mut after_names = false;
    for a in args {
        let hint_slot = std::mem::take(&mut after_names);
        if let Some(names) = flag_list(*a, p.src, declaring(name)) {
            lists += 1;
            if lists == 2 && !c.name.is_empty() {
                // A second list of names: the spellings that turn it off.
                c.negated.extend(names);
                evidence += 1;
                continue;
            }
            // The first long name is the name; only single-dash ones: the first.
            let first_long = names.iter().position(|n| looks(n) == Looks::Flag).unwrap_or(0);
            for (i, n) in names.into_iter().enumerate() {
                if c.name.is_empty() && i == first_long {
                    c.name = n;
                    c.line = line(*a);
                } else if !c.aliases.contains(&n) {
                    c.aliases.push(n);
                }
            }
            after_names = true;
            evidence += 1;
            continue;
        }
        if let Some((fmt, fmt_args)) = format_help(*a, p.src) {
            if c.help.is_none() {
                c.help = Some(fmt);
                c.help_args = fmt_args;
                evidence += 1;
            }
            continue;
        }
        if let Some(help) = chosen_text(*a, p.src) {
            if c.help.is_none() {
                c.help = Some(help);
                evidence += 1;
            }
            continue;
        }
        if a.kind_name() == "lambda_expression" {
            let h = handler::read(p, file, *a, code);
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
            evidence += 1;
            continue;
        }
        if let Some(s) = string_value(*a, p.src) {
            if hint_slot && lists > 0 && c.metavar.is_none() && args.len() >= 3 && looks(&s) == Looks::Value {
                c.metavar = Some(s);
                evidence += 1;
                continue;
            }
            if let Some(names) = spellings(&s) {
                for n in names {
                    if c.name.is_empty() && looks(&n) == Looks::Flag {
                        c.name = n;
                        c.line = line(*a);
                    } else if !c.aliases.contains(&n) {
                        c.aliases.push(n);
                    }
                }
                continue;
            }
            match looks(&s) {
                Looks::Flag => {
                    let s = s.trim_end_matches('=').to_string();
                    if c.name.is_empty() {
                        c.name = s;
                        c.line = line(*a);
                    } else {
                        c.aliases.push(s);
                    }
                }
                Looks::Short => c.aliases.push(s),
                Looks::Prose if c.help.is_none() => {
                    c.help = Some(s);
                    evidence += 1;
                }
                Looks::Metavar if c.metavar.is_none() => {
                    c.metavar = Some(s);
                    evidence += 1;
                }
                // A second value hint (`"START", "END"`).
                Looks::Metavar if c.arity.is_none() && c.help.is_none() => {
                    if let Some(m) = c.metavar.as_mut() {
                        m.push(' ');
                        m.push_str(&s);
                    }
                    evidence += 1;
                }
                _ => {
                    pending.push(s);
                    evidence += 1;
                }
            }
            continue;
        }
        match a.kind_name() {
            "number_literal" => {
                c.default = Some(text(*a, p.src).to_string());
                evidence += 1;
            }
            "true" | "false" => {
                c.default = Some(text(*a, p.src).to_string());
                c.kind = c.kind.or(Some(Kind::Switch));
                evidence += 1;
            }
            "qualified_identifier" => {
                if let Some(k) = kind_of_ident(text(*a, p.src)) {
                    c.kind = Some(k);
                    evidence += 1;
                }
            }
            // The variable the value is stored in: its type is the kind.
            "field_expression" | "pointer_expression" if c.field.is_none() => {
                c.field = bound_field(*a, p.src);
            }
            _ => {}
        }
    }
    if let Some(t) = call_template_args(call, p.src) {
        if let Some(k) = kind_of_ident(t.trim_matches(['<', '>']).trim()) {
            c.kind = Some(k);
            evidence += 1;
        }
    }
    if let Some(k) = kind_of_call_name(name) {
        c.kind = c.kind.or(Some(k));
    }
    for setter in chained_calls(p, call) {
        if apply_setter(p, setter, &mut c, Some(code)) {
            evidence += 1;
        }
    }
    if c.name.is_empty() || (!declaring(name) && evidence == 0) {
        return None;
    }
    let takes_value = c.takes_value;
    c.fill_slots(pending);
    // A handler's parameters say it more surely than the slots.
    if takes_value.is_some() {
        c.takes_value = takes_value;
    }
    Some(c)
}

/// Applies one chained setter; returns whether it said anything.
fn apply_setter(p: &Parsed<'_>, setter: Node<'_>, c: &mut Candidate, code: Option<&Code<'_>>) -> bool {
    let Some(name) = call_name(setter, p.src) else { return false };
    let args = call_args(setter);
    let strings: Vec<String> = args.iter().filter_map(|a| string_value(*a, p.src)).collect();
    let first_value = args.first().map(|a| {
        string_value(*a, p.src).unwrap_or_else(|| {
            let t = text(*a, p.src);
            // `1.0f`, `4u`: the number, not its C++ suffix.
            if a.kind_name() == "number_literal" { t.trim_end_matches(['f', 'F', 'u', 'U', 'l', 'L']) } else { t }
                .to_string()
        })
    });
    match role_of_name(name) {
        Some(Role::Metavar) => c.metavar = first_value,
        Some(Role::Default) => {
            c.default = first_value;
            if args.first().is_some_and(|a| matches!(a.kind_name(), "true" | "false")) {
                c.kind = c.kind.or(Some(Kind::Switch));
            }
        }
        Some(Role::Help) => c.help = strings.first().cloned(),
        Some(Role::Alias) => c.aliases.extend(strings),
        Some(Role::Kind) => c.kind = first_value.as_deref().and_then(kind_of_ident),
        Some(Role::Members) => {
            let mut members = strings;
            if members.is_empty() {
                // choices({"a", "b"})
                for a in &args {
                    let mut cursor = a.walk();
                    members.extend(a.named_children(&mut cursor).filter_map(|n| string_value(n, p.src)));
                }
            }
            if members.len() >= 2 {
                c.members = Some((
                    members,
                    MembersFrom { origin: "declared-choices".into(), location: p.loc(line(setter)), closed: true },
                ));
            }
        }
        Some(Role::Env) => c.env.extend(strings),
        Some(Role::Scopes) => c.scopes.extend(identifiers(p, setter, code)),
        Some(Role::Excludes) => c.excludes.extend(identifiers(p, setter, code)),
        Some(Role::Name) => {}
        None => match kind_of_call_name(name) {
            Some(k) => c.kind = Some(k),
            None => match member_check(p, setter) {
                // `->check(IsMember({"a", "b"}))`: a check that refuses other words.
                Some(members) => {
                    c.members = Some((
                        members,
                        MembersFrom { origin: "declared-choices".into(), location: p.loc(line(setter)), closed: true },
                    ))
                }
                None => return false,
            },
        },
    }
    true
}

/// The words a check call admits: a nested call named like a membership test
/// (`IsMember`, `one_of`, `choices`, `in_set`) over a list of string literals.
fn member_check(p: &Parsed<'_>, setter: Node<'_>) -> Option<Vec<String>> {
    for n in cst::preorder(setter) {
        if n == setter || n.kind_name() != "call_expression" {
            continue;
        }
        let name = call_name(n, p.src)?.to_ascii_lowercase().replace('_', "");
        if !["ismember", "oneof", "choices", "inset", "member", "allowed"].iter().any(|w| name.contains(w)) {
            continue;
        }
        let words: Vec<String> = cst::preorder(n).into_iter().filter_map(|s| string_value(s, p.src)).collect();
        if words.len() >= 2 {
            return Some(words);
        }
    }
    None
}

/// The identifiers a setter lists: `set_examples({LLAMA_EXAMPLE_SERVER, …})`,
/// or those of a list it names (`set_examples(mmproj_examples)`).
fn identifiers(p: &Parsed<'_>, setter: Node<'_>, code: Option<&Code<'_>>) -> Vec<String> {
    let Some(args) = setter.child_by_field_name("arguments") else { return Vec::new() };
    let mut out = Vec::new();
    for n in cst::preorder(args) {
        if !matches!(n.kind_name(), "identifier" | "qualified_identifier")
            || p.parent(n).is_some_and(|up| up.kind_name() == "qualified_identifier")
        {
            continue;
        }
        let name = text(n, p.src);
        let listed = (p.parent(n) == Some(args)).then(|| code.and_then(|c| c.table_identifiers(name))).flatten();
        match listed {
            Some(list) => out.extend(list),
            None => out.push(name.to_string()),
        }
    }
    out
}
