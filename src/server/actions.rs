//! Code actions on a finding: its fix where knobs has one (the edit
//! `--fix` makes), a suppression comment in the file's own syntax
//! (`<!-- knobs: ignore[…] -->` before a Markdown line or block, `#
//! knobs: ignore[…]` on its own line elsewhere; a file-wide one where a
//! line cannot take a comment of its own, inside a continued command), and
//! "explain" (the command [`EXPLAIN`], which shows the rule's text).

use std::collections::HashMap;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Command, Position, Range, TextEdit, Url, WorkspaceEdit,
};

use super::positions::{self, Encoding};
use crate::kinds::FileKind;
use crate::lint::finding::Finding;

/// The command that shows what `knobs explain CODE` says.
pub const EXPLAIN: &str = "knobs.explain";

/// The actions for the findings whose lines meet `range`.
pub fn at(
    uri: &Url,
    text: &str,
    kind: Option<FileKind>,
    findings: &[Finding],
    range: Range,
    enc: Encoding,
) -> Vec<CodeActionOrCommand> {
    let (first, last) = (range.start.line as usize + 1, range.end.line as usize + 1);
    let mut out = Vec::new();
    for f in findings.iter().filter(|f| f.span.line <= last && f.span.end_line >= first) {
        if let Some(fix) = &f.fix {
            let edit = TextEdit { range: positions::range(text, &f.span, enc), new_text: fix.clone() };
            out.push(action(format!("Fix {}: write `{fix}`", f.code), CodeActionKind::QUICKFIX, uri, edit, true));
        }
        if let Some((title, edit)) = suppression(text, kind, f) {
            out.push(action(title, CodeActionKind::QUICKFIX, uri, edit, false));
        }
        let title = format!("Explain {} ({})", f.code, f.rule);
        out.push(CodeActionOrCommand::Command(Command {
            title,
            command: EXPLAIN.to_string(),
            arguments: Some(vec![serde_json::Value::String(f.code.to_string())]),
        }));
    }
    out
}

fn action(title: String, kind: CodeActionKind, uri: &Url, edit: TextEdit, preferred: bool) -> CodeActionOrCommand {
    let changes = HashMap::from([(uri.clone(), vec![edit])]);
    CodeActionOrCommand::CodeAction(CodeAction {
        title,
        kind: Some(kind),
        edit: Some(WorkspaceEdit { changes: Some(changes), ..WorkspaceEdit::default() }),
        is_preferred: Some(preferred),
        ..CodeAction::default()
    })
}

/// The comment that silences `f`, and where it goes.
fn suppression(text: &str, kind: Option<FileKind>, f: &Finding) -> Option<(String, TextEdit)> {
    let line0 = f.span.line.checked_sub(1)?;
    let insert = |line: usize, new_text: String| TextEdit {
        range: Range { start: Position::new(line as u32, 0), end: Position::new(line as u32, 0) },
        new_text,
    };
    let indent = |line: usize| -> String {
        positions::line_text(text, line).chars().take_while(|c| *c == ' ' || *c == '\t').collect()
    };
    let title = format!("Suppress {} on this line", f.code);
    if kind == Some(FileKind::Markdown) {
        // Before the fenced block the line is in (it covers the block), else before the line.
        let at = fence_opening(text, line0).unwrap_or(line0);
        return Some((title, insert(at, format!("{}<!-- knobs: ignore[{}] -->\n", indent(at), f.code))));
    }
    let continued = line0 > 0 && positions::line_text(text, line0 - 1).trim_end().ends_with('\\');
    if continued {
        // A comment line inside a continued command would end it.
        let first = usize::from(text.starts_with("#!"));
        let title = format!("Suppress {} in this file", f.code);
        return Some((title, insert(first, format!("# knobs: ignore-file[{}]\n", f.code))));
    }
    Some((title, insert(line0, format!("{}# knobs: ignore[{}]\n", indent(line0), f.code))))
}

/// The 0-based line of the fence that opens the fenced block holding
/// `line`, if it is in one.
fn fence_opening(text: &str, line: usize) -> Option<usize> {
    let mut open: Option<(usize, char, usize)> = None;
    for (i, l) in text.split('\n').enumerate().take(line + 1) {
        let t = l.trim_start_matches(' ');
        let fence = |c: char| t.chars().take_while(|x| *x == c).count();
        match open {
            Some((_, c, n)) if i != line && fence(c) >= n && t.trim_start_matches(c).trim().is_empty() => open = None,
            Some(_) => {}
            None if i < line && l.len() - t.len() < 4 && (fence('`') >= 3 || fence('~') >= 3) => {
                let c = if fence('`') >= 3 { '`' } else { '~' };
                open = Some((i, c, fence(c)));
            }
            None => {}
        }
    }
    open.map(|(i, _, _)| i)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_line_in_a_fenced_block_is_silenced_before_its_fence() {
        let text = "# T\n\n```bash\nradiance --x\n```\nafter\n";
        assert_eq!(super::fence_opening(text, 3), Some(2));
        assert_eq!(super::fence_opening(text, 5), None);
        assert_eq!(super::fence_opening(text, 0), None);
    }
}
