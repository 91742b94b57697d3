//! A text held in a YAML scalar — a dashboard's JSON or a rule file under a
//! ConfigMap's `data:`, a GrafanaDashboard's `spec.json` — read as a file
//! of its own, with the way back: each place in the held text is the place
//! in the file it was written at. A literal block (`|`) keeps its lines, so
//! a place maps line by line past the block's indentation; a scalar whose
//! text is written as it reads maps one to one; any other (a folded block,
//! a quoted scalar with escapes) maps every place to the scalar's start.

use std::ops::Range;

/// Where a held text's lines start in the file.
pub struct Nested {
    /// (offset in the held text, offset in the file) of each line's start.
    starts: Vec<(usize, usize)>,
    /// Where every place goes when the lines could not be matched.
    fallback: usize,
}

impl Nested {
    /// `text`, the scalar's value, written at `at` in `file`.
    pub fn new(text: &str, at: Range<usize>, file: &str) -> Nested {
        let fallback = at.start;
        let starts = if file.get(at.clone()) == Some(text) { Some(vec![(0, at.start)]) } else { block(text, at, file) };
        Nested { starts: starts.unwrap_or_default(), fallback }
    }

    /// The file's offset of the held text's offset `o`.
    pub fn place(&self, o: usize) -> usize {
        let k = self.starts.partition_point(|(held, _)| *held <= o);
        match k.checked_sub(1).and_then(|k| self.starts.get(k)) {
            Some((held, file)) => file + (o - held),
            None => self.fallback,
        }
    }
}

/// The line starts of a literal block whose value is `text`, when each of
/// its lines stands in the file behind the block's indentation.
fn block(text: &str, at: Range<usize>, file: &str) -> Option<Vec<(usize, usize)>> {
    let head = file.get(at.start..)?;
    // The content starts on the line after the `|` indicator.
    let first = if head.starts_with(['|', '>']) { at.start + head.find('\n')? + 1 } else { line_start(file, at.start) };
    let lines: Vec<(usize, &str)> = file[first..]
        .split_inclusive('\n')
        .scan(first, |pos, l| {
            let s = *pos;
            *pos += l.len();
            Some((s, l.trim_end_matches(['\n', '\r'])))
        })
        .collect();
    let indent = lines.iter().find(|(_, l)| !l.trim().is_empty())?.1.bytes().take_while(|b| *b == b' ').count();
    let mut starts = Vec::new();
    let mut held = 0;
    for (k, line) in text.split_inclusive('\n').enumerate() {
        let content = line.trim_end_matches(['\n', '\r']);
        let (file_at, written) = lines.get(k)?;
        if !content.is_empty() && written.get(indent..) != Some(content) {
            return None;
        }
        starts.push((held, file_at + indent.min(written.len())));
        held += line.len();
    }
    Some(starts)
}

fn line_start(file: &str, at: usize) -> usize {
    file[..at.min(file.len())].rfind('\n').map_or(0, |i| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_literal_block_maps_line_by_line() {
        let file = "data:\n  d.json: |\n    {\n      \"expr\": \"up\"\n\n    }\nnext: 1\n";
        let held = "{\n  \"expr\": \"up\"\n\n}\n";
        let at = file.find('|').unwrap_or(0)..file.find("next").unwrap_or(0);
        let n = Nested::new(held, at, file);
        let o = held.find("up").unwrap_or(0);
        assert_eq!(&file[n.place(o)..n.place(o) + 2], "up");
        assert_eq!(n.place(0), file.find('{').unwrap_or(0));
    }

    #[test]
    fn a_scalar_written_as_it_reads_maps_one_to_one_and_others_to_their_start() {
        let file = "json: '{\"expr\": \"up\"}'\n";
        let held = "{\"expr\": \"up\"}";
        let at = 7..7 + held.len();
        assert_eq!(Nested::new(held, at.clone(), file).place(10), 17);
        let n = Nested::new("other text", at, file);
        assert_eq!(n.place(5), 7);
    }
}
