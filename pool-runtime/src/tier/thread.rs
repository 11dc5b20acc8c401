//! The thread tier: each thread keeps, for each pool it uses, a small stack
//! of up to `LOCAL_CACHE_SIZE` idle values. A get pops from it and a return
//! pushes to it with plain loads and stores: no lock, no atomic
//! read-modify-write, no fence instruction. Only when the stack is empty
//! (refill) or full (spill) does the thread touch the shared shards, and then
//! it moves half a stack at once.
//!
//! The values sit in slots of the cache's own (`raw/lease.rs`), and a get
//! from the stack hands the guard the slot, not the value: the guard's
//! return on the same thread lists the slot again, and the value never
//! moves. A guard returned on another thread, or to a cache with no room,
//! moves the value out of its slot and returns it as any value is returned.
//!
//! The stack is a [`Tenant`]: a trim, a `clear` or a dropped pool on another
//! thread can take its values (`decay.rs`) while the owner is between two
//! operations, so a thread that stays alive but never uses the pool again
//! does not keep them (the protocol is in `raw/owned.rs`). A thread's cache
//! is flushed to the shards when the thread exits.

use super::shared::{Dead, Each, Entry};
use super::storage::{Cache, Storage};
use crate::policy::LOCAL_CACHE_SIZE;
use crate::raw::lease::{self, IDLE, Lease, Ledger};
use crate::raw::owned::{Fast, Fenced, Owner, Reclaim, Tenant};
use crate::raw::slot::move_into;
use crate::raw::table::{self, KeyCopy, Lookup, Numbers};
use crate::stats::{Counters, Event, Stats};
use crate::sync::{Arc, AtomicUsize, Ordering::Relaxed};
use core::cell::Cell;

const _: () = assert!(LOCAL_CACHE_SIZE == IDLE, "a ledger lists a whole cache");

/// One thread's cache for one pool.
pub(crate) type ThreadCache<T> = Tenant<Stack<T>, Head<T>>;

/// The copy of its key a pool keeps for the fast lookup (`raw/table.rs`).
pub(crate) type PoolKey<T> = KeyCopy<Stack<T>, Head<T>>;

/// The idle values of a thread cache, oldest first. Only the protocol's
/// current holder (the owner, or a reclaimer) touches it, through a
/// [`Held`], which also keeps the counts in the cache's [`Head`].
///
/// The values sit in the slots of `ledger` (`raw/lease.rs`), which lists
/// the idle ones, oldest first; their sizes are in a parallel array (in
/// the [`Retained`] of the head). A get on the fast path
/// leases the newest one's slot to the guard, and the guard's return gives
/// the slot back: the value stays where it is. (Moving it out to the guard
/// and back cost two copies per get+drop, and a store-forwarding stall when
/// the reset had just written small fields, `benches/paired.rs`.)
pub(crate) struct Stack<T> {
    ledger: Ledger<T>,
    /// The pool's `local_cap`, kept here so a return reads it from memory
    /// it touches anyway.
    cap: usize,
    /// How many entries at the front (the oldest) have already been idle
    /// across one trim: the next trim drops them.
    aged: usize,
    /// The pool generation (decay steps) this stack was last aged to.
    generation: u64,
}

impl<T> Stack<T> {
    fn new(cap: usize, slots: usize, generation: u64) -> Self {
        Stack {
            ledger: Ledger::new(slots),
            cap,
            aged: 0,
            generation,
        }
    }
}

/// How many values a thread cache holds, and the size of each: written by
/// the stack's holder as the stack changes, read by `stats()` at any time.
/// They are the stack's own length and sizes, not copies published after
/// each change. `stats()` sums the sizes, so that a get or a return keeps no
/// running total: that was a load, an add and a store per operation, and a
/// chain through memory from each operation to the next (8 instructions and
/// about 7% of a get+drop, `benches/instructions.rs`).
pub(crate) struct Retained {
    len: AtomicUsize,
    sizes: [AtomicUsize; LOCAL_CACHE_SIZE],
}

impl Default for Retained {
    fn default() -> Self {
        Retained {
            len: AtomicUsize::new(0),
            sizes: core::array::from_fn(|_| AtomicUsize::new(0)),
        }
    }
}

impl Retained {
    /// The values held and their bytes. Exact for the calling thread's own
    /// cache; for another thread's, a snapshot taken while it may move.
    fn get(&self) -> (usize, usize) {
        let len = self.len.load(Relaxed).min(LOCAL_CACHE_SIZE);
        let bytes = self.sizes[..len].iter().map(|s| s.load(Relaxed)).sum();
        (len, bytes)
    }

    /// The bytes of the values this cache holds now.
    pub(crate) fn bytes(&self) -> usize {
        self.get().1
    }

    /// Add these counts to `stats`. (Here, not on the generic `Head`: a
    /// debug build would compile them again for every pooled type.)
    pub(crate) fn sum_into(&self, stats: &mut Stats) {
        let (len, bytes) = self.get();
        stats.retained += len;
        stats.retained_bytes += bytes;
    }
}

/// A [`Stack`] in its holder's hands, with its counts (in the [`Head`]).
pub(crate) struct Held<'a, T> {
    stack: &'a mut Stack<T>,
    retained: &'a Retained,
}

impl<'a, T> Held<'a, T> {
    #[inline(always)]
    pub(crate) fn new(stack: &'a mut Stack<T>, head: &'a Head<T>) -> Self {
        Held {
            stack,
            retained: &head.retained,
        }
    }

    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.retained.len.load(Relaxed)
    }

    /// The pool generation the stack was last aged to.
    pub(crate) fn generation(&self) -> u64 {
        self.stack.generation
    }

    /// Mark the stack aged to `generation`: its values are idle since the
    /// last decay step.
    pub(crate) fn set_aged(&mut self, generation: u64) {
        self.stack.generation = generation;
        self.stack.aged = self.len();
    }

    /// How many of the oldest values were already idle at the last step.
    pub(crate) fn aged(&self) -> usize {
        self.stack.aged
    }

    /// Lease the newest value out, in its slot; `None` if empty.
    #[inline(always)]
    #[allow(clippy::question_mark)] // `?` on an option of `T`: two more functions per type
    fn pop_lease(&mut self) -> Option<Lease<T>> {
        let stack = &mut *self.stack;
        let Some((i, lease)) = stack.ledger.pop(&self.retained.len) else {
            return None;
        };
        // Pops come from the back: keep the aged prefix within the list.
        // (A branch, not `min`: the store is rare, a compare is all a pop
        // pays.)
        if i < stack.aged {
            stack.aged = i;
        }
        Some(lease)
    }

    /// Take `lease`'s slot back as the newest idle value, `bytes` big;
    /// false (and `lease` left as it is) when the stack is full or the
    /// lease is not from this cache.
    #[inline(always)]
    fn restore(&mut self, lease: &mut Option<Lease<T>>, bytes: usize) -> bool {
        let stack = &mut *self.stack;
        let Some(i) = stack.ledger.restore(lease, &self.retained.len, stack.cap) else {
            return false;
        };
        if let Some(size) = self.retained.sizes.get(i) {
            size.store(bytes, Relaxed);
        }
        true
    }

    /// Move the value in `slot` onto the stack, into a free slot, leaving
    /// `None`; false (and the value left in `slot`) when the stack is full
    /// or every slot is taken.
    #[inline]
    fn push_from(&mut self, slot: &mut Option<T>, bytes: usize) -> bool {
        let stack = &mut *self.stack;
        debug_assert!(slot.is_some(), "a return pushes a value");
        let Some(i) = stack.ledger.fill(slot, &self.retained.len, stack.cap) else {
            return false;
        };
        if let Some(size) = self.retained.sizes.get(i) {
            size.store(bytes, Relaxed);
        }
        true
    }

    /// How many values a push can take now: room under the cap, in free
    /// slots.
    fn room(&mut self) -> usize {
        let under_cap = self.stack.cap.saturating_sub(self.len());
        under_cap.min(self.stack.ledger.free_slots())
    }

    fn push(&mut self, entry: Entry<T>) -> Result<(), Entry<T>> {
        let mut slot = Some(entry.value);
        if self.push_from(&mut slot, entry.bytes) {
            return Ok(());
        }
        match slot {
            Some(value) => Err(Entry {
                value,
                bytes: entry.bytes,
            }),
            None => Ok(()),
        }
    }

    fn pop(&mut self) -> Option<Entry<T>> {
        let stack = &mut *self.stack;
        // A `match`, not `?` on a `(usize, T)`: one instance less per
        // pooled type.
        match stack.ledger.take_newest(&self.retained.len) {
            Some((i, value)) => {
                if i < stack.aged {
                    stack.aged = i;
                }
                let bytes = match self.retained.sizes.get(i) {
                    Some(size) => size.load(Relaxed),
                    None => 0,
                };
                Some(Entry { value, bytes })
            }
            None => None,
        }
    }

    /// The `n` oldest entries, taken out in order as the iterator is
    /// advanced; the rest move to the front when it is dropped.
    pub(crate) fn oldest(&mut self, n: usize) -> Oldest<'_, T> {
        let stack = &mut *self.stack;
        Oldest {
            values: stack.ledger.oldest(n, &self.retained.len),
            sizes: &self.retained.sizes,
            aged: &mut stack.aged,
            taken: 0,
        }
    }
}

/// See [`Held::oldest`].
pub(crate) struct Oldest<'h, T> {
    values: lease::Oldest<'h, T>,
    sizes: &'h [AtomicUsize; LOCAL_CACHE_SIZE],
    aged: &'h mut usize,
    taken: usize,
}

impl<T> Iterator for Oldest<'_, T> {
    type Item = Entry<T>;

    #[allow(clippy::question_mark)] // `?` on an option of `T`: two more functions per type
    fn next(&mut self) -> Option<Entry<T>> {
        let Some(value) = self.values.next() else {
            return None;
        };
        // Zeroed as it leaves, so that `stats()` does not count it here and
        // in the shards it goes to.
        let bytes = match self.sizes.get(self.taken) {
            Some(size) => size.swap(0, Relaxed),
            None => 0,
        };
        self.taken += 1;
        Some(Entry { value, bytes })
    }
}

impl<T> Drop for Oldest<'_, T> {
    /// The sizes move down as the values' list does (when `values` is
    /// dropped, after this).
    fn drop(&mut self) {
        let n = self.taken;
        let len = self.values.len();
        let sizes = &self.sizes[..len];
        for (to, from) in (n..len).enumerate() {
            sizes[to].store(sizes[from].swap(0, Relaxed), Relaxed);
        }
        *self.aged = self.aged.saturating_sub(n);
    }
}

/// The shared half of a thread cache: what statistics and reclaimers read
/// without the protocol.
pub(crate) struct Head<T: 'static> {
    pub(crate) storage: Arc<Storage<T>>,
    /// Written by whoever holds the stack, read by `stats()`.
    pub(crate) counters: Counters,
    /// The stack's counts (see [`Held`]).
    pub(crate) retained: Retained,
    /// The shard this thread spills to and refills from first.
    home: usize,
}

impl<T: Send + 'static> table::Head<Stack<T>> for Head<T> {
    /// The thread is exiting: hand the idle values to the shards, so nothing
    /// stays stranded in a dead thread.
    fn evict(owner: Owner<'_, Stack<T>, Self>) {
        let head = owner.head();
        let storage = &head.storage;
        let dead = owner.slow(|stack, _| {
            let mut stack = Held::new(stack, head);
            let mut dead = storage.shards.dead();
            // Age, then move to the shards; again if a trim began meanwhile.
            loop {
                age(&mut stack, storage, &mut dead);
                let generation = stack.generation();
                let n = stack.len();
                spill_oldest(storage, head.home, &mut stack, n);
                if storage.generation.load(Relaxed) == generation {
                    break;
                }
            }
            let idle = dead.len();
            // Whatever found no room in the shards.
            let n = stack.len();
            bury(&mut dead, &mut stack, n);
            (idle as u64, (dead.len() - idle) as u64, dead)
        });
        let Some((idle, full, dead)) = dead else {
            return;
        };
        head.counters.add_owned(Event::DroppedIdle, idle);
        head.counters.add_owned(Event::DroppedFull, full);
        storage.unregister(&head.counters);
        drop_each(dead, &storage.counters);
    }

    fn is_closed(&self) -> bool {
        self.storage.is_closed()
    }
}

impl<T: Send + 'static> Cache for ThreadCache<T> {
    fn counters(&self) -> &Counters {
        &self.head.counters
    }

    fn retained(&self) -> &Retained {
        &self.head.retained
    }

    fn post(&self, reclaim: &Reclaim) {
        Tenant::post(self, reclaim, 1);
    }

    fn age_if_idle(&self, fenced: &Fenced, dead: &mut Dead) {
        let storage = &self.head.storage;
        fenced.apply(self, |head, stack, _| {
            age(&mut Held::new(stack, head), storage, dead);
        });
    }
}

/// Take an idle value for the calling thread: on the fast path, the newest
/// one in its cache, leased in its slot (returned); else into `out` (which
/// is `None`), from the cache refilled from the shards ([`take_slow`]).
/// Leaves both `None` on a miss (counted). `key` finds the cache; `storage`
/// is reached only when the thread has none.
#[inline(always)]
pub(crate) fn take<'a, T: Send + 'static>(
    key: &impl Lookup<Stack<T>, Head<T>>,
    storage: impl Fn() -> &'a Arc<Storage<T>>,
    out: &mut Option<T>,
) -> Option<Lease<T>> {
    let mut lease = None;
    if table::with_near(key, |owner| pop(&owner, &mut lease)) != Some(true) {
        // By value, not through `out`: `out`'s address stays unknown to
        // other functions, so the compiler can build the guard in place.
        move_into(out, &mut take_slow(key.numbers(), storage));
    }
    lease
}

/// [`take`] for a caller that holds the value inline (a buffer pool's
/// guard): into `out`, also on the fast path.
#[inline(always)]
pub(crate) fn take_into<'a, T: Send + 'static>(
    key: &impl Lookup<Stack<T>, Head<T>>,
    storage: impl Fn() -> &'a Arc<Storage<T>>,
    out: &mut Option<T>,
) {
    if table::with_near(key, |owner| pop_value(&owner, out)) != Some(true) {
        move_into(out, &mut take_slow(key.numbers(), storage));
    }
}

/// The fast path of a get: lease the newest value out, counted; false if
/// the cache is empty, busy or has requests pending.
#[inline(always)]
fn pop<T: Send + 'static>(
    owner: &Owner<'_, Stack<T>, Head<T>>,
    lease: &mut Option<Lease<T>>,
) -> bool {
    fast_counted(owner, Event::Get, |held| {
        *lease = held.pop_lease();
        lease.is_some()
    })
}

/// [`pop`] with the newest value moved out into `out`.
#[inline(always)]
fn pop_value<T: Send + 'static>(owner: &Owner<'_, Stack<T>, Head<T>>, out: &mut Option<T>) -> bool {
    fast_counted(owner, Event::Get, |held| match held.pop() {
        Some(entry) => {
            *out = Some(entry.value);
            true
        }
        None => false,
    })
}

/// `op` on the cache on the owner's fast path, counted as `event` when it
/// returns true; false if it returned false or the fast path was refused
/// (busy, or requests pending).
#[inline(always)]
fn fast_counted<T: Send + 'static>(
    owner: &Owner<'_, Stack<T>, Head<T>>,
    event: Event,
    op: impl FnOnce(&mut Held<'_, T>) -> bool,
) -> bool {
    let head = owner.head();
    let done = owner.fast(|stack| {
        let done = op(&mut Held::new(stack, head));
        if done {
            head.counters.add_owned(event, 1);
        }
        done
    });
    matches!(done, Fast::Done(true))
}

/// [`take_into`] when the cache had nothing to pop: [`take_cached`]. A
/// shim for each caller's `storage`, so that the hot path passes it in a
/// register and the work is compiled once per pool type. The storage is
/// reached here: a thread with a cache for the pool has made it already.
#[cold]
#[inline(never)]
fn take_slow<'a, T: Send + 'static>(
    key: Numbers<Stack<T>, Head<T>>,
    storage: impl Fn() -> &'a Arc<Storage<T>>,
) -> Option<T> {
    take_cached(key, storage())
}

/// A get that found nothing to pop: a key past the table's mirror, a
/// thread with no cache for the pool (it links one), or a cache that is
/// empty, busy or has requests pending ([`refill`]).
fn take_cached<T: Send + 'static>(
    key: Numbers<Stack<T>, Head<T>>,
    storage: &Arc<Storage<T>>,
) -> Option<T> {
    let mut out = None;
    // The slow path's pop is `refill`'s: the fast one found the cache
    // empty, busy or with requests pending, or the key past the mirror.
    let linked = table::with(&key, |owner| out = refill(&owner));
    if linked.is_none() {
        out = take_without_cache(storage);
    }
    out
}

#[cold]
#[inline(never)]
fn refill<T: Send + 'static>(owner: &Owner<'_, Stack<T>, Head<T>>) -> Option<T> {
    let head = owner.head();
    head.counters.add_owned(Event::Get, 1);
    let batch = head.storage.limits.local_cap.div_ceil(2);
    let found = owner.slow(|stack, _| {
        let mut stack = Held::new(stack, head);
        let mut dead = head.storage.shards.dead();
        age(&mut stack, &head.storage, &mut dead);
        // With no room (every slot leased), one value and no more, handed
        // out at once.
        let mut extra = None;
        if stack.len() == 0 {
            let generation = Some(stack.generation());
            let batch = batch.min(stack.room()).max(1);
            // A value over the thread caches' limit is taken alone (the
            // refill stops at it) and handed out at once: none stays here.
            let into = &mut Each::new(|entry| {
                // `batch` is the room there is, or one.
                if let Err(entry) = stack.push(entry) {
                    extra = Some(entry);
                }
            });
            head.storage
                .shards
                .refill(head.home, batch, generation, into);
        }
        match extra {
            Some(entry) => (Some(entry), dead),
            None => (stack.pop(), dead),
        }
    });
    let (found, dead) = match found {
        Some(found) => found,
        // Re-entered from a value's `Drop` inside an operation on this
        // cache: take straight from the shards.
        None => (from_shards(&head.storage), head.storage.shards.dead()),
    };
    if found.is_none() {
        head.counters.add_owned(Event::Miss, 1);
    }
    head.counters
        .add_owned(Event::DroppedIdle, dead.len() as u64);
    drop_each(dead, &head.storage.counters);
    match found {
        Some(entry) => Some(entry.value),
        None => None,
    }
}

#[cold]
fn take_without_cache<T: Send + 'static>(storage: &Arc<Storage<T>>) -> Option<T> {
    if link(storage) {
        // The new cache is empty: straight to the slow path's refill.
        return take_cached(storage.key.numbers(), storage);
    }
    storage.count(Event::Get, 1);
    let found = match from_shards(storage) {
        Some(entry) => Some(entry.value),
        None => None,
    };
    if found.is_none() {
        storage.count(Event::Miss, 1);
    }
    found
}

/// An idle value from the shards alone, counted as `event` if there is
/// one; nothing is counted if there is none. For values that no thread
/// cache keeps (over [`LOCAL_CACHE_MAX_BYTES`](crate::LOCAL_CACHE_MAX_BYTES)):
/// a get ([`Event::Get`]; the caller gets as usual if it finds none, which
/// counts the get and its miss), or one the caller lets go of
/// ([`Event::DroppedIdle`], dropped outside every lock).
#[allow(clippy::question_mark)] // `?` on an option of `T`: two more functions per type
pub(crate) fn take_idle<T: Send + 'static>(storage: &Arc<Storage<T>>, event: Event) -> Option<T> {
    let Some(found) = from_shards(storage) else {
        return None;
    };
    count(storage, event);
    Some(found.value)
}

fn from_shards<T: Send + 'static>(storage: &Storage<T>) -> Option<Entry<T>> {
    storage.shards.pop(home_shard(storage.shards.len()))
}

/// Keep the reset value in `slot` (already checked against the size cap,
/// `bytes` big) in the calling thread's cache, spilling half of it to the
/// shards when full; drop it if there is no room anywhere. Leaves `None`.
/// Everything but a push onto the cache is [`give_slow`], the last call.
#[inline(always)]
pub(crate) fn give_from<'a, T: Send + 'static>(
    key: &impl Lookup<Stack<T>, Head<T>>,
    storage: impl Fn() -> &'a Arc<Storage<T>>,
    slot: &mut Option<T>,
    bytes: usize,
) {
    if table::with_near(key, |owner| push(&owner, slot, bytes)) != Some(true) {
        give_slow(key.numbers(), storage, slot, bytes);
    }
}

/// [`give_from`] for a value leased from a thread cache ([`take`]), reset
/// in its slot: give the slot back if it is this thread's cache's, else
/// move the value out and return it as [`give_from`] does.
#[inline(always)]
pub(crate) fn give_lease<'a, T: Send + 'static>(
    key: &impl Lookup<Stack<T>, Head<T>>,
    storage: impl Fn() -> &'a Arc<Storage<T>>,
    lease: Lease<T>,
    bytes: usize,
) {
    let mut lease = Some(lease);
    let restored = table::with_near(key, |owner| {
        fast_counted(&owner, Event::Put, |held| held.restore(&mut lease, bytes))
    });
    if restored != Some(true) {
        give_lease_slow(key.numbers(), storage, lease, bytes);
    }
}

/// [`give_lease`] when the slot could not be listed again: another
/// thread's cache, or this one full, busy or with requests pending. The
/// value leaves its slot for [`give_cached`], as any return's does.
#[cold]
#[inline(never)]
fn give_lease_slow<'a, T: Send + 'static>(
    key: Numbers<Stack<T>, Head<T>>,
    storage: impl Fn() -> &'a Arc<Storage<T>>,
    lease: Option<Lease<T>>,
    bytes: usize,
) {
    if let Some(lease) = lease {
        give_cached(key, storage(), &mut Some(lease.take()), bytes);
    }
}

/// The fast path of a return: push the value in `slot` onto the cache,
/// counted; false (and the value left in `slot`) if the cache is full, busy
/// or has requests pending.
#[inline(always)]
fn push<T: Send + 'static>(
    owner: &Owner<'_, Stack<T>, Head<T>>,
    slot: &mut Option<T>,
    bytes: usize,
) -> bool {
    fast_counted(owner, Event::Put, |held| held.push_from(slot, bytes))
}

/// [`give_from`] when the value could not be pushed onto the cache:
/// [`give_cached`], through a shim as [`take_slow`] is.
#[cold]
#[inline(never)]
fn give_slow<'a, T: Send + 'static>(
    key: Numbers<Stack<T>, Head<T>>,
    storage: impl Fn() -> &'a Arc<Storage<T>>,
    slot: &mut Option<T>,
    bytes: usize,
) {
    give_cached(key, storage(), slot, bytes);
}

/// A return that could not be pushed onto the cache: a key past the
/// table's mirror, a thread with no cache for the pool (it links one), or
/// a cache that is full, busy or has requests pending ([`spill`]).
fn give_cached<T: Send + 'static>(
    key: Numbers<Stack<T>, Head<T>>,
    storage: &Arc<Storage<T>>,
    slot: &mut Option<T>,
    bytes: usize,
) {
    let linked = table::with(&key, |owner| {
        if !push(&owner, slot, bytes) {
            if let Some(value) = slot.take() {
                spill(&owner, Entry { value, bytes });
            }
        }
    });
    // Only a thread with no cache for the pool still has the value.
    if linked.is_none() {
        if let Some(value) = slot.take() {
            give_without_cache(storage, Entry { value, bytes });
        }
    }
}

#[cold]
#[inline(never)]
fn spill<T: Send + 'static>(owner: &Owner<'_, Stack<T>, Head<T>>, entry: Entry<T>) {
    let head = owner.head();
    head.counters.add_owned(Event::Put, 1);
    let cap = head.storage.limits.local_cap;
    let mut entry = Some(entry);
    let dead = owner.slow(|stack, _| {
        let mut stack = Held::new(stack, head);
        let storage = &head.storage;
        let mut dead = storage.shards.dead();
        age(&mut stack, storage, &mut dead);
        if stack.len() >= cap {
            // The oldest half leaves. An aged one lands among the shards'
            // current values, so it may survive one trim more than the
            // two-trim rule says: decay can be late, never early.
            spill_oldest(storage, head.home, &mut stack, cap.div_ceil(2));
        }
        if let Some(e) = entry.take() {
            if let Err(e) = stack.push(e) {
                entry = Some(e);
            }
        }
        dead
    });
    let dead = match dead {
        Some(dead) => dead,
        None => head.storage.shards.dead(),
    };
    head.counters
        .add_owned(Event::DroppedIdle, dead.len() as u64);
    drop_each(dead, &head.storage.counters);
    if let Some(entry) = entry {
        // The cache is busy (a return from inside a value's `Drop` during
        // one of its operations) or had no room: try the shards.
        keep_in_shards(&head.storage, entry, &head.counters);
    }
}

/// The last resort of a return: a shard, else drop the value here. Its own
/// `Drop` may panic into the caller, as dropping it by hand would.
fn keep_in_shards<T: Send + 'static>(storage: &Storage<T>, entry: Entry<T>, counters: &Counters) {
    let kept = if storage.limits.chaos && crate::policy::chaos_drop() {
        Err(entry)
    } else {
        storage.shards.push(home_shard(storage.shards.len()), entry)
    };
    if let Err(entry) = kept {
        counters.add_shared(Event::DroppedFull, 1);
        drop(entry.value);
    }
}

#[cold]
fn give_without_cache<T: Send + 'static>(storage: &Arc<Storage<T>>, entry: Entry<T>) {
    if link(storage) {
        // The new cache is empty: straight to the slow path's push.
        return give_cached(
            storage.key.numbers(),
            storage,
            &mut Some(entry.value),
            entry.bytes,
        );
    }
    give_shared(storage, entry);
}

/// Keep a return in the shards, not in a thread cache: a thread without
/// one, or a value over [`LOCAL_CACHE_MAX_BYTES`](crate::LOCAL_CACHE_MAX_BYTES).
#[cold]
pub(crate) fn give_shared<T: Send + 'static>(storage: &Arc<Storage<T>>, entry: Entry<T>) {
    // Under chaos every return comes here (no thread caches): verify the
    // reset, as debug builds do in `Pool::put_from`, and count a dirty
    // value as they do, a `dropped_panic` and not a put.
    if storage.limits.chaos && !(storage.is_reset)(&entry.value) {
        storage.count(Event::DroppedPanic, 1);
        drop(entry.value);
        crate::reset::not_reset::<T>();
    }
    storage.count(Event::Put, 1);
    keep_in_shards(storage, entry, &storage.counters);
}

/// Count an event on the calling thread's counters (or the pool's, when it
/// has no cache).
pub(crate) fn count<T: Send + 'static>(storage: &Arc<Storage<T>>, event: Event) {
    if table::with(&storage.key, |owner| {
        owner.head().counters.add_owned(event, 1)
    })
    .is_none()
    {
        storage.count(event, 1);
    }
}

/// Give this thread a cache for `storage` (its first use of the pool here).
/// False when it cannot have one: the pool keeps no thread caches, or the
/// thread is exiting.
#[cold]
#[inline(never)]
fn link<T: Send + 'static>(storage: &Arc<Storage<T>>) -> bool {
    if storage.limits.local_cap == 0 || storage.is_closed() {
        return false;
    }
    let cache = Arc::new(Tenant::new(
        Stack::new(
            storage.limits.local_cap,
            storage.limits.slots,
            storage.generation.load(Relaxed),
        ),
        Head {
            storage: Arc::clone(storage),
            counters: Counters::new(),
            retained: Retained::default(),
            home: home_shard(storage.shards.len()),
        },
    ));
    if !table::link(&storage.key, Arc::clone(&cache)) {
        return false;
    }
    storage.register(cache);
    // A decay step that began between the generation read above and the
    // registration did not reach this cache, which would then take its
    // step at the next one, and so decay early. The cache is still empty
    // (nothing has used it yet): age it to the generation now. Every step
    // from here on finds it registered.
    table::with(&storage.key, |owner| {
        owner.slow(|stack, _| {
            let mut dead = storage.shards.dead();
            age(&mut Held::new(stack, owner.head()), storage, &mut dead);
            debug_assert!(dead.is_empty(), "a new cache holds nothing");
        })
    });
    true
}

crate::sync::thread_local_const! {
    /// A small number for this thread, to spread threads over the shards.
    static THREAD_INDEX: Cell<usize> = Cell::new(usize::MAX);
}

/// The home shard of the calling thread, among `shards` (not generic: it
/// would be compiled again for every pooled type).
fn home_shard(shards: usize) -> usize {
    #[cfg(not(poolable_loom))]
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    // Under loom, a counter per model iteration keeps the schedule deterministic.
    #[cfg(poolable_loom)]
    loom::lazy_static! {
        static ref NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    }
    let index = THREAD_INDEX
        .try_with(|index| {
            if index.get() == usize::MAX {
                index.set(NEXT.fetch_add(1, core::sync::atomic::Ordering::Relaxed));
            }
            index.get()
        })
        .unwrap_or(0);
    index % shards.max(1)
}

/// Bring a thread cache to the pool's current generation, the thread tier's
/// part of the two-trim rule (`decay.rs`); what decayed goes to `dead`, for
/// the caller to drop after it lets go of the cache.
pub(crate) fn age<T: 'static>(stack: &mut Held<'_, T>, storage: &Storage<T>, dead: &mut Dead) {
    let now = storage.generation.load(crate::sync::Ordering::Acquire);
    let steps = now.wrapping_sub(stack.generation());
    let n = match steps {
        0 => 0,
        1 => stack.aged(),
        _ => stack.len(),
    };
    if n > 0 {
        bury(dead, stack, n);
    }
    if steps > 0 {
        stack.set_aged(now);
    }
}

/// Move the `n` oldest values of `stack` into `dead`.
fn bury<T: 'static>(dead: &mut Dead, stack: &mut Held<'_, T>, n: usize) {
    // The list is of `T`s: it came from `Shards::dead` of this storage.
    if let Some(mut dead) = dead.typed() {
        for entry in stack.oldest(n) {
            dead.push(entry.value, entry.bytes);
        }
    }
}

/// Move the `n` oldest values of `stack` into the shards of `storage`
/// (home shard first), if no decay step began since the stack was aged.
fn spill_oldest<T: 'static>(storage: &Storage<T>, home: usize, stack: &mut Held<'_, T>, n: usize) {
    let generation = stack.generation();
    storage.shards.spill(
        home,
        &mut stack.oldest(n),
        n,
        (&storage.generation, generation),
    );
}

/// Drop each value on its own, the last first; count the panics on
/// `counters`.
#[inline]
pub(crate) fn drop_each(dead: Dead, counters: &Counters) {
    let panicked = dead.drop_each();
    if panicked > 0 {
        counters.add_shared(Event::DropPanicked, panicked);
    }
}

#[cfg(all(test, not(poolable_loom)))]
mod tests {
    use super::*;
    use crate::policy::{Limits, Mode, Policy};
    use std::panic::{AssertUnwindSafe, catch_unwind};

    /// The sizes `stats()` sums follow their values: through pushes, pops,
    /// and the oldest leaving with the rest moving to the front.
    #[test]
    fn retained_sizes_follow_their_values() {
        let limits = Limits::resolve(Policy::DEFAULT, 2, 24);
        let storage = Arc::new(Storage::new(limits, "sizes".into(), None, |_: &u32| true));
        let head = Head {
            storage: Arc::clone(&storage),
            counters: Counters::new(),
            retained: Retained::default(),
            home: 0,
        };
        let mut stack = Stack::new(LOCAL_CACHE_SIZE, LOCAL_CACHE_SIZE, 0);
        let mut held = Held::new(&mut stack, &head);
        for (value, bytes) in [(1, 10), (2, 20), (3, 30), (4, 40)] {
            assert!(held.push(Entry { value, bytes }).is_ok());
        }
        assert_eq!(head.retained.get(), (4, 100));
        let out = held.pop().map(|e| (e.value, e.bytes));
        assert_eq!(out, Some((4, 40)));
        assert_eq!(head.retained.get(), (3, 60));

        // One of the two oldest is taken, then the iterator is dropped.
        let taken: Vec<_> = held.oldest(2).take(1).map(|e| (e.value, e.bytes)).collect();
        assert_eq!(taken, [(1, 10)]);
        assert_eq!(head.retained.get(), (2, 50));
        assert!(
            held.push(Entry {
                value: 5,
                bytes: 50
            })
            .is_ok()
        );
        assert_eq!(head.retained.get(), (3, 100));
        let rest: Vec<_> = held.oldest(3).map(|e| (e.value, e.bytes)).collect();
        assert_eq!(rest, [(2, 20), (3, 30), (5, 50)]);
        assert_eq!(head.retained.get(), (0, 0));
    }

    /// A dirty return under `POOLABLE=chaos` (no thread caches: every
    /// return comes through `give_without_cache`) is counted once, as a
    /// `dropped_panic` and not also as a put, as the debug-build check in
    /// `Pool::put_from` counts it: the books stay balanced and the other
    /// guard out stays held. It was counted as both.
    #[test]
    fn under_chaos_a_dirty_return_is_counted_once() {
        let limits = Limits::resolve(Policy::DEFAULT, 2, 24).with_mode(Mode::Chaos);
        let storage = Arc::new(Storage::new(limits, "chaos".into(), None, |v: &Vec<u8>| {
            v.is_empty()
        }));
        // Two guards out; one comes back dirty.
        for _ in 0..2 {
            storage.count(Event::Get, 1);
            storage.count(Event::Miss, 1);
        }
        let dirty = Entry {
            value: vec![1_u8],
            bytes: 25,
        };
        let returned = catch_unwind(AssertUnwindSafe(|| give_without_cache(&storage, dirty)));
        assert!(returned.is_err(), "a dirty return is reported");
        let stats = storage.stats();
        assert_eq!((stats.puts, stats.dropped_panic), (0, 1), "{stats}");
        assert_eq!(stats.held(), 1, "{stats}");
        assert!(stats.is_balanced(), "{stats}");
    }

    /// Under `POOLABLE=chaos` every return reaches `give_without_cache`
    /// (there are no thread caches), which verifies the reset in any build.
    #[test]
    fn under_chaos_a_return_that_is_not_reset_is_dropped_counted_and_reported() {
        let limits = Limits::resolve(Policy::DEFAULT, 2, 24).with_mode(Mode::Chaos);
        let storage = Arc::new(Storage::new(limits, "chaos".into(), None, |v: &Vec<u8>| {
            v.is_empty()
        }));
        let dirty = Entry {
            value: vec![1_u8],
            bytes: 25,
        };
        let kept = catch_unwind(AssertUnwindSafe(|| give_without_cache(&storage, dirty)));
        let message = kept.expect_err("a dirty return is reported");
        let message = message
            .downcast_ref::<String>()
            .expect("a formatted message");
        assert!(message.contains("alloc::vec::Vec<u8>` came back to its pool still holding state"));
        let stats = storage.stats();
        assert_eq!((stats.dropped_panic, stats.retained), (1, 0));

        // A clean one is kept, or dropped at random by chaos: never reported.
        for _ in 0..100 {
            let clean = Entry {
                value: Vec::new(),
                bytes: 24,
            };
            give_without_cache(&storage, clean);
        }
        assert_eq!(storage.stats().dropped_panic, 1);
    }
}
