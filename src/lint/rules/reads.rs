//! Which rules read which references: a set of reference kinds per rule
//! ([`Reads`]), and the rules of one file by kind ([`ByKind`]), so that each
//! reference is handed only to the rules that read its kind.

use super::{Rule, RULES};
use crate::lint::refs::Ref;

/// A set of rules is a `u32` ([`ByKind`]): at most 32 rules.
const _: () = assert!(RULES.len() <= 32);

/// A set of reference kinds (one bit per [`Ref`] variant), so that each
/// reference is handed only to the rules that read its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reads(u16);

impl Reads {
    pub const NONE: Reads = Reads(0);
    pub const ALL: Reads = Reads(u16::MAX);
    pub const FLAG: Reads = Reads(1 << 0);
    pub const ENV: Reads = Reads(1 << 1);
    pub const METRIC: Reads = Reads(1 << 2);
    pub const ENV_LINE: Reads = Reads(1 << 3);
    pub const STRAY: Reads = Reads(1 << 4);
    pub const PROGRAM: Reads = Reads(1 << 5);
    pub const BROKEN: Reads = Reads(1 << 6);
    /// How many kinds there are (bits of `ALL` past them are unused).
    pub const KINDS: usize = 7;

    /// The kind of a reference, as an index below [`Reads::KINDS`].
    pub fn index_of(r: &Ref) -> usize {
        match r {
            // A further value word is judged by the rules that read flags.
            Ref::Flag { .. } | Ref::Value { .. } => 0,
            Ref::Env { .. } => 1,
            Ref::Metric { .. } => 2,
            Ref::EnvLine { .. } => 3,
            Ref::Stray { .. } => 4,
            Ref::Program { .. } => 5,
            Ref::Broken { .. } => 6,
        }
    }

    /// The kinds of both sets.
    pub const fn and(self, other: Reads) -> Reads {
        Reads(self.0 | other.0)
    }

    /// True when the kind of index `kind` is in the set.
    pub fn has(self, kind: usize) -> bool {
        self.0 & (1 << kind) != 0
    }
}

/// The rules that run on one file, by the kind of reference they read: a
/// set of [`RULES`] (one bit per rule, in code order) for each kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ByKind([u32; Reads::KINDS]);

impl ByKind {
    /// The rules `active` accepts, by the kinds they read.
    pub fn new(active: impl Fn(&Rule) -> bool) -> ByKind {
        let mut sets = [0u32; Reads::KINDS];
        for (i, rule) in RULES.iter().enumerate().filter(|(_, r)| active(r)) {
            for (k, set) in sets.iter_mut().enumerate() {
                if rule.reads.has(k) {
                    *set |= 1 << i;
                }
            }
        }
        ByKind(sets)
    }

    /// The rules that read `r`'s kind, in code order.
    pub fn of(&self, r: &Ref) -> impl Iterator<Item = &'static Rule> {
        let mut set = self.0[Reads::index_of(r)];
        std::iter::from_fn(move || {
            let i = set.trailing_zeros() as usize;
            let rule = RULES.get(i)?;
            set &= set - 1;
            Some(*rule)
        })
    }

    /// True when no rule reads `r`'s kind.
    pub fn none_of(&self, r: &Ref) -> bool {
        self.0[Reads::index_of(r)] == 0
    }
}
