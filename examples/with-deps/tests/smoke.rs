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
    let mut command = Command::new(env!("CARGO_BIN_EXE_http_service"));
    command.arg("127.0.0.1:0").env("POOLABLE", pooling);
    start_with(command)
}

/// Start `command` (the server, with its address argument); its address.
fn start_with(mut command: Command) -> (Server, String) {
    let mut child = command
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

/// Out of file descriptors, the server cannot accept connections until
/// some close, and then serves again: a failed `accept` is logged, not the
/// end of the server.
#[test]
fn the_server_outlives_running_out_of_file_descriptors() {
    use std::io::{Read, Write};
    use std::net::TcpStream;
    use std::time::Duration;

    let mut command = Command::new("sh");
    command
        .args(["-c", "ulimit -n 32 && exec \"$0\" 127.0.0.1:0"])
        .arg(env!("CARGO_BIN_EXE_http_service"))
        .stderr(Stdio::null());
    let (_server, addr) = start_with(command);
    // More connections than the server has descriptors: its accepts fail
    // with `EMFILE` while they are open.
    let held: Vec<TcpStream> = (0..64)
        .map(|_| TcpStream::connect(&addr).expect("connect"))
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    drop(held);
    std::thread::sleep(Duration::from_millis(300));
    let mut stream = TcpStream::connect(&addr).expect("the server is still listening");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("a timeout");
    stream
        .write_all(b"GET /stats HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        .expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("the answer");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

/// Values that cannot make a run (infinite, fractional or zero counts, a
/// schedule past any clock) are usage errors, not panics.
#[test]
fn the_load_generator_rejects_values_it_cannot_run() {
    let (_server, addr) = start("on");
    let bad: [&[&str]; 6] = [
        &["--seconds", "inf"],
        &["--seconds", "1e300"],
        &["--count", "0.2"],
        &["--connections", "0.5"],
        &["--connections", "0"],
        &["--count", "5", "--rate", "1e-300"],
    ];
    for args in bad {
        let out = Command::new(env!("CARGO_BIN_EXE_loadgen"))
            .arg(&addr)
            .args(args)
            .output()
            .expect("run loadgen");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.starts_with("loadgen: "), "{args:?}: {stderr}");
    }
}

/// A server that dies during a run: the load generator still reports what
/// it measured (the requests after the death as errors), then fails.
#[test]
fn the_load_generator_reports_a_run_whose_server_died() {
    let (server, addr) = start("on");
    let run = Command::new(env!("CARGO_BIN_EXE_loadgen"))
        .args([
            addr.as_str(),
            "--rate",
            "200",
            "--seconds",
            "3",
            "--connections",
            "2",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run loadgen");
    std::thread::sleep(std::time::Duration::from_secs(1));
    drop(server);
    let out = run.wait_with_output().expect("loadgen ends");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success());
    let summary = stdout.lines().next().unwrap_or_default();
    let count = |what: &str| -> u64 {
        summary
            .split(", ")
            .find_map(|part| {
                part.split(": ")
                    .last()?
                    .strip_suffix(what)?
                    .trim()
                    .parse()
                    .ok()
            })
            .unwrap_or(0)
    };
    assert!(count(" ok") > 0 && count(" errors") > 0, "{stdout}");
}
