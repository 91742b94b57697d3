//! The renaming clap's derive does to a field or a variant name: words split
//! as the `heck` crate splits them (at `_` and other non-alphanumerics, before
//! an upper-case letter that follows a lower-case one, and before the last
//! capital of a run followed by a lower-case letter; digits join the word
//! they follow), then joined in the casing `rename_all` names.

/// The words of an identifier.
fn words(name: &str) -> Vec<String> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mode {
        Boundary,
        Lower,
        Upper,
    }
    let mut out = Vec::new();
    for part in name.split(|c: char| !c.is_alphanumeric()) {
        let chars: Vec<char> = part.chars().collect();
        let mut start = 0;
        let mut mode = Mode::Boundary;
        for i in 0..chars.len() {
            let c = chars[i];
            let Some(&next) = chars.get(i + 1) else { break };
            let next_mode = if c.is_lowercase() {
                Mode::Lower
            } else if c.is_uppercase() {
                Mode::Upper
            } else {
                mode
            };
            if next_mode == Mode::Lower && next.is_uppercase() {
                out.push(chars[start..=i].iter().collect());
                start = i + 1;
                mode = Mode::Boundary;
            } else if mode == Mode::Upper && c.is_uppercase() && next.is_lowercase() {
                if i > start {
                    out.push(chars[start..i].iter().collect());
                }
                start = i;
                mode = Mode::Boundary;
            } else {
                mode = next_mode;
            }
        }
        if start < chars.len() {
            out.push(chars[start..].iter().collect());
        }
    }
    out
}

fn capitalised(w: &str) -> String {
    let mut cs = w.chars();
    match cs.next() {
        Some(f) => f.to_uppercase().chain(cs.flat_map(char::to_lowercase)).collect(),
        None => String::new(),
    }
}

/// `name` in the casing clap calls `rule` (`kebab-case`, `snake_case`,
/// `SCREAMING_SNAKE_CASE`, …); an unknown rule leaves it as written.
pub fn rename(name: &str, rule: &str) -> String {
    let w = words(name);
    let lower = || w.iter().map(|x| x.to_lowercase()).collect::<Vec<_>>();
    match rule {
        "kebab-case" | "kebab" => lower().join("-"),
        "snake_case" | "snake" => lower().join("_"),
        "SCREAMING_SNAKE_CASE" | "screaming_snake" | "shouty_snake" => {
            w.iter().map(|x| x.to_uppercase()).collect::<Vec<_>>().join("_")
        }
        "lower" | "lowercase" => name.to_lowercase(),
        "UPPER" | "UPPERCASE" => name.to_uppercase(),
        "PascalCase" | "pascal" | "UpperCamelCase" => w.iter().map(|x| capitalised(x)).collect(),
        "camelCase" | "camel" | "lowerCamelCase" => {
            w.iter().enumerate().map(|(i, x)| if i == 0 { x.to_lowercase() } else { capitalised(x) }).collect()
        }
        _ => name.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::rename;

    #[test]
    fn names_are_cased_as_clap_cases_them() {
        // A field's long name and env key.
        assert_eq!(rename("max_batch_prefill_tokens", "kebab-case"), "max-batch-prefill-tokens");
        assert_eq!(rename("max_batch_prefill_tokens", "SCREAMING_SNAKE_CASE"), "MAX_BATCH_PREFILL_TOKENS");
        // Variants: words start at capitals, a capital run keeps its last
        // letter for the next word, digits stay with the word before.
        assert_eq!(rename("BitsandbytesNf4", "kebab-case"), "bitsandbytes-nf4");
        assert_eq!(rename("CompressedTensors", "kebab-case"), "compressed-tensors");
        assert_eq!(rename("Fp8e4m3fn", "kebab-case"), "fp8e4m3fn");
        assert_eq!(rename("BFloat16", "kebab-case"), "b-float16");
        assert_eq!(rename("HTTPServer", "kebab-case"), "http-server");
        assert_eq!(rename("NoStack", "snake_case"), "no_stack");
        assert_eq!(rename("NoStack", "verbatim"), "NoStack");
        assert_eq!(rename("NoStack", "lower"), "nostack");
        assert_eq!(rename("no_stack", "PascalCase"), "NoStack");
        assert_eq!(rename("no_stack", "camelCase"), "noStack");
    }
}
