//! `pools()` and `report()`: every live pool that has been used, by name.

use poolable::{BufferPool, Pool, Poolable, pools, report};

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
