//! Hover: what `knobs explain` says of the subject under the cursor (a
//! flag, env key, metric or rule code; a member explains its flag), for
//! the build the document is judged against, as explain's Markdown.

use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind, Position, Range};

use super::positions::{self, Encoding};
use super::words;
use super::workspace::{Judged, Project};
use crate::explain::{self, Topic};

/// The hover at `pos` of `text`, or none when nothing there is known.
pub fn at(project: &Project, judged: &Judged<'_>, text: &str, pos: Position, enc: Encoding) -> Option<Hover> {
    let line = positions::line_text(text, pos.line as usize);
    let at = positions::char_index(line, pos.character, enc);
    let (subject, start, end) = words::subject_at(line, at)?;
    let topic = resolve(project, judged, &subject).or_else(|| {
        // A member (`tip-only` in `--checkpoint-policy tip-only`): its flag.
        let flag = words::word_before(line, start).filter(|w| w.starts_with('-'))?;
        match resolve(project, judged, &flag)? {
            t @ Topic::Flag(_) => Some(t),
            _ => None,
        }
    })?;
    let to = |i: usize| {
        let byte = line.char_indices().nth(i).map_or(line.len(), |(b, _)| b);
        Position::new(pos.line, positions::from_byte(line, byte, enc))
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: explain::markdown(&topic) }),
        range: Some(Range { start: to(start), end: to(end) }),
    })
}

/// The topic `knobs explain SUBJECT` would print, with the project's serve
/// scripts read (only once the subject is known: a hover on prose reads
/// nothing).
fn resolve(project: &Project, judged: &Judged<'_>, subject: &str) -> Option<Topic> {
    explain::explain(subject, &judged.pinned, &explain::Project::default()).ok()?;
    let read = explain::project::discover(&project.cfg, &judged.pinned, &judged.cwd);
    explain::explain(subject, &judged.pinned, &read).ok()
}
