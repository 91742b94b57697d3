//! Go template actions (`{{ … }}`) in a YAML file — a Helm chart's
//! `templates/*.yaml` — read as the YAML they render to, every place kept.
//! An action alone on its line (a guard such as `{{- if .Values.x }}`,
//! `{{- end }}`, `{{- range … }}`, or a block such as `{{- toYaml … |
//! nindent 8 }}`) and a control action anywhere render no text here: they
//! are blanked, so a guard does not end the list it stands in. An action
//! that renders a value is the value the chart's values file gives it when
//! that is a plain word (`"--task={{ .Values.task }}"` with `task:
//! generate`), else a placeholder (`${…}`): a value known only when the
//! chart is installed. A values path is read through `with` blocks
//! (`{{- with .Values.server }}` … `{{ .image }}`).
//!
//! The values file's side: the lists a template expands under a
//! container's `command:` or `args:` (`{{- toYaml .Values.args | nindent
//! 10 }}`, `{{- range .Values.extraArgs }}`) are argv, found here.

use std::ops::Range;

use super::rewrite::Rewrite;

/// Template functions that render their value unchanged (or its quoted
/// form): a value behind them is the value.
const KEEPS: &[&str] = &["quote", "squote", "required", "default", "toString", "trim", "int", "int64"];

/// Actions that render no text of their own.
const CONTROL: &[&str] = &["if", "else", "end", "range", "with", "define", "block", "break", "continue"];

/// True when a text holds a template action (`${{ … }}`, a GitHub Actions
/// expression, is not one).
pub(crate) fn is_template(text: &str) -> bool {
    !actions(text).is_empty()
}

/// Every action's byte range (`{{` to `}}` inclusive; an unclosed one runs
/// to the end of the text).
fn actions(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(s) = text[i..].find("{{").map(|s| i + s) {
        if s > 0 && text.as_bytes()[s - 1] == b'$' {
            i = s + 2;
            continue;
        }
        // A `}}` inside one of the action's strings (`{{ "}}" }}`, Helm's
        // way to write braces) does not end it; an action spanning lines
        // ends at the first `}}`.
        let line_end = text[s..].find('\n').map_or(text.len(), |n| s + n);
        let e = match super::helm_template::action_end(&text[..line_end], s + 2) {
            e if e < line_end || text[..line_end].ends_with("}}") => e,
            _ => text[s + 2..].find("}}").map_or(text.len(), |e| s + 2 + e + 2),
        };
        out.push(s..e);
        i = e;
    }
    out
}

/// An action's words: strings whole, `|`, `(` and `)` on their own.
fn tokens(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' | '`' => {
                let mut s = String::from(c);
                while let Some(d) = chars.next() {
                    s.push(d);
                    if d == '\\' && c == '"' {
                        if let Some(n) = chars.next() {
                            s.push(n);
                        }
                    } else if d == c {
                        break;
                    }
                }
                out.push(s);
            }
            '|' | '(' | ')' => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                out.push(c.to_string());
            }
            c if c.is_whitespace() => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// An action's body: inside the braces, without trim markers.
fn body(action: &str) -> &str {
    let inner = action.strip_prefix("{{").unwrap_or(action);
    let inner = inner.strip_suffix("}}").unwrap_or(inner);
    let inner = inner.strip_prefix('-').unwrap_or(inner);
    let inner = inner.strip_suffix('-').unwrap_or(inner);
    inner.trim()
}

/// The values path a word names (`.Values.a.b`, `$.Values.a.b`; `.b` or
/// `.` inside `with .Values.a`), if it names one.
fn values_path(word: &str, scope: Option<&str>) -> Option<String> {
    let word = word.strip_prefix('$').unwrap_or(word);
    if let Some(p) = word.strip_prefix(".Values.") {
        return Some(p.to_string());
    }
    let scope = scope?;
    if word == "." {
        return Some(scope.to_string());
    }
    let rest = word.strip_prefix('.')?;
    let builtin = ["Values", "Release", "Chart", "Capabilities", "Template", "Files"];
    if rest.is_empty() || builtin.iter().any(|b| rest == *b || rest.starts_with(&format!("{b}."))) {
        return None;
    }
    Some(format!("{scope}.{rest}"))
}

/// What one action is, read in order (`with` blocks change what `.` is).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    /// Renders nothing of its own (`if`, `end`, a variable set, a comment).
    Control,
    /// `range` over a values path (read in the scope around it), if it names one.
    Range(Option<String>),
    /// Renders a value: the values path it reads, if any, and whether the
    /// functions it goes through keep it as it is.
    Value { path: Option<String>, keeps: bool, quoted: bool },
}

/// Each action with its kind, `with` scopes followed.
fn read(text: &str) -> Vec<(Range<usize>, Kind)> {
    // The values path `.` stands for in each open block (`None`: unknown).
    let mut scopes: Vec<Option<String>> = Vec::new();
    let mut out = Vec::new();
    for at in actions(text) {
        let b = body(&text[at.clone()]);
        let words = tokens(b);
        let first = words.first().map(String::as_str).unwrap_or("");
        let scope = scopes.last().cloned().flatten();
        let kind = if b.starts_with("/*") || words.iter().any(|w| w == ":=" || w == "=") {
            Kind::Control
        } else if CONTROL.contains(&first) {
            match first {
                "end" => {
                    scopes.pop();
                }
                "with" => scopes.push(words.get(1).and_then(|w| values_path(w, scope.as_deref()))),
                "range" => {
                    scopes.push(None);
                    let over = words.get(1).and_then(|w| values_path(w, scope.as_deref()));
                    out.push((at, Kind::Range(over)));
                    continue;
                }
                "define" | "block" => scopes.push(None),
                "if" => scopes.push(scope.clone()),
                _ => {}
            }
            Kind::Control
        } else {
            // The value read, through functions that keep it.
            let keeps = words
                .iter()
                .all(|w| !w.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) || KEEPS.contains(&w.as_str()));
            let path = words.iter().find_map(|w| values_path(w, scope.as_deref()));
            let quoted = words.iter().any(|w| w == "quote" || w == "squote");
            Kind::Value { path, keeps, quoted }
        };
        out.push((at, kind));
    }
    out
}

/// True when the line(s) an action stands on hold nothing but actions and
/// blanks.
fn alone(text: &str, at: &Range<usize>, all: &[Range<usize>]) -> bool {
    let start = text[..at.start].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at.end..].find('\n').map_or(text.len(), |i| at.end + i);
    let mut i = start;
    for a in all.iter().filter(|a| a.start >= start && a.end <= end) {
        if !text[i..a.start].trim().is_empty() {
            return false;
        }
        i = a.end;
    }
    text[i..end].trim().is_empty()
}

/// A word that may stand for a value in YAML, plain or quoted, as written.
fn plain(value: &str) -> bool {
    !value.is_empty()
        && !value.starts_with(['-', ':'])
        && value.chars().all(|c| c.is_ascii_alphanumeric() || "._/@+=,:-".contains(c))
}

/// The text as the YAML it renders to, places kept; `value` gives a values
/// path's scalar, if the chart's values file is at hand.
pub(crate) fn render(text: &str, value: &dyn Fn(&str) -> Option<String>) -> Rewrite {
    let read = read(text);
    let all: Vec<Range<usize>> = read.iter().map(|(a, _)| a.clone()).collect();
    let mut out = Rewrite::default();
    let mut i = 0;
    for (at, kind) in &read {
        out.keep(text, i..at.start);
        let raw = &text[at.clone()];
        let blank: String = raw.bytes().map(|b| if b == b'\n' { '\n' } else { ' ' }).collect();
        match kind {
            Kind::Control | Kind::Range(_) => out.put(&blank, at.clone()),
            _ if alone(text, at, &all) => out.put(&blank, at.clone()),
            Kind::Value { path, keeps, quoted } => {
                match path.as_deref().filter(|_| *keeps).and_then(value) {
                    // `| quote` renders a string: any value that needs no escapes.
                    Some(v) if *quoted && !v.contains(['"', '\\', '\n', '\r']) => {
                        out.put(&format!("\"{v}\""), at.clone());
                    }
                    Some(v) if plain(&v) => out.put(&v, at.clone()),
                    _ if raw.contains('\n') || raw.len() < 3 => out.put(&blank, at.clone()),
                    _ => out.put(&format!("${{{}}}", "_".repeat(raw.len() - 3)), at.clone()),
                }
            }
        }
        i = at.end;
    }
    out.keep(text, i..text.len());
    out
}

/// How a values list is used by a container in a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// The whole command (`command:`).
    Command,
    /// Arguments after the image's entrypoint (`args:`).
    Args,
}

/// The values paths a template expands, as a block, under a container's
/// `command:` or `args:` (`{{- toYaml .Values.args | nindent 10 }}`,
/// `{{- range .Values.extraArgs }}`, `{{- with .Values.cmd }}{{ toYaml . }}`).
pub(crate) fn bound_lists(text: &str) -> Vec<(String, Use)> {
    let read = read(text);
    let all: Vec<Range<usize>> = read.iter().map(|(a, _)| a.clone()).collect();
    let blank = render(text, &|_| None);
    let lines: Vec<&str> = blank.text().split('\n').collect();
    let mut out = Vec::new();
    for (at, kind) in &read {
        let b = body(&text[at.clone()]);
        let words = tokens(b);
        let path = match kind {
            Kind::Value { path: Some(p), .. }
                if alone(text, at, &all) && words.iter().any(|w| w == "toYaml" || w == "toJson") =>
            {
                p.clone()
            }
            Kind::Range(Some(p)) => p.clone(),
            _ => continue,
        };
        // The key the block stands under: the nearest line above it that
        // is a key alone, past list items and blank lines.
        let line = text[..at.start].matches('\n').count();
        let key = lines[..line.min(lines.len())]
            .iter()
            .rev()
            .map(|l| l.trim())
            .find(|l| !l.is_empty() && !l.starts_with('-'))
            .and_then(|l| l.strip_suffix(':'))
            .map(str::trim);
        let used = match key {
            Some("command") => Use::Command,
            Some("args") => Use::Args,
            _ => continue,
        };
        if !out.iter().any(|(p, _)| *p == path) {
            out.push((path, used));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guards_are_blank_and_values_are_placeholders() {
        let t =
            "args:\n  {{- if .Values.eager }}\n  - --enforce-eager\n  {{- end }}\n  - \"--task={{ .Values.task }}\"\n";
        let r = render(t, &|_| None);
        assert_eq!(r.text().len(), t.len(), "places kept");
        // Each guard's line is blank, as long as it was.
        let blank = |l: &str| " ".repeat(l.len());
        let want = format!(
            "args:\n{}\n  - --enforce-eager\n{}\n  - \"--task=${{_______________}}\"\n",
            blank("  {{- if .Values.eager }}"),
            blank("  {{- end }}")
        );
        assert_eq!(r.text(), want);
        let v = render(t, &|p| (p == "task").then(|| "generate".to_string()));
        assert!(v.text().contains("\"--task=generate\""), "{}", v.text());
        let at = v.text().find("generate").expect("there");
        assert_eq!(&t[v.source(at, at + 8)], "{{ .Values.task }}");
        // A GitHub Actions expression is not an action.
        assert!(!is_template("run: echo ${{ github.sha }}"));
    }

    #[test]
    fn braces_written_as_strings_stay_inside_their_action() {
        let t = "summary: \"{{ \"{{\" }} $labels.pod {{ \"}}\" }} swaps\"\n";
        let found: Vec<&str> = actions(t).into_iter().map(|r| &t[r]).collect();
        assert_eq!(found, ["{{ \"{{\" }}", "{{ \"}}\" }}"]);
    }

    #[test]
    fn with_blocks_say_what_the_dot_is() {
        let t = "{{- with .Values.server }}\nimage: {{ .image | quote }}\nname: {{ include \"x\" $ }}\n{{- end }}\n";
        let r = render(t, &|p| (p == "server.image").then(|| "vllm/vllm-openai:v0.9.2".to_string()));
        assert!(r.text().contains("image: \"vllm/vllm-openai:v0.9.2\"\n"), "{}", r.text());
        assert!(r.text().contains("name: ${"), "{}", r.text());
        // A value that is not a plain word stays a placeholder.
        let r = render("a: {{ .Values.x }}\n", &|_| Some("b: c".to_string()));
        assert_eq!(r.text(), "a: ${____________}\n");
        // Quoted by the template, it is a string whatever its words.
        let r = render("a: {{ .Values.x | quote }}\n", &|_| Some("90% b: c".to_string()));
        assert_eq!(r.text(), "a: \"90% b: c\"\n");
    }

    #[test]
    fn lists_expanded_under_command_or_args_are_bound() {
        let t = "      containers:\n        - name: s\n          command:\n            {{- with .Values.image.command }}\n            {{- toYaml . | nindent 10 }}\n            {{- end }}\n          args:\n            - --port\n            - \"8000\"\n            {{- range .Values.extraArgs }}\n            - {{ . | quote }}\n            {{- end }}\n          resources:\n            {{- toYaml .Values.resources | nindent 12 }}\n";
        assert_eq!(bound_lists(t), [("image.command".to_string(), Use::Command), ("extraArgs".to_string(), Use::Args)]);
    }
}
