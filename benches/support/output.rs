//! Where the benches that are not criterion's write what they measured.

use std::path::PathBuf;

/// Write `json` to `target/criterion/<file>`, beside criterion's own output,
/// where `scripts/bench_table.py` reads it; print the path.
pub fn write_json(file: &str, json: &str) {
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        // The workspace's target directory: this package is `benches/`.
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"))
        .join("criterion");
    std::fs::create_dir_all(&dir).expect("create target/criterion");
    let path = dir.join(file);
    std::fs::write(&path, json).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    println!("wrote {}", path.display());
}
