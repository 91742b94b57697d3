//! Procfiles (`Procfile`, `Procfile.dev`): each `name: command` line runs
//! its command with a shell, so the command, in place, is shell text.

use super::rewrite::Rewrite;

/// The commands of a Procfile as shell (names and comments left out).
pub(crate) fn to_shell(text: &str) -> Rewrite {
    let mut out = Rewrite::default();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        let name = body
            .find(':')
            .filter(|&c| c > 0 && body[..c].bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'));
        if let Some(colon) = name {
            out.keep(text, start + colon + 1..start + body.len());
        }
        if line.ends_with('\n') {
            out.put("\n", start + line.len() - 1..start + line.len());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_in_place() {
        let p = "# the web process\nweb: radiance --port $PORT\nworker-2: ./run.sh\n";
        let r = to_shell(p);
        assert_eq!(r.text(), "\n radiance --port $PORT\n ./run.sh\n");
        let at = r.text().find("--port").expect("there");
        assert_eq!(&p[r.source(at, at + 6)], "--port");
    }
}
