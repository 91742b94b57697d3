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
