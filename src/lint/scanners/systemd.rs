//! systemd units (`*.service`, drop-ins `*.service.d/*.conf`): `ExecStart=`
//! is a command line, judged when it runs the engine (behind `env`, `nice`,
//! `numactl`, … and systemd's `-@:+!` prefixes); `Environment=` assignments
//! are env knobs.

use super::shell::{scan_items, split_words};
use super::{env_ref, unit, Scan, ScanCtx};
use crate::lint::span::LineIndex;

pub fn scan(text: &str, ctx: &ScanCtx<'_>, out: &mut Scan) {
    let idx = LineIndex::new(text);
    let span = |s: usize, e: usize| idx.span(text, s, e);
    for e in unit::entries(text) {
        match e.key.as_str() {
            "ExecStart" => {
                // `-/path`, `@/path`, `+/path`: systemd's own prefixes.
                let lead = e.value.len() - e.value.trim_start_matches(['-', '@', ':', '+', '!']).len();
                let items = split_words(&e.value[lead..], e.at + lead);
                scan_items(&items, None, text, &span, ctx, out);
            }
            "Environment" => {
                for (k, ka, v, va) in unit::assignments(&e.value, e.at) {
                    out.refs.push(env_ref(&k, ka, &v, va, &span));
                }
            }
            _ => {}
        }
    }
    out.suppressions.extend(crate::lint::suppress::line_comments(text));
}
