//! The syntax systemd units and Podman Quadlet files share: `[Section]`
//! headers, `Key=Value` lines, `#` and `;` comments, and a `\` at the end of
//! a line continuing the value on the next. Values keep their places: a
//! continuation's backslash and line break become two spaces, so an offset
//! in a value is an offset in the file.

use super::continuation::Continuation;

/// A `\` continues a value only when nothing but a carriage return
/// follows it; `#` and `;` lines inside are comments, skipped, and a blank
/// line ends the value.
const CONTINUATION: Continuation = Continuation { space_after: false, comments: &['#', ';'], skip_blank: false };

/// One `Key=Value` of a unit file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub section: String,
    pub key: String,
    /// The value, continuations joined (same length as in the file).
    pub value: String,
    /// Where the value starts in the file.
    pub at: usize,
}

/// Every entry of a unit file, in order.
pub fn entries(text: &str) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut section = String::new();
    let mut offset = 0;
    let mut lines = text.split_inclusive('\n');
    while let Some(line) = lines.next() {
        let start = offset;
        offset += line.len();
        let content = line.trim_end_matches(['\n', '\r']);
        let lead = content.len() - content.trim_start().len();
        let body = &content[lead..];
        if body.is_empty() || body.starts_with('#') || body.starts_with(';') {
            continue;
        }
        if let Some(name) = body.strip_prefix('[').and_then(|b| b.strip_suffix(']')) {
            section = name.trim().to_string();
            continue;
        }
        let Some((key, _)) = body.split_once('=') else { continue };
        let value_at = start + lead + key.len() + 1;
        // `\` at the end of a line: the value goes on (a comment line inside
        // is skipped, as systemd does).
        let value = CONTINUATION.join(content[lead + key.len() + 1..].to_string(), &mut lines, &mut offset);
        out.push(Entry { section: section.clone(), key: key.trim().to_string(), value, at: value_at });
    }
    out
}

/// `KEY=value` assignments of an `Environment=` value, each with the byte
/// ranges of its key and value in the file.
pub fn assignments(value: &str, at: usize) -> Vec<(String, std::ops::Range<usize>, String, std::ops::Range<usize>)> {
    super::items::split_words(value, at)
        .into_iter()
        .filter_map(|item| {
            let (k, v) = item.text.split_once('=')?;
            let key_at = item.at.start..item.at.start + k.len();
            let value_at = key_at.end + 1..item.at.end;
            Some((k.to_string(), key_at, v.to_string(), value_at))
        })
        .collect()
}

/// `Environment=` assignments are env knobs; `EnvironmentFile=` names a
/// file to read as an env file. Other entries are left alone.
pub fn environment(e: &Entry, span: &dyn Fn(usize, usize) -> crate::lint::span::Span, out: &mut super::Scan) {
    match e.key.as_str() {
        "Environment" => {
            for (k, ka, v, va) in assignments(&e.value, e.at) {
                out.refs.push(super::env_ref(&k, ka, &v, va, span));
            }
        }
        "EnvironmentFile" => out.env_files.push(e.value.trim().trim_start_matches('-').to_string()),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuations_keep_places() {
        let text = "[Service]\nExecStart=/bin/radiance \\\n# a comment\n    --port 1 \\\n  --log-level x\nEnvironment=\"A=1\" B=2\n";
        let e = entries(text);
        assert_eq!(e.len(), 2);
        assert_eq!((e[0].section.as_str(), e[0].key.as_str()), ("Service", "ExecStart"));
        for word in ["--port", "--log-level"] {
            let at = e[0].value.find(word).expect("joined");
            assert_eq!(&text[e[0].at + at..e[0].at + at + word.len()], word);
        }
        assert_eq!(e[0].value.len(), text.find("\nEnvironment").expect("end") - e[0].at);
        let a = assignments(&e[1].value, e[1].at);
        assert_eq!(a.iter().map(|(k, _, v, _)| (k.as_str(), v.as_str())).collect::<Vec<_>>(), [("A", "1"), ("B", "2")]);
        assert_eq!(&text[a[0].1.clone()], "A");
        assert_eq!(&text[a[1].3.clone()], "2");
    }
}
