//! What a script says beyond its command lines, as serve scripts build an
//! argv indirectly: the variables it sets (a binary held in `BIN=…` and run
//! as `$BIN`, `"${LLAMA_SERVER}"`; a string of options word-split into the
//! argv, `EXTRA_ARGS="--a 1"; exec radiance $EXTRA_ARGS`), the positional
//! arguments `set -- …` gives `"$@"`, the functions that wrap the engine
//! (`serve() { radiance "$@"; }; serve --port 1`), and the `K=V` words that
//! set the engine's environment (`K=V radiance`, `env K=V radiance`,
//! `podman run -e K=V`). Every word keeps its place in the text.

use rustc_hash::FxHashMap as HashMap;
use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use crate::lint::pairing::Word;
use crate::lint::refs::Binary;
use crate::lint::scanners::invocation::{may_run_engine, run_of, Target};
use crate::lint::scanners::words::{self, unquote, unquote_map, Command, Part};
use crate::lint::scanners::{env_ref, Scan, ScanCtx};
use crate::lint::span::Span;

/// A script read, with what its variables and functions say.
pub(super) struct Script<'s, 'c> {
    src: &'s str,
    pub read: words::Script<'s>,
    ctx: &'c ScanCtx<'c>,
    /// Each variable's values as written, in order.
    vars: HashMap<String, Vec<Range<usize>>>,
    /// Functions whose body runs the engine with `"$@"`: their binary.
    pub functions: HashMap<String, Option<Arc<Binary>>>,
    /// The words of each `set -- …` outside a function: what `"$@"` holds.
    set_args: Vec<Vec<Word<'s>>>,
}

/// How an unquoted expansion in an argv is split into words.
pub(super) enum Split<'s> {
    /// One value set in the script: its words, in place.
    InPlace(Vec<Word<'s>>),
    /// Several values: each is judged on its own (`split_each`).
    Each(String),
    /// Not split: the word as it is.
    No,
}

impl<'s, 'c> Script<'s, 'c> {
    pub fn new(src: &'s str, read: words::Script<'s>, ctx: &'c ScanCtx<'c>) -> Self {
        let mut vars: HashMap<String, Vec<Range<usize>>> = HashMap::default();
        for v in &read.vars {
            vars.entry(v.name.clone()).or_default().push(v.value.clone());
        }
        let mut s = Script { src, read, ctx, vars, functions: HashMap::default(), set_args: Vec::new() };
        let mut functions = HashMap::default();
        let mut set_args = Vec::new();
        for c in &s.read.commands {
            if let Some(f) = &c.func {
                if c.parts.iter().any(|p| is_positional(s.raw(p))) {
                    if let Target::Argv { binary, .. } = run_of(&s.names(&c.parts), ctx).target {
                        functions.insert(f.clone(), binary);
                    }
                }
            } else if c.parts.first().is_some_and(|p| s.raw(p) == "set")
                && c.parts.get(1).is_some_and(|p| s.raw(p) == "--")
            {
                set_args.push(c.parts[2..].iter().map(|p| p.word.clone()).collect());
            }
        }
        s.functions = functions;
        s.set_args = set_args;
        s
    }

    /// True when a command may run the engine: its name is the engine's, a
    /// wrapper's or runtime's, a variable, or a function that wraps it.
    pub fn may_run(&self, c: &Command<'_>) -> bool {
        let Some(first) = c.parts.first() else { return false };
        let raw = self.raw(first);
        if raw.contains('$') {
            return true;
        }
        let Some(name) = first.name(self.src) else { return false };
        may_run_engine(&name, self.ctx) || self.functions.contains_key(name.as_ref())
    }

    fn raw(&self, p: &Part<'_>) -> &'s str {
        self.src.get(p.word.start..p.word.end).unwrap_or("")
    }

    /// The literal text of each word, for finding the command: a variable
    /// read whole (`$BIN`, `"${LLAMA_SERVER}"`) is what the script sets it
    /// to, its default, or the binary its name names.
    pub fn names<'p>(&self, parts: &'p [Part<'s>]) -> Vec<Option<Cow<'p, str>>> {
        // The command's name is read as written; later words as the reader
        // read them (unquoting each again would cost every word of every
        // line), borrowed from the reader's words, never copied.
        let text = |(k, p): (usize, &'p Part<'s>)| match k {
            0 => p.name(self.src),
            _ => p.word.text.as_deref().map(Cow::Borrowed),
        };
        parts
            .iter()
            .enumerate()
            .map(|(k, p)| self.resolve(self.raw(p)).map(Cow::Owned).or_else(|| text((k, p))))
            .collect()
    }

    fn resolve(&self, raw: &str) -> Option<String> {
        let (name, default) = expansion(raw)?;
        if let Some(d) = default {
            return Some(unquote(d));
        }
        for v in self.vars.get(name).into_iter().flatten().rev() {
            let value = self.src.get(v.clone()).unwrap_or("");
            if !value.contains(['$', '`']) {
                return Some(unquote(value));
            }
            if let Some((_, Some(d))) = expansion(value) {
                return Some(unquote(d));
            }
            // `/media/$USER/apps/llama-cli`: a path whose folders vary but
            // whose last part does not names its binary all the same.
            let last = value.trim_matches(['"', '\'']).rsplit('/').next().unwrap_or("");
            if value.contains('/') && !last.is_empty() && !last.contains(['$', '`', '(', ')', '{', '}']) {
                return Some(unquote(value));
            }
        }
        // `LLAMA_SERVER`, `RADIANCE_BIN`: a variable named after the binary.
        let kebab = name.to_ascii_lowercase().replace('_', "-");
        let bare = ["-bin", "-path", "-exe", "-cmd"].iter().find_map(|s| kebab.strip_suffix(s));
        let found = [Some(kebab.as_str()), bare].into_iter().flatten().find(|n| self.ctx.commands.is_known(n));
        found.map(str::to_string)
    }

    /// `"$@"` outside a function, when `set -- …` gave it words: read as
    /// the array `@`.
    pub fn positional_array(&self, p: &Part<'_>, command: &Command<'_>) -> Option<String> {
        (command.func.is_none() && !self.set_args.is_empty() && is_positional(self.raw(p))).then(|| "@".to_string())
    }

    /// The literals of an array (`@`: what `set --` gave).
    pub fn arrays(&self, name: &str) -> Vec<&Vec<Word<'s>>> {
        if name == "@" {
            return self.set_args.iter().collect();
        }
        self.read.arrays.get(name).into_iter().flatten().collect()
    }

    /// An unquoted `$X` in an argv: word-split, when the script sets `X` to
    /// options (`X="--a 1 --b"`).
    pub fn split(&self, p: &Part<'_>) -> Split<'s> {
        let raw = self.raw(p);
        // `${EAGER:+--enforce-eager}`, `${REV:+--revision "$REV"}`: whenever
        // the variable is set, the argv holds the alternate's words.
        if let Some(alt) = alternate(raw) {
            let at = p.word.start + alt.start..p.word.start + alt.end;
            return self.value_words(at).map_or(Split::No, Split::InPlace);
        }
        if !raw.starts_with('$') {
            return Split::No;
        }
        let Some((name, None)) = expansion(raw) else { return Split::No };
        let values = self.vars.get(name).map_or(&[][..], Vec::as_slice);
        let split: Vec<Vec<Word<'s>>> = values.iter().filter_map(|v| self.value_words(v.clone())).collect();
        match (values.len(), split.len()) {
            (_, 0) => Split::No,
            (1, _) => Split::InPlace(split.into_iter().next().unwrap_or_default()),
            _ => Split::Each(name.to_string()),
        }
    }

    /// An unquoted `$X` the script never sets: its value comes from the
    /// environment (an env file in reach may hold options for it).
    pub fn unset_options(&self, p: &Part<'_>) -> Option<String> {
        let raw = self.raw(p);
        if !raw.starts_with('$') {
            return None;
        }
        let (name, None) = expansion(raw)? else { return None };
        (!self.vars.contains_key(name)).then(|| name.to_string())
    }

    /// Each value of `X` that holds options, as words.
    pub fn split_each(&self, name: &str) -> Vec<Vec<Word<'s>>> {
        self.vars.get(name).into_iter().flatten().filter_map(|v| self.value_words(v.clone())).collect()
    }

    /// `$CMD` or `${CMD}` run as the command (or after `exec`): a string the
    /// script built (`CMD="vllm serve m"`, then `CMD+=" --port 1"` lines)
    /// and runs word-split. The command with those words in its place, each
    /// where its value was written, when the first value starts with a
    /// command that may run the engine and every later one with an option
    /// (two values that each start a command are two different commands).
    pub fn expand_command(&self, parts: &[Part<'s>]) -> Option<Vec<Part<'s>>> {
        let k = usize::from(parts.first().is_some_and(|p| self.raw(p) == "exec"));
        let raw = self.raw(parts.get(k)?);
        let (name, None) = expansion(raw).filter(|_| raw.starts_with('$') && !raw.starts_with("\"$"))? else {
            return None;
        };
        let mut words = Vec::new();
        for (i, v) in self.vars.get(name)?.iter().enumerate() {
            let value = self.split_words(v.clone())?;
            let first = value.first()?.text.as_deref()?;
            let fits = if i == 0 { may_run_engine(first, self.ctx) } else { first.starts_with('-') };
            if !fits {
                return None;
            }
            words.extend(value);
        }
        let mut out = parts[..k].to_vec();
        out.extend(words.into_iter().map(|word| Part { word, named: true, array: None }));
        out.extend(parts[k + 1..].iter().cloned());
        Some(out)
    }

    /// A value as written, split on white space as the shell splits an
    /// unquoted expansion, each word where it stands; `None` unless one
    /// word is an option, or when it runs a command.
    fn value_words(&self, at: Range<usize>) -> Option<Vec<Word<'s>>> {
        let out = self.split_words(at)?;
        out.iter().any(|w| w.text.as_deref().is_some_and(|t| t.starts_with('-'))).then_some(out)
    }

    /// [`Self::value_words`], whatever the words are.
    fn split_words(&self, at: Range<usize>) -> Option<Vec<Word<'s>>> {
        let raw = self.src.get(at.clone())?;
        if raw.contains('`') || raw.contains("$(") {
            return None;
        }
        let (text, map) = unquote_map(raw);
        // `"${X:-default words}"`: the default is what the argv gets when
        // `X` is unset; any other `${…}` holding white space is not split here.
        let (mut i, end) = match default_span(&text) {
            Some(r) => (r.start, r.end),
            None if braced_with_space(&text) => return None,
            None => (0, text.len()),
        };
        let mut out = Vec::new();
        let b = &text.as_bytes()[..end];
        while i < b.len() {
            if b[i].is_ascii_whitespace() {
                i += 1;
                continue;
            }
            let start = i;
            while i < b.len() && !b[i].is_ascii_whitespace() {
                i += 1;
            }
            let word = &text[start..i];
            let (from, to) = (at.start + map[start], at.start + map[i - 1] + 1);
            let dynamic = word.contains('$');
            // `${X:-default}` inside the string: judged by its default.
            let (var, default) = match dynamic.then(|| expansion(word)).flatten() {
                Some((n, d)) => (Some(n.to_string()), d.map(unquote)),
                None => (None, None),
            };
            let text = (!dynamic).then(|| std::borrow::Cow::Owned(word.to_string()));
            out.push(Word { text, var, default, start: from, end: to });
        }
        Some(out)
    }

    /// Env knobs the command line sets for the engine: its leading `K=V`
    /// words (byte ranges) and the wrappers' (word, offset of `K=V`).
    pub fn env_refs(
        &self,
        assigns: &[Range<usize>],
        env: &[(usize, usize)],
        parts: &[Part<'_>],
        span: &dyn Fn(usize, usize) -> Span,
        out: &mut Scan,
    ) {
        for a in assigns {
            self.env_ref_at(a.start, self.src.get(a.clone()).unwrap_or(""), 0, span, out);
        }
        for (w, offset) in env {
            if let Some(p) = parts.get(*w) {
                self.env_ref_at(p.word.start, self.raw(p), *offset, span, out);
            }
        }
    }

    /// Env knobs the script exports to the engine it runs (`export
    /// VLLM_X=1`): every exported variable with the prefix of the keys the
    /// engine reads itself (its own or an alias, where the profile names
    /// one) that the script does not expand itself (one it reads,
    /// `$VLLM_MODEL`, is its own setting, whatever its name). An engine
    /// whose env keys are a serve script's (by convention) reads none.
    pub fn export_refs(&self, span: &dyn Fn(usize, usize) -> Span, out: &mut Scan) {
        let env = self.ctx.env;
        let Some(prefix) = env.prefix.as_deref().filter(|_| !env.convention) else { return };
        let owned = |k: &str| k.starts_with(prefix) || env.aliases.keys().any(|a| k.starts_with(a.as_str()));
        for v in self.read.vars.iter().filter(|v| v.exported && owned(&v.name)) {
            let Some(start) = v.value.start.checked_sub(v.name.len() + 1) else { continue };
            if self.src.get(start..v.value.start - 1) != Some(v.name.as_str()) || self.expands(&v.name) {
                continue;
            }
            self.env_ref_at(start, self.src.get(start..v.value.end).unwrap_or(""), 0, span, out);
        }
    }

    /// True when the script expands `$NAME` or `${NAME…}` anywhere.
    fn expands(&self, name: &str) -> bool {
        let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
        [format!("${name}"), format!("${{{name}")]
            .iter()
            .any(|pat| self.src.match_indices(pat.as_str()).any(|(i, _)| !self.src[i + pat.len()..].starts_with(ident)))
    }

    fn env_ref_at(&self, base: usize, raw: &str, offset: usize, span: &dyn Fn(usize, usize) -> Span, out: &mut Scan) {
        let (text, map) = unquote_map(raw);
        let Some((k, v)) = text.get(offset..).and_then(|kv| kv.split_once('=')) else { return };
        if k.is_empty() || !k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return;
        }
        let at = |i: usize| base + map.get(i).copied().unwrap_or(raw.len());
        let end = |i: usize| if i == 0 { base } else { base + map[i - 1] + 1 };
        let (ks, ke) = (offset, offset + k.len());
        let key_at = at(ks)..end(ke);
        let value_at = at(ke + 1).min(end(text.len()))..end(text.len());
        // A value read from elsewhere (`K=$V`) is not judged here.
        let value = if v.contains('$') { "" } else { v };
        out.refs.push(env_ref(k, key_at, value, value_at, span));
    }
}

/// In `${X:-default}` (or `${X-…}`, `${X:=…}`) read whole, where the
/// default is.
fn default_span(text: &str) -> Option<Range<usize>> {
    let inner = text.strip_prefix("${")?.strip_suffix('}')?;
    let end = inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    let op = [":-", ":=", "-", "="].iter().find(|o| inner[end..].starts_with(**o))?;
    let start = 2 + end + op.len();
    (!inner.contains('{')).then_some(start..text.len() - 1)
}

/// In `${X:+words}` (or `${X+words}`) read whole, where the words are: what
/// the argv gets when `X` is set. A double-quoted one is one word, so only
/// one without white space is read.
fn alternate(raw: &str) -> Option<Range<usize>> {
    let quoted = raw.len() >= 2 && raw.starts_with('"') && raw.ends_with('"');
    let lead = usize::from(quoted);
    let t = &raw[lead..raw.len() - lead];
    let inner = t.strip_prefix("${")?.strip_suffix('}')?;
    let end = inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    let first = inner.chars().next()?;
    if end == 0 || !(first.is_ascii_alphabetic() || first == '_') {
        return None;
    }
    let op = [":+", "+"].iter().find(|o| inner[end..].starts_with(**o))?;
    let start = lead + 2 + end + op.len();
    let words = raw.get(start..raw.len() - lead - 1)?;
    // The braces inside must pair, so the last `}` is the one that closes.
    let mut depth = 0i32;
    for c in words.bytes() {
        depth += match c {
            b'{' => 1,
            b'}' => -1,
            _ => 0,
        };
        if depth < 0 {
            return None;
        }
    }
    let spaced = words.contains(char::is_whitespace);
    (depth == 0 && !words.is_empty() && !(quoted && spaced)).then_some(start..start + words.len())
}

/// True when a `${…}` in `text` holds white space.
fn braced_with_space(text: &str) -> bool {
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        let tail = &rest[at..];
        let close = tail.find('}').unwrap_or(tail.len());
        if tail[..close].contains(char::is_whitespace) {
            return true;
        }
        rest = &tail[close..];
    }
    false
}

/// `"$@"`, `$@`, `"$*"`, `"${@}"`: the positional arguments.
fn is_positional(raw: &str) -> bool {
    matches!(raw.trim_matches('"'), "$@" | "$*" | "${@}" | "${*}")
}

/// A word that is one variable read whole: `$X`, `"$X"`, `${X}`,
/// `"${X:-default}"` → its name and default.
fn expansion(raw: &str) -> Option<(&str, Option<&str>)> {
    let t = raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')).unwrap_or(raw);
    let t = t.strip_prefix('$')?;
    let ident = |s: &str| {
        s.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if let Some(inner) = t.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
        let end = inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(inner.len());
        let (name, op) = inner.split_at(end);
        if !ident(name) {
            return None;
        }
        if op.is_empty() {
            return Some((name, None));
        }
        let default = [":-", ":=", "-", "="].iter().find_map(|o| op.strip_prefix(o))?;
        return Some((name, Some(default).filter(|d| !d.is_empty() && !d.contains('$'))));
    }
    ident(t).then_some((t, None))
}
