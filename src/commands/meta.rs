//! Commands about knobs itself: `--version`, `completions`, `man`.

use clap::CommandFactory;
use miette::{IntoDiagnostic, Result};

use super::{Outcome, Run};
use crate::cli::{Cli, Shell};

/// `0.1.0 (catalogues: radiance v1.0.13, v1.8.1; history: llama.cpp, facts
/// only)`, read from the embedded file names only, so start-up parses nothing.
pub fn version_text() -> &'static str {
    static TEXT: std::sync::LazyLock<String> = std::sync::LazyLock::new(compute_version);
    TEXT.as_str()
}

fn compute_version() -> String {
    let mut engines: Vec<String> = Vec::new();
    for engine in crate::catalog::store::Store::embedded_engines() {
        let mut tags = crate::catalog::store::Store::embedded_tags(&engine);
        tags.sort_by(|a, b| crate::catalog::tag::compare_tags(a, b));
        engines.push(format!("{engine} {}", tags.join(", ")));
    }
    engines.sort();
    let histories = crate::catalog::store::Store::embedded_histories();
    let histories =
        if histories.is_empty() { String::new() } else { format!("; history: {}, facts only", histories.join(", ")) };
    format!("{} (catalogues: {}{histories})", env!("CARGO_PKG_VERSION"), engines.join("; "))
}

pub fn completions(shell: Shell, io: &mut Run<'_>) -> Result<Outcome> {
    let mut cmd = Cli::command();
    let shell = match shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "knobs", &mut buf);
    io.out.write_all(&buf).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}

pub fn man(io: &mut Run<'_>) -> Result<Outcome> {
    let cmd = Cli::command().version(version_text());
    let mut buf = Vec::new();
    clap_mangen::Man::new(cmd).render(&mut buf).into_diagnostic()?;
    io.out.write_all(&buf).map_err(super::OutputError)?;
    Ok(Outcome::Clean)
}
