//! The `knobs` binary: dispatches to the library and maps the outcome to an
//! exit code (0 clean, 1 findings, 2 error).

use std::io::IsTerminal;
use std::process::ExitCode;

/// mimalloc (see `knobs::allocator` for why, and how it is asked).
#[global_allocator]
static ALLOCATOR: knobs::allocator::Allocator = knobs::allocator::Allocator;

fn main() -> ExitCode {
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    let stdout = std::io::stdout();
    let terminal = stdout.is_terminal();
    // Neither stream is held locked: a worker thread that panics must be
    // able to say so on stderr, and `knobs server`'s writer thread writes
    // stdout (holding a lock for the whole run would hang either).
    let mut stdout = stdout;
    // Nothing but the exit follows the run: what it built is left to the OS.
    knobs::ending::process_ends_after_run();
    let code = knobs::run_on(std::env::args_os(), &mut stdout, &mut std::io::stderr(), &cwd, terminal);
    ExitCode::from(code)
}
