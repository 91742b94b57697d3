//! What the parser reads: a source file's text with its macro definitions
//! blanked and `<inttypes.h>` conversions written out, at the same offsets.

/// One source file read from the pinned tree.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Path inside the repository, with `/` separators.
    pub path: String,
    pub text: String,
    /// The text with `#define` lines blanked, as the parser reads it.
    pub(crate) masked: String,
}

impl SourceFile {
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> Self {
        let text = text.into();
        let masked = mask_macros(&text);
        SourceFile { path: path.into(), text, masked }
    }
}

/// Blanks `#define` and `#undef` lines (and their continuations), and the
/// build conditions between the links of an if-chain, keeping every byte
/// offset and line break. A directive between `}` and `else` — a
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
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    fn directive(line: &str) -> Option<&str> {
        line.trim_start().strip_prefix('#').map(str::trim_start)
    }
    // The nearest code line before and after line `i`: not blank, not a
    // directive, not a line comment.
    let code = |i: usize, step: isize| -> Option<&str> {
        let mut j = i as isize + step;
        while j >= 0 && (j as usize) < lines.len() {
            let l = lines[j as usize].trim();
            if !l.is_empty() && !l.starts_with('#') && !l.starts_with("//") {
                return Some(l);
            }
            j += step;
        }
        None
    };
    // `} #ifdef X else if (…) {…} #endif else if …`: a build condition
    // around some links of an if-chain (or the end of one link's body and
    // the links after it). One of its directives sits right before an
    // `else`; all of the condition's directives go, so that both sides are
    // chain links and no `#if` is left without its `#endif`.
    let mut group = vec![None; lines.len()];
    let mut open: Vec<usize> = Vec::new();
    let mut chained = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(d) = directive(line) else { continue };
        let id = if d.starts_with("if") {
            open.push(chained.len());
            chained.push(false);
            open.last().copied()
        } else if d.starts_with("el") {
            open.last().copied()
        } else if d.starts_with("endif") {
            open.pop()
        } else {
            None
        };
        if let Some(g) = id {
            group[i] = Some(g);
            chained[g] |= code(i, -1).is_some_and(|l| l.ends_with(['}', ';']))
                && code(i, 1).is_some_and(|l| l.trim_start_matches(['}', ' ', '\t']).starts_with("else"));
        }
    }
    let statements = statement_macros(&lines);
    let mut out = String::with_capacity(text.len());
    let mut continued = false;
    for (i, line) in lines.iter().enumerate() {
        let directive = directive(line);
        let is_macro = directive.is_some_and(|d| d.starts_with("define") || d.starts_with("undef"));
        let in_chain = group[i].is_some_and(|g| chained[g]);
        let statement = statements.iter().find(|(m, _)| line.trim() == m);
        // A statement macro that advances the index (`++i` in its body)
        // reads the option's value: its use becomes `i++;` in its place, so
        // the branch still reads as one that takes a value.
        if let Some((name, true)) = statement.filter(|(m, _)| m.len() >= 4 && !continued) {
            let at = line.find(name.as_str()).unwrap_or(0);
            for (k, c) in line.char_indices() {
                match c {
                    '\n' | '\r' => out.push(c),
                    _ if (at..at + 4).contains(&k) => out.push(b"i++;"[k - at] as char),
                    _ => out.extend(std::iter::repeat_n(' ', c.len_utf8())),
                }
            }
            continue;
        }
        if is_macro || in_chain || statement.is_some() || continued {
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

/// Object-like macros that stand for whole statements (`#define CHECK_ARG
/// if (++i >= argc) { … }`, a body ending in `}` or `;`): a line that is
/// only such a name, with no `;` after it, is blanked with the definition,
/// since the parser cannot read it as a statement.
fn statement_macros(lines: &[&str]) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(def) = lines[i].trim_start().strip_prefix('#').map(str::trim_start) else {
            i += 1;
            continue;
        };
        let Some(rest) = def.strip_prefix("define") else {
            i += 1;
            continue;
        };
        let mut body = rest.to_string();
        while body.trim_end().ends_with('\\') && i + 1 < lines.len() {
            i += 1;
            body = format!("{} {}", body.trim_end().trim_end_matches('\\'), lines[i]);
        }
        i += 1;
        let rest = body.trim_start();
        let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        let after = &rest[name.len()..];
        if name.is_empty() || !after.starts_with(char::is_whitespace) {
            continue;
        }
        if after.trim_end().ends_with(['}', ';']) {
            out.push((name, after.contains("++")));
        }
    }
    out
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

    #[test]
    fn statement_macros_are_blanked_where_used() {
        let text = "#define NEXT if (++i >= n) { \\\n  return; }\n#define N 4\nif (a) {\n    NEXT\n    x = N;\n}\n";
        let m = mask_macros(text);
        assert_eq!(m.len(), text.len());
        assert!(!m.contains("NEXT"), "{m}");
        assert!(m.contains("x = N;"), "a value macro is kept: {m}");
        // It advances the index: its use reads as doing so, in its place.
        assert!(m.contains("\n    i++;\n"), "{m}");
        let quiet = "#define DONE if (x) { return; }\nif (a) {\n    DONE\n}\n";
        assert!(!mask_macros(quiet).contains("i++"), "one that does not advance is blanked");
    }

    #[test]
    fn build_conditions_between_chain_links_are_blanked() {
        let text = "if (a) {\n}\n#ifdef TLS\nelse if (b) {\n}\n#endif\nelse if (c) {\n}\n#ifdef X\nint y;\n#endif\n";
        let m = mask_macros(text);
        assert_eq!(m.len(), text.len());
        assert_eq!(m.matches('#').count(), 2, "only the two inside the chain: {m}");
        assert!(m.contains("#ifdef X") && !m.contains("TLS"));
        let tail =
            "if (a) {\n    x();\n#ifndef NOLOG\n    // log options\n} else if (b) {\n    y();\n#endif\n} else {\n}\n";
        assert!(!mask_macros(tail).contains('#'), "{}", mask_macros(tail));
        // Inside one link's body, before the next link: the pair goes together.
        let body = "if (a) {\n#ifndef GPU\n    warn();\n#endif\n} else if (b) {\n}\n";
        assert!(!mask_macros(body).contains('#'), "{}", mask_macros(body));
        let kept = "void f() {\n#ifdef GPU\n    g();\n#endif\n}\n";
        assert_eq!(mask_macros(kept), kept, "no chain: nothing blanked");
    }
}
