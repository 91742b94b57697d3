//! What one fetch may bring into the cache, whoever serves it: a remote
//! decides what its pack holds, so a 20 KB pack of deltas could inflate to
//! gigabytes and an endless one fill the disk. The ceilings are far above
//! an engine's tree at depth 1 (llama.cpp's is about 2,000 objects and
//! 30 MB); reaching one stops the fetch, names the remote and the ceiling,
//! and leaves the cache as it was.

use std::fmt;

/// Bytes of pack data received.
pub(super) const MAX_RECEIVED: u64 = 512 * 1024 * 1024;

/// Objects in one fetch (the count a pack's header declares).
pub(super) const MAX_OBJECTS: u64 = 1_000_000;

/// The inflated size of one object, a delta's result included.
pub(super) const MAX_OBJECT: u64 = 64 * 1024 * 1024;

/// Bytes inflated in all to index what came: every object's size, and for
/// a delta, every object of its chain again (resolving it rebuilds them).
pub(super) const MAX_INFLATED: u64 = 2 * 1024 * 1024 * 1024;

/// A ceiling reached, with what was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reached {
    Received(u64),
    Objects(u64),
    Object(u64),
    Inflated(u64),
}

impl fmt::Display for Reached {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mib = |b: u64| b / (1024 * 1024);
        match *self {
            Reached::Received(n) => {
                write!(f, "the fetch was stopped after {n} bytes received, over the {} MiB knobs takes", mib(MAX_RECEIVED))
            }
            Reached::Objects(n) => write!(f, "the pack holds {n} objects, over the {MAX_OBJECTS} knobs takes"),
            Reached::Object(n) => {
                write!(f, "the pack holds an object of {n} bytes inflated, over the {} MiB knobs takes of one", mib(MAX_OBJECT))
            }
            Reached::Inflated(n) => write!(
                f,
                "the pack would inflate to at least {n} bytes to be indexed (its deltas rebuild their chains), over the {} MiB knobs takes",
                mib(MAX_INFLATED)
            ),
        }
    }
}

/// What one fetch has brought so far, against the ceilings.
#[derive(Debug, Default)]
pub(super) struct Tally {
    objects: u64,
    inflated: u64,
}

impl Tally {
    /// Counts one object of `size` bytes whose rebuilding costs `cost`
    /// bytes (its size, and for a delta its chain's).
    pub(super) fn object(&mut self, size: u64, cost: u64) -> Result<(), Reached> {
        self.objects += 1;
        if self.objects > MAX_OBJECTS {
            return Err(Reached::Objects(self.objects));
        }
        if size > MAX_OBJECT {
            return Err(Reached::Object(size));
        }
        self.inflated = self.inflated.saturating_add(cost);
        if self.inflated > MAX_INFLATED {
            return Err(Reached::Inflated(self.inflated));
        }
        Ok(())
    }

    pub(super) fn objects(&self) -> u64 {
        self.objects
    }
}

/// Checks the counts a transfer reports: bytes received, and the objects a
/// pack's header declares.
pub(super) fn transfer(received: u64, declared: u64) -> Result<(), Reached> {
    if received > MAX_RECEIVED {
        return Err(Reached::Received(received));
    }
    if declared > MAX_OBJECTS {
        return Err(Reached::Objects(declared));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counted, not timed: each ceiling is reached one past its value, and
    /// says which it is.
    #[test]
    fn each_ceiling_is_reached_one_past_it_and_named() {
        assert_eq!(transfer(MAX_RECEIVED, MAX_OBJECTS), Ok(()));
        let endless = transfer(MAX_RECEIVED + 1, 10).expect_err("received");
        assert_eq!(
            endless.to_string(),
            "the fetch was stopped after 536870913 bytes received, over the 512 MiB knobs takes"
        );
        assert_eq!(transfer(10, MAX_OBJECTS + 1), Err(Reached::Objects(MAX_OBJECTS + 1)));
        let mut tally = Tally::default();
        assert_eq!(tally.object(MAX_OBJECT, MAX_OBJECT), Ok(()));
        assert_eq!(tally.object(MAX_OBJECT + 1, 1), Err(Reached::Object(MAX_OBJECT + 1)));
        let mut tally = Tally::default();
        assert_eq!(tally.object(1, MAX_INFLATED), Ok(()));
        let over = tally.object(1, 1).expect_err("inflated");
        assert_eq!(
            over.to_string(),
            "the pack would inflate to at least 2147483649 bytes to be indexed (its deltas rebuild their chains), over the 2048 MiB knobs takes"
        );
        assert_eq!(
            Reached::Objects(1_000_001).to_string(),
            "the pack holds 1000001 objects, over the 1000000 knobs takes"
        );
    }
}
