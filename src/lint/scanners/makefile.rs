//! Makefiles: each recipe line (a line that starts with a tab) is shell,
//! rewritten for the shell reader with its places kept — the `@`, `-` and
//! `+` prefixes are dropped, `$$` is the shell's `$`, and `$(VAR)` is an
//! expansion (`${VAR}`); a variable set once to one word (`SERVER =
//! ./build/bin/llama-server`) stands in for its expansion, so the program a
//! recipe runs is known. Other lines are make's own and are not read.

use std::collections::HashMap;

use super::rewrite::Rewrite;

/// The recipes of a Makefile as shell (other lines left empty).
pub(crate) fn to_shell(text: &str) -> Rewrite {
    let vars = variables(text);
    let mut out = Rewrite::default();
    let mut offset = 0;
    let mut continued = false;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        let recipe = body.starts_with('\t') || (continued && !body.trim().is_empty());
        if recipe {
            recipe_line(text, start, body, !continued, &vars, &mut out);
        }
        continued = recipe && body.ends_with('\\');
        if line.ends_with('\n') {
            out.put("\n", start + line.len() - 1..start + line.len());
        }
    }
    out
}

/// Variables set once to a single word: `NAME = word`, `:=`, `?=`.
fn variables(text: &str) -> HashMap<String, (String, usize)> {
    let mut seen: HashMap<String, Option<(String, usize)>> = HashMap::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        if line.starts_with('\t') {
            continue;
        }
        let body = line.trim_end_matches(['\n', '\r']);
        let Some(eq) = body.find('=') else { continue };
        let name = body[..eq].trim_end_matches([':', '?', '+', '!']).trim();
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            continue;
        }
        let value = body[eq + 1..].trim();
        let at = start + eq + 1 + (body[eq + 1..].len() - body[eq + 1..].trim_start().len());
        let single = !value.is_empty() && !value.contains(char::is_whitespace) && !value.contains('$');
        // Set twice, or appended to: not one known word.
        let entry = seen.entry(name.to_string()).or_insert(None);
        *entry = match entry {
            None if single && !body[..eq].ends_with('+') => Some((value.to_string(), at)),
            _ => None,
        };
        if !single {
            *entry = None;
        }
    }
    seen.into_iter().filter_map(|(k, v)| Some((k, v?))).collect()
}

fn recipe_line(
    text: &str,
    start: usize,
    body: &str,
    first: bool,
    vars: &HashMap<String, (String, usize)>,
    out: &mut Rewrite,
) {
    let b = body.as_bytes();
    let mut i = 0;
    while i < b.len() && (b[i] == b'\t' || b[i] == b' ') {
        i += 1;
    }
    out.keep(text, start..start + i);
    // The prefixes stand only at a recipe line's start, not a continuation's.
    while first && i < b.len() && matches!(b[i], b'@' | b'-' | b'+') {
        out.put(" ", start + i..start + i + 1);
        i += 1;
    }
    while i < b.len() {
        let at = start + i;
        if b[i] != b'$' {
            let n = body[i..].chars().next().map_or(1, char::len_utf8);
            out.keep(text, at..at + n);
            i += n;
            continue;
        }
        match b.get(i + 1) {
            Some(b'$') => {
                out.put("$", at..at + 2);
                i += 2;
            }
            Some(&open @ (b'(' | b'{')) => {
                let close = if open == b'(' { ')' } else { '}' };
                let Some(len) = body[i + 2..].find(close) else {
                    out.keep(text, at..start + body.len());
                    return;
                };
                let inner = &body[i + 2..i + 2 + len];
                let end = at + len + 3;
                match vars.get(inner) {
                    Some((word, from)) => out.keep(text, *from..*from + word.len()),
                    // `$(shell …)`, `$(wildcard …)`: known only when make runs.
                    None if inner.contains(char::is_whitespace) => out.put("${_}", at..end),
                    None => out.put(&format!("${{{inner}}}"), at..end),
                }
                i += len + 3;
            }
            // `$@`, `$<`, `$^`: make's automatic variables.
            Some(_) => {
                out.put("${_}", at..at + 2);
                i += 2;
            }
            None => {
                out.keep(text, at..at + 1);
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recipes_as_shell() {
        let mk = "SERVER = ./bin/llama-server\nPORT ?= 8080\nPORT = 9\nserve: build\n\t@$(SERVER) --port $(PORT) \\\n\t  -m $$MODEL -o $@\n";
        let r = to_shell(mk);
        assert_eq!(r.text(), "\n\n\n\n\t ./bin/llama-server --port ${PORT} \\\n\t  -m $MODEL -o ${_}\n");
        // The program stands where the variable is set.
        let at = r.text().find("./bin").expect("there");
        assert_eq!(r.source(at, at + 5), 9..14);
        let at = r.text().find("-m").expect("there");
        assert_eq!(&mk[r.source(at, at + 2)], "-m");
    }
}
