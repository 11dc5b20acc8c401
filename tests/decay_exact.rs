//! The two-trim rule holds exactly wherever an idle value goes between the
//! trims: a value idle across two trims is dropped at the second, whether
//! it stayed in a thread cache, moved from a thread cache to the shards
//! (a spill, a thread's exit), or from the shards into a thread cache (a
//! refill); one taken and returned in between survives.
//!
//! Before the fix, a value idle across one trim that then moved between
//! the tiers started over: a spill or a thread's exit put a cache's aged
//! values among the shards' current ones, and a refill put the shards'
//! victims into a cache as fresh ones, so each survived a third trim.

use poolable::{LOCAL_CACHE_SIZE, Pool};
use std::sync::mpsc;
use std::thread;

/// A thread that runs what it is sent, one job at a time, and stays alive
/// and idle in between.
struct Worker {
    jobs: Option<mpsc::Sender<Box<dyn FnOnce() + Send>>>,
    done: mpsc::Receiver<()>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Worker {
    fn new() -> Self {
        let (jobs, rx) = mpsc::channel::<Box<dyn FnOnce() + Send>>();
        let (done_tx, done) = mpsc::channel();
        let thread = thread::spawn(move || {
            for job in rx {
                job();
                done_tx.send(()).unwrap();
            }
        });
        Worker {
            jobs: Some(jobs),
            done,
            thread: Some(thread),
        }
    }

    /// Run `job` on the worker and wait for it.
    fn run(&self, job: impl FnOnce() + Send + 'static) {
        self.jobs.as_ref().unwrap().send(Box::new(job)).unwrap();
        self.done.recv().unwrap();
    }

    /// Let the thread exit, its thread-local destructors included (its
    /// caches go to the shards).
    fn exit(mut self) {
        drop(self.jobs.take());
        self.thread.take().unwrap().join().unwrap();
    }
}

fn leaked(pool: Pool<Vec<u8>>) -> &'static Pool<Vec<u8>> {
    Box::leak(Box::new(pool))
}

/// Take `n` values from `pool` and return them all.
fn cycle(pool: &Pool<Vec<u8>>, n: usize) {
    let held: Vec<_> = (0..n).map(|_| pool.get()).collect();
    drop(held);
}

#[track_caller]
fn assert_idle(pool: &Pool<Vec<u8>>, retained: usize, dropped_idle: u64) {
    let stats = pool.stats();
    assert_eq!(
        (stats.retained, stats.dropped_idle),
        (retained, dropped_idle),
        "{stats}"
    );
    assert!(stats.is_balanced(), "{stats}");
}

#[test]
fn a_cache_spilled_after_one_trim_keeps_its_values_age() {
    let pool = leaked(Pool::new());
    let worker = Worker::new();
    worker.run(move || cycle(pool, LOCAL_CACHE_SIZE)); // a full cache
    pool.trim();
    assert_idle(pool, LOCAL_CACHE_SIZE, 0);
    // A return to the full cache spills its oldest half, idle across the
    // trim, to the shards.
    worker.run(move || pool.put(Vec::new()));
    pool.trim();
    // Only the value returned between the trims is left.
    assert_idle(pool, 1, LOCAL_CACHE_SIZE as u64);
    pool.trim();
    assert_idle(pool, 0, LOCAL_CACHE_SIZE as u64 + 1);
    worker.exit();
}

#[test]
fn a_thread_that_exits_after_one_trim_hands_over_its_values_age() {
    let pool = leaked(Pool::new());
    let worker = Worker::new();
    worker.run(move || cycle(pool, 5));
    pool.trim();
    worker.exit(); // its cache goes to the shards
    assert_idle(pool, 5, 0);
    pool.trim();
    assert_idle(pool, 0, 5);
}

#[test]
fn values_refilled_from_the_shards_victims_keep_their_age() {
    let pool = leaked(Pool::new());
    let filler = Worker::new();
    filler.run(move || cycle(pool, 20));
    filler.exit(); // all 20 in the shards
    pool.trim(); // now the shards' victims
    let user = Worker::new();
    // One get refills a batch of victims into the cache and takes one of
    // them, which comes back before the next trim.
    user.run(move || drop(pool.get()));
    assert_idle(pool, 20, 0);
    pool.trim();
    assert_idle(pool, 1, 19);
    pool.trim();
    assert_idle(pool, 0, 20);
    user.exit();
}

#[test]
fn values_used_between_two_trims_survive_them_in_either_tier() {
    let pool = leaked(Pool::new());
    let filler = Worker::new();
    filler.run(move || cycle(pool, 20));
    filler.exit();
    pool.trim();
    // Taken from the shards' victims and returned: all survive the next
    // trim, wherever they went.
    let user = Worker::new();
    user.run(move || cycle(pool, 20));
    pool.trim();
    assert_idle(pool, 20, 0);
    pool.trim();
    assert_idle(pool, 0, 20);
    user.exit();
}

/// How many shards a pool has here: one per CPU, at most 64.
fn shards() -> usize {
    thread::available_parallelism()
        .map_or(1, usize::from)
        .min(64)
}

/// A spill that fills one shard and goes on into the next keeps each
/// value's age: the cache's aged values among the first shard's victims,
/// the values returned since the trim among the next shard's current
/// ones, so that the next trim drops the aged ones only.
#[test]
fn a_spill_over_two_shards_keeps_each_values_age() {
    // Two entries per shard.
    let pool = Pool::<Vec<u8>>::new().max_retained(LOCAL_CACHE_SIZE + 2 * shards());
    cycle(&pool, LOCAL_CACHE_SIZE); // a full cache
    pool.trim(); // this thread's own cache: aged at once
    // Six taken and returned: two aged values at the bottom, six new ones.
    cycle(&pool, LOCAL_CACHE_SIZE - 2);
    assert_idle(&pool, LOCAL_CACHE_SIZE, 0);
    // A return to the full cache spills its four oldest: the two aged fill
    // the home shard, the next two go to the next shard (with one shard,
    // they stay in the cache).
    pool.put(Vec::new());
    assert_idle(&pool, LOCAL_CACHE_SIZE + 1, 0);
    pool.trim();
    assert_idle(&pool, LOCAL_CACHE_SIZE - 1, 2);
    pool.trim();
    assert_idle(&pool, 0, LOCAL_CACHE_SIZE as u64 + 1);
}

/// A refill that ends with a value too large for a thread cache hands that
/// value out at once, and it never joins the cache: when it was one of the
/// shards' victims, the cache's aged values are the victims that stayed in
/// it, none. So a value returned afterwards survives the next trim.
#[test]
fn a_large_victim_handed_out_by_a_refill_ages_nothing_in_the_cache() {
    let pool = Pool::<Vec<u8>>::new().max_bytes(usize::MAX);
    let cap = LOCAL_CACHE_SIZE;
    // A full cache spills half of itself to the shards; then one large
    // value goes there too, after them.
    for _ in 0..=cap {
        pool.put(Vec::with_capacity(16));
    }
    pool.put(Vec::with_capacity(128 << 10));
    // The shards' values become victims, the cache's are aged.
    pool.trim();
    let held: Vec<_> = (0..cap / 2 + 1).map(|_| pool.get()).collect();
    assert!(held.iter().all(|v| v.capacity() == 16));
    // The cache is empty: the refill takes the newest victim, the large
    // one, and stops there.
    let large = pool.get();
    assert_eq!(large.capacity(), 128 << 10);
    let before = pool.stats().dropped_idle;
    drop(held);
    // The small ones are back, idle since just now: kept across this trim;
    // the shards' other victims are dropped.
    pool.trim();
    let stats = pool.stats();
    assert_eq!(stats.dropped_idle - before, cap as u64 / 2, "{stats}");
    drop(large);
}
