// A `Trimmer` dropped at once stops its thread, and a guard dropped at once
// returns its value: both are warnings (errors here), not silent. So is a
// reading of the stats that is not read.
#![deny(unused_must_use)]

use poolable::Pool;
use std::time::Duration;

static NAMES: Pool<String> = Pool::new();

fn start_trimmer() -> std::io::Result<()> {
    poolable::trimmer::spawn(Duration::from_secs(30))?;
    Ok(())
}

fn main() {
    NAMES.get();
    NAMES.stats();
    poolable::pools();
    let _ = start_trimmer();
}
