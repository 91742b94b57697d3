//! A fleet (`[metrics] builds` in knobs.toml): one dashboard serves
//! several builds at once, so its metric references are judged against
//! each, and what each build says is merged. A finding every build gives
//! is reported once, as the first build gives it. A metric only some builds
//! export is one finding, "panels empty on …", naming the builds that lack
//! it and when each did or will export it (`metric_since`); any other
//! finding only some builds give names them.

use super::refs::Ref;
use super::rules::{unknown_metric, Violation};
use crate::catalog::metric_since::MetricWhen;
use crate::catalog::model::Catalog;

/// The violations of a fleet's builds merged; `per_build` in the fleet's
/// order, each with what it found; `when` places a metric for a build that
/// lacks it.
/// With `partial` false (builds found around the file, not named as a
/// fleet), a metric some build exports is not said; other findings are
/// said as the first build that gives them says them.
pub fn merge(
    per_build: &[(&Catalog, Vec<Violation>)],
    refs: &[Ref],
    when: &dyn Fn(&Catalog, &str) -> MetricWhen,
    partial: bool,
) -> Vec<Violation> {
    // Each violation once, by rule and place, with the builds that gave it.
    let mut seen: Vec<(Violation, Vec<usize>)> = Vec::new();
    for (i, (_, found)) in per_build.iter().enumerate() {
        for v in found {
            match seen.iter_mut().find(|(s, _)| s.rule.code == v.rule.code && s.span == v.span) {
                Some((_, builds)) => builds.push(i),
                None => seen.push((v.clone(), vec![i])),
            }
        }
    }
    let tag = |i: usize| per_build[i].0.source.tag.as_str();
    let engine = per_build.first().map_or("", |(c, _)| c.source.engine.as_str());
    let mut out = Vec::new();
    for (mut v, lacking) in seen {
        if lacking.len() == per_build.len() {
            out.push(v);
            continue;
        }
        if !partial {
            // Builds found around the file: a name one of them exports may
            // be that build's panel; any other finding stands as said.
            if v.rule.code != unknown_metric::RULE.code {
                out.push(v);
            }
            continue;
        }
        let having: Vec<&str> = (0..per_build.len()).filter(|i| !lacking.contains(i)).map(tag).collect();
        let name = refs.iter().find_map(|r| match r {
            Ref::Metric { name, span, .. } if *span == v.span => Some(name.as_str()),
            _ => None,
        });
        match name.filter(|_| v.rule.code == unknown_metric::RULE.code) {
            Some(name) => {
                let reasons: Vec<(usize, MetricWhen)> =
                    lacking.iter().map(|&i| (i, when(per_build[i].0, name))).collect();
                v.message = format!(
                    "`{name}`: panels empty on {engine} {}; {} {} it",
                    placed(&reasons, &tag),
                    and(&having),
                    if having.len() == 1 { "exports" } else { "export" }
                );
                let successor = reasons.iter().find_map(|(_, w)| match w {
                    MetricWhen::Gone { successor: Some(s), .. } => Some(s.clone()),
                    _ => None,
                });
                v.help = Some(match successor {
                    Some(next) => format!("`{next} or {name}` serves every build of the fleet"),
                    None => format!(
                        "the fleet runs {}; a query of each build's name joined with `or` serves them all",
                        and(&(0..per_build.len()).map(tag).collect::<Vec<_>>())
                    ),
                });
                v.fix = None;
            }
            None => {
                let lacking: Vec<&str> = lacking.iter().map(|&i| tag(i)).collect();
                v.message = format!("{} (on {} of the fleet, not on {})", v.message, and(&lacking), and(&having));
            }
        }
        out.push(v);
    }
    out
}

/// `a`, `a and b`, `a, b and c`.
fn and(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The builds lacking a metric, those with the same reason together:
/// `v0.9.2 (exported from v0.10.0)`, `v0.20.1 (last exported by v0.10.0)`.
fn placed<'t>(reasons: &[(usize, MetricWhen)], tag: &dyn Fn(usize) -> &'t str) -> String {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for (i, w) in reasons {
        let why = match w {
            MetricWhen::Later { from } => format!("exported from {from}"),
            MetricWhen::Gone { last, .. } => format!("last exported by {last}"),
            MetricWhen::Never => "exported by no build".to_string(),
        };
        match groups.iter_mut().find(|(w, _)| *w == why) {
            Some((_, tags)) => tags.push(tag(*i)),
            None => groups.push((why, vec![tag(*i)])),
        }
    }
    let parts: Vec<String> = groups.iter().map(|(why, tags)| format!("{} ({why})", and(tags))).collect();
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_are_named_as_a_sentence_names_them() {
        assert_eq!(and(&["v1"]), "v1");
        assert_eq!(and(&["v1", "v2"]), "v1 and v2");
        assert_eq!(and(&["v1", "v2", "v3"]), "v1, v2 and v3");
        let reasons = [
            (0, MetricWhen::Later { from: "v0.10.0".into() }),
            (1, MetricWhen::Later { from: "v0.10.0".into() }),
            (2, MetricWhen::Gone { last: "v0.12.0".into(), successor: None }),
        ];
        let tags = ["v0.8.0", "v0.9.2", "v0.20.1"];
        let tag = |i: usize| tags[i];
        assert_eq!(
            placed(&reasons, &tag),
            "v0.8.0 and v0.9.2 (exported from v0.10.0), v0.20.1 (last exported by v0.12.0)"
        );
    }
}
