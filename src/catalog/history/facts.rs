//! A history of facts only: every help text and sentence of the source
//! dropped, then the records that became the same merged: what may be
//! embedded in knobs.

use rustc_hash::FxHashMap;

use super::record::intern;
use super::{History, State, DEPRECATED_UNSAID, REMOVED_UNSAID};

impl History {
    /// Drops every help text, then the records that became the same: what
    /// may be embedded in knobs (names, kinds, members, defaults, env keys,
    /// scopes and spans are facts; help texts are the engine's sentences).
    pub fn facts_only(&self) -> History {
        let mut out = History::new(&self.engine, &self.repo);
        out.facts_only = true;
        out.knobs_version.clone_from(&self.knobs_version);
        out.extracted_with.clone_from(&self.extracted_with);
        let mut seen = FxHashMap::default();
        let flag_ids: Vec<u32> = self
            .flags
            .iter()
            .map(|f| {
                let mut f = f.clone();
                f.help.clear();
                // Also sentences of the source: what `auto` means, a refusal's message.
                f.auto_means = None;
                if f.removed.is_some() {
                    f.removed = Some(REMOVED_UNSAID.to_string());
                }
                intern(&mut out.flags, &mut seen, f)
            })
            .collect();
        let mut seen = FxHashMap::default();
        let metric_ids: Vec<u32> = self
            .metrics
            .iter()
            .map(|m| {
                let mut m = m.clone();
                m.help.clear();
                if m.deprecated.is_some() {
                    m.deprecated = Some(DEPRECATED_UNSAID.to_string());
                }
                intern(&mut out.metrics, &mut seen, m)
            })
            .collect();
        let mut seen = FxHashMap::default();
        let env_ids: Vec<u32> = self
            .env_keys
            .iter()
            .map(|k| {
                let mut k = k.clone();
                k.help.clear();
                intern(&mut out.env_keys, &mut seen, k)
            })
            .collect();
        let remap = |ids: &[u32], r: u32| ids.get(r as usize).copied().unwrap_or(r);
        out.states = self
            .states
            .iter()
            .map(|s| State {
                key: s.key.clone(),
                flags: s.flags.iter().map(|[r, l, m]| [remap(&flag_ids, *r), *l, *m]).collect(),
                metrics: s.metrics.iter().map(|[r, l]| [remap(&metric_ids, *r), *l]).collect(),
                env_keys: s.env_keys.iter().map(|[r, l]| [remap(&env_ids, *r), *l]).collect(),
            })
            .collect();
        out.tags = self.tags.clone();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::three;
    use super::REMOVED_UNSAID;
    use crate::catalog::model::Kind;

    #[test]
    fn facts_only_drops_help_and_merges_what_became_the_same() {
        let mut h = three();
        // A later build that only rewords --new's help.
        let mut b4 = h.catalog("b3").expect("b3").clone();
        b4.source.tag = "b4".into();
        if let Some(f) = b4.flags.iter_mut().find(|f| f.name == "--new") {
            f.help = "reworded".into();
        }
        if let Some(f) = b4.flags.iter_mut().find(|f| f.name == "--mode") {
            f.removed = Some("--mode is gone, use --other".into());
            f.auto_means = Some("the fastest member".into());
        }
        h.add("k4", &b4);
        assert_eq!(h.flags.len(), 6);
        let facts = h.facts_only();
        assert!(facts.facts_only && facts.flags.iter().all(|f| f.help.is_empty()));
        assert_eq!(facts.flags.len(), 5, "the reworded --new is the same fact");
        let mode = facts.catalog("b4").and_then(|c| c.flag("--mode")).cloned().expect("--mode");
        assert_eq!(mode.removed.as_deref(), Some(REMOVED_UNSAID), "the source's sentence is not kept");
        assert_eq!(mode.auto_means, None);
        assert_eq!(facts.flag_presence("--new"), [2..=3]);
        assert_eq!(facts.catalog("b4").and_then(|c| c.flag("--new")).map(|f| f.kind), Some(Kind::Int));
    }
}
