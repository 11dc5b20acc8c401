//! `pools()` and `report()`: every live pool that has been used, by name.

use poolable::{BufferPool, Pool, Poolable, pools, report};
use std::sync::{Arc, Barrier};

fn names() -> Vec<String> {
    pools().iter().map(|p| p.name().to_owned()).collect()
}

#[derive(Poolable, Default)]
struct Job {
    name: String,
}

#[derive(Poolable, Default)]
#[poolable(name = "registry-test-derived-named")]
struct Upload {
    body: Vec<u8>,
}

#[derive(Poolable, Default)]
struct Wrapper<T: Send + 'static> {
    items: Vec<T>,
}

static UNNAMED: Pool<Vec<u16>> = Pool::new();
static NAMED: Pool<Vec<u32>> = Pool::new().name("registry-test-named");
static NEVER_USED: Pool<Vec<u64>> = Pool::new().name("registry-test-never-used");
static BODIES: BufferPool = BufferPool::new().name("registry-test-bodies");

#[test]
fn every_kind_of_pool_is_listed_once_used() {
    drop(UNNAMED.get());
    drop(NAMED.get());
    drop(Job::pool().get());
    drop(Upload::pool().get());
    drop(Wrapper::<u8>::pool().get());
    drop(Wrapper::<u16>::pool().get());
    drop(BODIES.get(3000));
    let heap = Pool::<String>::new().name("registry-test-heap");
    drop(heap.get());

    let names = names();
    for expected in [
        "alloc::vec::Vec<u16>",
        "registry-test-named",
        "registry::Job",
        "registry-test-derived-named",
        "registry::Wrapper<u8>",
        "registry::Wrapper<u16>",
        "registry-test-bodies[4096]",
        "registry-test-heap",
    ] {
        assert_eq!(
            names.iter().filter(|n| *n == expected).count(),
            1,
            "{expected} in {names:?}"
        );
    }
    assert!(!names.iter().any(|n| n == "registry-test-never-used"));
    let _ = &NEVER_USED;

    let named = pools()
        .into_iter()
        .find(|p| p.name() == "registry-test-named")
        .unwrap();
    assert_eq!((named.stats().gets, named.stats().retained), (1, 1));
    drop(NAMED.get());
    assert_eq!(named.stats().gets, 2, "stats are read afresh");
}

#[test]
fn a_dropped_heap_pool_leaves_the_list() {
    let pool = Pool::<String>::new().name("registry-test-dropped");
    drop(pool.get());
    assert!(names().iter().any(|n| n == "registry-test-dropped"));
    drop(pool);
    assert!(!names().iter().any(|n| n == "registry-test-dropped"));
}

/// A pool listed by `pools()` and dropped before its stats are read keeps
/// what it had counted: a thread that used it and is still alive (its
/// cache not yet freed) keeps its share. The reading lost that share: the
/// dropped pool let go of its list of thread caches, whose counters a
/// reading sums, so it read 0 gets after 10.
#[test]
fn a_pool_dropped_after_it_was_listed_keeps_its_counts() {
    let name = "registry-test-dropped-while-listed";
    let pool = Arc::new(Pool::<String>::new().name(name));
    let parked = Arc::new(Barrier::new(2));
    let user = {
        let (pool, parked) = (Arc::clone(&pool), Arc::clone(&parked));
        std::thread::spawn(move || {
            for _ in 0..10 {
                drop(pool.get());
            }
            drop(pool);
            parked.wait();
            // Alive, with its cache of the pool, until the pool is dropped.
            parked.wait();
        })
    };
    parked.wait();
    let listed = pools().into_iter().find(|p| p.name() == name).unwrap();
    let before = listed.stats();
    assert_eq!((before.gets, before.puts), (10, 10), "{before}");
    drop(pool); // the last `Arc`: the pool is dropped
    let after = listed.stats();
    parked.wait();
    user.join().unwrap();
    assert_eq!(
        (after.gets, after.misses, after.puts),
        (before.gets, before.misses, before.puts),
        "{after}"
    );
    assert!(after.is_balanced(), "{after}");
    assert!(!names().iter().any(|n| n == name));
}

#[test]
fn the_report_has_a_line_per_pool() {
    static REPORTED: Pool<String> = Pool::new().name("registry-test-reported");
    drop(REPORTED.get());
    let report = report().to_string();
    let line = report
        .lines()
        .find(|line| line.starts_with("registry-test-reported "))
        .expect("a line for the pool");
    assert!(
        line.contains("gets=1") && line.contains("retained=1"),
        "{line}"
    );
    assert!(report.lines().count() >= 1);
}

#[test]
fn a_pool_info_debugs_as_its_name_and_stats() {
    static DEBUGGED: Pool<String> = Pool::new().name("registry-test-debugged");
    drop(DEBUGGED.get());
    let info = pools()
        .into_iter()
        .find(|p| p.name() == "registry-test-debugged")
        .expect("the pool is listed");
    let debug = format!("{info:?}");
    assert!(
        debug.starts_with(r#"PoolInfo { name: "registry-test-debugged", stats: Stats { gets: 1,"#),
        "{debug}"
    );
}

#[test]
fn the_report_lists_pools_by_name_and_a_buffer_pools_classes_by_capacity() {
    static SIZES: BufferPool = BufferPool::new()
        .name("registry-test-sizes")
        .max_bytes(1 << 20);
    static FIRST_BY_NAME: Pool<Vec<u8>> = Pool::new().name("registry-test-a-first-by-name");
    // First used in an order that is neither the names' nor the sizes'.
    drop(SIZES.get(300_000));
    drop(SIZES.get(1 << 20));
    // 100,000 bytes: the idle 320 KiB buffer is more than twice that, so
    // this get does not reuse it (a large get takes a larger idle buffer of
    // up to twice the request) and its own class is used.
    drop(SIZES.get(100_000));
    drop(FIRST_BY_NAME.get());

    let report = report().to_string();
    let lines: Vec<&str> = report.lines().collect();
    let at = |prefix: &str| lines.iter().position(|line| line.starts_with(prefix));
    let classes: Vec<(usize, usize)> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, line)| {
            let rest = line.strip_prefix("registry-test-sizes[")?;
            let capacity = rest.split(']').next()?.parse().ok()?;
            Some((i, capacity))
        })
        .collect();
    assert_eq!(classes.len(), 3, "{report}");
    assert!(
        classes.windows(2).all(|w| w[0].1 < w[1].1),
        "classes by capacity: {report}"
    );
    assert!(at("registry-test-a-first-by-name ").unwrap() < classes[0].0);
}

#[test]
fn the_report_gives_bytes_in_binary_units() {
    static MIB: Pool<Vec<u8>> = Pool::new()
        .name("registry-test-mebibyte")
        .max_bytes(2 << 20);
    MIB.get().reserve_exact(1 << 20);
    let report = report().to_string();
    let line = report
        .lines()
        .find(|line| line.starts_with("registry-test-mebibyte "))
        .expect("a line for the pool");
    assert!(line.ends_with("retained=1 (1.0 MiB)"), "{line}");
}

/// Reading an unused pool's cap is a reading: it does not make the pool's
/// storage, so `pools()` does not list the pool. It did: `max_bytes_now`
/// made the storage to ask it, and registered it.
#[test]
fn reading_an_unused_pools_cap_does_not_list_it() {
    let name = "registry-test-cap-read";
    let plain = Pool::<String>::new().name(name).max_bytes(1024);
    let auto = Pool::<String>::new()
        .name(name)
        .max_bytes_auto()
        .max_bytes(4096);
    assert_eq!(plain.max_bytes_now(), 1024);
    assert_eq!(auto.max_bytes_now(), 4096, "the ceiling, until calibrated");
    assert!(!names().iter().any(|n| n == name));
    drop(auto.get());
    assert_eq!(auto.max_bytes_now(), 4096);
    assert!(names().iter().any(|n| n == name));
}
