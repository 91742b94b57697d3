//! A Helm template (`templates/*.yaml` of a chart) made YAML with every
//! place kept, for the monitoring readers: a line of template actions alone
//! (`{{- if .Values.alerts }}`) becomes blank, and an action inside a line
//! (`namespace="{{ .Release.Namespace }}"`, `> {{ .Values.threshold }}`)
//! becomes `1` padded with spaces to its length — a word YAML and PromQL
//! both read as a value. What the chart would render is not guessed.

/// `text` with its template actions blanked, each byte where it was.
pub fn blank_actions(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let mut rest = line;
        let mut kept = String::with_capacity(line.len());
        let mut only_actions = true;
        while let Some(open) = rest.find("{{") {
            let close = action_end(rest, open + 2);
            only_actions &= rest[..open].trim().is_empty();
            kept.push_str(&rest[..open]);
            kept.push('\u{1}');
            kept.push_str(&" ".repeat(close - open - 1));
            rest = &rest[close..];
        }
        only_actions &= rest.trim().is_empty();
        kept.push_str(rest);
        let filler = if only_actions { " " } else { "1" };
        out.push_str(&kept.replace('\u{1}', filler));
    }
    out
}

/// Where the action whose body starts at `from` ends (after its `}}`): a
/// `}}` inside one of its strings (`{{ "}}" }}`) does not end it.
pub(crate) fn action_end(line: &str, from: usize) -> usize {
    let b = line.as_bytes();
    let mut i = from;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        match (quote, b[i]) {
            (Some(_), b'\\') => i += 1,
            (Some(q), c) if c == q => quote = None,
            (None, c @ (b'"' | b'`')) => quote = Some(c),
            (None, b'}') if b.get(i + 1) == Some(&b'}') => return i + 2,
            _ => {}
        }
        i += 1;
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_are_blanked_in_place() {
        let t = "{{- if .Values.on }}\n  expr: up{ns=\"{{ .Release.Namespace }}\"} > {{ .Values.n }}\n{{- end }}";
        let b = blank_actions(t);
        assert_eq!(b.len(), t.len());
        assert_eq!(b.lines().map(str::len).collect::<Vec<_>>(), t.lines().map(str::len).collect::<Vec<_>>());
        assert!(b.lines().next().is_some_and(|l| l.trim().is_empty()));
        // `{{ .Release.Namespace }}` is 24 bytes: `1` and 23 spaces.
        assert!(b.contains(&format!("up{{ns=\"1{}\"}} > 1", " ".repeat(23))), "{b}");
        assert_eq!(blank_actions("a {{ unclosed"), "a 1          ");
        let escaped = "  summary: \"{{ \"{{\" }} $labels.pod {{ \"}}\" }} swaps\"";
        assert_eq!(blank_actions(escaped), "  summary: \"1          $labels.pod 1          swaps\"");
    }
}
