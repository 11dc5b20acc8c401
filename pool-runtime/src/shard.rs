//! The shared half of a pool: cache-padded shards of idle values that every
//! thread can reach, the decay generation, and the registry of per-thread
//! counters.
//!
//! Each shard keeps two lists, as Go's `sync.Pool` keeps `local` and `victim`:
//! values returned since the last trim (`current`) and values that have
//! already survived one trim (`victim`). A trim drops `victim` and demotes
//! `current`, so a value idle across two trims is gone, while a value that was
//! taken and returned in between is back in `current`.
//!
//! No user code runs while a shard lock is held: values are moved in and out
//! of the lists, and whatever must be dropped is handed back to the caller to
//! drop after the guard is gone. So a panicking `Drop` cannot poison a shard
//! and a `Drop` that uses the pool cannot deadlock on it.

use crate::policy::Limits;
use crate::stats::{Counters, Event, Stats};
use crate::sync::{Arc, AtomicBool, AtomicU64, CachePadded, Mutex, Ordering, lock};

/// A reset value and the heap bytes it keeps, measured once when it came back.
pub(crate) struct Entry<T> {
    pub(crate) value: Box<T>,
    pub(crate) bytes: usize,
}

pub(crate) struct Shard<T> {
    current: Vec<Entry<T>>,
    victim: Vec<Entry<T>>,
    cap: usize,
}

impl<T> Shard<T> {
    fn new(cap: usize) -> Self {
        Shard {
            current: Vec::new(),
            victim: Vec::new(),
            cap,
        }
    }

    fn room(&self) -> usize {
        self.cap
            .saturating_sub(self.current.len() + self.victim.len())
    }

    /// Move up to `n` entries from the front (the oldest) of `from` in.
    fn accept(&mut self, from: &mut Vec<Entry<T>>, n: usize) -> usize {
        let n = n.min(self.room()).min(from.len());
        self.current.extend(from.drain(..n));
        n
    }

    /// Move up to `n` entries out to `to`, most recently returned first.
    fn give(&mut self, to: &mut Vec<Entry<T>>, n: usize) -> usize {
        let mut moved = 0;
        for list in [&mut self.current, &mut self.victim] {
            let k = (n - moved).min(list.len());
            to.extend(list.drain(list.len() - k..));
            moved += k;
        }
        moved
    }
}

/// The heap-allocated part of a pool, shared by the pool and every thread cache.
pub(crate) struct Shared<T: 'static> {
    shards: Box<[CachePadded<Mutex<Shard<T>>>]>,
    /// Bumped by every trim; thread caches compare it with the generation they
    /// last saw to age their own contents.
    generation: CachePadded<AtomicU64>,
    /// The counters of every live thread cache, for `stats()`.
    locals: Mutex<Vec<Arc<Counters>>>,
    /// Exited threads' totals and operations that ran without a thread cache.
    pub(crate) counters: Counters,
    pub(crate) limits: Limits,
    /// This pool's index in the per-thread table (unique among live pools).
    pub(crate) id: usize,
    /// Set when the owning `Pool` is dropped; thread caches of a closed pool
    /// are freed the next time their thread sweeps its table.
    closed: AtomicBool,
    /// Whether thread caches live in the derive-generated thread-local of `T`
    /// (see `Reset::__thread_cache`) rather than in the generic table.
    pub(crate) use_type_cache: bool,
}

impl<T: 'static> Shared<T> {
    pub(crate) fn new(limits: Limits, use_type_cache: bool) -> Self {
        let shards = limits
            .shard_caps
            .iter()
            .map(|&cap| CachePadded(Mutex::new(Shard::new(cap))))
            .collect();
        Shared {
            shards,
            generation: CachePadded(AtomicU64::new(0)),
            locals: Mutex::new(Vec::new()),
            counters: Counters::new(),
            limits,
            id: allocate_id(),
            closed: AtomicBool::new(false),
            use_type_cache,
        }
    }

    pub(crate) fn shard_count(&self) -> usize {
        self.shards.len()
    }

    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Relaxed)
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Relaxed)
    }

    /// Move up to `n` of the oldest entries of `from` into the shards, home
    /// shard first. Returns how many moved.
    pub(crate) fn push_batch(&self, home: usize, from: &mut Vec<Entry<T>>, n: usize) -> usize {
        let mut moved = 0;
        for shard in self.shards_from(home) {
            if moved == n {
                break;
            }
            moved += lock(shard).accept(from, n - moved);
        }
        moved
    }

    /// Store one entry, or give it back if every shard is full.
    pub(crate) fn push_one(&self, home: usize, entry: Entry<T>) -> Result<(), Entry<T>> {
        for shard in self.shards_from(home) {
            let mut shard = lock(shard);
            if shard.room() > 0 {
                shard.current.push(entry);
                return Ok(());
            }
        }
        Err(entry)
    }

    /// Take one entry from any shard, home first.
    pub(crate) fn pop_one(&self, home: usize) -> Option<Entry<T>> {
        self.shards_from(home).find_map(|shard| {
            let mut shard = lock(shard);
            shard.current.pop().or_else(|| shard.victim.pop())
        })
    }

    /// Move up to `n` entries into `to`: from the home shard, then stolen from
    /// the others. Returns how many moved.
    pub(crate) fn pop_batch(&self, home: usize, to: &mut Vec<Entry<T>>, n: usize) -> usize {
        let mut moved = 0;
        for shard in self.shards_from(home) {
            if moved == n {
                break;
            }
            moved += lock(shard).give(to, n - moved);
        }
        moved
    }

    /// One decay step: drop every shard's victims and demote its current
    /// values. Returns what must be dropped (outside the locks).
    pub(crate) fn trim(&self) -> Vec<Vec<Entry<T>>> {
        self.generation.fetch_add(1, Ordering::Relaxed);
        self.shards
            .iter()
            .map(|shard| {
                let mut shard = lock(shard);
                let current = core::mem::take(&mut shard.current);
                core::mem::replace(&mut shard.victim, current)
            })
            .collect()
    }

    /// Take everything out of the shards, and make every thread cache drop
    /// its contents when its thread next uses the pool (two generations at
    /// once is "idle across two trims").
    pub(crate) fn clear(&self) -> Vec<Vec<Entry<T>>> {
        self.generation.fetch_add(2, Ordering::Relaxed);
        let mut dead = Vec::new();
        for shard in self.shards.iter() {
            let mut shard = lock(shard);
            dead.push(core::mem::take(&mut shard.current));
            dead.push(core::mem::take(&mut shard.victim));
        }
        dead
    }

    pub(crate) fn close(&self) -> Vec<Vec<Entry<T>>> {
        self.closed.store(true, Ordering::Relaxed);
        self.clear()
    }

    pub(crate) fn register(&self, counters: Arc<Counters>) {
        lock(&self.locals).push(counters);
    }

    /// A thread cache is going away: fold its counters into the pool's,
    /// atomically with respect to `stats()`.
    pub(crate) fn unregister(&self, counters: &Arc<Counters>) {
        let mut locals = lock(&self.locals);
        if let Some(i) = locals.iter().position(|c| Arc::ptr_eq(c, counters)) {
            locals.swap_remove(i);
        }
        self.counters.absorb(counters);
    }

    pub(crate) fn stats(&self) -> Stats {
        let mut stats = Stats::default();
        {
            let locals = lock(&self.locals);
            self.counters.sum_into(&mut stats);
            for counters in locals.iter() {
                counters.sum_into(&mut stats);
            }
        }
        for shard in self.shards.iter() {
            let shard = lock(shard);
            for list in [&shard.current, &shard.victim] {
                stats.retained += list.len();
                stats.retained_bytes += list.iter().map(|e| e.bytes).sum::<usize>();
            }
        }
        stats
    }

    /// Count an event that happened without a thread cache.
    pub(crate) fn count(&self, event: Event, n: u64) {
        self.counters.add_shared(event, n);
    }

    fn shards_from(&self, home: usize) -> impl Iterator<Item = &Mutex<Shard<T>>> {
        let n = self.shards.len();
        (0..n).map(move |i| &*self.shards[(home + i) % n])
    }
}

impl<T: 'static> Drop for Shared<T> {
    fn drop(&mut self) {
        release_id(self.id);
    }
}

/// Free and next pool ids. A pool's id indexes each thread's cache table; it
/// is released when the pool's shared state is freed, i.e. when the pool and
/// every thread cache for it are gone, so ids are unique among live pools.
/// (A `std` lock even under loom: held for a few instructions, with no loom
/// operation inside.)
static IDS: std::sync::Mutex<(Vec<usize>, usize)> = std::sync::Mutex::new((Vec::new(), 0));

fn allocate_id() -> usize {
    let mut ids = IDS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    match ids.0.pop() {
        Some(id) => id,
        None => {
            ids.1 += 1;
            ids.1 - 1
        }
    }
}

fn release_id(id: usize) {
    IDS.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .0
        .push(id);
}
