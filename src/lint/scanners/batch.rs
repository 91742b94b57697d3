//! Windows batch files (`*.bat`, `*.cmd`): rewritten as shell for the shell
//! reader, places kept — `^` at a line's end continues it (`\`), `%VAR%`
//! and `!VAR!` are expansions (`${VAR}`), `%~dp0` is the script's folder
//! (`./`), `REM` and `::` start comments, a leading `@` is dropped, `\` in a
//! path is a separator (`/`), and the characters a shell would read but
//! cmd does not (`'`, `$`, `` ` ``) are escaped.

use super::rewrite::Rewrite;

/// The batch text as shell.
pub(crate) fn to_shell(text: &str) -> Rewrite {
    let mut out = Rewrite::default();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        line_to_shell(text, start, line, &mut out);
    }
    out
}

fn line_to_shell(text: &str, start: usize, line: &str, out: &mut Rewrite) {
    let body = line.trim_end_matches(['\n', '\r']);
    let b = body.as_bytes();
    let mut i = body.len() - body.trim_start().len();
    out.keep(text, start..start + i);
    // `@echo off`, `@llama-server …`: the `@` only hides the echo.
    while b.get(i) == Some(&b'@') {
        out.put(" ", start + i..start + i + 1);
        i += 1;
    }
    let rest = &body[i..];
    let lower = rest.to_ascii_lowercase();
    if rest.starts_with("::") || lower == "rem" || lower.starts_with("rem ") || lower.starts_with("rem\t") {
        out.put("#", start + i..start + i + 1);
        out.keep(text, start + i + 1..start + line.len());
        return;
    }
    let mut quoted = false;
    while i < b.len() {
        let at = start + i;
        let c = b[i];
        match c {
            b'"' => {
                quoted = !quoted;
                out.keep(text, at..at + 1);
            }
            // `^` escapes the next character; last on the line, it continues it.
            b'^' if i + 1 == b.len() => out.put("\\", at..at + 1),
            b'^' if !quoted => {
                out.put(" ", at..at + 1);
                if let Some(n) = body[i + 1..].chars().next() {
                    out.keep(text, at + 1..at + 1 + n.len_utf8());
                    i += n.len_utf8();
                }
            }
            b'%' => i += percent(text, body, start, i, out) - 1,
            b'!' => match name_until(body, i + 1, b'!') {
                Some(end) => {
                    out.put(&format!("${{{}}}", &body[i + 1..end]), at..start + end + 1);
                    i = end;
                }
                None => out.keep(text, at..at + 1),
            },
            b'\\' => out.put("/", at..at + 1),
            b'\'' | b'$' | b'`' if !quoted => out.put(&format!("\\{}", c as char), at..at + 1),
            b'$' | b'`' => out.put(&format!("\\{}", c as char), at..at + 1),
            _ => {
                let n = body[i..].chars().next().map_or(1, char::len_utf8);
                out.keep(text, at..at + n);
                i += n - 1;
            }
        }
        i += 1;
    }
    out.keep(text, start + body.len()..start + line.len());
}

/// The end of a variable name from `from` up to `close` on the line.
fn name_until(body: &str, from: usize, close: u8) -> Option<usize> {
    let end = from + body.get(from..)?.bytes().position(|b| b == close)?;
    let name = &body[from..end];
    let ok = !name.is_empty()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b':' | b'~' | b',' | b'-' | b'.'));
    ok.then_some(end)
}

/// A `%…%` expansion at `i`: written as shell; returns the bytes it took.
fn percent(text: &str, body: &str, start: usize, i: usize, out: &mut Rewrite) -> usize {
    let at = start + i;
    let next = body.as_bytes().get(i + 1).copied();
    match next {
        Some(b'%') => {
            out.keep(text, at..at + 1);
            2
        }
        // `%~dp0`: the folder the script is in, with its separator.
        Some(b'~') if body[i..].starts_with("%~dp0") => {
            out.put("./", at..at + 5);
            5
        }
        Some(b'*') => {
            out.put("\"$@\"", at..at + 2);
            2
        }
        Some(d) if d.is_ascii_digit() => {
            out.put(&format!("${}", d as char), at..at + 2);
            2
        }
        _ => match name_until(body, i + 1, b'%') {
            Some(end) => {
                // `%VAR:~0,4%`: the variable is the part before `:`.
                let name = body[i + 1..end].split(':').next().unwrap_or("");
                out.put(&format!("${{{name}}}"), at..start + end + 1);
                end + 1 - i
            }
            None => {
                out.keep(text, at..at + 1);
                1
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_as_shell() {
        for (bat, sh) in [
            ("@echo off\r\n", " echo off\r\n"),
            ("REM a note\n", "#EM a note\n"),
            (":: a note\n", "#: a note\n"),
            ("llama-server.exe ^\n  --port %PORT%\n", "llama-server.exe \\\n  --port ${PORT}\n"),
            ("%~dp0llama-server.exe -m \"%MODEL_DIR%\\m.gguf\"", "./llama-server.exe -m \"${MODEL_DIR}/m.gguf\""),
            ("echo it's 100%% %1 %*", "echo it\\'s 100% $1 \"$@\""),
            ("set X=!Y!", "set X=${Y}"),
        ] {
            assert_eq!(to_shell(bat).text(), sh, "{bat:?}");
        }
        let bat = "x ^\n  --port %PORT% -c 4";
        let r = to_shell(bat);
        let at = r.text().find("-c").expect("there");
        assert_eq!(&bat[r.source(at, at + 2)], "-c");
    }
}
