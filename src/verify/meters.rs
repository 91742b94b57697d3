//! Did a knob engage? It is in argv with a value the build accepts, and a
//! meter the overlay records for it left zero — or, given a scrape from
//! before, moved between the two. A deploy is not evidence; the meter is.

use serde::Serialize;

use super::argv::ArgvReport;
use super::exposition::Exposition;
use crate::catalog::model::{Catalog, MetricType};

/// One meter's reading.
#[derive(Debug, Clone, Serialize)]
pub struct Reading {
    pub metric: String,
    /// The sum over the family's series (a histogram's or summary's `_count`);
    /// `None` when the scrape does not have it.
    pub value: Option<f64>,
    /// The same from the earlier scrape, when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<f64>,
    /// How many series were summed.
    pub series: usize,
    /// True when this reading shows the knob at work.
    pub engaged: bool,
}

/// Why a knob is or is not proven engaged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Engaged,
    /// Not in argv: the default applies.
    Absent,
    /// In argv with a value the build refuses.
    Invalid,
    /// In argv, but set to its default: nothing is armed.
    AtDefault,
    /// In argv, but no meter left zero (or moved).
    NotEngaged,
    /// In argv, but the overlay records no meter for it.
    Unproven,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Engaged => "engaged",
            Status::Absent => "absent",
            Status::Invalid => "invalid",
            Status::AtDefault => "at its default",
            Status::NotEngaged => "not engaged",
            Status::Unproven => "unproven",
        }
    }
}

/// A named knob, judged.
#[derive(Debug, Clone, Serialize)]
pub struct KnobVerdict {
    pub flag: String,
    pub status: Status,
    /// The value in argv, when it is there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The default that applies when it is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    pub meters: Vec<Reading>,
    /// One sentence: why this status.
    pub why: String,
    /// Meters the overlay records that the build does not register: left
    /// out, and said to be ("the overlay describes `…`, which radiance
    /// v1.8.1 from R does not register").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub left_out: Option<String>,
}

/// The scrape a knob is judged on, and the one from before it, if given.
#[derive(Clone, Copy)]
pub struct Scrapes<'a> {
    pub after: &'a Exposition,
    pub before: Option<&'a Exposition>,
}

/// The sum of a metric's series in a scrape: its samples by name (a counter
/// with labels is several series), or its `_count` for a histogram or summary.
fn read(e: &Exposition, catalog: &Catalog, metric: &str) -> (Option<f64>, usize) {
    let kind = catalog.metric(metric).map(|m| m.kind);
    let series = match kind {
        Some(MetricType::Histogram | MetricType::Summary) => format!("{metric}_count"),
        _ => metric.to_string(),
    };
    let values: Vec<f64> = e.samples.iter().filter(|s| s.name == series).map(|s| s.value).collect();
    if values.is_empty() {
        return (None, 0);
    }
    (Some(values.iter().sum()), values.len())
}

/// Judges one knob: argv first (absent or invalid says all), then its
/// meters — those of the overlay's that the build registers; the others are
/// left out, with a note naming `label` (`radiance v1.8.1 from R`).
pub fn judge(
    flag: &str,
    meters: &[String],
    argv: &ArgvReport,
    scrapes: Scrapes<'_>,
    catalog: &Catalog,
    label: &str,
) -> KnobVerdict {
    let Scrapes { after, before } = scrapes;
    let (meters, unregistered): (Vec<&String>, Vec<&String>) =
        meters.iter().partition(|m| crate::catalog::query::find_metric(catalog, m).is_some());
    let unregistered: Vec<String> = unregistered.into_iter().cloned().collect();
    let left_out = crate::catalog::semantics::unregistered_note(&unregistered, label);
    let readings: Vec<Reading> = meters
        .into_iter()
        .map(|m| {
            let (value, series) = read(after, catalog, m);
            let earlier = before.and_then(|b| read(b, catalog, m).0);
            let engaged = match (value, earlier) {
                // Given a scrape from before: it must have moved.
                (Some(v), Some(b)) => v > b,
                // Else (or when the earlier scrape lacked it): above zero.
                (Some(v), None) => v > 0.0,
                (None, _) => false,
            };
            Reading { metric: m.to_string(), value, before: earlier, series, engaged }
        })
        .collect();
    let mut v = KnobVerdict {
        flag: flag.to_string(),
        status: Status::Engaged,
        value: None,
        default: None,
        meters: readings,
        why: String::new(),
        left_out,
    };
    let Some(given) = argv.find(flag) else {
        let unset = argv.unset.iter().find(|u| u.flag == flag);
        let default = unset.map(|u| u.default.clone()).unwrap_or_default();
        v.status = Status::Absent;
        v.why = if default.is_empty() {
            format!("`{flag}` is not in argv, so the engine runs without it")
        } else {
            format!("`{flag}` is not in argv, so the engine runs its default `{default}`")
        };
        if unset.is_some_and(|u| u.conditional.is_some()) {
            v.why.push_str(" (serve scripts pass it only conditionally)");
        }
        v.default = Some(default);
        v.why.push_str(&moving_without(&v.meters));
        return v;
    };
    v.value = given.value.clone();
    if let Some(p) = given.problems.first() {
        v.status = Status::Invalid;
        v.why = format!("{} ({} {})", p.message, p.code, p.rule);
        return v;
    }
    let shown = given.value.as_deref().map(|x| format!(" as `{x}`")).unwrap_or_default();
    // `--prefill-interleave 0` where 0 is the default: nothing is armed.
    let default = catalog.flag(flag).map(|f| f.default.as_str()).filter(|d| !d.is_empty());
    if let (Some(d), Some(x)) = (default, given.value.as_deref()) {
        if d == x {
            v.status = Status::AtDefault;
            v.default = Some(d.to_string());
            v.why = format!("`{flag}` is in argv{shown}, its default: the knob is not armed");
            v.why.push_str(&moving_without(&v.meters));
            return v;
        }
    }
    if v.meters.is_empty() {
        v.status = Status::Unproven;
        v.why = if v.left_out.is_some() {
            format!(
                "`{flag}` is in argv{shown}, but {label} registers none of the meters the overlay records for it: /metrics cannot prove it engaged"
            )
        } else {
            format!(
                "`{flag}` is in argv{shown}, but the overlay records no meter for it: /metrics cannot prove it engaged"
            )
        };
        return v;
    }
    let moved = before.is_some();
    if let Some(r) = v.meters.iter().find(|r| r.engaged) {
        v.why = match (r.before, r.value) {
            (Some(b), Some(a)) if moved => {
                format!("`{flag}` is in argv{shown}; `{}` moved from {} to {}", r.metric, num(b), num(a))
            }
            (_, Some(a)) => format!("`{flag}` is in argv{shown}; `{}` is {} (above zero)", r.metric, num(a)),
            _ => format!("`{flag}` is in argv{shown}"),
        };
        return v;
    }
    v.status = Status::NotEngaged;
    let parts: Vec<String> = v
        .meters
        .iter()
        .map(|r| match (r.value, r.before) {
            (None, _) => format!("`{}` is not in the scrape", r.metric),
            (Some(a), Some(b)) if a < b => {
                format!("`{}` fell from {} to {} (a restart between the scrapes resets it)", r.metric, num(b), num(a))
            }
            (Some(a), Some(_)) => format!("`{}` did not move ({})", r.metric, num(a)),
            (Some(a), None) => format!("`{}` is {}", r.metric, num(a)),
        })
        .collect();
    v.why = if v.meters.iter().all(|r| r.value.is_none()) {
        format!(
            "`{flag}` is in argv{shown}, but {}: the endpoint does not export its meter, so nothing shows it engaged",
            parts.join(" and ")
        )
    } else {
        format!("`{flag}` is in argv{shown}, but {}: the arm did nothing yet", parts.join(" and "))
    };
    v
}

/// When a knob is not armed yet its meter moves, something is off: say so.
fn moving_without(meters: &[Reading]) -> String {
    match meters.iter().find(|r| r.engaged) {
        Some(r) => format!(
            "; yet `{}` is {}: is this the process that serves this endpoint?",
            r.metric,
            r.value.map(num).unwrap_or_default()
        ),
        None => String::new(),
    }
}

/// A meter value as people write it: integers without `.0`.
pub fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}
