//! git's smart HTTP protocol on a free loopback port, for tests of fetches
//! over http: each request is answered by `git upload-pack --stateless-rpc`
//! (what `git http-backend` runs), keep-alive connections included. Only
//! fetching is served; the server stops when dropped.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

pub struct SmartHttp {
    pub port: u16,
    stop: Arc<AtomicBool>,
}

impl SmartHttp {
    /// Serves the bare repositories under `served` (`http://127.0.0.1:PORT/NAME`).
    pub fn start(served: &Path) -> SmartHttp {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        listener.set_nonblocking(true).expect("nonblocking");
        let stop = Arc::new(AtomicBool::new(false));
        let (stopped, root) = (Arc::clone(&stop), served.to_path_buf());
        std::thread::spawn(move || {
            while !stopped.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((conn, _)) => {
                        let root = root.clone();
                        std::thread::spawn(move || serve(conn, &root));
                    }
                    Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
                }
            }
        });
        SmartHttp { port, stop }
    }

    pub fn url(&self, name: &str) -> String {
        format!("http://127.0.0.1:{}/{name}", self.port)
    }
}

impl Drop for SmartHttp {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// One connection's requests, until the client closes it.
fn serve(conn: TcpStream, root: &Path) {
    let _ = conn.set_nonblocking(false);
    let _ = conn.set_nodelay(true);
    let mut out = conn.try_clone().expect("clone stream");
    let mut reader = BufReader::new(conn);
    while let Some((line, headers)) = request(&mut reader) {
        let mut parts = line.split(' ');
        let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let header = |name: &str| headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str());
        let path = target.split('?').next().unwrap_or("");
        let answer = match (method, path.strip_suffix("/info/refs"), path.strip_suffix("/git-upload-pack")) {
            ("GET", Some(repo), _) if target.ends_with("?service=git-upload-pack") => {
                let head = "# service=git-upload-pack\n";
                let mut body = format!("{:04x}{head}0000", head.len() + 4).into_bytes();
                body.extend(upload_pack(&repo_dir(root, repo), &["--advertise-refs"], &[]));
                Some(("application/x-git-upload-pack-advertisement", body))
            }
            ("POST", _, Some(repo)) => {
                let body = body(&mut reader, header("content-length"), header("transfer-encoding"));
                Some(("application/x-git-upload-pack-result", upload_pack(&repo_dir(root, repo), &[], &body)))
            }
            _ => None,
        };
        let written = match answer {
            Some((kind, body)) => {
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-cache\r\n\r\n",
                    body.len()
                );
                out.write_all(&[head.as_bytes(), &body].concat())
            }
            None => out.write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n"),
        };
        if written.is_err() {
            return;
        }
    }
}

fn repo_dir(root: &Path, repo: &str) -> PathBuf {
    root.join(repo.trim_start_matches('/'))
}

/// The request line and headers, or `None` when the client is gone.
pub fn request(reader: &mut impl BufRead) -> Option<(String, Vec<(String, String)>)> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).ok()? == 0 {
            return None;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
    }
    Some((line.trim_end().to_string(), headers))
}

/// A request body, sized or chunked.
pub fn body(reader: &mut impl BufRead, length: Option<&str>, encoding: Option<&str>) -> Vec<u8> {
    let mut body = Vec::new();
    if encoding.is_some_and(|e| e.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).expect("chunk size");
            let n = usize::from_str_radix(size.trim(), 16).expect("chunk size");
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk).expect("chunk");
            if n == 0 {
                return body;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    }
    let n: usize = length.and_then(|l| l.parse().ok()).unwrap_or(0);
    body.resize(n, 0);
    reader.read_exact(&mut body).expect("body");
    body
}

/// `git upload-pack --stateless-rpc ARGS REPO` with `input` on its stdin.
fn upload_pack(repo: &Path, args: &[&str], input: &[u8]) -> Vec<u8> {
    let mut child = Command::new("git")
        .args(["upload-pack", "--stateless-rpc"])
        .args(args)
        .arg(repo)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("git upload-pack");
    let mut stdin = child.stdin.take().expect("stdin");
    let input = input.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("upload-pack output");
    let _ = feeder.join();
    out.stdout
}
