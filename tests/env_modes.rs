//! `POOLABLE=off` and `POOLABLE=chaos`, read once at the first pool's first
//! use: each case runs in a child process with the variable set.

mod common {
    pub mod child_process;
}

use common::child_process::in_child;
use poolable::{Pool, Reset};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

static RESETS: AtomicU64 = AtomicU64::new(0);

/// Counts its resets.
#[derive(Default)]
struct Counted(Vec<u8>);

impl Reset for Counted {
    fn reset(&mut self) {
        RESETS.fetch_add(1, Relaxed);
        self.0.clear();
    }

    fn heap_bytes(&self) -> usize {
        self.0.capacity()
    }
}

const OPS: u64 = 4000;

fn churn(pool: &Pool<Counted>) {
    for i in 0..OPS {
        pool.get().0.push(i as u8);
    }
}

#[test]
#[cfg_attr(miri, ignore = "spawns a child process, which Miri cannot")]
fn off_constructs_every_value_and_resets_and_drops_every_return() {
    if in_child(
        "off_constructs_every_value_and_resets_and_drops_every_return",
        &[("POOLABLE", "off")],
    ) {
        let pool = Pool::<Counted>::new();
        churn(&pool);
        assert_eq!(pool.reserve(10), 0);
        let stats = pool.stats();
        assert_eq!((stats.misses, stats.dropped_full), (OPS, OPS), "{stats}");
        assert_eq!(stats.retained, 0, "{stats}");
        assert_eq!(RESETS.load(Relaxed), OPS, "every return is still reset");
        assert!(stats.is_balanced(), "{stats}");
    }
}

#[test]
#[cfg_attr(miri, ignore = "spawns a child process, which Miri cannot")]
fn chaos_drops_about_one_return_in_four() {
    if in_child(
        "chaos_drops_about_one_return_in_four",
        &[("POOLABLE", "chaos")],
    ) {
        let pool = Pool::<Counted>::new();
        churn(&pool);
        let stats = pool.stats();
        // Binomial(4000, 1/4): mean 1000, standard deviation 27.
        assert!((700..=1300).contains(&stats.dropped_full), "{stats}");
        // Each drop makes the next get miss (the first get misses too; the
        // last return may be a drop that no get follows).
        let misses = stats.dropped_full..=stats.dropped_full + 1;
        assert!(misses.contains(&stats.misses), "{stats}");
        assert!(stats.is_balanced(), "{stats}");
    }
}

#[test]
#[cfg_attr(miri, ignore = "spawns a child process, which Miri cannot")]
fn any_other_value_pools_as_usual() {
    // Only `off` and `chaos`, exactly: any other value is the normal mode.
    if in_child("any_other_value_pools_as_usual", &[("POOLABLE", "CHAOS")]) {
        let pool = Pool::<Counted>::new();
        churn(&pool);
        let stats = pool.stats();
        assert_eq!((stats.misses, stats.dropped_full), (1, 0), "{stats}");
    }
}

#[test]
fn without_the_variable_nothing_is_dropped() {
    // The control for the two above (this process runs without `POOLABLE`,
    // unless the whole suite was started with it).
    if std::env::var_os("POOLABLE").is_some() {
        return;
    }
    let pool = Pool::<Counted>::new();
    churn(&pool);
    let stats = pool.stats();
    assert_eq!((stats.misses, stats.dropped_full), (1, 0), "{stats}");
}
