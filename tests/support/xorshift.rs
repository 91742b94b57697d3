//! xorshift: deterministic pseudo-random input, no dependency.

/// The next state of a xorshift64 generator (13, 7, 17), which it returns.
pub fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}
