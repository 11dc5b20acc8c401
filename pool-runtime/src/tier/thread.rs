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
//! moves. A guard returned on another thread hands the value back to its
//! slot (`RawLease::hand_back`), where this cache's holder takes it up the
//! next time it leaves the fast path (`age`): so a producer thread gets its
//! values back from its consumers without the shards. A guard returned to
//! a cache with no room, or to one that takes none back (its thread
//! exiting), moves the value out of its slot and returns it as any value
//! is returned.
//!
//! The stack is a [`Tenant`]: a trim, a `clear` or a dropped pool on another
//! thread can take its values (`decay.rs`) while the owner is between two
//! operations, so a thread that stays alive but never uses the pool again
//! does not keep them (the protocol is in `raw/owned.rs`). A thread's cache
//! is flushed to the shards when the thread exits.
//!
//! Nothing here names the value type: values come in as [`Moving`] values
//! or leased slots ([`RawLease`]), and go out into an [`Out`] place or as
//! leases, all of one [`Kind`](crate::raw::erased::Kind), the storage's.
//! So this module is compiled once, not once per pooled type: `Pool<T>`
//! (`pool.rs`) is the one place that turns them back into `T`s.

use super::shared::{Dead, Sink, Source};
use super::storage::{Cache, Storage};
use crate::policy::LOCAL_CACHE_SIZE;
use crate::raw::erased::{Moving, Out};
use crate::raw::lease::{self, Back, Handed, IDLE, Ledger, RawLease};
use crate::raw::owned::{Fast, Fenced, OPS, Op, Owner, Reclaim, Tenant};
use crate::raw::table::{self, KeyCopy, Lookup};
use crate::stats::{Counters, Event, saturating_sum};
use crate::sync::{Arc, AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use core::cell::Cell;

const _: () = assert!(LOCAL_CACHE_SIZE == IDLE, "a ledger lists a whole cache");

/// One thread's cache for one pool.
pub(crate) type ThreadCache = Tenant<Stack, Head>;

/// The copy of its key a pool keeps for the fast lookup (`raw/table.rs`).
pub(crate) type PoolKey = KeyCopy<Stack, Head>;

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
///
/// One more idle value can sit in the ledger's hot slot, outside the
/// list, where a get and a return on the fast path cost one store each
/// (`Ledger::take_hot`). Off the fast path a [`Settled`] lists it first, so
/// that everything there sees one list.
pub(crate) struct Stack {
    ledger: Ledger,
    /// The pool's `local_cap`, kept here so a return reads it from memory
    /// it touches anyway.
    cap: usize,
    /// How many entries at the front (the oldest) have already been idle
    /// across one trim: the next trim drops them.
    aged: usize,
    /// The pool generation (decay steps) this stack was last aged to.
    generation: u64,
}

impl Stack {
    fn new(storage: &Storage) -> Self {
        Stack {
            ledger: Ledger::new(storage.limits.slots, storage.kind, thread_index()),
            cap: storage.limits.local_cap,
            aged: 0,
            generation: storage.generation.load(Relaxed),
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
    /// The size of the hot slot's value (`Ledger::take_hot`), when it
    /// holds one. Whether it does is not stored: a get from it and a return
    /// to it would each store it. It is counted instead: the fast path's
    /// returns to it ([`Op::PutHot`]) less its gets from it
    /// ([`Op::GetHot`]) and the values listed from it off the fast path
    /// (`hot_out`).
    hot_bytes: AtomicUsize,
    /// Written by the stack's holder (see `hot_bytes`).
    hot_out: AtomicU64,
}

impl Default for Retained {
    fn default() -> Self {
        Retained {
            len: AtomicUsize::new(0),
            sizes: core::array::from_fn(|_| AtomicUsize::new(0)),
            hot_bytes: AtomicUsize::new(0),
            hot_out: AtomicU64::new(0),
        }
    }
}

impl Retained {
    /// The values held and their bytes (`cache` is the one whose counts
    /// these are). Exact for the calling thread's own cache; for another
    /// thread's, a snapshot taken while it may move.
    fn get(&self, cache: &ThreadCache) -> (usize, usize) {
        // Each value enters the hot slot (counted in `PutHot`) before it
        // leaves (`GetHot`, `hot_out`): read the leaving first, so that a
        // reading taken while they move is not below zero.
        let out = self.hot_out.load(Relaxed);
        let fast = Tenant::fast_counts(cache);
        let left = fast[Op::GetHot as usize].saturating_add(out);
        let hot = fast[Op::PutHot as usize].saturating_sub(left) > 0;
        let (len, bytes) = self.listed();
        let hot_bytes = if hot { self.hot_bytes.load(Relaxed) } else { 0 };
        (len + usize::from(hot), bytes.saturating_add(hot_bytes))
    }

    /// The values listed (not in the hot slot) and their bytes.
    fn listed(&self) -> (usize, usize) {
        let len = self.len.load(Relaxed).min(LOCAL_CACHE_SIZE);
        let bytes = saturating_sum(self.sizes[..len].iter().map(|s| s.load(Relaxed)));
        (len, bytes)
    }
}

/// A cache's fast counts ([`Op`]) as gets and returns, each through the
/// hot slot or not.
fn gets_and_puts(fast: [u64; OPS]) -> [u64; 2] {
    let sum = |a: Op, b: Op| fast[a as usize].wrapping_add(fast[b as usize]);
    [sum(Op::Get, Op::GetHot), sum(Op::Put, Op::PutHot)]
}

/// A [`Stack`] in its holder's hands, with its counts (in the [`Head`]).
pub(crate) struct Held<'a> {
    stack: &'a mut Stack,
    retained: &'a Retained,
    /// The most values the list takes: on the fast path one fewer than the
    /// cap, for the hot slot (`Ledger::take_hot`); off it ([`Settled`]),
    /// the cap.
    cap: usize,
}

impl<'a> Held<'a> {
    /// The stack on the owner's fast path (off it: [`Settled`]).
    #[inline(always)]
    pub(crate) fn new(stack: &'a mut Stack, head: &'a Head) -> Self {
        // Never below 0: a cache's cap is at least 1 (`link`).
        let cap = stack.cap.min(LOCAL_CACHE_SIZE).saturating_sub(1);
        Held {
            stack,
            retained: &head.retained,
            cap,
        }
    }

    /// Lease the hot slot's value out, if it holds one.
    #[inline(always)]
    fn take_hot(&mut self) -> Option<RawLease> {
        self.stack.ledger.take_hot()
    }

    /// Keep `lease`'s slot as the hot one, `bytes` big, if it is empty and
    /// the lease is this cache's; whether it did (`lease` left `None`).
    #[inline(always)]
    fn put_hot(&mut self, lease: &mut Option<RawLease>, bytes: usize) -> bool {
        if !self.stack.ledger.put_hot(lease) {
            return false;
        }
        self.retained.hot_bytes.store(bytes, Relaxed);
        true
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

    /// Mark the `n` oldest values (`n` at most the length) as idle across
    /// the last step already: values refilled from the shards' victims, or
    /// taken up at a step (`take_up`).
    fn age_oldest(&mut self, n: usize) {
        self.stack.aged = n;
    }

    /// Lease the newest value out, in its slot; `None` if empty.
    #[inline(always)]
    fn pop_lease(&mut self) -> Option<RawLease> {
        let stack = &mut *self.stack;
        let (i, lease) = stack.ledger.pop(&self.retained.len)?;
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
    fn restore(&mut self, lease: &mut Option<RawLease>, bytes: usize) -> bool {
        let stack = &mut *self.stack;
        let Some(i) = stack.ledger.restore(lease, &self.retained.len, self.cap) else {
            return false;
        };
        if let Some(size) = self.retained.sizes.get(i) {
            size.store(bytes, Relaxed);
        }
        true
    }

    /// Move `value` onto the stack, into a free slot; given back when the
    /// stack is full or every slot is taken.
    #[inline]
    fn push<'v>(&mut self, value: Moving<'v>, bytes: usize) -> Result<(), Moving<'v>> {
        let stack = &mut *self.stack;
        let i = stack.ledger.fill(value, &self.retained.len, self.cap)?;
        if let Some(size) = self.retained.sizes.get(i) {
            size.store(bytes, Relaxed);
        }
        Ok(())
    }

    /// List the value of `back`'s next slot (`Ledger::take_handed`) as the
    /// newest; false (nothing listed) when the stack is full or `back` is
    /// empty.
    fn list_handed(&mut self, back: &mut Back) -> bool {
        let ledger = &mut self.stack.ledger;
        let Some((i, bytes)) = ledger.list_handed(back, &self.retained.len, self.cap) else {
            return false;
        };
        if let Some(size) = self.retained.sizes.get(i) {
            size.store(bytes, Relaxed);
        }
        true
    }

    /// [`push`](Self::push) for a list at its cap on the fast path: the
    /// value kept in the hot slot, if that is empty. So returns of values
    /// not leased here (another thread's leases, values held inline) fill
    /// the cache to its cap on the fast path too, as leased ones do; with
    /// the list alone, every fourth such return took the slow path to fill
    /// the last place, and the next one to spill (`benches/instructions.rs
    /// handoff`).
    #[inline(always)]
    fn push_hot<'v>(&mut self, value: Moving<'v>, bytes: usize) -> Result<(), Moving<'v>> {
        self.stack.ledger.fill_hot(value)?;
        self.retained.hot_bytes.store(bytes, Relaxed);
        Ok(())
    }

    /// How many values a push can take now: room under the cap, in free
    /// slots.
    fn room(&mut self) -> usize {
        let under_cap = self.cap.saturating_sub(self.len());
        under_cap.min(self.stack.ledger.free_slots())
    }

    /// Move the newest value into `out`; false if there is none (or `out`
    /// is filled).
    fn pop_into(&mut self, out: &mut Out<'_>) -> bool {
        let stack = &mut *self.stack;
        let Some(i) = stack.ledger.take_newest(&self.retained.len, out) else {
            return false;
        };
        if i < stack.aged {
            stack.aged = i;
        }
        true
    }

    /// The `n` oldest entries, taken out in order as the iterator is
    /// advanced; the rest move to the front when it is dropped.
    pub(crate) fn oldest(&mut self, n: usize) -> Oldest<'_> {
        let stack = &mut *self.stack;
        Oldest {
            values: stack.ledger.oldest(n, &self.retained.len),
            sizes: &self.retained.sizes,
            aged: &mut stack.aged,
            taken: 0,
        }
    }
}

/// The stack off the owner's fast path (a slow get or return, a decay
/// step, the thread's exit), under the cap: the hot slot's value is listed
/// as the newest idle one while it lives, so that all of that sees one
/// list; when it goes, the hot slot is blocked if the list is at the cap
/// (the rule of `Ledger::take_hot`).
pub(crate) struct Settled<'a>(Held<'a>);

impl<'a> Settled<'a> {
    pub(crate) fn new(stack: &'a mut Stack, head: &'a Head) -> Self {
        let cap = stack.cap.min(LOCAL_CACHE_SIZE);
        let retained = &head.retained;
        if let Some(i) = stack.ledger.unhot(&retained.len) {
            if let Some(size) = retained.sizes.get(i) {
                size.store(retained.hot_bytes.load(Relaxed), Relaxed);
            }
            // Only the holder writes it.
            let out = &retained.hot_out;
            out.store(out.load(Relaxed) + 1, Relaxed);
        }
        Settled(Held {
            stack,
            retained,
            cap,
        })
    }
}

impl<'a> core::ops::Deref for Settled<'a> {
    type Target = Held<'a>;
    fn deref(&self) -> &Held<'a> {
        &self.0
    }
}

impl<'a> core::ops::DerefMut for Settled<'a> {
    fn deref_mut(&mut self) -> &mut Held<'a> {
        &mut self.0
    }
}

impl Drop for Settled<'_> {
    fn drop(&mut self) {
        let held = &mut self.0;
        held.stack.ledger.settle_hot(&held.retained.len, held.cap);
    }
}

/// See [`Held::oldest`].
pub(crate) struct Oldest<'h> {
    values: lease::Oldest<'h>,
    sizes: &'h [AtomicUsize; LOCAL_CACHE_SIZE],
    aged: &'h mut usize,
    taken: usize,
}

impl Source for Oldest<'_> {
    #[inline(always)]
    fn next_entry(&mut self) -> Option<(Moving<'_>, usize)> {
        let value = self.values.next()?;
        // Zeroed as it leaves, so that `stats()` does not count it here and
        // in the shards it goes to. A load and a store, not a swap: only
        // the holder writes the sizes (an `xchg` per value spilled).
        let bytes = match self.sizes.get(self.taken) {
            Some(size) => {
                let bytes = size.load(Relaxed);
                size.store(0, Relaxed);
                bytes
            }
            None => 0,
        };
        self.taken += 1;
        Some((value, bytes))
    }
}

impl Drop for Oldest<'_> {
    /// The sizes move down as the values' list does (when `values` is
    /// dropped, after this).
    fn drop(&mut self) {
        let n = self.taken;
        let len = self.values.len();
        let sizes = &self.sizes[..len];
        for (to, from) in (n..len).enumerate() {
            // As in `next_entry`, a load and stores, in a swap's order: with
            // none taken (`to == from`) the size is stored back over the
            // zero, and a later step stores over the zero left at `from` if
            // it is another's `to`.
            let bytes = sizes[from].load(Relaxed);
            sizes[from].store(0, Relaxed);
            sizes[to].store(bytes, Relaxed);
        }
        *self.aged = self.aged.saturating_sub(n);
    }
}

/// A refill's [`Sink`]: each value onto the stack, and the one that finds
/// no room into `out`.
struct Refill<'h, 'a, 'o> {
    stack: &'h mut Held<'a>,
    out: &'h mut Out<'o>,
    /// Whether the value handed out was one no thread cache keeps.
    large: bool,
}

impl Sink for Refill<'_, '_, '_> {
    #[inline(always)]
    fn put(&mut self, value: Moving<'_>, bytes: usize) {
        // A value no thread cache keeps ends the refill (`Shards::refill`)
        // and is the one handed out: straight into `out`, not onto the
        // stack and off it again (one move and a slot's bookkeeping less
        // per large get, `Pool::take_slow`).
        let value = if bytes > crate::LOCAL_CACHE_MAX_BYTES {
            match self.out.fill(value) {
                Ok(()) => {
                    self.large = true;
                    return;
                }
                Err(value) => value,
            }
        } else {
            value
        };
        let Err(value) = self.stack.push(value, bytes) else {
            return;
        };
        if let Err(value) = self.out.fill(value) {
            // Never: a refill asks for the room there is, or one value
            // into an empty `out`. Forgotten, not dropped: no user code
            // runs under a shard's lock.
            core::mem::forget(value);
        }
    }
}

/// The shared half of a thread cache: what statistics and reclaimers read
/// without the protocol.
pub(crate) struct Head {
    pub(crate) storage: Arc<Storage>,
    /// Written by whoever holds the stack, read by `stats()`.
    pub(crate) counters: Counters,
    /// The stack's counts (see [`Held`]).
    pub(crate) retained: Retained,
    /// The values other threads handed back to the stack's slots, not
    /// listed yet (`RawLease::hand_back`): counted as held.
    handed: Arc<Handed>,
    /// Whether this thread's last get from the shards found a value no
    /// thread cache keeps: its next one goes to them directly ([`refill`]).
    /// Only the holder writes it.
    large: AtomicBool,
    /// The shard this thread spills to and refills from first.
    home: usize,
}

impl Head {
    fn new(storage: &Arc<Storage>, stack: &Stack, home: usize) -> Self {
        Head {
            storage: Arc::clone(storage),
            counters: Counters::new(),
            retained: Retained::default(),
            handed: Arc::clone(stack.ledger.handed()),
            large: AtomicBool::new(false),
            home,
        }
    }
}

impl table::Head<Stack> for Head {
    /// The thread is exiting: hand the idle values to the shards, so nothing
    /// stays stranded in a dead thread.
    fn evict(owner: Owner<'_, Stack, Self>) {
        let head = owner.head();
        let storage = &head.storage;
        let dead = owner.slow(|stack, _| {
            let mut stack = Settled::new(stack, head);
            let mut dead = storage.shards.dead();
            // No value comes back to the slots from here on: the ones
            // handed back so far leave with the stack's own.
            stack.stack.ledger.close_handed();
            // Age, then move to the shards; again if a trim began meanwhile.
            loop {
                age_to(&mut stack, head, &mut dead, true);
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
            let back = stack.stack.ledger.take_handed();
            bury_handed(&mut dead, &mut stack, back);
            (idle as u64, (dead.len() - idle) as u64, dead)
        });
        let Some((idle, full, dead)) = dead else {
            return;
        };
        head.counters.add_owned(Event::DroppedIdle, idle);
        head.counters.add_owned(Event::DroppedFull, full);
        storage.unregister(&head.counters, gets_and_puts(owner.fast_counts()));
        drop_each(dead, &storage.counters);
    }

    fn is_closed(&self) -> bool {
        self.storage.is_closed()
    }
}

impl Cache for ThreadCache {
    fn counters(&self) -> &Counters {
        &self.head.counters
    }

    fn fast_counts(&self) -> [u64; 2] {
        gets_and_puts(Tenant::fast_counts(self))
    }

    fn retained(&self) -> (usize, usize) {
        let (n, bytes) = self.head.retained.get(self);
        let (handed, handed_bytes) = self.head.handed.held();
        (n + handed, bytes.saturating_add(handed_bytes))
    }

    fn post(&self, reclaim: &Reclaim) {
        Tenant::post(self, reclaim, 1);
    }

    fn age_if_idle(&self, fenced: &Fenced, dead: &mut Dead) {
        fenced.apply(self, |head, stack, _| {
            age(&mut Settled::new(stack, head), head, dead);
        });
    }
}

/// The fast path of a get: the newest idle value of the calling thread's
/// cache, leased in its slot, counted; `None` if the cache is empty, busy
/// or has requests pending, or the thread has none (then the caller goes
/// on to [`take_cached`]).
#[inline(always)]
pub(crate) fn take(key: &impl Lookup<Stack, Head>) -> Option<RawLease> {
    // Returned, not written into an `Option` outside: a lease has a `Drop`,
    // and a write would first check the `Option` for one to drop.
    let found = table::with_near(key, pop_lease);
    match found {
        Some(Fast::Done(lease)) => lease,
        _ => None,
    }
}

/// The newest idle value of the cache, leased, on the owner's fast path.
#[inline(always)]
fn pop_lease(owner: Owner<'_, Stack, Head>) -> Fast<Option<RawLease>> {
    let head = owner.head();
    owner.fast(|stack| {
        let mut held = Held::new(stack, head);
        if let Some(lease) = held.take_hot() {
            return (Some(lease), Some(Op::GetHot));
        }
        let lease = held.pop_lease();
        let op = lease.is_some().then_some(Op::Get);
        (lease, op)
    })
}

/// [`take`] for a key past the table's mirror (a program with more pools
/// in use than the mirror has entries), which `take` does not look up:
/// the same lease, found through the table's list. `None` at once for a
/// key the mirror holds (`take` found its cache empty, busy or with
/// requests pending) and for a thread with no cache for the pool.
#[cold]
#[inline(never)]
pub(crate) fn take_far(key: &PoolKey) -> Option<RawLease> {
    match table::with_far(key, pop_lease) {
        Some(Fast::Done(lease)) => lease,
        _ => None,
    }
}

/// `f` on the cache on the owner's fast path, counted as the kind of
/// return it names; false if it named none (it kept nothing) or the fast
/// path was refused (busy, or requests pending).
#[inline(always)]
fn fast_put(owner: &Owner<'_, Stack, Head>, f: impl FnOnce(&mut Held<'_>) -> Option<Op>) -> bool {
    let head = owner.head();
    let done = owner.fast(|stack| {
        let op = f(&mut Held::new(stack, head));
        (op.is_some(), op)
    });
    matches!(done, Fast::Done(true))
}

/// A get that found nothing on the fast path: a key past the table's
/// mirror, a thread with no cache for the pool (it links one), or a cache
/// that is empty, busy or has requests pending ([`refill`]). An idle value
/// goes into `out`; a miss (counted) leaves it empty.
#[cold]
#[inline(never)]
pub(crate) fn take_cached(storage: &Arc<Storage>, out: &mut Out<'_>) {
    // The slow path's pop is `refill`'s: the fast one (`take`, or
    // `take_far` for a key past the mirror) found the cache empty, busy or
    // with requests pending.
    let linked = table::with(&storage.key, |owner| refill(&owner, out));
    if linked.is_none() {
        take_without_cache(storage, out);
    }
}

#[cold]
#[inline(never)]
fn refill(owner: &Owner<'_, Stack, Head>, out: &mut Out<'_>) {
    let head = owner.head();
    head.counters.add_owned(Event::Get, 1);
    if head.large.load(Relaxed) && owner.is_quiet() && head.handed.is_clear() {
        // The last refill found a value too large to keep here (a pool of
        // large values, or workload 7's large class): the next is likely
        // one too, and goes from the shards into `out`, with no lock of
        // the cache, no aging and no list in between (`benches/
        // instructions.rs large`). Nothing here needs the state: the cache
        // is empty (its fast path found nothing, and no request stopped
        // it), and a step that comes meanwhile ages it as an idle one's.
        match head.storage.shards.pop_into(head.home, out) {
            Some(bytes) if bytes <= crate::LOCAL_CACHE_MAX_BYTES => {
                head.large.store(false, Relaxed);
            }
            Some(_) => {}
            None => head.counters.add_owned(Event::Miss, 1),
        }
        return;
    }
    let batch = head.storage.limits.local_cap.div_ceil(2);
    let dead = owner.slow(|stack, _| {
        let mut stack = Settled::new(stack, head);
        let mut dead = head.storage.shards.dead();
        age(&mut stack, head, &mut dead);
        if stack.len() == 0 {
            let generation = Some(stack.generation());
            // With no room (every slot leased), one value and no more,
            // handed out at once (into `out`). A value over the thread
            // caches' limit is taken alone (the refill stops at it) and
            // handed out at once: none stays here.
            let room = stack.room();
            let batch = batch.min(room).max(1);
            let into = &mut Refill {
                stack: &mut stack,
                out: &mut *out,
                large: false,
            };
            let (_, victims) = head
                .storage
                .shards
                .refill(head.home, batch, generation, into);
            if into.large {
                head.large.store(true, Relaxed);
            }
            // The shards' victims come first, idle across a step already:
            // aged here as they were there. (With room, every value went
            // onto the stack but one too large for it, which went into
            // `out`, as the one value did without room.)
            if room > 0 {
                let listed = stack.len();
                stack.age_oldest(victims.min(listed));
            }
        }
        if !out.is_filled() {
            stack.pop_into(out);
        }
        dead
    });
    let dead = match dead {
        Some(dead) => dead,
        // Re-entered from a value's `Drop` inside an operation on this
        // cache: take straight from the shards.
        None => {
            from_shards(&head.storage, out);
            head.storage.shards.dead()
        }
    };
    if !out.is_filled() {
        head.counters.add_owned(Event::Miss, 1);
    }
    head.counters
        .add_owned(Event::DroppedIdle, dead.len() as u64);
    drop_each(dead, &head.storage.counters);
}

#[cold]
fn take_without_cache(storage: &Arc<Storage>, out: &mut Out<'_>) {
    if link(storage) {
        // The new cache is empty: straight to the slow path's refill.
        return take_cached(storage, out);
    }
    storage.count(Event::Get, 1);
    if !from_shards(storage, out) {
        storage.count(Event::Miss, 1);
    }
}

/// An idle value from the shards alone into `out`, counted as `event` if
/// there is one; nothing is counted if there is none. For values that no
/// thread cache keeps (over [`LOCAL_CACHE_MAX_BYTES`](crate::LOCAL_CACHE_MAX_BYTES)):
/// a get ([`Event::Get`]; the caller gets as usual if it finds none, which
/// counts the get and its miss), or one the caller lets go of
/// ([`Event::DroppedIdle`], dropped outside every lock).
pub(crate) fn take_idle(storage: &Arc<Storage>, event: Event, out: &mut Out<'_>) {
    if from_shards(storage, out) {
        count(storage, event);
    }
}

/// An idle value from the shards into `out`: whether there was one.
fn from_shards(storage: &Storage, out: &mut Out<'_>) -> bool {
    storage
        .shards
        .pop_into(home_shard(storage.shards.len()), out)
        .is_some()
}

/// The fast path of a return: push `value` (reset, already checked against
/// the size cap, `bytes` big) onto the calling thread's cache, counted;
/// given back if the cache is full, busy or has requests pending, or the
/// thread has none (then the caller goes on to [`give_cached`]).
#[inline(always)]
pub(crate) fn give<'v>(
    key: &impl Lookup<Stack, Head>,
    value: Moving<'v>,
    bytes: usize,
) -> Result<(), Moving<'v>> {
    let mut value = Some(value);
    table::with_near(key, |owner| push(&owner, &mut value, bytes));
    match value {
        Some(value) => Err(value),
        None => Ok(()),
    }
}

/// The fast path of a return of a value leased from a thread cache
/// ([`take`]), reset in its slot: give the slot back if it is this
/// thread's cache's. Leaves `None` if it did; else the caller goes on to
/// [`give_lease_slow`].
#[inline(always)]
pub(crate) fn give_lease(
    key: &impl Lookup<Stack, Head>,
    lease: &mut Option<RawLease>,
    bytes: usize,
) {
    table::with_near(key, |owner| restore(&owner, lease, bytes));
}

/// List `lease`'s slot again on the owner's fast path, counted as a
/// return (`lease` left `None`).
#[inline(always)]
fn restore(owner: &Owner<'_, Stack, Head>, lease: &mut Option<RawLease>, bytes: usize) -> bool {
    fast_put(owner, |held| {
        if held.put_hot(lease, bytes) {
            return Some(Op::PutHot);
        }
        held.restore(lease, bytes).then_some(Op::Put)
    })
}

/// [`give_lease`] when the slot was not listed again: a key past the
/// table's mirror (listed here, through the table's list, as [`take_far`]
/// leased it), another thread's cache, or this one full, busy or with
/// requests pending. Another thread's lease is handed back to its slot,
/// counted as a return here (`benches/instructions.rs handoff`: 367
/// instructions per value taken on one thread and returned on another,
/// against 803 when it moved into this thread's cache and on through the
/// shards). A value still not listed leaves its slot and is given as a
/// value held inline is: onto this thread's cache on the fast path
/// ([`give`]), else through [`give_cached`].
#[cold]
#[inline(never)]
pub(crate) fn give_lease_slow(storage: &Arc<Storage>, lease: RawLease, bytes: usize) {
    let mut lease = Some(lease);
    table::with_far(&storage.key, |owner| restore(&owner, &mut lease, bytes));
    let Some(lease) = lease else {
        return;
    };
    match lease.hand_back(bytes, thread_index()) {
        Ok(()) => count(storage, Event::Put),
        Err(lease) => lease.moving(|value| keep_here(storage, value, bytes)),
    }
}

/// Keep `value`, `bytes` big, in this thread's cache: on the fast path
/// ([`give`]) if it can, else through [`give_cached`].
#[inline(always)]
pub(crate) fn keep_here(storage: &Arc<Storage>, value: Moving<'_>, bytes: usize) {
    if let Err(value) = give(&storage.key, value, bytes) {
        give_cached(storage, value, bytes);
    }
}

/// Push the value in `value` onto the cache, counted, leaving `None`;
/// false (and the value left in `value`) if the cache is full, busy or has
/// requests pending.
#[inline(always)]
fn push(owner: &Owner<'_, Stack, Head>, value: &mut Option<Moving<'_>>, bytes: usize) -> bool {
    fast_put(owner, |held| {
        let v = value.take()?;
        let v = match held.push(v, bytes) {
            Ok(()) => return Some(Op::Put),
            Err(v) => v,
        };
        match held.push_hot(v, bytes) {
            Ok(()) => Some(Op::PutHot),
            Err(v) => {
                *value = Some(v);
                None
            }
        }
    })
}

/// A return that could not be pushed onto the cache: a key past the
/// table's mirror, a thread with no cache for the pool (it links one), or
/// a cache that is full, busy or has requests pending ([`spill`]).
#[cold]
#[inline(never)]
pub(crate) fn give_cached(storage: &Arc<Storage>, value: Moving<'_>, bytes: usize) {
    let mut value = Some(value);
    let linked = table::with(&storage.key, |owner| {
        if !push(&owner, &mut value, bytes) {
            if let Some(value) = value.take() {
                spill(&owner, value, bytes);
            }
        }
    });
    // Only a thread with no cache for the pool still has the value.
    if linked.is_none() {
        if let Some(value) = value.take() {
            give_without_cache(storage, value, bytes);
        }
    }
}

#[cold]
#[inline(never)]
fn spill(owner: &Owner<'_, Stack, Head>, value: Moving<'_>, bytes: usize) {
    let head = owner.head();
    head.counters.add_owned(Event::Put, 1);
    let cap = head.storage.limits.local_cap;
    let mut value = Some(value);
    let dead = owner.slow(|stack, _| {
        let mut stack = Settled::new(stack, head);
        let storage = &head.storage;
        let mut dead = storage.shards.dead();
        age(&mut stack, head, &mut dead);
        if stack.len() >= cap {
            // The oldest half leaves; an aged one joins the shards'
            // victims (`Shards::spill`).
            spill_oldest(storage, head.home, &mut stack, cap.div_ceil(2));
        }
        if let Some(v) = value.take() {
            if let Err(v) = stack.push(v, bytes) {
                value = Some(v);
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
    if let Some(value) = value {
        // The cache is busy (a return from inside a value's `Drop` during
        // one of its operations) or had no room: try the shards.
        keep_in_shards(&head.storage, value, bytes, &head.counters);
    }
}

/// The last resort of a return: a shard, else drop the value here. Its own
/// `Drop` may panic into the caller, as dropping it by hand would.
fn keep_in_shards(storage: &Storage, value: Moving<'_>, bytes: usize, counters: &Counters) {
    let kept = if storage.limits.chaos && crate::policy::chaos_drop() {
        Err(value)
    } else {
        storage
            .shards
            .push(home_shard(storage.shards.len()), value, bytes)
    };
    if let Err(value) = kept {
        counters.add_shared(Event::DroppedFull, 1);
        drop(value);
    }
}

#[cold]
fn give_without_cache(storage: &Arc<Storage>, value: Moving<'_>, bytes: usize) {
    if link(storage) {
        // The new cache is empty: straight to the slow path's push.
        return give_cached(storage, value, bytes);
    }
    give_shared(storage, value, bytes);
}

/// Keep a return in the shards, not in a thread cache: a thread without
/// one, or a value over [`LOCAL_CACHE_MAX_BYTES`](crate::LOCAL_CACHE_MAX_BYTES).
#[cold]
pub(crate) fn give_shared(storage: &Arc<Storage>, value: Moving<'_>, bytes: usize) {
    // Under chaos every return comes here (no thread caches): verify the
    // reset, as debug builds do in `Pool::put_from`, and count a dirty
    // value as they do, a `dropped_panic` and not a put.
    if storage.limits.chaos && (storage.is_reset.is_reset)(&value) == Some(false) {
        storage.count(Event::DroppedPanic, 1);
        drop(value);
        crate::reset::not_reset_named(storage.is_reset.type_name);
    }
    storage.count(Event::Put, 1);
    keep_in_shards(storage, value, bytes, &storage.counters);
}

/// Count an event on the calling thread's counters (or the pool's, when it
/// has no cache).
pub(crate) fn count(storage: &Arc<Storage>, event: Event) {
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
fn link(storage: &Arc<Storage>) -> bool {
    if storage.limits.local_cap == 0 || storage.is_closed() {
        return false;
    }
    let stack = Stack::new(storage);
    let head = Head::new(storage, &stack, home_shard(storage.shards.len()));
    let cache = Arc::new(Tenant::new(stack, head));
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
            age(
                &mut Settled::new(stack, owner.head()),
                owner.head(),
                &mut dead,
            );
            debug_assert!(dead.is_empty(), "a new cache holds nothing");
        })
    });
    true
}

crate::sync::thread_local_const! {
    /// A small number for this thread, to spread threads over the shards.
    static THREAD_INDEX: Cell<usize> = Cell::new(usize::MAX);
}

/// The home shard of the calling thread, among `shards`.
fn home_shard(shards: usize) -> usize {
    thread_index() % shards.max(1)
}

/// A number for the calling thread that no other thread has (fewer than
/// `usize::MAX` threads are ever started), or `usize::MAX` once the
/// thread's thread-locals are gone (which no cache has: a thread that
/// exits links none, `link`).
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
        .unwrap_or(usize::MAX)
}

/// Bring a thread cache to the pool's current generation, the thread tier's
/// part of the two-trim rule (`decay.rs`); what decayed goes to `dead`, for
/// the caller to drop after it lets go of the cache. Then take up the
/// values other threads handed back to it (`RawLease::hand_back`): listed
/// while the stack has room; at a decay step the rest go to the shards
/// (else they wait for the holder's next time).
///
/// Values taken up at a step count as idle across it, as those the stack
/// lists do: they came back before the step reached this cache, so before
/// it or while it ran, and a return that overlaps a trim may be ordered
/// before it. So the two-trim rule holds for them too: one handed back
/// before a trim is dropped at the next, and a clear drops it at once.
pub(crate) fn age(stack: &mut Held<'_>, head: &Head, dead: &mut Dead) {
    age_to(stack, head, dead, false);
}

/// [`age`], and with `flush` (a thread's exit) the values handed back that
/// the stack has no room for go to the shards whether or not a step
/// began.
#[inline]
fn age_to(stack: &mut Held<'_>, head: &Head, dead: &mut Dead, flush: bool) {
    let now = head.storage.generation.load(crate::sync::Ordering::Acquire);
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
    let back = stack.stack.ledger.take_handed();
    if !back.is_empty() {
        take_up(stack, head, dead, back, steps, flush);
    }
}

/// The end of [`age_to`] when values were handed back (`back`, their
/// slots), `steps` decay steps having just reached the stack: buried after
/// two or more; else listed while the stack has room, aged after one step,
/// and the rest moved to the shards after one step or with `flush`, or
/// kept handed back for the next time.
#[cold]
#[inline(never)]
fn take_up(
    stack: &mut Held<'_>,
    head: &Head,
    dead: &mut Dead,
    mut back: Back,
    steps: u64,
    flush: bool,
) {
    if steps >= 2 {
        return bury_handed(dead, stack, back);
    }
    while stack.list_handed(&mut back) {}
    let aged = steps == 1;
    if aged {
        // The whole list: the values it held were aged by the step.
        let n = stack.len();
        stack.age_oldest(n);
    }
    if !back.is_empty() && (aged || flush) {
        let storage = &head.storage;
        let generation = stack.generation();
        let n = back.len();
        let mut from = HandedOut {
            ledger: &mut stack.stack.ledger,
            back,
        };
        // Among a shard's victims if aged (`spill_oldest`).
        let expected = (&storage.generation, generation);
        let victims = if aged { n } else { 0 };
        storage
            .shards
            .spill(head.home, &mut from, (n, victims), expected);
        back = from.back;
    }
    stack.stack.ledger.rehand(back);
}

/// Move the values of `back` into `dead`.
fn bury_handed(dead: &mut Dead, stack: &mut Held<'_>, back: Back) {
    let mut from = HandedOut {
        ledger: &mut stack.stack.ledger,
        back,
    };
    bury_all(dead, &mut from);
}

/// Values handed back to a ledger's slots, taken out one by one (lowest
/// slot first) as a [`Source`].
struct HandedOut<'l> {
    ledger: &'l mut Ledger,
    /// The slots not taken out yet.
    back: Back,
}

impl Source for HandedOut<'_> {
    fn next_entry(&mut self) -> Option<(Moving<'_>, usize)> {
        self.ledger.handed_value(&mut self.back)
    }
}

/// Move the `n` oldest values of `stack` into `dead`.
fn bury(dead: &mut Dead, stack: &mut Held<'_>, n: usize) {
    bury_all(dead, &mut stack.oldest(n));
}

/// Move every value of `from` into `dead`.
fn bury_all(dead: &mut Dead, from: &mut impl Source) {
    while let Some((value, bytes)) = from.next_entry() {
        if let Err(value) = dead.push_moving(value, bytes) {
            // Never: `dead` came from `Shards::dead` of this storage, of
            // its kind. Forgotten, not dropped: the caller holds the
            // cache.
            core::mem::forget(value);
        }
    }
}

/// Move the `n` oldest values of `stack` into the shards of `storage`
/// (home shard first), if no decay step began since the stack was aged;
/// the aged ones among the shards' victims.
fn spill_oldest(storage: &Storage, home: usize, stack: &mut Held<'_>, n: usize) {
    let generation = stack.generation();
    let aged = stack.aged().min(n);
    storage.shards.spill(
        home,
        &mut stack.oldest(n),
        (n, aged),
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
    use crate::Pool;
    use crate::policy::{Limits, Mode, Policy};
    use crate::raw::erased::{Kind, fill_with};
    use crate::registry::tests::every_pool;
    use crate::tier::storage::{Check, is_reset};
    use core::mem::MaybeUninit;
    use std::panic::{AssertUnwindSafe, catch_unwind};

    /// The storage of a pool of `T`s under `limits`.
    fn storage<T: crate::Reset + Send + 'static>(limits: Limits, name: &str) -> Arc<Storage> {
        let check = Check {
            is_reset: is_reset::<T>,
            type_name: core::any::type_name::<T>(),
        };
        Arc::new(Storage::new(
            limits,
            name.into(),
            None,
            Kind::of::<T>(),
            check,
        ))
    }

    /// Push `value` onto `held`: whether it took it.
    fn push(held: &mut Held<'_>, value: u32, bytes: usize) -> bool {
        let mut place = MaybeUninit::uninit();
        held.push(Moving::new(&mut place, value), bytes).is_ok()
    }

    /// The next `n` oldest of `held`, with their sizes.
    fn oldest(held: &mut Held<'_>, n: usize, take: usize) -> Vec<(u32, usize)> {
        let mut oldest = held.oldest(n);
        let mut taken = Vec::new();
        for _ in 0..take {
            let Some((value, bytes)) = oldest.next_entry() else {
                break;
            };
            let value = fill_with::<u32, _>((), |(), out| assert!(out.fill(value).is_ok()));
            taken.push((value.expect("a `u32`"), bytes));
        }
        taken
    }

    /// Give `value` back as a thread without a cache does.
    fn give(storage: &Arc<Storage>, value: Vec<u8>, bytes: usize) {
        let mut place = MaybeUninit::uninit();
        give_without_cache(storage, Moving::new(&mut place, value), bytes);
    }

    /// A value leased from the calling thread's cache and returned on that
    /// thread goes back into the slot it left (module docs): it never
    /// moves, and the next get leases the same slot. A return that moved
    /// it out of its slot into another one passed every other test.
    #[test]
    fn a_value_returned_on_the_thread_that_leased_it_stays_in_its_slot() {
        let _every_pool = every_pool();
        let pool: Pool<Vec<u8>> = Pool::new();
        pool.put(Vec::new());
        let leased = |pool: &Pool<Vec<u8>>| {
            let hit = pool.get();
            core::ptr::from_ref::<Vec<u8>>(&hit) as usize
        };
        let first = leased(&pool);
        for round in 0..3 {
            assert_eq!(leased(&pool), first, "round {round}: the value moved");
        }
        let stats = pool.stats();
        assert_eq!((stats.misses, stats.retained), (0, 1), "{stats}");
    }

    /// A get that finds the thread's cache empty takes half a cache's worth
    /// from the shards at once (module docs, `refill`): one for the get,
    /// the rest kept in the cache for the gets after it.
    #[test]
    fn a_refill_takes_half_a_cache_from_the_shards() {
        let _every_pool = every_pool();
        let pool: Pool<Vec<u8>> = Pool::new();
        assert_eq!(pool.reserve(LOCAL_CACHE_SIZE), LOCAL_CACHE_SIZE);
        let got = pool.get();
        assert_eq!(pool.idle_shared(), LOCAL_CACHE_SIZE / 2);
        let stats = pool.stats();
        assert_eq!(
            (stats.misses, stats.retained),
            (0, LOCAL_CACHE_SIZE - 1),
            "{stats}"
        );
        drop(got);
    }

    /// A return to a full cache moves the oldest half of it to the shards
    /// and keeps the value returned, the newest, in the cache (`spill`):
    /// the next get hands it out first.
    #[test]
    fn a_return_to_a_full_cache_spills_its_oldest_half_to_the_shards() {
        let _every_pool = every_pool();
        let pool: Pool<Vec<u8>> = Pool::new();
        for _ in 0..LOCAL_CACHE_SIZE {
            pool.put(Vec::new());
        }
        assert_eq!(pool.idle_shared(), 0);
        pool.put(Vec::with_capacity(64));
        assert_eq!(pool.idle_shared(), LOCAL_CACHE_SIZE / 2);
        assert_eq!(pool.stats().retained, LOCAL_CACHE_SIZE + 1);
        assert_eq!(pool.get().capacity(), 64, "not the newest value");
    }

    /// With every slot of the cache leased, a refill hands the one value it
    /// takes straight to the get: a shard's victim taken so leaves the
    /// cache's aged prefix as it was, so the values leased since the last
    /// trim and returned after it survive the next one. (Aging the refilled
    /// victim there marked the oldest of them aged, and the next trim
    /// dropped it.)
    #[test]
    fn a_victim_refilled_into_a_leased_out_cache_ages_none_of_its_values() {
        let _every_pool = every_pool();
        let mut pool: Pool<Vec<u8>> = Pool::new().max_retained(64);
        pool.set_local_cache_size(4);
        pool.set_no_spare_slots();
        for _ in 0..4 {
            pool.put(Vec::new());
        }
        assert_eq!(pool.reserve(1), 1);
        // The shards' value becomes a victim, the cache's four are aged.
        pool.trim();
        // Each of the four leased in its slot, then the victim alone.
        let out: Vec<_> = (0..4).map(|_| pool.get()).collect();
        let fifth = pool.get();
        assert_eq!(pool.idle_shared(), 0);
        // No free slot for it: back to the shards, then the four to theirs.
        drop(fifth);
        drop(out);
        pool.trim();
        let stats = pool.stats();
        assert_eq!((stats.dropped_idle, stats.retained), (0, 5), "{stats}");
    }

    /// Threads are spread over the shards: each takes the next number of a
    /// process-wide count the first time it asks for its home shard, and
    /// keeps it; its home among `n` shards is that number modulo `n`.
    /// (Threads all at one home would all spill to and refill from one
    /// shard, under one lock.)
    #[test]
    fn each_thread_keeps_a_home_shard_of_its_own() {
        let homes = || {
            std::thread::spawn(|| {
                (
                    home_shard(usize::MAX),
                    home_shard(usize::MAX),
                    home_shard(4),
                )
            })
            .join()
            .unwrap()
        };
        let (first, again, among_four) = homes();
        assert_eq!(first, again, "a thread's home moved");
        assert_eq!(among_four, first % 4);
        let (second, _, _) = homes();
        assert_ne!(first, second, "two threads at one home");
    }

    /// The sizes `stats()` sums follow their values: through pushes, pops,
    /// and the oldest leaving with the rest moving to the front.
    #[test]
    fn retained_sizes_follow_their_values() {
        let storage = storage::<u32>(Limits::resolve(Policy::DEFAULT, 2, 24), "sizes");
        let mut stack = Stack::new(&storage);
        let head = Head::new(&storage, &stack, 0);
        let mut held = Held::new(&mut stack, &head);
        for (value, bytes) in [(1, 10), (2, 20), (3, 30), (4, 40)] {
            assert!(push(&mut held, value, bytes));
        }
        assert_eq!(head.retained.listed(), (4, 100));
        let out = fill_with::<u32, _>((), |(), out| assert!(held.pop_into(out)));
        assert_eq!(out, Some(4));
        assert_eq!(head.retained.listed(), (3, 60));

        // None of the oldest is taken (the shards had no room): every
        // size stays where it was.
        assert_eq!(oldest(&mut held, 2, 0), []);
        assert_eq!(head.retained.listed(), (3, 60));
        // One of the two oldest is taken, then the iterator is dropped.
        assert_eq!(oldest(&mut held, 2, 1), [(1, 10)]);
        assert_eq!(head.retained.listed(), (2, 50));
        assert!(push(&mut held, 5, 50));
        assert_eq!(head.retained.listed(), (3, 100));
        assert_eq!(oldest(&mut held, 3, 3), [(2, 20), (3, 30), (5, 50)]);
        assert_eq!(head.retained.listed(), (0, 0));
    }

    /// A dirty return under `POOLABLE=chaos` (no thread caches: every
    /// return comes through `give_without_cache`) is counted once, as a
    /// `dropped_panic` and not also as a put, as the debug-build check in
    /// `Pool::put_from` counts it: the books stay balanced and the other
    /// guard out stays held. It was counted as both.
    #[test]
    fn under_chaos_a_dirty_return_is_counted_once() {
        let limits = Limits::resolve(Policy::DEFAULT, 2, 24).with_mode(Mode::Chaos);
        let storage = storage::<Vec<u8>>(limits, "chaos");
        // Two guards out; one comes back dirty.
        for _ in 0..2 {
            storage.count(Event::Get, 1);
            storage.count(Event::Miss, 1);
        }
        let returned = catch_unwind(AssertUnwindSafe(|| give(&storage, vec![1_u8], 25)));
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
        let storage = storage::<Vec<u8>>(limits, "chaos");
        let kept = catch_unwind(AssertUnwindSafe(|| give(&storage, vec![1_u8], 25)));
        let message = kept.expect_err("a dirty return is reported");
        let message = message
            .downcast_ref::<String>()
            .expect("a formatted message");
        assert!(message.contains("alloc::vec::Vec<u8>` came back to its pool still holding state"));
        let stats = storage.stats();
        assert_eq!((stats.dropped_panic, stats.retained), (1, 0));

        // A clean one is kept, or dropped at random by chaos: never reported.
        for _ in 0..100 {
            give(&storage, Vec::new(), 24);
        }
        assert_eq!(storage.stats().dropped_panic, 1);
    }
}
