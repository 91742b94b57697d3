//! Completion from the pinned build's catalogue, never from memory: flags
//! once an engine's argv has started on the line (their kind as `detail`,
//! a snippet for the value), members after a flag that takes them, env
//! keys at the start of a line of an env file, metric names as one is
//! typed and their labels inside `{…}`.

use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionTextEdit, Documentation, InsertTextFormat, Position, Range, TextEdit,
};

use super::positions::{self, Encoding};
use super::words;
use super::workspace::Judged;
use crate::catalog::model::{Flag, Kind};
use crate::catalog::query;
use crate::lint::refs::Binary;
use crate::lint::rules::wrong_binary;
use std::sync::Arc;

/// The completions at `pos` of `text`.
pub fn at(judged: &Judged<'_>, text: &str, pos: Position, enc: Encoding) -> Vec<CompletionItem> {
    let line = positions::line_text(text, pos.line as usize);
    let at = positions::char_index(line, pos.character, enc);
    let (typed, start) = words::typed_before(line, at);
    let col = |i: usize| {
        let byte = line.char_indices().nth(i).map_or(line.len(), |(b, _)| b);
        positions::from_byte(line, byte, enc)
    };
    let range = Range { start: Position::new(pos.line, col(start)), end: Position::new(pos.line, col(at)) };
    let catalog = judged.pinned.catalog;
    let profile = judged.pinned.profile;
    let mut items = Vec::new();
    let before: String = line.chars().take(at).collect();
    if let Some(labels) = labels(&before, judged) {
        items.extend(
            labels.iter().filter(|l| l.starts_with(&typed)).map(|l| item(l, "label", CompletionItemKind::FIELD, range)),
        );
        return items;
    }
    if let Some(binary) = argv_started(text, pos.line as usize, &before, judged) {
        if typed.starts_with('-') {
            // Only the flags the binary that started the argv accepts (as
            // KNB010 decides), where the build scopes them by binary.
            let tag = &catalog.source.tag;
            let accepted = |f: &Flag| binary.as_deref().is_none_or(|b| wrong_binary::accepts(profile, tag, b, f));
            for f in catalog.flags.iter().filter(|f| f.removed.is_none() && f.name.starts_with(&typed) && accepted(f)) {
                items.push(flag_item(f, range));
            }
            return items;
        }
        let flag = words::word_before(line, start).and_then(|w| query::flag(catalog, profile, &w));
        if let Some(f) = flag.filter(|f| !f.members.is_empty()) {
            let detail = format!("member of {}", f.name);
            for m in f.members.iter().filter(|m| m.starts_with(&typed)) {
                items.push(item(m, &detail, CompletionItemKind::ENUM_MEMBER, range));
            }
            return items;
        }
    }
    let at_line_start = before[..before.len() - typed.len()].trim().trim_start_matches("export").trim().is_empty();
    if judged.kind.is_some_and(|k| k.env_file()) && at_line_start {
        let mut keys: Vec<(String, String)> =
            catalog.env_keys.iter().map(|k| (k.name.clone(), k.help.clone())).collect();
        keys.extend(catalog.flags.iter().filter_map(|f| Some((query::env_key_for(f, profile)?, f.help.clone()))));
        keys.sort();
        keys.dedup_by(|a, b| a.0 == b.0);
        for (key, help) in keys.into_iter().filter(|(k, _)| k.starts_with(&typed)) {
            let mut it = item(&key, "env key", CompletionItemKind::VARIABLE, range);
            it.documentation = (!help.is_empty()).then_some(Documentation::String(help));
            items.push(it);
        }
        return items;
    }
    let metric_like = typed.len() >= 2
        && profile.metrics.prefixes.iter().any(|p| p.starts_with(&typed) || typed.starts_with(p.as_str()));
    if metric_like {
        for m in catalog.metrics.iter().filter(|m| m.name.starts_with(&typed)) {
            let mut it = item(&m.name, m.kind.as_str(), CompletionItemKind::VALUE, range);
            it.documentation = (!m.help.is_empty()).then(|| Documentation::String(m.help.clone()));
            items.push(it);
        }
    }
    items
}

/// The binary whose argv has started before the cursor (the last one
/// named on this line, or on a line this one continues with `\`): `Some`
/// with its binary when the build scopes options by binary.
fn argv_started(text: &str, line: usize, before: &str, judged: &Judged<'_>) -> Option<Option<Arc<Binary>>> {
    let names_engine = |l: &str| {
        let words: Vec<&str> = l
            .split_whitespace()
            .map(|w| w.trim_matches(|c| c == '`' || c == '"' || c == '\'' || c == '[' || c == ','))
            .collect();
        (0..words.len())
            .rev()
            .find_map(|i| {
                let (next, after) = (words.get(i + 1).copied(), words.get(i + 2).copied());
                judged.settings.commands.invocation_written_nested(words[i], next, after)
            })
            .map(|(_, binary)| binary)
    };
    if let Some(found) = names_engine(before) {
        return Some(found);
    }
    let mut n = line;
    while n > 0 && positions::line_text(text, n - 1).trim_end().ends_with('\\') {
        n -= 1;
        if let Some(found) = names_engine(positions::line_text(text, n)) {
            return Some(found);
        }
    }
    None
}

/// The labels of the metric whose `{` the cursor is inside, if it is.
fn labels<'c>(before: &str, judged: &Judged<'c>) -> Option<&'c [String]> {
    let open = before.rfind('{')?;
    if before[open..].contains('}') {
        return None;
    }
    let head = &before[..open];
    let name: String = head.chars().rev().take_while(|c| words::is_subject_char(*c)).collect();
    let name: String = name.chars().rev().collect();
    query::find_metric(judged.pinned.catalog, &name).map(|m| m.labels.as_slice())
}

fn item(label: &str, detail: &str, kind: CompletionItemKind, range: Range) -> CompletionItem {
    CompletionItem {
        label: label.to_string(),
        kind: Some(kind),
        detail: Some(detail.to_string()),
        text_edit: Some(CompletionTextEdit::Edit(TextEdit { range, new_text: label.to_string() })),
        ..CompletionItem::default()
    }
}

/// A flag with its kind, its help, and a snippet for its value: the
/// members to choose from, else its placeholder.
fn flag_item(f: &Flag, range: Range) -> CompletionItem {
    let snippet = if f.values() == 0 {
        f.name.clone()
    } else if f.kind == Kind::Enum
        && !f.members.is_empty()
        && f.members.iter().all(|m| !m.contains([',', '|', '$', '}', '\\']))
    {
        format!("{} ${{1|{}|}}", f.name, f.members.join(","))
    } else {
        let hint: String = if f.metavar.is_empty() { f.kind.as_str().to_string() } else { f.metavar.clone() };
        let hint: String = hint.chars().filter(|c| !matches!(c, '$' | '}' | '\\')).collect();
        format!("{} ${{1:{hint}}}", f.name)
    };
    CompletionItem {
        label: f.name.clone(),
        kind: Some(CompletionItemKind::FIELD),
        detail: Some(f.kind.as_str().to_string()),
        documentation: (!f.help.is_empty()).then(|| Documentation::String(f.help.clone())),
        insert_text_format: Some(InsertTextFormat::SNIPPET),
        text_edit: Some(CompletionTextEdit::Edit(TextEdit { range, new_text: snippet })),
        ..CompletionItem::default()
    }
}
