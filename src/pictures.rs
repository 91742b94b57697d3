//! Control characters as their pictures: whatever knobs prints that came
//! from a file, a file name, a fetched source or the command line passes
//! through here, so that no escape sequence reaches a terminal and no line
//! of a CI log starts with a command a runner would obey. At the bottom of
//! the layers, so that errors (`diag.rs`, `config.rs`) and renderers alike
//! use the one function.

/// `s` safe to print on one line of a terminal or a CI log: control
/// characters a linted file (or its name) carries are shown as their
/// Unicode pictures (`␛`, `␀`, `␇`, `␊`), one character each so that columns
/// stay where they were, instead of reaching the terminal as escape
/// sequences or starting a line a CI runner reads as a command
/// (`::error …::`). Tabs stay.
pub(crate) fn visible(s: &str) -> std::borrow::Cow<'_, str> {
    no_command(pictures(s, false))
}

/// As [`visible`], but line breaks stay: for text of several lines that
/// knobs lays out itself (an error, `explain`, `catalog show`). No line of
/// it starts with `::`, whatever the text held (a catalogue's help, an
/// overlay's rollback): see [`no_command`].
pub(crate) fn visible_lines(s: &str) -> std::borrow::Cow<'_, str> {
    no_command(pictures(s, true))
}

/// A path as text, told apart from every other path: a byte that is not
/// UTF-8 is `\xNN` and a backslash is `\\` (a lossy display put U+FFFD
/// for each, so `a\xff.md` and `a\xfe.md` were reported as one file). A
/// name that is UTF-8 with no backslash is as it is. Control characters are
/// left to [`visible`], which every output applies.
#[cfg(unix)]
pub(crate) fn path_text(path: &std::path::Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let bytes = path.as_os_str().as_bytes();
    match std::str::from_utf8(bytes) {
        Ok(s) if !s.contains('\\') => s.to_string(),
        _ => {
            let mut out = String::with_capacity(bytes.len() + 8);
            for chunk in bytes.utf8_chunks() {
                out.push_str(&chunk.valid().replace('\\', "\\\\"));
                for b in chunk.invalid() {
                    out.push_str(&format!("\\x{b:02x}"));
                }
            }
            out
        }
    }
}

#[cfg(not(unix))]
pub(crate) fn path_text(path: &std::path::Path) -> String {
    path.display().to_string()
}

/// Control characters as pictures, line breaks kept, and nothing else
/// changed: for a value GitHub's own escaping follows (`%3A` for `:`).
pub(crate) fn pictures_only(s: &str) -> std::borrow::Cow<'_, str> {
    pictures(s, true)
}

/// A CI runner obeys a line that starts, after any white space, with `::`
/// (`::stop-commands::token`, `::error file=…::`); GitHub's runner trims
/// the white space first. Such a line of `s` gets its first colon shown as
/// `∶` (U+2236), so that it reads the same and commands nothing. Knobs's
/// own annotations are written after this, never through it.
fn no_command(s: std::borrow::Cow<'_, str>) -> std::borrow::Cow<'_, str> {
    let commands = |line: &str| line.trim_start().starts_with("::");
    if !s.contains("::") || !s.split('\n').any(commands) {
        return s;
    }
    let lines: Vec<String> = s
        .split('\n')
        .map(|line| match commands(line) {
            true => line.replacen(':', "\u{2236}", 1),
            false => line.to_string(),
        })
        .collect();
    std::borrow::Cow::Owned(lines.join("\n"))
}

fn pictures(s: &str, keep_lines: bool) -> std::borrow::Cow<'_, str> {
    let hidden = |c: char| c.is_control() && c != '\t' && !(keep_lines && c == '\n');
    if !s.chars().any(hidden) {
        return std::borrow::Cow::Borrowed(s);
    }
    s.chars()
        .map(|c| match c {
            c if !hidden(c) => c,
            '\u{7f}' => '\u{2421}',
            c if (c as u32) < 0x20 => char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'),
            _ => '\u{fffd}',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_as_pictures() {
        assert_eq!(visible("fl\u{1b}]0;pwned\u{7}oor\u{0}\u{7f}\u{9b}\tx\n"), "fl␛]0;pwned␇oor␀␡\u{fffd}\tx␊");
        assert_eq!(visible_lines("a\r\n::error::x\u{1b}\n"), "a␍\n\u{2236}:error::x␛\n");
        assert!(matches!(visible("plain `text`"), std::borrow::Cow::Borrowed(_)));
    }

    /// Two paths that differ are shown differently: bytes that are not
    /// UTF-8 as `\xNN`, a backslash doubled so that a name holding `\xff`
    /// as text is not one of them.
    #[cfg(unix)]
    #[test]
    fn paths_that_differ_are_shown_differently() {
        use std::os::unix::ffi::OsStrExt;
        let p = |b: &[u8]| path_text(std::path::Path::new(std::ffi::OsStr::from_bytes(b)));
        assert_eq!(p(b"docs/run.md"), "docs/run.md");
        assert_eq!(p(b"a\xff.md"), "a\\xff.md");
        assert_eq!(p(b"a\xfe.md"), "a\\xfe.md");
        assert_eq!(p(b"a\\xff.md"), "a\\\\xff.md");
        assert_eq!(p("é\r.md".as_bytes()), "é\r.md");
    }

    /// No line of a text shown starts with `::` (after white space), where
    /// a CI runner would read a command; `::` elsewhere stays.
    #[test]
    fn no_line_starts_a_ci_command() {
        let help = "X\n::stop-commands::tok\n \u{2003}::error file=x::pwned\nkeep a::b";
        assert_eq!(
            visible_lines(help),
            "X\n\u{2236}:stop-commands::tok\n \u{2003}\u{2236}:error file=x::pwned\nkeep a::b"
        );
        assert_eq!(visible("::error::x.md"), "\u{2236}:error::x.md");
        assert_eq!(visible("a\n::error::x"), "a␊::error::x");
        assert!(matches!(visible_lines("radiance:engine_steps_total a::b"), std::borrow::Cow::Borrowed(_)));
        assert_eq!(pictures_only("::x"), "::x");
    }
}
