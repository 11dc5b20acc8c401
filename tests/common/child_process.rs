//! Run one test of this binary again in a child process: for a scenario
//! that may abort the process, or that needs an environment variable set
//! before the first pool's first use.

use std::process::Command;

/// Set in the child process.
const CHILD: &str = "POOLABLE_TEST_CHILD";

/// In the child process: true, and the caller runs the scenario. In the
/// parent: run the test `name` of this binary in a child process with `envs`
/// set, check that it ran and passed, and return false.
pub fn in_child(name: &str, envs: &[(&str, &str)]) -> bool {
    if std::env::var_os(CHILD).is_some() {
        return true;
    }
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--include-ignored", "--test-threads=1"])
        .env(CHILD, "1")
        .envs(envs.iter().copied())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "{name} in a child process with {envs:?}: {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    false
}
