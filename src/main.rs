//! The `knobs` binary: dispatches to the library and maps the outcome to an
//! exit code (0 clean, 1 findings, 2 error).

use std::io::IsTerminal;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let terminal = stdout.is_terminal();
    let code = knobs::run_on(std::env::args_os(), &mut stdout.lock(), &mut stderr.lock(), &cwd, terminal);
    ExitCode::from(code)
}
