//! systemd units (`*.service`, drop-ins `*.service.d/*.conf`): `ExecStart=`
//! is a command line, judged when it runs the engine (behind `env`, `nice`,
//! `numactl`, … and systemd's `-@:+!` prefixes); `Environment=` assignments
//! are env knobs, and the file `EnvironmentFile=` names (beside the unit)
//! is read as an env file — unless the unit's commands are all another
//! program's.

use super::argv::scan_items;
use super::invocation::runs_engine;
use super::items::split_words;
use super::{unit, Scan, ScanCtx};
use crate::lint::span::LineIndex;

pub fn scan(text: &str, ctx: &ScanCtx<'_>, out: &mut Scan) {
    let idx = LineIndex::new(text);
    let span = |s: usize, e: usize| idx.span(text, s, e);
    let entries = unit::entries(text);
    // A unit whose commands are all another program's: its environment is
    // not the engine's. (A drop-in without commands belongs to its unit.)
    let mut commands = 0;
    let mut engine = false;
    for e in entries.iter().filter(|e| e.key == "ExecStart" && !e.value.trim().is_empty()) {
        // `-/path`, `@/path`, `+/path`: systemd's own prefixes.
        let lead = e.value.len() - e.value.trim_start_matches(['-', '@', ':', '+', '!']).len();
        let items = split_words(&e.value[lead..], e.at + lead);
        commands += 1;
        engine |= runs_engine(&items, None, ctx);
        scan_items(&items, None, text, &span, ctx, out);
    }
    if commands > 0 && !engine {
        return out.suppressions.extend(crate::lint::suppress::line_comments(text));
    }
    for e in &entries {
        unit::environment(e, &span, out);
    }
    out.suppressions.extend(crate::lint::suppress::line_comments(text));
}
