//! Model checks of the pool's concurrent paths with loom.
//!
//! ```text
//! CARGO_TARGET_DIR=target/loom RUSTFLAGS="--cfg poolable_loom" LOOM_MAX_PREEMPTIONS=3 \
//!     cargo test -p pool-runtime --release --test loom
//! ```
//!
//! Under `--cfg poolable_loom` the pool's mutexes, atomics and thread-locals are
//! loom's, and there are two shards (`policy::cpus()` is 2), so every model
//! has a home shard per thread and a shard to steal from.
//!
//! Every value is an [`Item`] with a unique id. A book (a std mutex, outside
//! the model) records which ids are alive and which are held by a caller, so
//! each model can check that no value is handed to two holders, that a value
//! is reset before it is handed out again, and that every value the pool
//! created is accounted for: created = retained + held + dropped.
//!
//! The pools are type pools (`Pool::__type_pool`, what `#[derive(Poolable)]`
//! generates): `Item` names its own loom thread-local cache, as derived types
//! do. That lets a spawned thread drop its cache, which is what its exit does,
//! before the thread returns: loom's `JoinHandle::join` returns as soon as
//! the closure has returned, before loom runs the thread's thread-local
//! destructors, whereas std's join waits for them. Without that step, every
//! check after a join would race with the exiting thread's cache flush. The
//! per-thread table that other pools use is covered by
//! `get_put_race_on_one_shard_table_cache`, which checks only what that race
//! cannot disturb.
//!
//! Every model makes its first pool call on the main thread, before it spawns:
//! the pool allocates its shared state on first use and publishes it through
//! `once_cell::race::OnceBox`, whose std atomics loom does not see, so a
//! thread that finds the state another thread created would be reported as a
//! causality violation on the state's loom atomics. The spawn orders it.
//!
//! Two rules keep the models deterministic, as loom's replay requires:
//! - the models run one at a time (`SERIAL`), because the book and the
//!   runtime's thread-index counter are process globals;
//! - exactly two threads use the pool in every model. Threads get their home
//!   shard from a process-wide counter that is not reset between loom
//!   iterations, so an odd number of pool-using threads per iteration would
//!   give the same schedule different home shards in the next iteration.
#![cfg(poolable_loom)]

use loom::thread;
use pool_runtime::__private::{LocalCell, new_cell};
use pool_runtime::{LOCAL_CACHE_SIZE, Pool, Pooled, Reset, Stats};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// A pooled value with an identity that survives reset.
struct Item {
    id: u64,
    /// Set by every holder, cleared by `reset`.
    dirty: bool,
}

loom::thread_local! {
    /// `Item`'s own thread cache, as `#[derive(Poolable)]` would generate it.
    static CACHE: LocalCell<Item> = new_cell();
}

impl Reset for Item {
    fn reset(&mut self) {
        self.dirty = false;
    }

    fn __thread_cache() -> Option<&'static loom::thread::LocalKey<LocalCell<Self>>> {
        Some(&CACHE)
    }
}

/// A pool that keeps its thread caches in `CACHE`.
fn type_pool(max_retained: Option<usize>) -> Arc<Pool<Item>> {
    let pool = Pool::with_new(new_item).__type_pool();
    Arc::new(match max_retained {
        Some(n) => pool.max_retained(n),
        None => pool,
    })
}

/// What a thread's exit does for its cache: drop it, which moves its values
/// to the shards (or drops those that find no room). Done explicitly so that
/// the join after it also orders the flush (see the module docs).
fn exit_cache() {
    let cache = CACHE.with(|cell| cell.borrow_mut().take());
    drop(cache);
}

impl Drop for Item {
    fn drop(&mut self) {
        let mut book = book();
        assert!(
            book.live.remove(&self.id),
            "value {} dropped twice",
            self.id
        );
        book.dropped += 1;
    }
}

/// What happened to the values of the current loom iteration.
struct Book {
    next_id: u64,
    /// Values the pool constructed (its `new` function ran).
    created: u64,
    /// Values made outside the pool and handed to `put`.
    external: u64,
    /// Ids of values not yet dropped.
    live: BTreeSet<u64>,
    /// Ids of values held by a caller, from `get` until `put` has returned.
    held: BTreeSet<u64>,
    /// Values dropped, by the pool or by a caller.
    dropped: u64,
}

static BOOK: Mutex<Book> = Mutex::new(Book {
    next_id: 0,
    created: 0,
    external: 0,
    live: BTreeSet::new(),
    held: BTreeSet::new(),
    dropped: 0,
});

/// Serialises the models: the book and the runtime's thread-index counter are global.
static SERIAL: Mutex<()> = Mutex::new(());

fn book() -> MutexGuard<'static, Book> {
    BOOK.lock().unwrap_or_else(PoisonError::into_inner)
}

fn mint(book: &mut Book) -> Item {
    let id = book.next_id;
    book.next_id += 1;
    book.live.insert(id);
    Item { id, dirty: false }
}

/// The pools' `new` function.
fn new_item() -> Item {
    let mut book = book();
    book.created += 1;
    mint(&mut book)
}

/// A value made outside the pool, for `put`.
fn external_item() -> Item {
    let mut book = book();
    book.external += 1;
    mint(&mut book)
}

/// `pool.get()`, checking the value is reset and has no other holder.
fn take(pool: &Pool<Item>) -> Pooled<'_, Item> {
    let mut value = pool.get();
    assert!(
        !value.dirty,
        "value {} handed out without a reset",
        value.id
    );
    assert!(
        book().held.insert(value.id),
        "value {} handed to two holders",
        value.id
    );
    value.dirty = true;
    value
}

/// Drop the guard (return the value); it stops counting as held once the return is over.
fn give_back(value: Pooled<'_, Item>) -> u64 {
    let id = value.id;
    drop(value);
    assert!(book().held.remove(&id), "value {id} was not held");
    id
}

/// Values alive and not held: the ones in the pool (thread caches and shards),
/// plus at most one per thread in the middle of a `get`.
fn resident() -> usize {
    let book = book();
    book.live.difference(&book.held).count()
}

fn dropped(stats: &Stats) -> u64 {
    stats.dropped_oversize + stats.dropped_full + stats.dropped_panic + stats.dropped_idle
}

/// Every value is accounted for, and the pool's counters agree with the book.
/// Call it when no other thread is using the pool.
fn assert_accounted(pool: &Pool<Item>) {
    let stats = pool.stats();
    let book = book();
    let held = book.held.len() as u64;
    assert_eq!(stats.misses, book.created, "misses vs values created");
    assert_eq!(
        book.created + book.external,
        stats.retained as u64 + held + dropped(&stats) + stats.detached,
        "created = retained + held + dropped + detached: {stats}"
    );
    assert_eq!(book.live.len(), stats.retained + book.held.len(), "{stats}");
    assert_eq!(book.dropped, dropped(&stats), "{stats}");
}

/// Run one model, serialised with the others, with a fresh book per iteration
/// and a check that nothing outlives an iteration.
fn check(model: impl Fn() + Sync + Send + 'static) {
    let _serial = SERIAL.lock().unwrap_or_else(PoisonError::into_inner);
    *book() = Book {
        next_id: 0,
        created: 0,
        external: 0,
        live: BTreeSet::new(),
        held: BTreeSet::new(),
        dropped: 0,
    };
    loom::model(move || {
        {
            let mut book = book();
            assert!(
                book.live.is_empty(),
                "values outlived the previous iteration: {:?}",
                book.live
            );
            *book = Book {
                next_id: 0,
                created: 0,
                external: 0,
                live: BTreeSet::new(),
                held: BTreeSet::new(),
                dropped: 0,
            };
        }
        model();
    });
    let book = book();
    assert!(book.live.is_empty(), "values leaked: {:?}", book.live);
}

/// Main and another thread get and return concurrently, then drop their
/// caches as at thread exit. With `max_retained` one more than a thread cache
/// the shards hold a single value, all in shard 0: both threads refill from
/// that one slot (it starts with the value of main's first get), and both
/// flush into it; whichever flushes second finds it full.
#[test]
fn get_put_race_on_one_shard() {
    check(|| {
        let pool = type_pool(Some(LOCAL_CACHE_SIZE + 1));
        give_back(take(&pool));
        exit_cache();
        let other = Arc::clone(&pool);
        let t = thread::spawn(move || {
            give_back(take(&other));
            exit_cache();
        });
        give_back(take(&pool));
        give_back(take(&pool));
        exit_cache();
        t.join().unwrap();

        assert_accounted(&pool);
        let stats = pool.stats();
        assert_eq!((stats.gets, stats.puts), (4, 4), "{stats}");
        assert_eq!(stats.retained, 1, "{stats}");
        assert_eq!(stats.dropped_full, stats.misses - 1, "{stats}");
    });
}

/// The same race through the per-thread table that pools of non-derived
/// types use. The other thread's exit flush may still be running after the
/// join (see the module docs), so only what it cannot change is checked: the
/// operation counts, the misses (main keeps its first value in its cache, the
/// other thread finds the shards empty), and (by `check`) that every value is
/// dropped by the end.
#[test]
fn get_put_race_on_one_shard_table_cache() {
    check(|| {
        let pool = Arc::new(Pool::with_new(new_item).max_retained(LOCAL_CACHE_SIZE + 1));
        give_back(take(&pool));
        let other = Arc::clone(&pool);
        let t = thread::spawn(move || {
            give_back(take(&other));
        });
        give_back(take(&pool));
        give_back(take(&pool));
        t.join().unwrap();

        let stats = pool.stats();
        assert_eq!((stats.gets, stats.puts), (4, 4), "{stats}");
        assert_eq!(stats.misses, book().created, "{stats}");
        assert_eq!(stats.misses, 2, "{stats}");
    });
}

/// The owner (main) spills half of its full cache to its home shard, then
/// gets and returns, while thread B refills from the shards (stealing from
/// the owner's shard) and gets again. B gets spilled values or new ones,
/// never one still in the owner's cache.
#[test]
fn steal_takes_only_spilled_values() {
    check(|| {
        let pool = type_pool(None);
        // Ids 0..LOCAL_CACHE_SIZE fill the owner's cache, before B exists.
        for _ in 0..LOCAL_CACHE_SIZE {
            pool.put(external_item());
        }
        let last = external_item();
        let other = Arc::clone(&pool);
        let b = thread::spawn(move || {
            let (first, second) = (take(&other), take(&other));
            let got = [give_back(first), give_back(second)];
            exit_cache();
            got
        });
        // A full cache: this put moves the oldest half (ids 0..4) to the home shard.
        pool.put(last);
        give_back(take(&pool));
        let got = b.join().unwrap();

        let private = (LOCAL_CACHE_SIZE / 2) as u64..=LOCAL_CACHE_SIZE as u64;
        for id in got {
            assert!(
                !private.contains(&id),
                "B got value {id}, which was in the owner's private cache"
            );
        }
        assert_accounted(&pool);
        let stats = pool.stats();
        assert_eq!(dropped(&stats), 0, "{stats}");
        let put = LOCAL_CACHE_SIZE as u64 + 1;
        assert_eq!(stats.retained as u64, put + stats.misses, "{stats}");
    });
}

/// The owner spilled half of its cache to its home shard before the thief
/// started; now the owner takes more than its cache holds (refilling from
/// that shard) and returns them all (spilling again) while the thief gets
/// once, refilling from the same shard. Each value goes to one holder, and
/// at most one of the two has to construct a value.
#[test]
fn owner_refill_races_thief() {
    check(|| {
        let pool = type_pool(None);
        // Ids 0..4 end up in the owner's home shard, ids 4..9 in its cache.
        for _ in 0..=LOCAL_CACHE_SIZE {
            pool.put(external_item());
        }
        let other = Arc::clone(&pool);
        let thief = thread::spawn(move || {
            give_back(take(&other));
            exit_cache();
        });
        let held: Vec<_> = (0..LOCAL_CACHE_SIZE / 2 + 2).map(|_| take(&pool)).collect();
        for value in held {
            give_back(value);
        }
        thief.join().unwrap();

        assert_accounted(&pool);
        let stats = pool.stats();
        assert_eq!(dropped(&stats), 0, "{stats}");
        assert!(stats.misses <= 1, "{stats}");
        let put = LOCAL_CACHE_SIZE as u64 + 1;
        assert_eq!(stats.retained as u64, put + stats.misses, "{stats}");
    });
}

/// A thread returns values and exits (flushing its cache) while main refills;
/// after the join main gets every retained value without constructing one:
/// nothing stays stranded in the exited thread.
#[test]
fn exiting_thread_flushes_its_cache() {
    check(|| {
        let pool = type_pool(None);
        // Main's first value goes to its home shard, main's cache is empty.
        give_back(take(&pool));
        exit_cache();
        let other = Arc::clone(&pool);
        let t = thread::spawn(move || {
            let a = take(&other);
            let b = take(&other);
            give_back(a);
            give_back(b);
            exit_cache();
        });
        give_back(take(&pool));
        t.join().unwrap();

        assert_accounted(&pool);
        let before = pool.stats();
        assert_eq!(dropped(&before), 0, "{before}");
        let all: Vec<_> = (0..before.retained).map(|_| take(&pool)).collect();
        assert_eq!(
            pool.stats().misses,
            before.misses,
            "a value stayed stranded in the exited thread's cache"
        );
        for value in all {
            give_back(value);
        }
        assert_accounted(&pool);
    });
}

/// Main trims twice while another thread gets and returns (so the thread may
/// find itself one or two trims behind): every value stays accounted for,
/// and two more trims with nobody using the pool drop all.
#[test]
fn trim_racing_get_put_keeps_accounting() {
    check(|| {
        let pool = type_pool(None);
        give_back(take(&pool));
        let other = Arc::clone(&pool);
        let t = thread::spawn(move || {
            let a = take(&other);
            let b = take(&other);
            give_back(a);
            give_back(b);
            exit_cache();
        });
        pool.trim();
        pool.trim();
        t.join().unwrap();
        assert_accounted(&pool);

        pool.trim();
        pool.trim();
        assert_accounted(&pool);
        let stats = pool.stats();
        assert_eq!(stats.retained, 0, "idle across two trims: {stats}");
        assert_eq!(stats.dropped_idle, stats.misses, "{stats}");
    });
}

/// Main clears while another thread gets and returns: every value stays
/// accounted for, and a second clear with nobody using the pool leaves none.
#[test]
fn clear_racing_get_put_keeps_accounting() {
    check(|| {
        let pool = type_pool(None);
        give_back(take(&pool));
        let other = Arc::clone(&pool);
        let t = thread::spawn(move || {
            let a = take(&other);
            let b = take(&other);
            give_back(a);
            give_back(b);
            exit_cache();
        });
        pool.clear();
        t.join().unwrap();
        assert_accounted(&pool);

        pool.clear();
        assert_accounted(&pool);
        let stats = pool.stats();
        assert_eq!(stats.retained, 0, "{stats}");
        assert_eq!(stats.dropped_idle, stats.misses, "{stats}");
    });
}

/// A single trim, racing with another thread's returns, drops nothing: a
/// value is dropped only when idle across two trims. (Up to e9c9051 a thread
/// one trim behind moved its cache to the victim lists, and a trim still
/// sweeping the shards dropped them at once: idle across a single trim.)
#[test]
fn one_trim_racing_returns_drops_nothing() {
    check(|| {
        let pool = type_pool(None);
        give_back(take(&pool));
        let other = Arc::clone(&pool);
        let t = thread::spawn(move || {
            let a = take(&other);
            let b = take(&other);
            give_back(a);
            give_back(b);
            exit_cache();
        });
        pool.trim();
        t.join().unwrap();

        assert_accounted(&pool);
        let stats = pool.stats();
        assert_eq!(stats.dropped_idle, 0, "one trim dropped a value: {stats}");
        assert_eq!(stats.retained as u64, stats.misses, "{stats}");
    });
}

/// With `max_retained(2)` (a thread cache of 2, no room in the shards), two
/// threads each return three values. After every return the pool holds at
/// most the documented bound for two threads, `2 + min(8, 2)`; once the other
/// thread has exited, main alone retains exactly `max_retained`.
#[test]
fn retention_stays_within_the_bound() {
    const MAX: usize = 2;
    const TWO_THREADS: usize = MAX
        + if MAX < LOCAL_CACHE_SIZE {
            MAX
        } else {
            LOCAL_CACHE_SIZE
        };
    fn three_round_trips(pool: &Pool<Item>) {
        let values = [take(pool), take(pool), take(pool)];
        for value in values {
            give_back(value);
            let resident = resident();
            assert!(
                resident <= TWO_THREADS,
                "{resident} values retained, bound {TWO_THREADS}"
            );
        }
    }
    check(|| {
        let pool = type_pool(Some(MAX));
        give_back(take(&pool));
        let other = Arc::clone(&pool);
        let t = thread::spawn(move || {
            three_round_trips(&other);
            exit_cache();
        });
        three_round_trips(&pool);
        t.join().unwrap();

        assert_accounted(&pool);
        let stats = pool.stats();
        assert_eq!(stats.retained, MAX, "{stats}");
        assert_eq!(stats.dropped_full, 6 - MAX as u64, "{stats}");
    });
}
