//! A scripted LSP client for `knobs server`: spawns the binary, speaks
//! Content-Length framed JSON-RPC over its stdin and stdout, and waits for
//! what the tests expect (an answer by id, diagnostics for a document).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long any one awaited message may take.
const WAIT: Duration = Duration::from_secs(30);

pub struct Client {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    next_id: i64,
    /// Messages read while waiting for another.
    seen: Vec<Value>,
}

impl Client {
    /// Starts `knobs server` in `cwd` (extra `args` before `server`) and
    /// initializes it, offering `encodings` as position encodings.
    pub fn start(cwd: &Path, args: &[&str], encodings: &[&str]) -> (Client, Value) {
        Client::start_with(cwd, args, encodings, &[])
    }

    /// [`Client::start`] with `env` set for the server.
    pub fn start_with(cwd: &Path, args: &[&str], encodings: &[&str], env: &[(&str, &str)]) -> (Client, Value) {
        let mut child = Command::new(env!("CARGO_BIN_EXE_knobs"))
            .args(args)
            .envs(env.iter().copied())
            .arg("server")
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn knobs server");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut len = None;
                loop {
                    let mut header = String::new();
                    if r.read_line(&mut header).unwrap_or(0) == 0 {
                        return;
                    }
                    let header = header.trim_end();
                    if header.is_empty() {
                        break;
                    }
                    if let Some(n) = header.strip_prefix("Content-Length: ") {
                        len = n.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; len.expect("Content-Length")];
                if r.read_exact(&mut body).is_err() {
                    return;
                }
                if tx.send(serde_json::from_slice(&body).expect("JSON from the server")).is_err() {
                    return;
                }
            }
        });
        let mut c = Client { child, stdin, incoming: rx, next_id: 0, seen: Vec::new() };
        let caps = json!({ "general": { "positionEncodings": encodings } });
        let init = c.request("initialize", json!({ "processId": null, "rootUri": null, "capabilities": caps }));
        c.notify("initialized", json!({}));
        (c, init)
    }

    fn send(&mut self, msg: &Value) {
        let body = msg.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write to the server");
        self.stdin.flush().expect("flush");
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and returns its whole response (`result` or `error`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        self.wait(|m| m["id"] == json!(id) && m.get("method").is_none())
    }

    /// The next message `want` accepts (earlier ones seen are looked at first).
    pub fn wait(&mut self, want: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.seen.iter().position(&want) {
            return self.seen.remove(i);
        }
        let deadline = Instant::now() + WAIT;
        loop {
            match self.incoming.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(m) if want(&m) => return m,
                Ok(m) => self.seen.push(m),
                Err(RecvTimeoutError::Timeout) => panic!("no awaited message in {WAIT:?}; seen: {:?}", self.seen),
                Err(RecvTimeoutError::Disconnected) => panic!("the server closed its output; seen: {:?}", self.seen),
            }
        }
    }

    /// The diagnostics published for `uri` at `version`.
    pub fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let m = self.wait(|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == uri
                && m["params"]["version"] == json!(version)
        });
        m["params"]["diagnostics"].as_array().cloned().unwrap_or_default()
    }

    pub fn open(&mut self, uri: &str, language: &str, text: &str) {
        let doc = json!({ "uri": uri, "languageId": language, "version": 1, "text": text });
        self.notify("textDocument/didOpen", json!({ "textDocument": doc }));
    }

    pub fn change(&mut self, uri: &str, version: i64, text: &str) {
        let params =
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "text": text }] });
        self.notify("textDocument/didChange", params);
    }

    /// `textDocument/hover` (or another position request) at 0-based `line`, `character`.
    pub fn at(&mut self, method: &str, uri: &str, line: u32, character: u32) -> Value {
        let params = json!({ "textDocument": { "uri": uri }, "position": { "line": line, "character": character } });
        self.request(method, params)["result"].clone()
    }

    /// shutdown, then exit; the server's exit status.
    pub fn shutdown(mut self) -> i32 {
        let r = self.request("shutdown", Value::Null);
        assert_eq!(r["result"], Value::Null, "{r}");
        self.exit()
    }

    /// `exit` (with or without a `shutdown` before); the server's exit status.
    pub fn exit(mut self) -> i32 {
        self.notify("exit", Value::Null);
        drop(self.stdin);
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code().unwrap_or(-1);
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// The `file://` URI of a path.
pub fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}
