//! The server's loop: open documents and their last findings, a lint
//! debounced over a burst of changes (only the newest text is linted, once
//! the client has been quiet for [`DEBOUNCE`]), and each request answered
//! on its own — a panic in one is caught and answered as an error.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crossbeam_channel::RecvTimeoutError;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{self as note, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::{MessageType, PublishDiagnosticsParams, ShowMessageParams, Url};

use super::positions::{self, Encoding};
use super::workspace::{self, Projects};
use super::{actions, completion, diagnostics, hover};
use crate::lint::finding::Finding;

/// How long the client must be quiet after a change before the document
/// is linted again.
pub const DEBOUNCE: Duration = Duration::from_millis(15);

type Failure = Box<dyn std::error::Error + Send + Sync>;

struct Doc {
    text: String,
    version: i32,
    findings: Vec<Finding>,
}

pub struct Session {
    projects: Projects,
    encoding: Encoding,
    docs: HashMap<Url, Doc>,
    dirty: BTreeSet<Url>,
    changed_at: Option<Instant>,
    /// Messages to the client besides answers (a shown explanation).
    outbox: Vec<Message>,
    /// The client has asked `shutdown`.
    shut_down: bool,
}

/// How a session ended: `Clean` after `shutdown` (then `exit`, or the
/// client closing the pipe), `Abrupt` when it ended without `shutdown`.
/// LSP: exit code 0 for the first, 1 for the second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    Clean,
    Abrupt,
}

impl Session {
    pub fn new(engine: Option<String>, encoding: Encoding) -> Session {
        Session {
            projects: Projects::new(engine),
            encoding,
            docs: HashMap::new(),
            dirty: BTreeSet::new(),
            changed_at: None,
            outbox: Vec::new(),
            shut_down: false,
        }
    }

    /// Serves until the client says `exit` (or goes away). A `shutdown`
    /// is answered each time it is asked (Neovim 0.7 asks twice when it
    /// stops a client and quits), and any other request after it is an
    /// error, as LSP says.
    pub fn run(mut self, c: &Connection) -> Result<Ended, Failure> {
        loop {
            let gone = if self.shut_down { Ended::Clean } else { Ended::Abrupt };
            let msg = match self.changed_at {
                None => match c.receiver.recv() {
                    Ok(m) => m,
                    Err(_) => return Ok(gone),
                },
                Some(t) => match c.receiver.recv_timeout(DEBOUNCE.saturating_sub(t.elapsed())) {
                    Ok(m) => m,
                    Err(RecvTimeoutError::Timeout) => {
                        self.publish(c)?;
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => return Ok(gone),
                },
            };
            match msg {
                Message::Request(r) if r.method == req::Shutdown::METHOD => {
                    self.shut_down = true;
                    self.changed_at = None;
                    c.sender.send(Response::new_ok(r.id, ()).into())?;
                }
                Message::Request(r) if self.shut_down => {
                    let message = format!("knobs server is shutting down: {} not answered", r.method);
                    c.sender.send(Response::new_err(r.id, ErrorCode::InvalidRequest as i32, message).into())?;
                }
                Message::Request(r) => {
                    let answer = self.answer(r);
                    c.sender.send(answer.into())?;
                }
                Message::Notification(n) if n.method == note::Exit::METHOD => return Ok(gone),
                Message::Notification(n) => self.notified(n),
                Message::Response(_) => {}
            }
            for m in self.outbox.drain(..) {
                c.sender.send(m)?;
            }
        }
    }

    /// The answer to one request; a panic in it is an error answer.
    fn answer(&mut self, r: Request) -> Response {
        let id = r.id.clone();
        let method = r.method.clone();
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.request(r))) {
            Ok(Ok(value)) => Response::new_ok(id, value),
            Ok(Err((code, message))) => Response::new_err(id, code as i32, message),
            Err(payload) => {
                let what = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                eprintln!("knobs server: {method} failed: {what}");
                let message = format!("knobs failed on {method} ({what}): a bug, please report it");
                Response::new_err(id, ErrorCode::InternalError as i32, message)
            }
        }
    }

    fn request(&mut self, r: Request) -> Result<serde_json::Value, (ErrorCode, String)> {
        let bad = |e: serde_json::Error| (ErrorCode::InvalidParams, e.to_string());
        let json = |v: serde_json::Result<serde_json::Value>| v.map_err(|e| (ErrorCode::InternalError, e.to_string()));
        match r.method.as_str() {
            req::HoverRequest::METHOD => {
                let p: lsp_types::HoverParams = serde_json::from_value(r.params).map_err(bad)?;
                let d = &p.text_document_position_params;
                let enc = self.encoding;
                let pos = d.position;
                let found = self.with_judged(&d.text_document.uri, move |project, judged, text| {
                    hover::at(project, judged, text, pos, enc)
                })?;
                json(serde_json::to_value(found.flatten()))
            }
            req::Completion::METHOD => {
                let p: lsp_types::CompletionParams = serde_json::from_value(r.params).map_err(bad)?;
                let d = &p.text_document_position;
                let enc = self.encoding;
                let pos = d.position;
                let items = self
                    .with_judged(&d.text_document.uri, move |_, judged, text| completion::at(judged, text, pos, enc))?
                    .unwrap_or_default();
                json(serde_json::to_value(items))
            }
            req::CodeActionRequest::METHOD => {
                let p: lsp_types::CodeActionParams = serde_json::from_value(r.params).map_err(bad)?;
                let uri = &p.text_document.uri;
                let kind = self.with_judged(uri, |_, judged, _| judged.kind)?.flatten();
                let found = self
                    .docs
                    .get(uri)
                    .map(|doc| actions::at(uri, &doc.text, kind, &doc.findings, p.range, self.encoding));
                json(serde_json::to_value(found.unwrap_or_default()))
            }
            req::ExecuteCommand::METHOD => {
                let p: lsp_types::ExecuteCommandParams = serde_json::from_value(r.params).map_err(bad)?;
                let code = p.arguments.first().and_then(|a| a.as_str()).unwrap_or_default();
                let rule = crate::lint::rules::find(code).filter(|_| p.command == actions::EXPLAIN).ok_or((
                    ErrorCode::InvalidParams,
                    format!("{} takes a rule code, e.g. KNB001", actions::EXPLAIN),
                ))?;
                let text = crate::explain::human(&crate::explain::Topic::Rule(rule));
                let shown = ShowMessageParams { typ: MessageType::INFO, message: text.clone() };
                self.outbox.push(Notification::new(note::ShowMessage::METHOD.to_string(), shown).into());
                Ok(serde_json::Value::String(text))
            }
            other => Err((ErrorCode::MethodNotFound, format!("knobs server does not answer {other}"))),
        }
    }

    /// Runs `f` with how the document at `uri` is judged, on a worker
    /// bounded by [`deadline`]; none for a document that is not open, not
    /// a file, or not judged (its knobs.toml broken). Past the deadline,
    /// an error (the worker's late answer is dropped).
    fn with_judged<T: Send + 'static>(
        &mut self,
        uri: &Url,
        f: impl FnOnce(&workspace::Project, &workspace::Judged<'_>, &str) -> T + Send + 'static,
    ) -> Result<Option<T>, (ErrorCode, String)> {
        let Some(doc) = self.docs.get(uri) else { return Ok(None) };
        let Ok(path) = uri.to_file_path() else { return Ok(None) };
        let Ok(project) = self.projects.of(&path) else { return Ok(None) };
        let text = doc.text.clone();
        bounded(move || {
            let judged = project.judge(&path, &text).ok()?;
            Some(f(&project, &judged, &text))
        })
        .map_err(|why| (ErrorCode::RequestCanceled, why))
    }

    fn notified(&mut self, n: Notification) {
        let method = n.method.clone();
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.notification(n)));
        if caught.is_err() {
            eprintln!("knobs server: {method} failed: a bug, please report it");
        }
    }

    fn notification(&mut self, n: Notification) {
        match n.method.as_str() {
            note::DidOpenTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(n.params) else { return };
                let d = p.text_document;
                self.docs.insert(d.uri.clone(), Doc { text: d.text, version: d.version, findings: Vec::new() });
                self.changed(d.uri);
            }
            note::DidChangeTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(n.params) else { return };
                let enc = self.encoding;
                let Some(doc) = self.docs.get_mut(&p.text_document.uri) else { return };
                for change in p.content_changes {
                    match change.range {
                        None => doc.text = change.text,
                        Some(r) => {
                            let (s, e) = (offset(&doc.text, r.start, enc), offset(&doc.text, r.end, enc));
                            if s <= e && e <= doc.text.len() {
                                doc.text.replace_range(s..e, &change.text);
                            }
                        }
                    }
                }
                doc.version = p.text_document.version;
                self.changed(p.text_document.uri);
            }
            note::DidCloseTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(n.params) else { return };
                self.docs.remove(&p.text_document.uri);
                self.dirty.remove(&p.text_document.uri);
                let cleared =
                    PublishDiagnosticsParams { uri: p.text_document.uri, diagnostics: Vec::new(), version: None };
                self.outbox.push(Notification::new(note::PublishDiagnostics::METHOD.to_string(), cleared).into());
            }
            note::DidSaveTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<lsp_types::DidSaveTextDocumentParams>(n.params) else { return };
                if settings_file(&p.text_document.uri) {
                    self.reread();
                }
            }
            note::DidChangeWatchedFiles::METHOD => {
                let Ok(p) = serde_json::from_value::<lsp_types::DidChangeWatchedFilesParams>(n.params) else { return };
                if p.changes.iter().any(|c| settings_file(&c.uri)) {
                    self.reread();
                }
            }
            _ => {}
        }
    }

    fn changed(&mut self, uri: Url) {
        self.dirty.insert(uri);
        self.changed_at = Some(Instant::now());
    }

    /// knobs.toml or a catalogue changed: read every project again and
    /// lint every open document.
    fn reread(&mut self) {
        self.projects.forget();
        let all: Vec<Url> = self.docs.keys().cloned().collect();
        for uri in all {
            self.changed(uri);
        }
    }

    /// Lints the documents changed since the last time, newest text only,
    /// and sends their diagnostics.
    fn publish(&mut self, c: &Connection) -> Result<(), Failure> {
        self.changed_at = None;
        let enc = self.encoding;
        for uri in std::mem::take(&mut self.dirty) {
            let Some(doc) = self.docs.get(&uri) else { continue };
            let Ok(path) = uri.to_file_path() else { continue };
            let project = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.projects.of(&path)))
                .unwrap_or_else(|_| Err("knobs failed on this file: a bug, please report it".to_string()));
            let text = doc.text.clone();
            let linted = match project {
                Ok(p) => {
                    let at = path.clone();
                    // Past the deadline: nothing new is published.
                    match bounded(move || workspace::lint(&p, &at, &text)) {
                        Ok(linted) => linted,
                        Err(why) if why == late() => {
                            eprintln!("knobs server: {}: {why}", path.display());
                            continue;
                        }
                        Err(why) => Err(why),
                    }
                }
                Err(why) => Err(why),
            };
            let (findings, diagnostics) = match linted {
                Ok(f) => {
                    let d = f.iter().map(|f| diagnostics::of(f, &doc.text, &uri, enc)).collect();
                    (f, d)
                }
                Err(why) => {
                    eprintln!("knobs server: {}: {why}", path.display());
                    (Vec::new(), vec![diagnostics::trouble(&why)])
                }
            };
            let params = PublishDiagnosticsParams { uri: uri.clone(), diagnostics, version: Some(doc.version) };
            c.sender.send(Notification::new(note::PublishDiagnostics::METHOD.to_string(), params).into())?;
            if let Some(doc) = self.docs.get_mut(&uri) {
                doc.findings = findings;
            }
        }
        Ok(())
    }
}

/// How long one request (or one document's lint) may take: 10 s, or
/// `KNOBS_SERVER_DEADLINE_MS` milliseconds.
fn deadline() -> Duration {
    let ms = std::env::var("KNOBS_SERVER_DEADLINE_MS").ok().and_then(|v| v.parse().ok());
    Duration::from_millis(ms.unwrap_or(10_000))
}

fn late() -> String {
    format!("knobs server: no answer within {} ms; the work was dropped", deadline().as_millis())
}

/// `work` on a worker thread, its result if it comes within [`deadline`];
/// else why not (late, or a panic in it).
fn bounded<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
    // No time at all: nothing could answer in it (a worker might, racing
    // the wait; a test of the late path must not depend on that race).
    if deadline().is_zero() {
        return Err(late());
    }
    let (tx, rx) = crossbeam_channel::bounded(1);
    let spawned = std::thread::Builder::new().name("knobs-request".into()).spawn(move || {
        let _ = tx.send(work());
    });
    if let Err(e) = spawned {
        return Err(format!("knobs server: cannot start a worker ({e})"));
    }
    rx.recv_timeout(deadline()).map_err(|e| match e {
        RecvTimeoutError::Timeout => late(),
        RecvTimeoutError::Disconnected => "knobs failed on this request: a bug, please report it".to_string(),
    })
}

/// True for a file whose change changes the settings: knobs.toml, or a
/// catalogue or overlay (`.toml`, `.json`) in a project.
fn settings_file(uri: &Url) -> bool {
    let path: PathBuf = uri.to_file_path().unwrap_or_default();
    path.file_name().is_some_and(|n| n == crate::config::FILE_NAME)
        || path.extension().is_some_and(|e| e == "toml" || e == "json")
}

/// The byte offset of an LSP position in `text`.
fn offset(text: &str, pos: lsp_types::Position, enc: Encoding) -> usize {
    let mut at = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i == pos.line as usize {
            let l = line.strip_suffix('\n').unwrap_or(line);
            let l = l.strip_suffix('\r').unwrap_or(l);
            return at + positions::byte_index(l, pos.character, enc);
        }
        at += line.len();
    }
    text.len()
}
