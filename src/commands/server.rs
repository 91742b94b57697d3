//! `knobs server`: the language server, on stdio until the client exits.

use miette::Result;

use super::{Outcome, Run};

pub fn run(io: &mut Run<'_>) -> Result<Outcome> {
    if let Some(engine) = io.engine.as_deref().filter(|e| !crate::catalog::profile::valid_name(e)) {
        return Err(miette::miette!(
            help = "an engine name is letters, digits, `.`, `-` or `_`, e.g. `radiance` or `llama.cpp`",
            "`{engine}` is not an engine name"
        ));
    }
    // The server lints again and again in one process: what each lint
    // built is dropped, not left to an exit that is hours away.
    crate::ending::process_outlives_runs();
    // LSP: exit code 0 after `shutdown` then `exit`, 1 when the session
    // ended without `shutdown`.
    match crate::server::serve(io.engine.clone())? {
        crate::server::Ended::Clean => Ok(Outcome::Clean),
        crate::server::Ended::Abrupt => Ok(Outcome::Findings),
    }
}
