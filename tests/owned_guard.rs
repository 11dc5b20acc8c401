//! `Pool::get_owned`: a guard that holds an `Arc` of its pool, so it is
//! `'static` and moves into threads and tasks, and otherwise behaves exactly
//! like the guard `Pool::get` returns.

use poolable::{OwnedPooled, Pool, Poolable, Pooled};
use std::sync::Arc;

fn assert_static_send<T: Send + 'static>(_: &T) {}

#[derive(Poolable, Default)]
struct Job {
    name: String,
    scratch: Vec<u8>,
}

#[test]
fn an_owned_guard_moves_into_a_thread_and_comes_back_reset() {
    let pool = Arc::new(Pool::<Job>::new());
    let mut job = pool.get_owned();
    assert_static_send(&job);
    job.name.push_str("ada");
    job.scratch.extend_from_slice(&[7; 100]);
    let name_buffer = job.name.as_ptr();
    std::thread::spawn(move || {
        assert_eq!(job.name, "ada");
        drop(job); // returned from this thread
    })
    .join()
    .unwrap();
    let stats = pool.stats();
    assert_eq!(
        (stats.gets, stats.puts, stats.retained),
        (1, 1, 1),
        "{stats}"
    );

    let again = pool.get_owned();
    assert!(again.name.is_empty() && again.scratch.is_empty());
    // Returned on another thread, it waits in the shards: the same value.
    assert_eq!(again.name.as_ptr(), name_buffer);
    assert_eq!(pool.stats().misses, 1);
}

#[test]
fn an_owned_guard_moves_into_a_tokio_task_and_comes_back() {
    let pool = Arc::new(Pool::<Vec<u8>>::new());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    let len = runtime.block_on({
        let pool = Arc::clone(&pool);
        async move {
            let mut buf = pool.get_owned();
            tokio::spawn(async move {
                buf.extend_from_slice(b"response body");
                tokio::task::yield_now().await;
                buf.len() // the guard is dropped at the end of the task
            })
            .await
            .unwrap()
        }
    });
    drop(runtime); // joins the workers; their caches go to the shards
    assert_eq!(len, 13);
    let stats = pool.stats();
    assert_eq!((stats.puts, stats.retained), (1, 1), "{stats}");
    assert!(pool.get().is_empty());
}

#[test]
fn into_inner_panics_and_stats_behave_as_for_a_borrowed_guard() {
    let pool = Arc::new(Pool::<Vec<u8>>::new());

    let mut buf = pool.get_owned();
    buf.push(1);
    assert_eq!(OwnedPooled::into_inner(buf), [1]);
    assert_eq!(pool.stats().detached, 1);

    let pool_there = Arc::clone(&pool);
    let panicked = std::thread::spawn(move || {
        let _buf = pool_there.get_owned();
        panic!("while holding an owned guard");
    })
    .join();
    assert!(panicked.is_err());
    let stats = pool.stats();
    assert_eq!(stats.dropped_panic, 1, "{stats}");
    assert_eq!(stats.unaccounted(0, 0), 0, "{stats}");
}

#[test]
fn an_owned_guard_keeps_its_pool_alive() {
    let pool = Arc::new(Pool::<String>::new());
    let mut name = pool.get_owned();
    let weak = Arc::downgrade(&pool);
    drop(pool); // the guard still holds it
    name.push_str("ada");
    assert!(Arc::ptr_eq(
        OwnedPooled::pool(&name),
        &weak.upgrade().unwrap()
    ));
    drop(name); // returned; the last `Arc` goes with the guard
    assert!(weak.upgrade().is_none());
}

#[test]
fn owned_and_borrowed_guards_compare_by_value() {
    let pool = Arc::new(Pool::<String>::new());
    let mut owned = pool.get_owned();
    let mut borrowed: Pooled<'_, String> = pool.get();
    owned.push_str("ada");
    borrowed.push_str("ada");
    assert!(owned == borrowed);
    assert!(borrowed == owned);
    assert_eq!(format!("{owned:?}"), format!("{borrowed:?}"));
}
