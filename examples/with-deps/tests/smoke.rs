//! CI's smoke test of the live measurement: start the server, send a few
//! hundred checked requests at a low rate with the load generator, and check
//! that pooled values come back (`loadgen --smoke`), with pooling on and off,
//! and the same for `POST /upload` (`loadgen --smoke --upload`: each answer
//! carries the body's size and checksum). Built with `no-pool`, the same
//! requests are checked and the pool checks are skipped.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// The server, killed when dropped.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Start `http_service` on a free port; its address.
fn start(pooling: &str) -> (Server, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_http_service"))
        .arg("127.0.0.1:0")
        .env("POOLABLE", pooling)
        .stdout(Stdio::piped())
        .spawn()
        .expect("start http_service");
    let stdout = child.stdout.take().expect("piped stdout");
    let server = Server(child);
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("the address line");
    let addr = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_owned();
    (server, addr)
}

fn smoke(pooling: &str, extra: &[&str]) {
    let (_server, addr) = start(pooling);
    let out = Command::new(env!("CARGO_BIN_EXE_loadgen"))
        .args([addr.as_str(), "--smoke"])
        .args(extra)
        .output()
        .expect("run loadgen");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("smoke: ok"),
        "POOLABLE={pooling}: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn pooled_requests_are_answered_and_come_back() {
    smoke("on", &[]);
}

#[test]
fn with_pooling_off_the_same_binary_answers_too() {
    smoke("off", &[]);
}

#[test]
fn uploads_are_read_checksummed_and_their_buffers_come_back() {
    smoke("on", &["--upload"]);
}
