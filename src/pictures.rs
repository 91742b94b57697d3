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
    pictures(s, false)
}

/// As [`visible`], but line breaks stay: for text of several lines that
/// knobs lays out itself (an error, `explain`, `catalog show`).
pub(crate) fn visible_lines(s: &str) -> std::borrow::Cow<'_, str> {
    pictures(s, true)
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
        assert_eq!(visible_lines("a\r\n::error::x\u{1b}\n"), "a␍\n::error::x␛\n");
        assert!(matches!(visible("plain `text`"), std::borrow::Cow::Borrowed(_)));
    }
}
