//! A reference resolved once against the pinned build, for every rule:
//! what it names there, and the verdict on the value it sets.

use super::Ctx;
use crate::catalog::model::{EnvKey, Flag, Metric};
use crate::catalog::query::{env_key, env_target, find_metric, judge, EnvTarget, Verdict};
use crate::lint::refs::{EnvProblem, Ref};
use crate::lint::span::Span;

/// A reference and what the pinned build makes of it, resolved once for
/// every rule: the flag a spelling names, the flag an env key sets, the
/// metric a name is, and the verdict on the value set.
pub struct Subject<'r, 'c> {
    pub r: &'r Ref,
    /// `Ref::Flag`: the pinned build's flag of that spelling.
    pub flag: Option<&'c Flag>,
    /// `Ref::Env`: what the key sets in the pinned build.
    pub env: Option<EnvTarget<'c>>,
    /// `Ref::Env`: the engine-wide key of that name the pinned build reads.
    pub env_key: Option<&'c EnvKey>,
    /// `Ref::Metric` (a name, not a pattern): the metric it is.
    pub metric: Option<&'c Metric>,
    /// The value the reference sets, judged against its flag.
    pub verdict: Verdict,
}

impl<'r, 'c> Subject<'r, 'c> {
    pub fn new(r: &'r Ref, ctx: &Ctx<'c>) -> Self {
        let mut s = Subject { r, flag: None, env: None, env_key: None, metric: None, verdict: Verdict::Fine };
        match r {
            Ref::Flag { name, .. } | Ref::Value { flag: name, .. } => s.flag = ctx.flag(name),
            // Env keys are case-sensitive: one in lower case sets a flag only
            // when a serve script reads it as written (KNB019 says the rest).
            Ref::Env { key, .. } => {
                s.env = env_target(key, ctx.catalog, ctx.profile, ctx.env_flags)
                    .filter(|_| !key.bytes().any(|b| b.is_ascii_lowercase()) || ctx.env_flags.contains_key(key));
                // An old prefix the engine still reads (`SGL_X` as `SGLANG_X`).
                s.env_key = env_key(ctx.catalog, key)
                    .or_else(|| ctx.profile.env.alias_of(key).and_then(|k| env_key(ctx.catalog, &k)));
            }
            Ref::Metric { name, pattern: false, .. } => s.metric = find_metric(ctx.catalog, name),
            Ref::Metric { .. } | Ref::Stray { .. } | Ref::EnvLine { .. } | Ref::Program { .. } | Ref::Broken { .. } => {
            }
        }
        if let Some((flag, value, _)) = s.setting() {
            s.verdict = judge(flag, value);
        }
        s
    }

    /// A metric on one side of a PromQL `or` whose other side names a
    /// metric the pinned build exports: a fallback across builds (`new or
    /// old`), where one side is meant to be empty.
    pub fn is_fallback(&self, ctx: &Ctx<'c>) -> bool {
        let Ref::Metric { usage: Some(usage), .. } = self.r else { return false };
        usage.alternatives.iter().any(|n| find_metric(ctx.catalog, n).is_some())
    }

    /// The flag and value the reference sets, for the value rules. A
    /// removed flag's value is not judged (the flag itself is the finding),
    /// nor the value of a key that turns a flag off (any value does).
    pub fn setting(&self) -> Option<(&'c Flag, &'r str, Span)> {
        match self.r {
            Ref::Flag { value: Some(v), .. } => {
                let flag = self.flag.filter(|f| f.removed.is_none())?;
                Some((flag, v.text.as_deref()?, v.span))
            }
            Ref::Value { value: v, .. } => {
                let flag = self.flag.filter(|f| f.removed.is_none())?;
                Some((flag, v.text.as_deref()?, v.span))
            }
            Ref::Env { value: Some(v), .. } => {
                let t = self.env.filter(|t| !t.negated && t.flag.removed.is_none())?;
                Some((t.flag, v.text.as_deref()?, v.span))
            }
            _ => None,
        }
    }

    /// How a finding names what was written: `` `--flag` `` or
    /// `` `KEY` (`--flag`) ``.
    pub fn written(&self) -> String {
        match (self.r, self.env) {
            (Ref::Env { key, .. }, Some(t)) => format!("`{key}` (`{}`)", t.flag.name),
            (Ref::Flag { name, .. }, _) | (Ref::Env { key: name, .. }, None) => format!("`{name}`"),
            (Ref::Value { flag, .. }, _) => format!("`{flag}`"),
            (Ref::Metric { name, .. }, _) | (Ref::Stray { word: name, .. }, _) => format!("`{name}`"),
            (Ref::EnvLine { problem, .. }, _) => match problem {
                EnvProblem::Spaces { key, .. } | EnvProblem::Hyphen { key } | EnvProblem::Duplicate { key, .. } => {
                    format!("`{key}`")
                }
            },
            (Ref::Program { binary, .. }, _) => format!("`{}`", binary.command),
            (Ref::Broken { .. }, _) => "`\\`".to_string(),
        }
    }
}
