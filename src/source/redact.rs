//! Credentials out of sight: `https://user:token@host/org/repo` is shown,
//! written into a catalogue's provenance and put in errors as
//! `https://host/org/repo` (an ssh URL keeps its user name, `git@`, and
//! loses only a password). One function, applied to the repository the tree
//! reports and to every error that may name the URL, so a token given on
//! the command line never reaches a log or a committed file.

/// `text` with the userinfo (`user:token@`) of every `scheme://` URL in it
/// removed. Text without such a URL comes back unchanged.
pub fn redact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        // The authority runs to the first `/`, `?`, `#`, space or quote.
        let end = tail.find(|c: char| matches!(c, '/' | '?' | '#' | '`' | '\'' | '"') || c.is_whitespace());
        let authority = &tail[..end.unwrap_or(tail.len())];
        let ssh = head.ends_with("ssh://");
        match authority.rfind('@') {
            // An ssh user name is who logs in, not a secret: `git@` stays,
            // a password after it goes.
            Some(i) if ssh => {
                let user = &authority[..i];
                out.push_str(user.split(':').next().unwrap_or(""));
                out.push('@');
                rest = &tail[i + 1..];
            }
            Some(i) => rest = &tail[i + 1..],
            None => rest = tail,
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn userinfo_goes_and_nothing_else_changes() {
        let cases = [
            ("https://user:tok3n@example.org/eng/radiance.git", "https://example.org/eng/radiance.git"),
            ("https://tok3n@example.org", "https://example.org"),
            ("ssh://git@example.org/eng/r", "ssh://git@example.org/eng/r"),
            ("ssh://git:pw@example.org/eng/r", "ssh://git@example.org/eng/r"),
            ("git+ssh://git:pw@example.org/r", "git+ssh://git@example.org/r"),
            ("https://ghp_tok3n@github.com/o/r", "https://github.com/o/r"),
            ("cannot read `https://a:b@h/r`: 401 at https://a:b@h/r", "cannot read `https://h/r`: 401 at https://h/r"),
            ("https://example.org/a@b", "https://example.org/a@b"),
            ("file:///srv/git/radiance.git", "file:///srv/git/radiance.git"),
            ("../radiance", "../radiance"),
            ("git@example.org:eng/r", "git@example.org:eng/r"),
            ("", ""),
        ];
        for (given, shown) in cases {
            assert_eq!(redact(given), shown, "{given}");
        }
    }
}
