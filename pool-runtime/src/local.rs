//! The per-thread cache in front of the shards: the fast path.
//!
//! Each thread keeps, for each pool it uses, a small cache of up to
//! `LOCAL_CACHE_SIZE` idle values. A get pops from it and a return pushes to
//! it, with no atomic read-modify-write and no lock; only when the cache is
//! empty (refill) or full (spill) does the thread touch the shared shards, and
//! then it moves half a cache at once.
//!
//! Where the cache lives:
//! - a type with `#[derive(Poolable)]` gets its own `thread_local!`,
//!   generated with its `Reset` impl and used by its static pool (the
//!   fastest lookup there is: a direct thread-local access);
//! - every other pool (a user `static Pool<Vec<u8>>`, a pool on the heap) uses
//!   one slot of a per-thread table, indexed by the pool's id.
//!
//! Only the owning thread touches its cache, so a trim on another thread
//! cannot reach it. Instead a trim bumps the pool's generation, and the owner
//! ages its cache the next time it returns a value or refills: entries that
//! were already idle across the previous trim are dropped and the rest are
//! marked as idle across one; two or more generations behind drops them all. A
//! thread's cache is flushed to the shards when the thread exits.

use crate::Reset;
use crate::shard::{Entry, Shared};
use crate::stats::{Counters, Event};
use crate::sync::{Arc, thread_local_const};
use core::any::Any;
use core::cell::{Cell, RefCell};

/// The thread-local cell that holds a thread's cache for a derived type's pool.
pub type LocalCell<T> = RefCell<Option<LocalCache<T>>>;

/// One thread's cache for one pool.
#[doc(hidden)]
pub struct LocalCache<T: 'static> {
    shared: Arc<Shared<T>>,
    items: Vec<Entry<T>>,
    counters: Arc<Counters>,
    /// The pool generation this cache was last aged at.
    generation: u64,
    /// The shard this thread pushes to and refills from first.
    home: usize,
    bytes: usize,
    /// How many entries at the front of `items` (the oldest) have already
    /// been idle across one trim: the next trim drops them.
    aged: usize,
}

impl<T: 'static> LocalCache<T> {
    fn new(shared: &Arc<Shared<T>>) -> Self {
        let counters = Arc::new(Counters::new());
        shared.register(Arc::clone(&counters));
        LocalCache {
            shared: Arc::clone(shared),
            items: Vec::with_capacity(shared.limits.local_cap),
            counters,
            generation: shared.generation(),
            home: thread_index() % shared.shard_count(),
            bytes: 0,
            aged: 0,
        }
    }

    fn cap(&self) -> usize {
        self.shared.limits.local_cap
    }

    /// Half a cache, moved at once between the cache and the shards.
    fn batch(&self) -> usize {
        self.cap().div_ceil(2)
    }

    fn publish(&self) {
        self.counters.set_cached(self.items.len(), self.bytes);
    }

    fn recount_bytes(&mut self) {
        self.bytes = self.items.iter().map(|e| e.bytes).sum();
    }

    /// Age the cache by the trims that happened since it last looked.
    #[inline(always)]
    pub(crate) fn catch_up(&mut self) {
        let now = self.shared.generation();
        if now != self.generation {
            self.age(now);
        }
    }

    #[cold]
    fn age(&mut self, now: u64) {
        let behind = now.wrapping_sub(self.generation);
        self.generation = now;
        // Entries idle across this trim and the one before go; the rest have
        // now been idle across one. Two or more trims behind: all go. They are
        // dropped here, with this thread's cache borrowed: a `Drop` that uses
        // the pool meanwhile goes to the shards instead.
        let dead = if behind >= 2 {
            self.items.len()
        } else {
            self.aged.min(self.items.len())
        };
        // Take the dead entries out and settle the books before dropping
        // them: a `Drop` that panics must not leave the counts stale.
        let dead: Vec<Entry<T>> = self.items.drain(..dead).collect();
        self.counters
            .add_owned(Event::DroppedIdle, dead.len() as u64);
        self.aged = self.items.len();
        self.recount_bytes();
        self.publish();
        drop(dead);
    }

    /// Take an idle entry: from this cache, else refill from the shards.
    #[inline(always)]
    pub(crate) fn take_into(&mut self, slot: &mut Option<Box<T>>) {
        // Aging happens on returns and refills: a cache only holds what its
        // thread returned, so a thread that only takes has nothing to age.
        self.counters.add_owned(Event::Get, 1);
        let entry = match self.items.pop() {
            Some(entry) => {
                // Keep the aged prefix within the list (pops come from the back).
                self.aged = self.aged.min(self.items.len());
                entry
            }
            None => match self.refill() {
                Some(entry) => entry,
                None => return,
            },
        };
        self.bytes -= entry.bytes;
        self.publish();
        *slot = Some(entry.value);
    }

    #[cold]
    fn refill(&mut self) -> Option<Entry<T>> {
        self.catch_up();
        let batch = self.batch();
        if self.shared.pop_batch(self.home, &mut self.items, batch) == 0 {
            self.counters.add_owned(Event::Miss, 1);
            return None;
        }
        self.recount_bytes();
        self.items.pop()
    }

    /// Keep the (reset) value in `slot`, or drop it if it is over the size
    /// cap or there is no room in this cache or the shards.
    #[inline(always)]
    pub(crate) fn give_from(&mut self, slot: &mut Option<Box<T>>, bytes: usize) {
        let Some(value) = slot.take() else { return };
        self.catch_up();
        self.counters.add_owned(Event::Put, 1);
        if bytes > self.shared.limits.max_bytes {
            self.counters.add_owned(Event::DroppedOversize, 1);
            return;
        }
        if self.items.len() >= self.cap() && !self.spill() {
            self.counters.add_owned(Event::DroppedFull, 1);
            return;
        }
        self.bytes += bytes;
        self.items.push(Entry { value, bytes });
        self.publish();
    }

    /// Move the older half of a full cache to the shards. True if room was made.
    #[cold]
    fn spill(&mut self) -> bool {
        if self.cap() == 0 {
            return false;
        }
        let batch = self.batch();
        // The oldest entries leave from the front. An aged one lands among the
        // shards' current values, so it may survive one trim more than the
        // two-trim rule says: decay can be late, never early.
        let moved = self.shared.push_batch(self.home, &mut self.items, batch);
        self.aged = self.aged.saturating_sub(moved);
        self.recount_bytes();
        moved > 0
    }

    /// Count an event on this thread's counters.
    pub(crate) fn count(&self, event: Event) {
        self.counters.add_owned(event, 1);
    }
}

impl<T: 'static> Drop for LocalCache<T> {
    /// The thread is exiting (or the cache is being replaced): hand the idle
    /// values to the shards, so nothing stays stranded in a dead thread.
    fn drop(&mut self) {
        let n = self.items.len();
        let moved = self.shared.push_batch(self.home, &mut self.items, n);
        self.counters
            .add_owned(Event::DroppedFull, (n - moved) as u64);
        self.counters.set_cached(0, 0);
        self.shared.unregister(&self.counters);
        // Whatever found no room is dropped here, usually inside a thread-local
        // destructor, where a panic would abort the process. The panic hook has
        // already reported such a panic; the remaining values are still
        // dropped (a panic in one `Drop` does not stop the `Vec` dropping the
        // rest), so nothing leaks and the process goes on.
        let leftovers = core::mem::take(&mut self.items);
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(leftovers)));
    }
}

/// A slot of the generic per-thread table.
trait TableSlot: Any {
    fn pool_closed(&self) -> bool;
}

impl<T: 'static> TableSlot for LocalCache<T> {
    fn pool_closed(&self) -> bool {
        self.shared.is_closed()
    }
}

type Table = RefCell<Vec<Option<Box<dyn TableSlot>>>>;

thread_local_const! {
    /// This thread's caches for pools without a derive-generated thread-local.
    static TABLE: Table = RefCell::new(Vec::new());
}

thread_local_const! {
    /// A small number for this thread, to spread threads over the shards.
    static THREAD_INDEX: Cell<usize> = Cell::new(usize::MAX);
}

fn thread_index() -> usize {
    #[cfg(not(poolable_loom))]
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    // Under loom, a counter per model iteration keeps the schedule deterministic.
    #[cfg(poolable_loom)]
    loom::lazy_static! {
        static ref NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    }
    THREAD_INDEX
        .try_with(|index| {
            if index.get() == usize::MAX {
                index.set(NEXT.fetch_add(1, core::sync::atomic::Ordering::Relaxed));
            }
            index.get()
        })
        .unwrap_or(0)
}

/// The home shard of the calling thread, for operations without a cache.
pub(crate) fn home_shard<T>(shared: &Shared<T>) -> usize {
    thread_index() % shared.shard_count()
}

/// Run `f` on this thread's cache for `shared`, creating the cache if
/// `create` is set. Returns `None`, without running `f`, when there is no
/// cache: the thread is exiting (its thread-locals are gone), the cache is
/// already borrowed (a value's `Drop` or the allocator re-entered the pool),
/// or `create` is false and the thread never used this pool. Callers then
/// fall back to the shards.
#[inline(always)]
pub(crate) fn with<T: Reset + 'static, R>(
    shared: &Arc<Shared<T>>,
    create: bool,
    f: impl FnOnce(&mut LocalCache<T>) -> R,
) -> Option<R> {
    // `T::__thread_cache()` is a constant after inlining: for a derived type
    // the access below compiles to a direct thread-local access.
    match T::__thread_cache() {
        Some(key) if shared.use_type_cache => key
            .try_with(|cell| with_cell(cell, shared, create, f))
            .ok()
            .flatten(),
        _ => TABLE
            .try_with(|table| with_table(table, shared, create, f))
            .ok()
            .flatten(),
    }
}

#[inline(always)]
fn with_cell<T: 'static, R>(
    cell: &LocalCell<T>,
    shared: &Arc<Shared<T>>,
    create: bool,
    f: impl FnOnce(&mut LocalCache<T>) -> R,
) -> Option<R> {
    let mut slot = cell.try_borrow_mut().ok()?;
    if let Some(cache) = &mut *slot
        && Arc::ptr_eq(&cache.shared, shared)
    {
        return Some(f(cache));
    }
    if !create {
        return None;
    }
    Some(f(link(&mut slot, shared)))
}

/// Give this thread a cache for `shared` in `slot` (first use on this thread).
#[cold]
#[inline(never)]
fn link<'s, T: 'static>(
    slot: &'s mut Option<LocalCache<T>>,
    shared: &Arc<Shared<T>>,
) -> &'s mut LocalCache<T> {
    slot.insert(LocalCache::new(shared))
}

#[inline]
fn with_table<T: 'static, R>(
    table: &Table,
    shared: &Arc<Shared<T>>,
    create: bool,
    f: impl FnOnce(&mut LocalCache<T>) -> R,
) -> Option<R> {
    let mut table = table.try_borrow_mut().ok()?;
    let id = shared.id;
    if table.get(id).is_none_or(Option::is_none) {
        if !create {
            return None;
        }
        link_table(&mut table, shared);
    }
    // Ids are unique among live pools and a cache keeps its pool's shared
    // state alive, so the slot at `id` belongs to this pool and the downcast
    // cannot fail; if it ever did, the caller would fall back to the shards.
    let slot: &mut dyn Any = &mut **table.get_mut(id)?.as_mut()?;
    slot.downcast_mut::<LocalCache<T>>().map(f)
}

#[cold]
#[inline(never)]
fn link_table<T: 'static>(table: &mut Vec<Option<Box<dyn TableSlot>>>, shared: &Arc<Shared<T>>) {
    // Free the caches of pools dropped since this thread last got here.
    for slot in table.iter_mut() {
        if slot.as_ref().is_some_and(|s| s.pool_closed()) {
            *slot = None;
        }
    }
    let id = shared.id;
    if table.len() <= id {
        table.resize_with(id + 1, || None);
    }
    table[id] = Some(Box::new(LocalCache::new(shared)));
}

/// An empty cell for a derive-generated `thread_local!`.
#[doc(hidden)]
pub const fn new_cell<T>() -> LocalCell<T> {
    RefCell::new(None)
}
