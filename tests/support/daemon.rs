//! `git daemon` serving fixture repositories on a free loopback port, for
//! tests of fetches over the network protocol: started once it answers,
//! killed when dropped.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Daemon {
    child: Child,
    pub port: u16,
}

impl Daemon {
    /// Serves the bare repositories under `served` (`git://127.0.0.1:PORT/NAME`).
    /// `None`, said on standard error, only when this git has no `daemon`
    /// command; a daemon that starts but never answers fails the test.
    pub fn start(served: &Path) -> Option<Daemon> {
        let has_daemon = Command::new("git")
            .args(["daemon", "--help"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !has_daemon {
            eprintln!("skipped: `git daemon` is not available here (CI installs git, which has it)");
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0").expect("free port").local_addr().expect("addr").port();
        let mut child = Command::new("git")
            .args(["daemon", "--reuseaddr", "--export-all", "--listen=127.0.0.1", &format!("--port={port}")])
            .arg(format!("--base-path={}", served.display()))
            .arg(served)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("`git daemon` starts");
        let deadline = Instant::now() + Duration::from_secs(15);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = child.try_wait() {
                panic!("git daemon ended before it listened on {port}: {status}");
            }
            assert!(Instant::now() < deadline, "git daemon did not listen on {port}");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(Daemon { child, port })
    }

    /// The URL of repository `name` under the served folder.
    pub fn url(&self, name: &str) -> String {
        format!("git://127.0.0.1:{}/{name}", self.port)
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
