//! Reading meaning out of the strings of a C++ source: member lists in a
//! validator's message, usage lines of a help text, default clauses in help.
//!
//! Pure functions on text, kept apart from the syntax tree so they can be
//! tested on tables of phrasings.

use std::sync::LazyLock;

use regex::Regex;

/// True for a flag token: `--name`, optionally with a trailing `=`.
pub fn is_long_flag(s: &str) -> bool {
    static RE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^--[A-Za-z0-9][A-Za-z0-9_.-]*=?$").expect("valid regex"));
    RE.is_match(s)
}

/// True for a short flag token: `-m`, or a single-dash long form as some
/// engines spell them (`-ctk`, `-no-cnv`, `-lr-min`); `-1` is a number, not a flag.
pub fn is_short_flag(s: &str) -> bool {
    let b = s.as_bytes();
    match b {
        [b'-', c] => c.is_ascii_alphabetic(),
        [b'-', first, rest @ ..] => {
            first.is_ascii_alphabetic()
                && rest.len() <= 15
                && rest.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
                && !rest.ends_with(b"-")
                && !rest.windows(2).any(|w| w == b"--")
        }
        _ => false,
    }
}

/// A word that can be an enum member: `tip-only`, `keep_all`, `fp8`.
fn is_member_token(s: &str) -> bool {
    static RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^[a-z0-9][A-Za-z0-9._+-]*$").expect("valid regex"));
    RE.is_match(s) && !s.starts_with("--")
}

fn clean_member(s: &str) -> &str {
    s.trim()
        .trim_end_matches(['.', ',', ':', '!'])
        .trim_matches(|c| matches!(c, '\'' | '"' | '`' | '“' | '”' | '‘' | '’'))
        .trim()
}

/// Splits `a, b, or c` / `a|b|c` / `a / b` into members, or `None` when any
/// piece is not a member-like word or there are fewer than two.
fn split_members(list: &str) -> Option<Vec<String>> {
    static SEP: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\s*(?:,\s*or\s+|,\s*and\s+|,|\|\||\||\s+or\s+|\s+and\s+|\s/\s)\s*").expect("valid regex")
    });
    const TAIL: &[&str] = &["got", "but", "not", "received", "found", "saw", "was", "is", "instead", "given"];
    static TAIL_RE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)[,;]?\s+(?:but|got|received|instead|given|found)\b").expect("valid regex"));
    let list = TAIL_RE.find(list).map_or(list, |m| &list[..m.start()]).trim();
    let mut out = Vec::new();
    for piece in SEP.split(list) {
        let m = clean_member(piece);
        if m.is_empty() {
            continue;
        }
        if !is_member_token(m) {
            // `expected 'a' or 'b', got 'c'`: the list ended before the tail.
            let first = m.split_whitespace().next().unwrap_or("");
            if out.len() >= 2 && TAIL.contains(&first) {
                break;
            }
            return None;
        }
        if !out.iter().any(|x: &String| x == m) {
            out.push(m.to_string());
        }
    }
    (out.len() >= 2).then_some(out)
}

/// Finds the list of accepted members in a validator's message.
///
/// Understands the phrasings real validators use: `a|b|c`, `{a,b,c}`,
/// `[a, b]`, `one of: a, b, c`, `must be a, b or c`, `expected 'a' or 'b'`.
/// Returns the longest list found. `%s`-style placeholders are ignored.
pub fn members_in_message(msg: &str) -> Option<Vec<String>> {
    static BRACKETED: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"[\{\[\(]([^\{\}\[\]\(\)]*)[\}\]\)]").expect("valid regex"));
    static PIPED: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"[A-Za-z0-9'`._+-]+(?:\s*\|\s*[A-Za-z0-9'`._+-]+)+").expect("valid regex"));
    static CUE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)(?:one of|must be(?: either)?|expected|expects|expecting|valid values are|valid values|valid options are|valid options|valid|allowed values|allowed|accepted values|accepts|accepted|supported values|supported|choose from|choices are|choices|options are|either|use)\s*:?\s*",
        )
        .expect("valid regex")
    });
    static END: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[.;()\n\[\]{}]|\s-\s|\s\(").expect("valid regex"));
    let msg = strip_placeholders(msg);
    let mut best: Option<Vec<String>> = None;
    let mut consider = |cand: Option<Vec<String>>| {
        if let Some(c) = cand {
            if best.as_ref().is_none_or(|b| c.len() > b.len()) {
                best = Some(c);
            }
        }
    };
    for cap in BRACKETED.captures_iter(&msg) {
        consider(split_members(&cap[1]));
    }
    for m in PIPED.find_iter(&msg) {
        consider(split_members(m.as_str()));
    }
    for m in CUE.find_iter(&msg) {
        let rest = &msg[m.end()..];
        let end = END.find(rest).map_or(rest.len(), |e| e.start());
        consider(split_members(&rest[..end]));
    }
    best
}

/// Removes printf placeholders and `{}` format holes so they are not read as members.
fn strip_placeholders(msg: &str) -> String {
    static PH: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"%[-+ #0]*[0-9*]*(?:\.[0-9*]+)?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfFgGaAcspn%]|\{\}")
            .expect("valid regex")
    });
    PH.replace_all(msg, "\u{fffd}").into_owned()
}

/// One line of a usage text: `  -m, --model PATH   what it does`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UsageLine {
    pub name: String,
    pub aliases: Vec<String>,
    pub metavar: String,
    pub help: String,
}

/// Parses the flag lines of a usage text, joining indented continuation lines.
pub fn usage_lines(text: &str) -> Vec<UsageLine> {
    // `  -t N,   --threads N   [%-7d] help`: short forms (one or more
    // letters, with a placeholder) before the long one; a placeholder after
    // it; then two spaces or a tab before the help.
    static LINE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"^(\s*)((?:-[A-Za-z0-9][A-Za-z0-9-]*(?:\s+(?:[A-Z][A-Z0-9_]*|<[^>]+>))?,?\s+)*)(--[A-Za-z0-9][A-Za-z0-9_.-]*)(?:(?:=|\s{1,3})((?:<[^>]+>|\[[^\]]+\]|\{[^}]+\}|[A-Za-z0-9_|.,:/-]+)))?(?:\s{2,}|\t+)(\S.*)$",
        )
        .expect("valid regex")
    });
    // The same with one space before a bracketed default: `--x  N [%d] help`.
    static BRACKETED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"^(\s*)((?:-[A-Za-z0-9][A-Za-z0-9-]*(?:\s+(?:[A-Z][A-Z0-9_]*|<[^>]+>))?,?\s+)*)(--[A-Za-z0-9][A-Za-z0-9_.-]*)(?:(?:=|\s{1,3})([A-Z][A-Z0-9_]*|<[^>]+>))?\s(\[.*)$",
        )
        .expect("valid regex")
    });
    // Where the help column overflows, one space may follow a placeholder.
    static TIGHT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"^(\s*)((?:-[A-Za-z0-9],?\s+)*)(--[A-Za-z0-9][A-Za-z0-9_.-]*)[ =](<[^>]+>|[A-Z][A-Z0-9_]*|[A-Za-z0-9-]+(?:\|[A-Za-z0-9-]+)+) (\S.*)$",
        )
        .expect("valid regex")
    });
    // A default printed at run time (`[%-7d]`) or a `[default]` tag.
    // A placeholder aligned far from its flag: `--x        N [%-7d] help`.
    static LATE_METAVAR: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^([A-Z][A-Z0-9_]*|<[^>]+>)\s+(\[.*)$").expect("valid regex"));
    static PRINTF_DEFAULT: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"^\[(?:%[^\]]*|default)\]\s*").expect("valid regex"));
    static SHORTS: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?:^|\s)(-[A-Za-z0-9][A-Za-z0-9-]*)").expect("valid regex"));
    let mut out: Vec<UsageLine> = Vec::new();
    let mut help_col: Option<usize> = None;
    for line in text.lines() {
        let line = line.trim_end();
        if let Some(c) = LINE.captures(line).or_else(|| BRACKETED.captures(line)).or_else(|| TIGHT.captures(line)) {
            let col = c.get(5).map_or(0, |m| line[..m.start()].chars().count());
            help_col = Some(col);
            out.push(UsageLine {
                name: c[3].to_string(),
                aliases: SHORTS.captures_iter(&c[2]).filter_map(|m| m.get(1)).map(|m| m.as_str().to_string()).collect(),
                metavar: c.get(4).map_or(String::new(), |m| m.as_str().to_string()),
                help: c[5].trim().to_string(),
            });
            continue;
        }
        let indent = line.chars().take_while(|c| c.is_whitespace()).count();
        let body = line.trim();
        match (help_col, out.last_mut()) {
            (Some(col), Some(last)) if !body.is_empty() && indent >= col.max(8) && !body.starts_with('-') => {
                last.help.push(' ');
                last.help.push_str(body);
            }
            _ => help_col = None,
        }
    }
    for u in &mut out {
        if u.metavar.is_empty() {
            if let Some(c) = LATE_METAVAR.captures(&u.help) {
                let (m, rest) = (c[1].to_string(), c[2].to_string());
                u.metavar = m;
                u.help = rest;
            }
        }
        u.help = PRINTF_DEFAULT.replace(&u.help, "").into_owned();
    }
    out
}

/// Splits a `(default: X)` clause off a help text: returns the help without
/// it and the default.
pub fn split_default(help: &str) -> (String, Option<String>) {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r#"(?i)\s*[\(\[]\s*(?:default|defaults to|def)\s*[:=]?\s*([^\)\]]*?)\s*[\)\]]\s*$|\s*[;,.]?\s*defaults?(?: to| is|:)\s*([^\s;,]+?)\.?\s*$"#)
            .expect("valid regex")
    });
    match RE.captures(help) {
        Some(c) => {
            let raw = c.get(1).or_else(|| c.get(2)).map_or("", |m| m.as_str());
            // `(default: 4096, 0 = from the model)`: the default is the first
            // value, and the help keeps what else the clause says.
            if let Some((first, _)) = raw.split_once(", ") {
                return (help.to_string(), Some(clean_member(first).to_string()));
            }
            let value = Some(clean_member(raw).to_string());
            let start = c.get(0).map_or(help.len(), |m| m.start());
            (help[..start].trim_end().to_string(), value)
        }
        None => (help.to_string(), None),
    }
}

/// Fills a printf-style format with known values; a placeholder whose value
/// is not known becomes `…` (it is computed at run time).
pub fn fill_format(fmt: &str, values: &[Option<String>]) -> String {
    static SPEC: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"%(%|[-+ #0]*[0-9*]*(?:\.([0-9]+))?(?:hh|h|ll|l|z|j|t|L)?([diouxXeEfFgGaAcsp]))")
            .expect("valid regex")
    });
    let mut out = String::with_capacity(fmt.len());
    let mut next = values.iter();
    let mut last = 0;
    for c in SPEC.captures_iter(fmt) {
        let Some(m) = c.get(0) else { continue };
        out.push_str(&fmt[last..m.start()]);
        last = m.end();
        if &c[1] == "%" {
            out.push('%');
            continue;
        }
        let value = next.next().cloned().flatten();
        let conv = c.get(3).map_or("s", |m| m.as_str());
        let precision = c.get(2).and_then(|p| p.as_str().parse::<usize>().ok());
        let shown = match (value, conv) {
            (None, _) => "…".to_string(),
            (Some(v), "d" | "i" | "u") => v.parse::<f64>().map_or(v.clone(), |n| format!("{}", n.trunc() as i64)),
            (Some(v), "f" | "F") => {
                v.parse::<f64>().map_or(v.clone(), |n| format!("{n:.prec$}", prec = precision.unwrap_or(6)))
            }
            (Some(v), "g" | "G") => v.parse::<f64>().map_or(v.clone(), |n| match precision {
                Some(p) => format!("{n:.p$}"),
                None => format!("{n}"),
            }),
            (Some(v), _) => v,
        };
        out.push_str(&shown);
    }
    out.push_str(&fmt[last..]);
    out
}

/// What `auto` resolves to, read from a help text: the clause after
/// `auto =`, `auto:`, `auto means` or `auto <verb>`.
pub fn auto_meaning(help: &str) -> Option<String> {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)(?:^|[;,(]\s*|\s)`?auto`?\s*(?:=|:|means|resolves to|picks|uses|is)?\s*([a-z(].*)$")
            .expect("valid regex")
    });
    let c = RE.captures(help)?;
    let rest = c.get(1)?.as_str();
    // `auto|N` is a metavar, not a meaning.
    if rest.starts_with('|') {
        return None;
    }
    let text = rest.trim().trim_end_matches(['.', ')']).trim();
    (text.split_whitespace().count() >= 2).then(|| text.to_string())
}

/// Decodes the escapes of a C++ string literal body.
pub fn unescape(body: &str) -> String {
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
            Some('r') => out.push('\r'),
            Some('0') => {}
            Some('\n') | None => {}
            Some(other) => out.push(other),
        }
    }
    out
}

/// `--checkpoint-policy` → `checkpoint_policy`, the spelling a C++ identifier uses.
pub fn flag_ident(flag: &str) -> String {
    flag.trim_start_matches('-').replace('-', "_").to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn member_phrasings() {
        let cases: &[(&str, Option<&[&str]>)] = &[
            ("bad --checkpoint-policy '%s' (geometric-backoff|tip-only)", Some(&["geometric-backoff", "tip-only"])),
            ("--log-level expects {debug,info,warn,error}", Some(&["debug", "info", "warn", "error"])),
            ("--log-level must be debug, info, warn or error", Some(&["debug", "info", "warn", "error"])),
            (
                "unknown policy '%s'; expected one of: geometric-backoff, tip-only, keep-all",
                Some(&["geometric-backoff", "tip-only", "keep-all"]),
            ),
            ("mode must be one of [fast, safe]", Some(&["fast", "safe"])),
            ("expected 'on', 'off', or 'auto' but got {}", Some(&["on", "off", "auto"])),
            ("valid values: a | b | c.", Some(&["a", "b", "c"])),
            ("--busy-prefill-chunk takes auto or a token count", None),
            ("scheduler: expected 'fcfs' or 'priority', got '%s'", Some(&["fcfs", "priority"])),
            ("--checkpoint-interval takes a token count", None),
            ("usage: %s [options]", None),
            ("--prefill-chunk auto|N", None),
            ("config: unknown flag %s (see --help)", None),
        ];
        for (msg, want) in cases {
            let got = members_in_message(msg);
            let want: Option<Vec<String>> = want.map(|w| w.iter().map(|s| s.to_string()).collect());
            assert_eq!(got, want, "message: {msg}");
        }
    }

    #[test]
    fn usage_text_lines() {
        let text = "usage: %s [options]\n\n  -m, --model PATH        model to serve\n  --prefill-chunk auto|N  chunk size;\n                          auto reserves rows\n  -h, --help              print this\n  --port=<n>              port (default: 8000)\n";
        let got = usage_lines(text);
        assert_eq!(got.len(), 4);
        assert_eq!(got[0].name, "--model");
        assert_eq!(got[0].aliases, vec!["-m"]);
        assert_eq!(got[0].metavar, "PATH");
        assert_eq!(got[1].metavar, "auto|N");
        assert_eq!(got[1].help, "chunk size; auto reserves rows");
        assert_eq!(got[2].metavar, "");
        assert_eq!(got[3].metavar, "<n>");
        assert_eq!(got[3].help, "port (default: 8000)");
        let tight = usage_lines("  --checkpoint-slots auto|N total slots\n  --x-y N      fine\n  --quiet quietly\n");
        assert_eq!(tight[0].metavar, "auto|N");
        assert_eq!(tight[0].help, "total slots");
        assert_eq!(tight.len(), 2, "a lower-case word after one space is not a metavar: {tight:?}");
        let wide = usage_lines(concat!(
            "  -w N,      --workers N       [%-7d] worker threads\n",
            "  -nw,       --no-warmup       [%-7s] skip the warmup\n",
            "  -md FILE   --model-dir FILE  [%-7s] where models live\n",
            "  -h,        --help            [default] show this help\n",
            "  -sl N,     --step-limit    N [%-7d] steps per request\n",
        ));
        let got: Vec<(&str, Vec<&str>, &str, &str)> = wide
            .iter()
            .map(|u| {
                (u.name.as_str(), u.aliases.iter().map(String::as_str).collect(), u.metavar.as_str(), u.help.as_str())
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("--workers", vec!["-w"], "N", "worker threads"),
                ("--no-warmup", vec!["-nw"], "", "skip the warmup"),
                ("--model-dir", vec!["-md"], "FILE", "where models live"),
                ("--help", vec!["-h"], "", "show this help"),
                ("--step-limit", vec!["-sl"], "N", "steps per request"),
            ]
        );
    }

    #[test]
    fn formats_are_filled() {
        let v = |s: &str| Some(s.to_string());
        assert_eq!(fill_format("ctx (default: %d)", &[v("4096")]), "ctx (default: 4096)");
        assert_eq!(fill_format("scale (default: %.1f)", &[v("1.0")]), "scale (default: 1.0)");
        assert_eq!(fill_format("host (default: %s)", &[v("127.0.0.1")]), "host (default: 127.0.0.1)");
        assert_eq!(fill_format("p (default: %.2f), q %d%%", &[v("0.9"), None]), "p (default: 0.90), q …%");
        assert_eq!(fill_format("n (default: %d)", &[]), "n (default: …)");
    }

    #[test]
    fn default_clauses() {
        let cases = [
            ("port (default: 8000)", "port", Some("8000")),
            ("slots [default auto]", "slots", Some("auto")),
            ("how many; defaults to 4", "how many", Some("4")),
            ("min ctx for --fit, default: 4096", "min ctx for --fit", Some("4096")),
            ("host (default: 0.0.0.0)", "host", Some("0.0.0.0")),
            ("ctx (default: 4096, 0 = from the model)", "ctx (default: 4096, 0 = from the model)", Some("4096")),
            ("plain help", "plain help", None),
        ];
        for (help, rest, def) in cases {
            let (h, d) = split_default(help);
            assert_eq!(h, rest, "{help}");
            assert_eq!(d.as_deref(), def, "{help}");
        }
    }

    #[test]
    fn auto_meanings() {
        assert_eq!(
            auto_meaning("total slots; auto = policy held() + 1 per --max-num-seqs").as_deref(),
            Some("policy held() + 1 per --max-num-seqs")
        );
        assert_eq!(
            auto_meaning("chunk size; auto reserves 1+spec rows per sequence").as_deref(),
            Some("reserves 1+spec rows per sequence")
        );
        assert_eq!(auto_meaning("total checkpoint slots"), None);
    }

    #[test]
    fn escapes() {
        assert_eq!(unescape(r#"a\n\"b\"\\"#), "a\n\"b\"\\");
    }
}
