//! PowerShell scripts (`*.ps1`): rewritten as shell for the shell reader,
//! places kept — the backtick is PowerShell's escape (at a line's end, it
//! continues the line: `\`), `$env:PORT` is an expansion (`${PORT}`), the
//! call operator `& "…\llama-server.exe"` is dropped, and `\` in a path is
//! a separator (`/`).

use super::rewrite::Rewrite;

/// The PowerShell text as shell.
pub(crate) fn to_shell(text: &str) -> Rewrite {
    let mut out = Rewrite::default();
    let b = text.as_bytes();
    let mut i = 0;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        let c = b[i];
        let taken = match (quote, c) {
            (None, b'#') => {
                // A comment runs to the line's end, as in shell.
                let end = text[i..].find('\n').map_or(text.len(), |e| i + e);
                out.keep(text, i..end);
                end - i
            }
            (Some(b'\''), b'\'') | (Some(b'"'), b'"') | (None, b'\'' | b'"') => {
                quote = if quote.is_some() { None } else { Some(c) };
                out.keep(text, i..i + 1);
                1
            }
            (Some(b'\''), _) if c != b'\\' => keep_char(text, i, &mut out),
            (_, b'`') => {
                out.put("\\", i..i + 1);
                1
            }
            (_, b'\\') => {
                out.put("/", i..i + 1);
                1
            }
            (Some(b'"') | None, b'$') => dollar(text, i, &mut out),
            // `& "path\llama-server.exe" …`: the call operator runs what follows.
            (None, b'&') if b.get(i + 1) != Some(&b'&') && b.get(i.wrapping_sub(1)) != Some(&b'&') => {
                out.put(" ", i..i + 1);
                1
            }
            _ => keep_char(text, i, &mut out),
        };
        i += taken.max(1);
    }
    out
}

fn keep_char(text: &str, i: usize, out: &mut Rewrite) -> usize {
    let n = text[i..].chars().next().map_or(1, char::len_utf8);
    out.keep(text, i..i + n);
    n
}

/// `$env:NAME` and `${env:NAME}` as `${NAME}`; other `$` as they are.
fn dollar(text: &str, i: usize, out: &mut Rewrite) -> usize {
    let rest = &text[i..];
    let name_len = |s: &str| s.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
    for lead in ["$env:", "$Env:", "$ENV:"] {
        if let Some(after) = rest.strip_prefix(lead) {
            let n = name_len(after);
            if n > 0 {
                out.put(&format!("${{{}}}", &after[..n]), i..i + lead.len() + n);
                return lead.len() + n;
            }
        }
    }
    if let Some(inner) = rest.strip_prefix("${").and_then(|r| r.split_once('}')).map(|(a, _)| a) {
        let name = inner.rsplit(':').next().unwrap_or(inner);
        out.put(&format!("${{{name}}}"), i..i + inner.len() + 3);
        return inner.len() + 3;
    }
    out.keep(text, i..i + 1);
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn powershell_as_shell() {
        for (ps, sh) in [
            (
                "& \"C:\\llama\\llama-server.exe\" `\n  --port $env:PORT",
                "  \"C:/llama/llama-server.exe\" \\\n  --port ${PORT}",
            ),
            (".\\llama-server.exe -m ${env:MODEL} # it's", "./llama-server.exe -m ${MODEL} # it's"),
            ("echo 'a\\b' \"`$x\"", "echo 'a/b' \"\\$x\""),
        ] {
            assert_eq!(to_shell(ps).text(), sh, "{ps:?}");
        }
        let ps = "llama-server `\n  --port $env:PORT -c 4";
        let r = to_shell(ps);
        let at = r.text().find("-c").expect("there");
        assert_eq!(&ps[r.source(at, at + 2)], "-c");
    }
}
