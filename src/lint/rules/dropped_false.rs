//! Reports a `false` in a file of options that the engine's reader drops.
//!
//! ## What it does
//! In a YAML file of options the engine reads (`--config FILE`), a key set
//! to a boolean false is reported when the profile says the engine's reader
//! passes no option for a false (`config_drops_false`): the option keeps its
//! default, whatever the file says. A false where the default is false
//! already changes nothing and is not reported.
//!
//! ## Why is this bad?
//! The file reads as if it turned the option off, and nothing warns when it
//! does not: an option whose default is on stays on. The switch that turns
//! it off is its `no-` form, set to `true`.
//!
//! ## Example
//! ```yaml
//! enable-prefix-caching: false
//! ```
//! Use instead:
//! ```yaml
//! no-enable-prefix-caching: true
//! ```

use super::{Ctx, Reads, Rule, Severity, Subject, Violation};
use crate::lint::refs::{FlagSite, Ref};

pub const RULE: Rule = Rule {
    code: "KNB021",
    name: "dropped-false",
    severity: Severity::Warning,
    source: include_str!("dropped_false.rs"),
    reads: Reads::FLAG,
    check,
};

fn check(s: &Subject<'_, '_>, ctx: &Ctx<'_>, out: &mut Vec<Violation>) {
    let Ref::Flag { name, span, site: FlagSite::Dropped, .. } = s.r else { return };
    // An unknown key is invented-flag's finding.
    let (Some(flag), true) = (s.flag, ctx.profile.argv.config_drops_false) else { return };
    // Dropping a false where the default is false changes nothing.
    if matches!(flag.default.to_ascii_lowercase().as_str(), "false" | "0" | "no" | "off") {
        return;
    }
    let key = name.trim_start_matches('-');
    let default =
        if flag.default.is_empty() { " (set at start-up)".to_string() } else { format!(" (`{}`)", flag.default) };
    let help = match flag.negated.first() {
        Some(neg) => format!("to turn it off, write `{}: true`", neg.trim_start_matches('-')),
        None => "remove the line: the option is off unless it is given".to_string(),
    };
    out.push(Violation {
        rule: &RULE,
        span: *span,
        message: format!(
            "a false for `{key}` is dropped when {} reads the file: `{}` keeps its default{default}",
            ctx.build(),
            flag.name
        ),
        help: Some(help),
        fix: None,
    });
}
