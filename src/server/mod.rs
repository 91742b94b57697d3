//! `knobs server`: the Language Server Protocol over stdio, on
//! `lsp-server` and `lsp-types`. Who does what:
//! - [`workspace`]: which knobs.toml, engine, build and file kind a
//!   document is judged under, and its lint (the same as `knobs lint`);
//! - [`diagnostics`]: findings as diagnostics;
//! - [`hover`], [`completion`], [`actions`]: the requests;
//! - [`positions`]: knobs's columns (characters) as LSP's (UTF-16, or
//!   UTF-8 when the client offers it); [`words`]: the word at a position;
//! - [`session`]: the loop — documents, debounced lint, requests each
//!   caught on its own (a panic answers an error, the server goes on).
//!
//! Logs go to stderr only; nothing here touches the network.

mod actions;
mod completion;
mod diagnostics;
mod hover;
mod positions;
mod session;
mod words;
mod workspace;

use lsp_server::Connection;
use lsp_types::{
    CodeActionProviderCapability, CompletionOptions, ExecuteCommandOptions, HoverProviderCapability, InitializeParams,
    SaveOptions, ServerCapabilities, TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions,
};

use positions::Encoding;

/// Why the server stopped short of a clean exit.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[error("knobs server: {0}")]
pub struct ServerError(pub String);

pub use session::Ended;

/// Serves one client over stdin and stdout until it says `exit`; how the
/// session ended (after `shutdown` or not).
/// `engine`: `--engine`, over every knobs.toml's pin.
pub fn serve(engine: Option<String>) -> Result<Ended, ServerError> {
    let (connection, threads) = Connection::stdio();
    let fail = |e: &dyn std::fmt::Display| ServerError(e.to_string());
    let (id, params) = connection.initialize_start().map_err(|e| fail(&e))?;
    let init: InitializeParams = serde_json::from_value(params).unwrap_or_default();
    let offered = init.capabilities.general.as_ref().and_then(|g| g.position_encodings.as_deref());
    let encoding = Encoding::negotiate(offered);
    let result = serde_json::json!({
        "capabilities": capabilities(encoding),
        "serverInfo": { "name": "knobs", "version": env!("CARGO_PKG_VERSION") },
    });
    connection.initialize_finish(id, result).map_err(|e| fail(&e))?;
    let ended = session::Session::new(engine, encoding).run(&connection).map_err(|e| fail(&e))?;
    drop(connection);
    // A client that closed its pipes first is no failure.
    if let Err(e) = threads.join() {
        eprintln!("knobs server: {e}");
    }
    Ok(ended)
}

fn capabilities(encoding: Encoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(encoding.kind()),
        text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::FULL),
            save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions { include_text: Some(false) })),
            ..TextDocumentSyncOptions::default()
        })),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["-".into(), " ".into(), "=".into(), "{".into(), ":".into()]),
            ..CompletionOptions::default()
        }),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![actions::EXPLAIN.to_string()],
            ..ExecuteCommandOptions::default()
        }),
        ..ServerCapabilities::default()
    }
}
