//! What a run built at length (folder contexts, a report of thousands of
//! findings) is freed piece by piece on one thread when it goes out of
//! scope: about a millisecond on a 6,000-file tree, after the work is done.
//! The binary says that the process ends when the run returns
//! ([`process_ends_after_run`]); such values are then left to the
//! operating system, which takes the whole heap back at once. In-process
//! callers (the tests) never say so, and `knobs server`, which lints again
//! and again in one process, takes it back ([`process_outlives_runs`]):
//! both drop them as usual.

use std::sync::atomic::{AtomicBool, Ordering};

static PROCESS_ENDS: AtomicBool = AtomicBool::new(false);

/// Called by `main` only: nothing runs after `run_on` but the exit.
pub fn process_ends_after_run() {
    PROCESS_ENDS.store(true, Ordering::Relaxed);
}

/// Called by `knobs server`: the process goes on after each lint.
pub fn process_outlives_runs() {
    PROCESS_ENDS.store(false, Ordering::Relaxed);
}

/// Drops `value`, or leaves it to the operating system when the process
/// ends after this run.
pub(crate) fn release<T>(value: T) {
    if PROCESS_ENDS.load(Ordering::Relaxed) {
        std::mem::forget(value);
    } else {
        drop(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    struct Counted<'a>(&'a AtomicUsize);

    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Only the binary sets the flag; this test sets it last and puts it
    /// back, so the other tests of this process drop as usual.
    #[test]
    fn values_are_dropped_unless_the_process_ends_after_the_run() {
        let drops = AtomicUsize::new(0);
        release(Counted(&drops));
        assert_eq!(drops.load(Ordering::Relaxed), 1, "an in-process run drops what it built");
        process_ends_after_run();
        release(Counted(&drops));
        process_outlives_runs();
        assert_eq!(drops.load(Ordering::Relaxed), 1, "the binary leaves it to the exit");
        release(Counted(&drops));
        assert_eq!(drops.load(Ordering::Relaxed), 2, "the server drops what each lint built");
    }
}
