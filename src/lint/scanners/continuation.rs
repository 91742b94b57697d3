//! Lines continued with a `\` at their end, as Dockerfiles and unit files
//! (systemd, Quadlet) write them. The joined text keeps its places: the
//! backslash, anything the format allows after it and the line break become
//! spaces, and a comment line inside becomes spaces too, so an offset in the
//! joined text is an offset in the file. The two formats differ in three
//! ways, which each states in its [`Continuation`].

/// How a format continues a line.
pub(crate) struct Continuation {
    /// True when white space may follow the backslash (Dockerfile); else
    /// only a carriage return may (unit files).
    pub space_after: bool,
    /// Lines inside a continued value that start (after white space) with
    /// one of these are comments, skipped.
    pub comments: &'static [char],
    /// True when a blank line inside is skipped too (Dockerfile); else it
    /// ends the value (unit files).
    pub skip_blank: bool,
}

impl Continuation {
    /// A line's text up to where a continuing backslash would stand.
    fn body<'a>(&self, line: &'a str) -> &'a str {
        if self.space_after {
            line.trim_end()
        } else {
            line.trim_end_matches('\r')
        }
    }

    /// `first` (the rest of a line, its line break removed) with the lines
    /// it continues taken from `lines`, joined (each taken line adds its
    /// length to `offset`).
    pub(crate) fn join<'a>(
        &self,
        first: String,
        lines: &mut impl Iterator<Item = &'a str>,
        offset: &mut usize,
    ) -> String {
        let mut text = first;
        let mut continued = self.body(&text).ends_with('\\');
        while continued {
            let Some(next) = lines.next() else { break };
            *offset += next.len();
            // The backslash (and what may follow it) and the line break
            // become spaces (after a skipped line, only its line break).
            if self.body(&text).ends_with('\\') {
                let cut = self.body(&text).len() - 1;
                let tail = text.len() - cut;
                text.truncate(cut);
                text.push_str(&" ".repeat(tail + 1));
            } else {
                text.push(' ');
            }
            let next_content = next.strip_suffix('\n').unwrap_or(next);
            if next_content.trim_start().starts_with(self.comments)
                || (self.skip_blank && next_content.trim().is_empty())
            {
                text.push_str(&" ".repeat(next_content.len()));
                continue;
            }
            text.push_str(next_content);
            continued = self.body(next_content).ends_with('\\');
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The three ways the formats differ: white space after the backslash,
    /// `;` comments, and blank lines.
    #[test]
    fn each_format_joins_its_own_way() {
        let dockerfile = Continuation { space_after: true, comments: &['#'], skip_blank: true };
        let unit = Continuation { space_after: false, comments: &['#', ';'], skip_blank: false };
        // "a \  \n# c\n\n b": the comment and the blank line are skipped; `b` keeps its place.
        let (mut lines, mut offset) = ("# c\n\n b".split_inclusive('\n'), 0);
        assert_eq!(dockerfile.join("a \\  ".into(), &mut lines, &mut offset), format!("a{}b", " ".repeat(11)));
        assert_eq!(offset, 7);
        // "a \\\n; c\n\nb": `;` is a comment, the blank line ends the value.
        let (mut lines, mut offset) = ("; c\n\nb".split_inclusive('\n'), 0);
        assert_eq!(unit.join("a \\".into(), &mut lines, &mut offset), "a       ");
        assert_eq!((offset, lines.next()), (5, Some("b")));
        // White space after the backslash: no continuation in a unit file.
        let (mut lines, mut offset) = ("b".split_inclusive('\n'), 0);
        assert_eq!(unit.join("a \\ ".into(), &mut lines, &mut offset), "a \\ ");
        assert_eq!(offset, 0);
    }
}
