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
//!   generated next to its static pool (the fastest lookup there is);
//! - every other pool (a user `static Pool<Vec<u8>>`, a pool on the heap) uses
//!   one slot of a per-thread table, indexed by the pool's id.
//!
//! Only the owning thread touches its cache, so a trim on another thread
//! cannot reach it. Instead a trim bumps the pool's generation, and the owner
//! ages its cache the next time it uses the pool: one generation behind means
//! the cached values were idle across one trim (they move to the shards'
//! victim lists), two or more means they were idle across two (dropped). A
//! thread's cache is flushed to the shards when the thread exits.

use crate::shard::{Entry, LocalCell, Shared};
use crate::stats::{Counters, Event};
use crate::sync::{Arc, thread_local_const};
use core::any::Any;
use core::cell::{Cell, RefCell};

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
    /// Returns the entries that must be dropped (outside any borrow).
    #[inline]
    pub(crate) fn catch_up(&mut self) -> Vec<Entry<T>> {
        let now = self.shared.generation();
        if now == self.generation {
            return Vec::new();
        }
        self.age(now)
    }

    #[cold]
    fn age(&mut self, now: u64) -> Vec<Entry<T>> {
        let behind = now.wrapping_sub(self.generation);
        self.generation = now;
        if behind == 1 {
            self.shared.demote(self.home, &mut self.items);
        }
        // Two or more trims behind, or no room among the victims: idle too long.
        let cap = self.cap();
        let dead = core::mem::replace(&mut self.items, Vec::with_capacity(cap));
        self.counters.add_owned(Event::DroppedIdle, dead.len() as u64);
        self.bytes = 0;
        self.publish();
        dead
    }

    /// Take an idle entry: from this cache, else refill from the shards.
    #[inline]
    pub(crate) fn take(&mut self) -> Option<Entry<T>> {
        self.counters.add_owned(Event::Get, 1);
        let entry = match self.items.pop() {
            Some(entry) => entry,
            None => self.refill()?,
        };
        self.bytes -= entry.bytes;
        self.publish();
        Some(entry)
    }

    #[cold]
    fn refill(&mut self) -> Option<Entry<T>> {
        let batch = self.batch();
        if self.shared.pop_batch(self.home, &mut self.items, batch) == 0 {
            self.counters.add_owned(Event::Miss, 1);
            return None;
        }
        self.recount_bytes();
        self.items.pop()
    }

    /// Keep a returned entry, or hand it back if it is over the size cap or
    /// there is no room in this cache or the shards.
    #[inline]
    pub(crate) fn give(&mut self, entry: Entry<T>) -> Result<(), Entry<T>> {
        self.counters.add_owned(Event::Put, 1);
        if entry.bytes > self.shared.limits.max_bytes {
            self.counters.add_owned(Event::DroppedOversize, 1);
            return Err(entry);
        }
        if self.items.len() >= self.cap() && !self.spill() {
            self.counters.add_owned(Event::DroppedFull, 1);
            return Err(entry);
        }
        self.bytes += entry.bytes;
        self.items.push(entry);
        self.publish();
        Ok(())
    }

    /// Move the older half of a full cache to the shards. True if room was made.
    #[cold]
    fn spill(&mut self) -> bool {
        if self.cap() == 0 {
            return false;
        }
        let batch = self.batch();
        let moved = self.shared.push_batch(self.home, &mut self.items, batch);
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
        self.counters.add_owned(Event::DroppedFull, (n - moved) as u64);
        self.counters.set_cached(0, 0);
        self.shared.unregister(&self.counters);
        // `self.items` (whatever found no room) drops after this body.
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
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
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
#[inline]
pub(crate) fn with<T: 'static, R>(
    shared: &Arc<Shared<T>>,
    create: bool,
    f: impl FnOnce(&mut LocalCache<T>) -> R,
) -> Option<R> {
    let mut f = Some(f);
    let mut out = None;
    let mut run = |cache: &mut LocalCache<T>| {
        if let Some(f) = f.take() {
            out = Some(f(cache));
        }
    };
    match shared.local_key {
        Some(key) => {
            let _ = key.try_with(|cell| with_cell(cell, shared, create, &mut run));
        }
        None => {
            let _ = TABLE.try_with(|table| with_table(table, shared, create, &mut run));
        }
    }
    out
}

#[inline]
fn with_cell<T>(
    cell: &LocalCell<T>,
    shared: &Arc<Shared<T>>,
    create: bool,
    run: &mut impl FnMut(&mut LocalCache<T>),
) {
    let Ok(mut slot) = cell.try_borrow_mut() else { return };
    let ours = matches!(&*slot, Some(cache) if Arc::ptr_eq(&cache.shared, shared));
    if !ours {
        if !create {
            return;
        }
        *slot = Some(LocalCache::new(shared));
    }
    if let Some(cache) = slot.as_mut() {
        run(cache);
    }
}

#[inline]
fn with_table<T: 'static>(
    table: &Table,
    shared: &Arc<Shared<T>>,
    create: bool,
    run: &mut impl FnMut(&mut LocalCache<T>),
) {
    let Ok(mut table) = table.try_borrow_mut() else { return };
    let id = shared.id;
    let ours = table.get(id).and_then(Option::as_ref).is_some();
    if !ours {
        if !create {
            return;
        }
        // Free the caches of pools dropped since this thread last got here.
        for slot in table.iter_mut() {
            if slot.as_ref().is_some_and(|s| s.pool_closed()) {
                *slot = None;
            }
        }
        if table.len() <= id {
            table.resize_with(id + 1, || None);
        }
        table[id] = Some(Box::new(LocalCache::new(shared)));
    }
    // Ids are unique among live pools and a cache keeps its pool's shared
    // state alive, so the slot at `id` belongs to this pool and the downcast
    // cannot fail; if it ever did, the caller would fall back to the shards.
    let slot = table.get_mut(id).and_then(Option::as_mut);
    if let Some(cache) = slot.and_then(|s| (&mut **s as &mut dyn Any).downcast_mut::<LocalCache<T>>()) {
        run(cache);
    }
}

/// An empty cell for a derive-generated `thread_local!`.
#[doc(hidden)]
pub const fn new_cell<T>() -> LocalCell<T> {
    RefCell::new(None)
}
