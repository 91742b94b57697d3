//! `knobs flags` and `knobs rules`: one line per flag of a build (name,
//! kind, default, the overlay's role) and one line per rule (code, name,
//! severity, summary), aligned in columns.

use crate::catalog::model::Catalog;
use crate::catalog::semantics::Semantics;
use crate::lint::rules::RULES;

/// The flags of `catalog`, with the role the overlay gives each.
pub fn flags(catalog: &Catalog, sem: &Semantics) -> String {
    let width = catalog.flags.iter().map(|f| f.name.len()).max().unwrap_or(0);
    let mut text = String::new();
    for f in &catalog.flags {
        let default = if f.default.is_empty() { "-" } else { &f.default };
        let role = match (&f.removed, sem.flag.get(&f.name)) {
            (Some(_), _) => "removed",
            (None, Some(s)) => s.role.as_str(),
            (None, None) => "",
        };
        let line = format!("{:width$}  {:<11}  {:<17}  {role}", f.name, f.kind.as_str(), default);
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

/// Every rule knobs has.
pub fn rules() -> String {
    let mut text = String::new();
    let width = RULES.iter().map(|r| r.name.len()).max().unwrap_or(0);
    for r in RULES {
        text.push_str(&format!("{}  {:<width$}  {:<7}  {}\n", r.code, r.name, r.severity.as_str(), r.summary()));
    }
    text
}
