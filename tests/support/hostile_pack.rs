//! A server that answers every fetch with a pack the test wrote: git's
//! smart HTTP protocol on a free loopback port, one tag `v1` advertised,
//! the shallow lines a depth-1 fetch waits for, then the pack on the first
//! side band. And the pack's pieces: entries of any kind and declared size,
//! deltas whose head declares any result. Nothing here checks what it serves.

use std::io::{BufReader, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::smart_http::{body, request};

/// The id the tag `v1` is advertised at.
pub const TIP: &str = "1111111111111111111111111111111111111111";

pub struct HostilePack {
    pub port: u16,
    stop: Arc<AtomicBool>,
}

impl HostilePack {
    /// Serves `pack` (the bytes of a pack file) to every fetch.
    pub fn start(pack: Vec<u8>) -> HostilePack {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        listener.set_nonblocking(true).expect("nonblocking");
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let pack = Arc::new(pack);
        std::thread::spawn(move || {
            while !stopped.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((conn, _)) => {
                        let pack = Arc::clone(&pack);
                        std::thread::spawn(move || serve(conn, &pack));
                    }
                    Err(_) => std::thread::sleep(std::time::Duration::from_millis(10)),
                }
            }
        });
        HostilePack { port, stop }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/h.git", self.port)
    }
}

impl Drop for HostilePack {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

fn pkt(data: &[u8]) -> Vec<u8> {
    let mut out = format!("{:04x}", data.len() + 4).into_bytes();
    out.extend_from_slice(data);
    out
}

fn serve(conn: std::net::TcpStream, pack: &[u8]) {
    let _ = conn.set_nonblocking(false);
    let mut out = conn.try_clone().expect("clone stream");
    let mut reader = BufReader::new(conn);
    while let Some((line, headers)) = request(&mut reader) {
        let header = |name: &str| headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone());
        let (kind, answer) = if line.starts_with("GET ") {
            let mut b = pkt(b"# service=git-upload-pack\n");
            b.extend_from_slice(b"0000");
            let caps = "multi_ack_detailed side-band-64k ofs-delta shallow no-progress";
            b.extend(pkt(format!("{TIP} refs/tags/v1\0{caps}\n").as_bytes()));
            b.extend_from_slice(b"0000");
            ("application/x-git-upload-pack-advertisement", b)
        } else {
            let asked = body(&mut reader, header("content-length").as_deref(), header("transfer-encoding").as_deref());
            // libgit2 first asks for the shallow lines alone (wants and
            // `deepen`), then for the pack (its `done`).
            if !asked.windows(4).any(|w| w == b"done") {
                let mut b = pkt(format!("shallow {TIP}").as_bytes());
                b.extend_from_slice(b"0000");
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/x-git-upload-pack-result\r\nContent-Length: {}\r\n\r\n",
                    b.len()
                );
                if out.write_all(&[head.as_bytes(), &b].concat()).is_err() {
                    return;
                }
                continue;
            }
            let mut b = pkt(b"NAK\n");
            for chunk in pack.chunks(65_000) {
                let mut data = vec![1u8];
                data.extend_from_slice(chunk);
                b.extend(pkt(&data));
            }
            b.extend_from_slice(b"0000");
            ("application/x-git-upload-pack-result", b)
        };
        let head = format!("HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\r\n", answer.len());
        if out.write_all(&[head.as_bytes(), &answer].concat()).is_err() {
            return;
        }
    }
}

/// A pack's header for `count` entries.
pub fn pack_header(count: u32) -> Vec<u8> {
    let mut out = b"PACK".to_vec();
    out.extend_from_slice(&2u32.to_be_bytes());
    out.extend_from_slice(&count.to_be_bytes());
    out
}

/// An entry's header: kind (3 a blob, 6 an offset delta) and declared size.
fn entry_header(kind: u8, size: u64) -> Vec<u8> {
    let mut out = vec![(kind << 4) | (size & 0x0f) as u8];
    let mut size = size >> 4;
    while size > 0 {
        if let Some(last) = out.last_mut() {
            *last |= 0x80;
        }
        out.push((size & 0x7f) as u8);
        size >>= 7;
    }
    out
}

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(data).expect("deflate");
    z.finish().expect("deflate")
}

/// A blob entry of `size` zero bytes.
pub fn blob_entry(size: usize) -> Vec<u8> {
    let mut out = entry_header(3, size as u64);
    out.extend(zlib(&vec![0u8; size]));
    out
}

fn varint(mut n: u64, out: &mut Vec<u8>) {
    loop {
        let b = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// An offset delta `back` bytes after its base's start: its base is `base`
/// bytes, its result `result` bytes, copied from the base's first bytes in
/// copies of at most `base` (so a small base makes a result of any size).
pub fn delta_entry(back: u64, base: u64, result: u64) -> Vec<u8> {
    let mut delta = Vec::new();
    varint(base, &mut delta);
    varint(result, &mut delta);
    let mut left = result;
    let step = base.min(0xff_ffff);
    while left > 0 {
        let n = left.min(step);
        // Copy from offset 0, size n (three size bytes).
        delta.extend_from_slice(&[0x80 | 0x70, (n & 0xff) as u8, ((n >> 8) & 0xff) as u8, ((n >> 16) & 0xff) as u8]);
        left -= n;
    }
    let mut out = entry_header(6, delta.len() as u64);
    // The base's distance back, as git writes it.
    let mut off = back;
    let mut bytes = vec![(off & 0x7f) as u8];
    off >>= 7;
    while off > 0 {
        off -= 1;
        bytes.push(0x80 | (off & 0x7f) as u8);
        off >>= 7;
    }
    bytes.reverse();
    out.extend(bytes);
    out.extend(zlib(&delta));
    out
}

/// A pack of `entries`, with its header and its SHA-1 trailer.
pub fn pack(entries: &[Vec<u8>]) -> Vec<u8> {
    let mut out = pack_header(u32::try_from(entries.len()).expect("count"));
    for e in entries {
        out.extend_from_slice(e);
    }
    let sum = ring::digest::digest(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY, &out);
    out.extend_from_slice(sum.as_ref());
    out
}
