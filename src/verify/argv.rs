//! The engine's argv as the kernel holds it (`/proc/PID/cmdline`, words
//! separated by NUL), judged against the pinned catalogue by lint's own
//! pairing and rules, and the flags it leaves unset — each with the default
//! that therefore applies.

use std::path::Path;

use serde::Serialize;

use super::VerifyError;
use crate::catalog::model::{Catalog, Kind};
use crate::catalog::semantics::Semantics;
use crate::lint::argv::{judge_argv, ArgvJudge};
use crate::lint::refs::Ref;

/// An argv read from a file or a process.
#[derive(Debug, Clone)]
pub struct Cmdline {
    pub words: Vec<String>,
    /// `/proc/4242/cmdline` or the file as given.
    pub from: String,
    /// Something about how it was read that the reader should know.
    pub note: Option<String>,
}

/// Reads `spec`: a PID (all digits) reads `/proc/PID/cmdline`; anything
/// else is a file holding a copy of one.
pub fn read(spec: &str, cwd: &Path) -> Result<Cmdline, VerifyError> {
    let (path, from) = if !spec.is_empty() && spec.bytes().all(|b| b.is_ascii_digit()) {
        let p = Path::new("/proc").join(spec).join("cmdline");
        let shown = p.display().to_string();
        (p, shown)
    } else {
        (cwd.join(spec), spec.to_string())
    };
    let bytes = crate::bounded::read(&path, crate::bounded::ARGV).map_err(|e| VerifyError::Read {
        what: "argv file",
        path: from.clone(),
        message: if e.kind() == std::io::ErrorKind::NotFound && from.starts_with("/proc/") {
            "no such process".to_string()
        } else {
            e.to_string()
        },
    })?;
    parse(&bytes, from)
}

/// Splits a cmdline into words. Without any NUL, the text was most likely
/// turned into one line (`tr '\0' ' '`): it is split at whitespace, and
/// the note says so, since a value with a space in it is then two words.
pub fn parse(bytes: &[u8], from: String) -> Result<Cmdline, VerifyError> {
    let text = String::from_utf8_lossy(bytes);
    let (words, note): (Vec<String>, _) = if text.contains('\0') {
        (text.trim_end_matches('\0').split('\0').map(str::to_string).collect(), None)
    } else {
        let words = text.split_whitespace().map(str::to_string).collect();
        (words, Some("no NUL separators: read as words separated by spaces".to_string()))
    };
    if words.iter().all(String::is_empty) {
        return Err(VerifyError::EmptyArgv { from });
    }
    Ok(Cmdline { words, from, note })
}

/// What lint's rules say of a word of argv.
#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    pub code: &'static str,
    pub rule: &'static str,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
}

/// A flag (or stray word) in argv.
#[derive(Debug, Clone, Serialize)]
pub struct Given {
    /// As written: `--prefill-interleave`, `--x=v`'s `--x`, or a stray word.
    pub written: String,
    /// The catalogue's name for it, when the build has it.
    pub flag: Option<String>,
    pub value: Option<String>,
    /// Empty when the build accepts it as given.
    pub problems: Vec<Problem>,
}

/// A catalogue flag absent from argv, and what the engine uses instead.
#[derive(Debug, Clone, Serialize)]
pub struct Unset {
    pub flag: String,
    /// The help table's default; empty when it states none.
    pub default: String,
    /// What `auto` resolves to, when the source says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_means: Option<String>,
    /// How serve scripts pass it, when the overlay says they do so conditionally.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditional: Option<String>,
}

/// The argv, judged.
#[derive(Debug, Clone, Serialize)]
pub struct ArgvReport {
    pub from: String,
    /// The program word (`/usr/bin/radiance`).
    pub program: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub given: Vec<Given>,
    pub unset: Vec<Unset>,
}

impl ArgvReport {
    /// The entry that gives a flag (by its catalogue name); the last wins,
    /// as in a parser that overwrites.
    pub fn find(&self, flag: &str) -> Option<&Given> {
        self.given.iter().rev().find(|g| g.flag.as_deref() == Some(flag))
    }

    pub fn errors(&self) -> usize {
        self.given.iter().map(|g| g.problems.len()).sum()
    }
}

/// Judges a process's argv against the pinned catalogue.
pub fn judge(cmd: &Cmdline, judge: &ArgvJudge<'_>, catalog: &Catalog, sem: &Semantics) -> ArgvReport {
    let mut notes: Vec<String> = cmd.note.iter().cloned().collect();
    let program = cmd.words.first().cloned().unwrap_or_default();
    let base = program.rsplit('/').next().unwrap_or(&program);
    let next = cmd.words.get(1).map(String::as_str);
    // The program word, and a subcommand where the profile has them.
    let (skip, binary) = match judge.commands.invocation(base, next) {
        Some((crate::catalog::profile::Invocation::Engine { words, .. }, binary)) => (words, binary),
        // A copy without the program word: every word is an argument.
        _ if program.starts_with('-') => {
            notes.push("the argv starts with a flag, not a program: every word is judged as the engine's".into());
            (0, None)
        }
        _ => {
            notes.push(format!(
                "`{base}` is not a command of {} that knobs knows: its arguments are judged as the engine's",
                catalog.source.engine
            ));
            (1, None)
        }
    };
    let words: Vec<String> = cmd.words.iter().skip(skip).cloned().collect();
    let judged = judge_argv(&words, binary.as_ref(), judge);
    let mut given = Vec::new();
    for j in judged {
        let problems: Vec<Problem> = j
            .violations
            .iter()
            .map(|v| Problem { code: v.rule.code, rule: v.rule.name, message: v.message.clone(), help: v.help.clone() })
            .collect();
        // A further value of an option that takes several: the option's.
        if let Ref::Value { flag, value } = &j.r {
            if let Some(g) = given.iter_mut().rev().find(|g: &&mut Given| g.written == *flag) {
                if let (Some(all), Some(v)) = (g.value.as_mut(), value.text.as_deref()) {
                    all.push(' ');
                    all.push_str(v);
                }
                g.problems.extend(problems);
            }
            continue;
        }
        let (written, value) = match &j.r {
            Ref::Flag { name, value, .. } => (name.clone(), value.as_ref().and_then(|v| v.text.clone())),
            Ref::Stray { word, .. } => (word.clone(), None),
            Ref::Env { key, .. } => (key.clone(), None),
            Ref::Metric { name, .. } => (name.clone(), None),
            Ref::EnvLine { .. } | Ref::Broken { .. } | Ref::Value { .. } => continue,
            Ref::Program { binary, .. } => (binary.command.clone(), None),
        };
        given.push(Given { written, flag: j.flag.map(|f| f.name), value, problems });
    }
    let unset = catalog
        .flags
        .iter()
        .filter(|f| f.removed.is_none())
        .filter(|f| !given.iter().any(|g| g.flag.as_deref() == Some(f.name.as_str())))
        .map(|f| Unset {
            flag: f.name.clone(),
            default: if f.kind == Kind::Switch && f.default.is_empty() { "off".into() } else { f.default.clone() },
            auto_means: f.auto_means.clone(),
            conditional: sem.flag.get(&f.name).and_then(|s| s.conditional.clone()),
        })
        .collect();
    // A copy without a program word names none.
    let program = if skip == 0 { String::new() } else { program };
    ArgvReport { from: cmd.from.clone(), program, notes, given, unset }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_of_a_cmdline() {
        let c = parse(b"/usr/bin/radiance\0--max-num-seqs\x002\0", "f".into()).expect("argv");
        assert_eq!(c.words, ["/usr/bin/radiance", "--max-num-seqs", "2"]);
        assert!(c.note.is_none());
        let c = parse(b"radiance --max-num-seqs 2\n", "f".into()).expect("argv");
        assert_eq!(c.words, ["radiance", "--max-num-seqs", "2"]);
        assert!(c.note.is_some());
        assert!(matches!(parse(b"", "f".into()), Err(VerifyError::EmptyArgv { .. })));
        assert!(matches!(parse(b"\0", "f".into()), Err(VerifyError::EmptyArgv { .. })));
    }
}
