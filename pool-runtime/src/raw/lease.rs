//! Leases: a thread cache's idle values live in slots of their own, and a
//! get hands out the slot itself ([`Lease`]) instead of moving the value
//! into the guard. A return on the owner's thread lists the slot again
//! ([`Ledger::restore`]) and the value never moves: no copy out and back,
//! and no store-forwarding stall when a reset has just written the value's
//! fields with narrower stores than the copy's loads.
//!
//! The slots ([`Slots`]: a header and the cells) are owned by the cache's
//! [`Ledger`], which its holder (the owner thread, or a reclaimer under the
//! owner protocol of `owned.rs`) keeps in the cache's state. A slot is, at
//! any time, exactly one of:
//!
//! - **free**: it holds no value, and only the holder touches it;
//! - **idle**: it holds a value the cache keeps, listed in the ledger (or
//!   kept in its hot slot, [`Ledger::take_hot`]), and only the holder
//!   touches it;
//! - **leased**: it holds the value of one live [`Lease`], and only that
//!   lease touches it. Leases are `Send`: a guard can be dropped on another
//!   thread, or after its own thread has exited.
//!
//! A lease dropped on another thread is **handed back** as a rule
//! ([`RawLease::hand_back`]): its value stays in its slot, reset, and the
//! slot's bit is set in the cache's [`Handed`] mask (a release); the holder
//! takes those slots up when it next leaves the fast path
//! ([`Ledger::take_handed`], an acquire). So a value taken on one thread and
//! returned on another goes home without a copy, and the thread that gets
//! finds it there, not in the shards. A cache takes none back once it is
//! closed: then, and for any other lease that cannot be listed again (the
//! owner busy, the cache full), the value leaves its slot, which is
//! emptied, and the slot's bit is set in `returned` (a release); the holder
//! turns returned bits into free slots when it needs one (`collect`, an
//! acquire). When the ledger is dropped (its thread
//! exited, its pool closed) while leases are out, it sets `ORPHAN` and hands
//! the allocation to them: whichever lease's return completes the set of
//! leases out at that moment frees it. The two sides agree through one
//! read-modify-write each on `returned`, so exactly one of them frees it
//! (the loom model `a_lease_returned_as_its_cache_goes`).

use super::erased::{Kind, Moving, Out};
use crate::sync::{Arc, AtomicU64, AtomicUsize, Ordering};
use core::alloc::Layout;
use core::any::TypeId;
use core::marker::PhantomData;
use core::mem::{ManuallyDrop, MaybeUninit};
use core::ptr::NonNull;

/// The most idle values a ledger lists (`LOCAL_CACHE_SIZE`; `tier/thread.rs`
/// checks the two are equal).
pub(crate) const IDLE: usize = 8;

/// The fewest slots of a cache that leases: twice its idle values, so that
/// a burst of gets that drains the cache can still take refills into free
/// slots while the first values are leased out.
const MIN_SLOTS: usize = 2 * IDLE;

/// The most: a bit each in a `u64`, beside `ORPHAN`.
const MAX_SLOTS: usize = 63;

/// Slots per thread cache for values of `size` bytes: as many as fit in
/// 2 KiB, within the two bounds. A burst holds that many values out (and
/// refills in batches) before a get takes the shards' lock alone. None for
/// a zero-sized type, whose slots would all have one address.
pub(crate) fn slots_for(size: usize) -> usize {
    if size == 0 {
        return 0;
    }
    (2048 / size).clamp(MIN_SLOTS, MAX_SLOTS)
}

/// The hot slot holds no value.
const EMPTY: *mut u8 = core::ptr::null_mut();

/// The hot slot holds no value, and the list is at the cap, so a return
/// may not put one there (no cell has this address: a cell is at least at
/// its allocation's, or dangling for a zero-sized kind, which has none).
const BLOCKED: *mut u8 = core::ptr::without_provenance_mut(1);

/// Set in `returned` when the ledger is gone and the leases own the slots.
const ORPHAN: u64 = 1 << 63;

/// Set in a [`Handed`] mask when its cache takes no more values back.
const CLOSED: u64 = 1 << 63;

/// The values other threads handed back to one cache's slots, reset and in
/// place, not yet listed again ([`RawLease::hand_back`]): shared by the
/// slots, which the leases reach, and the cache's head, which statistics
/// read.
pub(crate) struct Handed {
    /// Their slots' bits, and [`CLOSED`].
    mask: AtomicU64,
    /// The size each one came back with, stored before its bit is set.
    bytes: [AtomicUsize; MAX_SLOTS],
}

impl Handed {
    fn new() -> Arc<Handed> {
        Arc::new(Handed {
            mask: AtomicU64::new(0),
            bytes: core::array::from_fn(|_| AtomicUsize::new(0)),
        })
    }

    /// Whether it holds no value (a hint: one may be handed back at once).
    pub(crate) fn is_clear(&self) -> bool {
        self.mask.load(Ordering::Relaxed) & !CLOSED == 0
    }

    /// How many values it holds and their bytes: a snapshot, for
    /// statistics.
    pub(crate) fn held(&self) -> (usize, usize) {
        let mut mask = self.mask.load(Ordering::Acquire) & !CLOSED;
        let (n, mut bytes) = (mask.count_ones() as usize, 0usize);
        while mask != 0 {
            let index = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            bytes = bytes.saturating_add(self.bytes[index].load(Ordering::Relaxed));
        }
        (n, bytes)
    }
}

/// Slots handed back that the holder took ([`Ledger::take_handed`]): each
/// holds a value until it is listed ([`Ledger::list_handed`]), taken out
/// ([`Ledger::handed_value`]) or handed back again ([`Ledger::rehand`]),
/// lowest slot first. Only its own ledger reads it.
#[must_use]
pub(crate) struct Back {
    slots: NonNull<Slots>,
    mask: u64,
}

impl Back {
    /// Whether every slot is dealt with.
    pub(crate) fn is_empty(&self) -> bool {
        self.mask == 0
    }

    /// How many slots are left.
    pub(crate) fn len(&self) -> usize {
        self.mask.count_ones() as usize
    }

    /// The lowest slot left, no longer in it.
    fn pop(&mut self) -> Option<usize> {
        if self.mask == 0 {
            return None;
        }
        let index = self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(index)
    }
}

/// `size` as a shift and a multiplier that divide its multiples by it
/// ([`Slots::index_of`]): `size` is `odd << shift`, and the multiplier is
/// the inverse of `odd` modulo 2^`usize::BITS`, so that `(size * i >> shift)
/// * inverse == i`, wrapping. (Zero, which has no slots: a shift of 0 and 1.)
fn divider(size: usize) -> (u32, usize) {
    if size == 0 {
        return (0, 1);
    }
    let shift = size.trailing_zeros();
    let odd = size >> shift;
    // Newton's iteration: each step doubles the low bits that are right,
    // and an odd number is its own inverse to 3 bits.
    let mut inverse = odd;
    let mut bits = 3;
    while bits < usize::BITS {
        inverse = inverse.wrapping_mul(2usize.wrapping_sub(odd.wrapping_mul(inverse)));
        bits *= 2;
    }
    (shift, inverse)
}

/// Slot allocations alive, for the loom models (`__private::live_slots`).
#[cfg(poolable_loom)]
pub(crate) static LIVE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

// Everything below is written without the value type, so that a debug
// build compiles it once, not once per pooled type: the slots are bytes,
// `size` bytes each, of one [`Kind`], and only [`Lease<T>`] (made once the
// kind is checked to be `T`'s) reads and writes them as `T`.

/// The slots of one thread cache (module docs): the cells, and what the
/// ledger and its leases share. A cell holds a value only while its slot is
/// idle or leased: freeing the slots drops none.
struct Slots {
    /// Slots emptied by a lease that was not listed again, and `ORPHAN`.
    returned: AtomicU64,
    /// The leases out when the ledger was dropped (valid once `ORPHAN` is
    /// set, which is released after it).
    orphaned: AtomicU64,
    /// `count` cells of `size` bytes (`layout`), an allocation of their
    /// own: this one's address is no cell's (the list's mark for an
    /// unlisted position).
    cells: NonNull<u8>,
    layout: Layout,
    /// The values' kind: `size` bytes each.
    kind: Kind,
    size: usize,
    /// `size` as `odd << shift`, and the inverse of `odd` modulo 2^64:
    /// [`index_of`](Self::index_of) divides by `size` with a shift and a
    /// multiply, not a division (one per value spilled or released).
    shift: u32,
    inverse: usize,
    /// Values handed back to their slots.
    handed: Arc<Handed>,
    /// The ledger's thread ([`RawLease::hand_back`]'s `here`).
    thread: usize,
}

impl Slots {
    /// Allocate the cells of `layout`, for values of `kind` (zero bytes:
    /// no allocation).
    fn new(layout: Layout, kind: Kind, thread: usize) -> NonNull<Slots> {
        let cells = if layout.size() == 0 {
            NonNull::<u8>::dangling()
        } else {
            // SAFETY: the layout's size is not 0.
            match NonNull::new(unsafe { std::alloc::alloc(layout) }) {
                Some(cells) => cells,
                None => std::alloc::handle_alloc_error(layout),
            }
        };
        #[cfg(poolable_loom)]
        LIVE.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let (shift, inverse) = divider(kind.size());
        NonNull::from(Box::leak(Box::new(Slots {
            returned: AtomicU64::new(0),
            orphaned: AtomicU64::new(0),
            cells,
            layout,
            kind,
            size: kind.size(),
            shift,
            inverse,
            handed: Handed::new(),
            thread,
        })))
    }

    /// Free the allocation at `slots`.
    ///
    /// # Safety
    ///
    /// No ledger or lease uses it any more, and its cells hold no value.
    unsafe fn free(slots: NonNull<Slots>) {
        #[cfg(poolable_loom)]
        LIVE.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
        // SAFETY: the caller's; it came from `Box::leak` in `new`.
        let slots = unsafe { Box::from_raw(slots.as_ptr()) };
        if slots.layout.size() != 0 {
            // SAFETY: allocated in `new` with this layout.
            unsafe { std::alloc::dealloc(slots.cells.as_ptr(), slots.layout) };
        }
    }

    /// The cell of slot `index` (below the count).
    fn cell(&self, index: usize) -> NonNull<u8> {
        // SAFETY: within the cells' allocation, or dangling for zero bytes.
        unsafe { self.cells.add(index * self.size) }
    }

    /// The index of the slot whose cell `cell` is: its offset divided by
    /// `size`, which divides it exactly, so a shift and a multiply by the
    /// inverse give the quotient.
    fn index_of(&self, cell: NonNull<u8>) -> usize {
        let offset = cell.as_ptr().addr() - self.cells.as_ptr().addr();
        (offset >> self.shift).wrapping_mul(self.inverse)
    }

    /// Return slot `cell`, which holds no value now (module docs).
    ///
    /// # Safety
    ///
    /// `cell` is one of `slots`' cells, leased out and now empty, and the
    /// caller does not touch it again.
    unsafe fn release(slots: NonNull<Slots>, cell: NonNull<u8>) {
        // SAFETY: the allocation lives until this return.
        let this = unsafe { slots.as_ref() };
        let bit = 1u64 << this.index_of(cell);
        // AcqRel: releases the emptied slot to the ledger (or to the lease
        // that frees the slots), and acquires `orphaned`.
        let before = this.returned.fetch_or(bit, Ordering::AcqRel);
        if before & ORPHAN != 0 {
            let out = this.orphaned.load(Ordering::Relaxed);
            if out & !(before | bit) == 0 {
                // SAFETY: the ledger is gone and every lease it left out is
                // returned: this was the last user of the allocation.
                unsafe { Slots::free(slots) };
            }
        }
    }
}

/// A ledger's bookkeeping, which needs no `T` (see [`Ledger`]).
struct List {
    /// The idle slots' cells, oldest first, then `none`.
    order: [NonNull<u8>; IDLE],
    slots: NonNull<Slots>,
    /// Free slots, to the holder's knowledge.
    free: u64,
    /// Every slot's bit.
    all: u64,
    /// The hot slot: the cell of one more idle value, kept apart from
    /// `order`; else null ([`EMPTY`]) or [`BLOCKED`] (see
    /// [`Ledger::take_hot`]).
    hot: *mut u8,
}

impl List {
    /// A list of `count` slots (at most 63) for values of `kind`; none for
    /// a zero-sized value, or if their layout overflows.
    fn new(count: usize, kind: Kind, thread: usize) -> List {
        let (size, align) = (kind.size(), kind.align());
        let count = if size == 0 { 0 } else { count.min(MAX_SLOTS) };
        let layout = size
            .checked_mul(count)
            .and_then(|bytes| Layout::from_size_align(bytes, align).ok());
        let (count, layout) = match layout {
            Some(layout) => (count, layout),
            None => (0, Layout::new::<()>()),
        };
        let slots = Slots::new(layout, kind, thread);
        let all = (1 << count) - 1;
        List {
            order: [slots.cast(); IDLE],
            hot: EMPTY,
            slots,
            free: all,
            all,
        }
    }

    /// The hot slot's cell, if it holds a value (neither [`EMPTY`] nor
    /// [`BLOCKED`]).
    #[inline(always)]
    fn hot_cell(&self) -> Option<NonNull<u8>> {
        let hot = self.hot;
        if hot.addr() <= BLOCKED.addr() {
            return None;
        }
        NonNull::new(hot)
    }

    /// What a position past the list holds: no cell's address.
    #[inline(always)]
    fn none(&self) -> NonNull<u8> {
        self.slots.cast()
    }

    #[inline(always)]
    fn slots(&self) -> &Slots {
        // SAFETY: the allocation lives while its ledger does (it is freed by
        // the ledger's drop, or after it by the last lease).
        unsafe { self.slots.as_ref() }
    }

    /// Turn the slots that leases emptied since the last call into free
    /// ones.
    fn collect(&mut self) {
        let slots = self.slots();
        if slots.returned.load(Ordering::Relaxed) != 0 {
            // Acquire: the lease's emptying of its slot happened before.
            self.free |= slots.returned.swap(0, Ordering::Acquire) & !ORPHAN;
        }
    }

    /// Unlist the newest idle slot: its position and cell.
    #[inline(always)]
    fn pop(&mut self, len: &AtomicUsize) -> Option<(usize, NonNull<u8>)> {
        // An empty list wraps to `usize::MAX`, which the bounds check turns
        // away: one compare for both.
        let i = len.load(Ordering::Relaxed).wrapping_sub(1);
        let none = self.none();
        let at = self.order.get_mut(i)?;
        let cell = *at;
        *at = none;
        len.store(i, Ordering::Relaxed);
        Some((i, cell))
    }

    /// List `cell`, a slot of `slots` leased out, as the newest idle one,
    /// unless `len` is at `cap` or the slot is another list's. Its position.
    #[inline(always)]
    fn restore(
        &mut self,
        cell: NonNull<u8>,
        slots: NonNull<Slots>,
        len: &AtomicUsize,
        cap: usize,
    ) -> Option<usize> {
        let i = len.load(Ordering::Relaxed);
        if i >= cap || slots != self.slots {
            return None;
        }
        let at = self.order.get_mut(i)?;
        *at = cell;
        len.store(i + 1, Ordering::Relaxed);
        Some(i)
    }

    /// A free slot for a value to list at position `len`, unless `len` is
    /// at `cap`: its cell, no longer free. The caller writes the value and
    /// then calls [`listed`](Self::listed).
    fn vacant(&mut self, len: &AtomicUsize, cap: usize) -> Option<NonNull<u8>> {
        if len.load(Ordering::Relaxed) >= cap.min(IDLE) {
            return None;
        }
        self.free_cell()
    }

    /// A free slot's cell, no longer free.
    fn free_cell(&mut self) -> Option<NonNull<u8>> {
        if self.free == 0 {
            self.collect();
        }
        if self.free == 0 {
            return None;
        }
        let index = self.free.trailing_zeros() as usize;
        self.free &= !(1u64 << index);
        Some(self.slots().cell(index))
    }

    /// List `cell` (from [`vacant`](Self::vacant), now holding a value).
    fn listed(&mut self, cell: NonNull<u8>, len: &AtomicUsize) -> usize {
        let i = len.load(Ordering::Relaxed);
        self.order[i] = cell;
        len.store(i + 1, Ordering::Relaxed);
        i
    }

    /// Mark `cell`'s slot free: the caller moves its value out.
    fn free(&mut self, cell: NonNull<u8>) {
        self.free |= 1u64 << self.slots().index_of(cell);
    }

    /// Unlist the first `taken` positions of the `len` listed: the rest
    /// move to the front.
    fn unlist_front(&mut self, taken: usize, len: &AtomicUsize) {
        let n = len.load(Ordering::Relaxed).min(IDLE);
        let taken = taken.min(n);
        self.order.copy_within(taken..n, 0);
        let none = self.none();
        for at in &mut self.order[n - taken..n] {
            *at = none;
        }
        len.store(n - taken, Ordering::Relaxed);
    }

    /// Give up the slots (the ledger is dropped, its idle values gone, and
    /// its handed-back ones, once it took no more: [`Ledger::close_handed`]):
    /// free them, or, with leases out, hand them to the leases.
    fn close(&mut self) {
        self.collect();
        let out = self.all & !self.free;
        if out != 0 {
            let slots = self.slots();
            slots.orphaned.store(out, Ordering::Relaxed);
            // AcqRel: releases `orphaned` to the lease that frees the
            // slots, and acquires the returns that came before.
            let before = slots.returned.fetch_or(ORPHAN, Ordering::AcqRel);
            if out & !before != 0 {
                return;
            }
        }
        // SAFETY: no lease is out and no slot holds a value: the allocation
        // is the ledger's alone.
        unsafe { Slots::free(self.slots) };
    }
}

/// The holder's view of a thread cache's slots, which it owns, and the
/// list of its idle values, oldest first (a stack: the newest is the next
/// get's).
///
/// The list's length is the caller's counter (`len` of each method), which
/// statistics read from other threads; it is only changed here. Every
/// position past it holds the allocation's own address (`none`), so the
/// list alone tells which slots are idle: `order[..len]` lists distinct
/// idle slots, and no other slot.
pub(crate) struct Ledger {
    list: List,
}

// SAFETY: a ledger owns its idle slots' values, of a `Kind`, whose type is
// `Send` (`Kind::of`), and shares the allocation only with leases, through
// atomics and disjoint slots.
unsafe impl Send for Ledger {}

/// One leased slot, its value's type not named: what the thread tier hands
/// out and takes back. A [`Lease`] once its kind is checked.
pub(crate) struct RawLease {
    cell: NonNull<u8>,
    slots: NonNull<Slots>,
}

// SAFETY: a lease is the only way to its slot (module docs), like an owned
// value of its kind, whose type is `Send` (`Kind::of`); the allocation it
// points to lives until every lease is returned.
unsafe impl Send for RawLease {}

/// One leased slot holding a `T`: the value a guard holds, in place.
pub struct Lease<T> {
    raw: RawLease,
    _value: PhantomData<T>,
}

// SAFETY: as `RawLease`, for `T: Send`; shared (`Sync`), `&Lease<T>` gives
// only `&T`.
unsafe impl<T: Send> Send for Lease<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for Lease<T> {}

impl Ledger {
    /// A ledger of `n` slots (at most 63; none for a zero-sized kind) for
    /// values of `kind`, every one free, on thread `thread` (a number no
    /// other live thread has: [`RawLease::hand_back`]).
    pub(crate) fn new(n: usize, kind: Kind, thread: usize) -> Self {
        Ledger {
            list: List::new(n, kind, thread),
        }
    }

    /// Take up the slots other threads handed back since the last call
    /// (see [`Back`]).
    #[inline]
    pub(crate) fn take_handed(&mut self) -> Back {
        let handed = &self.list.slots().handed.mask;
        let mask = if handed.load(Ordering::Relaxed) & !CLOSED == 0 {
            0
        } else {
            // Acquire: the leases' resets of the values, and their sizes,
            // happened before. Only the ledger sets `CLOSED`, and keeps it.
            handed.fetch_and(CLOSED, Ordering::Acquire) & !CLOSED
        };
        self.back(mask)
    }

    /// Take no more values back. The ones handed back until now stay, for
    /// [`take_handed`](Self::take_handed).
    pub(crate) fn close_handed(&mut self) {
        // Relaxed: a hand-back's compare-and-swap sees it in the mask's own
        // order of changes, and finds it or comes before it.
        let handed = &self.list.slots().handed.mask;
        handed.fetch_or(CLOSED, Ordering::Relaxed);
    }

    fn back(&self, mask: u64) -> Back {
        Back {
            slots: self.list.slots,
            mask,
        }
    }

    /// Hand the slots left in `back` back again, for later.
    pub(crate) fn rehand(&mut self, back: Back) {
        if back.slots == self.list.slots && back.mask != 0 {
            // Release: as a lease's hand-back (the sizes are still stored).
            let handed = &self.list.slots().handed.mask;
            handed.fetch_or(back.mask & !CLOSED, Ordering::Release);
        }
    }

    /// List the value of `back`'s lowest slot as the newest idle one,
    /// unless `len` is at `cap`: its position and the size it came back
    /// with. `None` (and nothing taken from `back`) if there is no room or
    /// no slot left.
    pub(crate) fn list_handed(
        &mut self,
        back: &mut Back,
        len: &AtomicUsize,
        cap: usize,
    ) -> Option<(usize, usize)> {
        if back.slots != self.list.slots || len.load(Ordering::Relaxed) >= cap.min(IDLE) {
            return None;
        }
        let index = back.pop()?;
        let cell = self.list.slots().cell(index);
        Some((self.list.listed(cell, len), self.handed_bytes(index)))
    }

    /// The value of `back`'s lowest slot, owned by the caller, and the
    /// size it came back with; the slot is free.
    pub(crate) fn handed_value(&mut self, back: &mut Back) -> Option<(Moving<'_>, usize)> {
        if back.slots != self.list.slots {
            return None;
        }
        let index = back.pop()?;
        let bytes = self.handed_bytes(index);
        let cell = self.list.slots().cell(index);
        // Handed back and taken up: it holds a value of the kind, which
        // only the holder touches now, as an idle slot's.
        Some((self.take_cell(cell), bytes))
    }

    /// The size the value handed back to slot `index` came with.
    fn handed_bytes(&self, index: usize) -> usize {
        let bytes = &self.list.slots().handed.bytes;
        bytes.get(index).map_or(0, |b| b.load(Ordering::Relaxed))
    }

    /// What [`Handed::held`] reads.
    pub(crate) fn handed(&self) -> &Arc<Handed> {
        &self.list.slots().handed
    }

    /// The kind of the values.
    fn kind(&self) -> Kind {
        self.list.slots().kind
    }

    /// How many slots are free.
    pub(crate) fn free_slots(&mut self) -> usize {
        self.list.collect();
        self.list.free.count_ones() as usize
    }

    /// Lease the newest idle value out, with its position; `None` if there
    /// is none.
    #[inline(always)]
    pub(crate) fn pop(&mut self, len: &AtomicUsize) -> Option<(usize, RawLease)> {
        match self.list.pop(len) {
            Some((i, cell)) => Some((
                // Below the cap now: a return may use the hot slot again.
                self.unblock(i),
                RawLease {
                    cell,
                    slots: self.list.slots,
                },
            )),
            None => None,
        }
    }

    /// List `lease`'s slot as the newest idle value, its value in place,
    /// unless `len` is at `cap`. Its position; `None` (and `lease` left as
    /// it was) if there is no room or it is another ledger's lease.
    #[inline(always)]
    pub(crate) fn restore(
        &mut self,
        lease: &mut Option<RawLease>,
        len: &AtomicUsize,
        cap: usize,
    ) -> Option<usize> {
        let Some(l) = lease else {
            return None;
        };
        let i = self.list.restore(l.cell, l.slots, len, cap);
        if i.is_some() {
            // The slot is idle again, its value in place: the lease goes
            // without its `Drop`, which would drop the value.
            core::mem::forget(lease.take());
        }
        i
    }

    /// Lease the hot slot's value out, if it holds one.
    ///
    /// The hot slot is one idle value kept apart from the list, for the
    /// owner's fast path: a get that finds it leases it with one load and
    /// one store, and a return to an empty one puts it back with one
    /// compare and one store, where the list's pop and restore move its
    /// length and an entry each (6.1 ns against 7.0 per get + push + drop,
    /// `benches/paired.rs`). A get takes from it first, and the return of
    /// a lease of this ledger fills it whenever it is empty, so in a
    /// steady get-and-return it serves every operation; it need not hold
    /// the newest value. A value moved in (another ledger's lease, a value
    /// held inline) takes it only when the fast path's list is full
    /// ([`fill_hot`](Self::fill_hot)), so the cache fills to its cap there
    /// too.
    ///
    /// The holder keeps this rule: **when the hot slot is empty, the list
    /// is below the cap**, so a return that fills it never goes past the
    /// cap, and checks nothing but that it is empty. The owner's fast path
    /// lists at most one value fewer than the cap; off the fast path, the
    /// holder lists the hot value ([`unhot`](Self::unhot)), works with
    /// one list under the cap, and then [`settle_hot`](Self::settle_hot)s
    /// (which blocks the hot slot if the list is at the cap: a pop
    /// unblocks it).
    #[inline(always)]
    pub(crate) fn take_hot(&mut self) -> Option<RawLease> {
        let cell = self.list.hot_cell()?;
        self.list.hot = EMPTY;
        Some(RawLease {
            cell,
            slots: self.list.slots,
        })
    }

    /// Keep `lease`'s slot as the hot one, its value in place, if the hot
    /// slot is empty (not blocked) and the lease is this ledger's; whether
    /// it did (then `lease` is `None`).
    #[inline(always)]
    pub(crate) fn put_hot(&mut self, lease: &mut Option<RawLease>) -> bool {
        let Some(l) = lease else {
            return false;
        };
        if !self.list.hot.is_null() || l.slots != self.list.slots {
            return false;
        }
        self.list.hot = l.cell.as_ptr();
        // The slot is idle again, its value in place: the lease goes
        // without its `Drop`, which would drop the value.
        core::mem::forget(lease.take());
        true
    }

    /// The hot slot's value listed as the newest idle one, and the slot
    /// emptied (also if it was blocked): its position in the list, if it
    /// held one. (Values listed while it was full came back after it: they
    /// now count as older by one place, which only changes which of the
    /// values idle since the same trim a spill takes first.)
    pub(crate) fn unhot(&mut self, len: &AtomicUsize) -> Option<usize> {
        let cell = self.list.hot_cell();
        // A hot value means the list is below the cap (`take_hot`), which
        // is at most `IDLE`: there is a position for it.
        if cell.is_some() && len.load(Ordering::Relaxed) >= IDLE {
            return None;
        }
        self.list.hot = EMPTY;
        Some(self.list.listed(cell?, len))
    }

    /// The end of a holder's work off the fast path: block the (empty) hot
    /// slot if the list is at `cap`.
    pub(crate) fn settle_hot(&mut self, len: &AtomicUsize, cap: usize) {
        if self.list.hot.is_null() && len.load(Ordering::Relaxed) >= cap.min(IDLE) {
            self.list.hot = BLOCKED;
        }
    }

    /// After a pop of position `i`: the list is below the cap, so the hot
    /// slot is no longer blocked. `i`.
    #[inline(always)]
    fn unblock(&mut self, i: usize) -> usize {
        if self.list.hot == BLOCKED {
            self.list.hot = EMPTY;
        }
        i
    }

    /// Move `value` into a free slot kept as the hot one, if the hot slot
    /// is empty (not blocked, so the list is below the cap: `take_hot`);
    /// the value given back if it is not, there is no free slot, or it is
    /// of another kind.
    pub(crate) fn fill_hot<'v>(&mut self, value: Moving<'v>) -> Result<(), Moving<'v>> {
        if !self.list.hot.is_null() || value.kind().id() != self.kind().id() {
            return Err(value);
        }
        let Some(cell) = self.list.free_cell() else {
            return Err(value);
        };
        // SAFETY: a free cell holds no value, and only the holder, `&mut
        // self`, touches it; it is a cell of the value's kind.
        unsafe { value.move_to(cell) };
        self.list.hot = cell.as_ptr();
        Ok(())
    }

    /// Move `value` into a free slot, listed as the newest idle value,
    /// unless `len` is at `cap`. Its position; the value given back if
    /// there is no room, no free slot, or it is of another kind.
    pub(crate) fn fill<'v>(
        &mut self,
        value: Moving<'v>,
        len: &AtomicUsize,
        cap: usize,
    ) -> Result<usize, Moving<'v>> {
        if value.kind().id() != self.kind().id() {
            return Err(value);
        }
        let Some(cell) = self.list.vacant(len, cap) else {
            return Err(value);
        };
        // SAFETY: a vacant slot is free (it holds no value, and only the
        // holder, `&mut self`, touches it), a cell of the value's kind.
        unsafe { value.move_to(cell) };
        Ok(self.list.listed(cell, len))
    }

    /// The value of `cell`, an idle slot's, owned by the caller; the slot
    /// is free.
    ///
    /// The caller unlists `cell` before the list is used again, and is
    /// done with the value before then (the borrow of `self`).
    fn take_cell(&mut self, cell: NonNull<u8>) -> Moving<'_> {
        self.list.free(cell);
        // SAFETY: listed idle: it holds a value of the kind, which only the
        // holder touches; the slot is free now, and no value goes into it
        // while the `Moving` borrows the ledger.
        unsafe { Moving::at(cell, self.kind()) }
    }

    /// Move the newest idle value into `out`, freeing its slot: its
    /// position; `None` (and nothing moved) if there is none, or `out` is
    /// filled or of another type.
    pub(crate) fn take_newest(&mut self, len: &AtomicUsize, out: &mut Out<'_>) -> Option<usize> {
        if !out.accepts(&self.kind()) {
            return None;
        }
        // Unlisted by `pop`.
        let (i, cell) = self.list.pop(len)?;
        if let Err(value) = out.fill(self.take_cell(cell)) {
            // Never: accepted above. Forgotten, not dropped: the caller
            // may hold the cache's lock, under which no user code runs.
            core::mem::forget(value);
        }
        Some(i)
    }

    /// The values of the `n` oldest idle slots, moved out in order, freeing
    /// the slots, as [`Oldest::next`] is called; the later ones move to
    /// the front when it is dropped.
    pub(crate) fn oldest<'l>(&'l mut self, n: usize, len: &'l AtomicUsize) -> Oldest<'l> {
        let limit = n.min(len.load(Ordering::Relaxed)).min(IDLE);
        Oldest {
            ledger: self,
            len,
            taken: 0,
            limit,
        }
    }
}

/// See [`Ledger::oldest`].
pub(crate) struct Oldest<'l> {
    ledger: &'l mut Ledger,
    len: &'l AtomicUsize,
    taken: usize,
    limit: usize,
}

impl Oldest<'_> {
    /// The list's length before the values taken leave it.
    pub(crate) fn len(&self) -> usize {
        self.len.load(Ordering::Relaxed).min(IDLE)
    }

    /// The next oldest value, owned by the caller; `None` after the `n`
    /// asked for.
    pub(crate) fn next(&mut self) -> Option<Moving<'_>> {
        if self.taken == self.limit {
            return None;
        }
        // Listed until `drop` unlists it, and taken once (`taken` only
        // grows).
        let cell = self.ledger.list.order[self.taken];
        self.taken += 1;
        Some(self.ledger.take_cell(cell))
    }
}

impl Drop for Oldest<'_> {
    fn drop(&mut self) {
        self.ledger.list.unlist_front(self.taken, self.len);
    }
}

impl Drop for Ledger {
    /// Drop the idle values and free the slots, or, with leases out, hand
    /// the slots to them (module docs).
    fn drop(&mut self) {
        if let Some(cell) = self.list.hot_cell() {
            self.list.hot = EMPTY;
            drop(self.take_cell(cell));
        }
        let none = self.list.none();
        for at in 0..IDLE {
            let cell = core::mem::replace(&mut self.list.order[at], none);
            if cell != none {
                // Unlisted first: the value's `Drop` may panic.
                drop(self.take_cell(cell));
            }
        }
        self.close_handed();
        let mut back = self.take_handed();
        while let Some((value, _)) = self.handed_value(&mut back) {
            drop(value);
        }
        self.list.close();
    }
}

impl RawLease {
    /// The lease as one of a `T`, if its value is one (else it is dropped,
    /// with its value).
    #[inline(always)]
    pub(crate) fn typed<T: 'static>(self) -> Option<Lease<T>> {
        // SAFETY: the allocation lives while a lease does.
        if unsafe { self.slots.as_ref() }.kind.id() == TypeId::of::<T>() {
            Some(Lease {
                raw: self,
                _value: PhantomData,
            })
        } else {
            self.discard();
            None
        }
    }

    /// Drop the lease and its value, out of line: by value, in registers,
    /// so that [`typed`](Self::typed)'s caller keeps the lease out of memory.
    #[cold]
    #[inline(never)]
    fn discard(self) {}

    /// Give `f` the value, owned, then return the slot (also if `f`
    /// unwinds): the value leaves its slot, for a return that cannot list
    /// it again.
    pub(crate) fn moving<R>(self, f: impl FnOnce(Moving<'_>) -> R) -> R {
        let this = ManuallyDrop::new(self);
        let _release = Release(this.slots, this.cell);
        // SAFETY: a leased slot holds a value of the kind, which only its
        // lease touches, until `_release` returns the slot after `f`.
        let kind = unsafe { this.slots.as_ref() }.kind;
        f(unsafe { Moving::at(this.cell, kind) })
    }

    /// Hand the lease's value, reset and `bytes` big, back to its own cache
    /// in its slot, for the cache's holder to list again (module docs).
    /// The lease back if its cache is `here`'s (the calling thread's, as
    /// [`Ledger::new`] numbers them) or takes no more (closed).
    pub(crate) fn hand_back(self, bytes: usize, here: usize) -> Result<(), RawLease> {
        // SAFETY: the allocation lives while a lease does.
        let slots = unsafe { self.slots.as_ref() };
        if slots.thread == here {
            return Err(self);
        }
        let handed = &*slots.handed;
        let index = slots.index_of(self.cell);
        let bit = 1u64 << index;
        // Read by the holder after it takes the bit (below, a release).
        handed.bytes[index].store(bytes, Ordering::Relaxed);
        // A loop, not a `fetch_or`: a bit set once the mask is closed would
        // stay set, and its slot would count as handed back while the lease
        // holds it.
        let mut now = handed.mask.load(Ordering::Relaxed);
        loop {
            if now & CLOSED != 0 {
                return Err(self);
            }
            // Release: the value's reset (and its size) happened before the
            // holder, which acquires the bit, touches the slot again.
            match handed.mask.compare_exchange_weak(
                now,
                now | bit,
                Ordering::Release,
                Ordering::Relaxed,
            ) {
                Ok(_) => break,
                Err(seen) => now = seen,
            }
        }
        // The slot holds the value, idle, the ledger's again: the lease
        // goes without its `Drop`, which would drop the value.
        core::mem::forget(self);
        Ok(())
    }
}

/// Returns a lease's slot when dropped.
struct Release(NonNull<Slots>, NonNull<u8>);

impl Drop for Release {
    fn drop(&mut self) {
        // SAFETY: the lease's slot, whose value is gone by now (moved out
        // or dropped), never touched again by the lease.
        unsafe { Slots::release(self.0, self.1) };
    }
}

impl Drop for RawLease {
    /// Drop the value in its slot (a panicking reset or drop: its `Drop`
    /// wipes the slot itself, not a copy), then return the slot, also if
    /// that `Drop` panics.
    fn drop(&mut self) {
        let _release = Release(self.slots, self.cell);
        // SAFETY: as in `moving`; the slot is returned right after (by
        // `_release`), and never read again.
        let kind = unsafe { self.slots.as_ref() }.kind;
        unsafe { kind.drop_at(self.cell) };
    }
}

impl<T> Lease<T> {
    // The value is at `self.raw.cell.as_ptr() as *mut T`, written out in
    // each method rather than in one of its own: a debug build compiles
    // each function of `Lease<T>` once per pooled type.

    /// The value, in its slot.
    #[inline(always)]
    pub(crate) fn get(&self) -> &T {
        // SAFETY: a leased slot holds a value, a `T` (checked in `typed`),
        // and is only reached through its lease, for as long as it lives.
        unsafe { &*(self.raw.cell.as_ptr() as *const T) }
    }

    /// The value, mutably.
    #[inline(always)]
    pub(crate) fn get_mut(&mut self) -> &mut T {
        // SAFETY: as in `get`, and `&mut self` is unique.
        unsafe { &mut *(self.raw.cell.as_ptr() as *mut T) }
    }

    /// The lease, its type no longer named.
    #[inline(always)]
    pub(crate) fn into_raw(self) -> RawLease {
        self.raw
    }

    /// Move the value out and return the slot.
    pub(crate) fn take(self) -> T {
        // Out of the lease, not through a `ManuallyDrop` of it: a debug
        // build compiles that once per pooled type.
        let raw = ManuallyDrop::new(self.raw);
        // SAFETY: as in `get`; the slot is returned right after, and the
        // lease is not dropped (which would drop the value again).
        unsafe {
            let value = core::ptr::read(raw.cell.as_ptr() as *const T);
            Slots::release(raw.slots, raw.cell);
            value
        }
    }

    /// Move the value out for good, wipe the slot it leaves (the value was
    /// not reset: an inline secret would stay in the slot until it is used
    /// again), and return the slot.
    pub(crate) fn detach(self) -> T {
        let this = ManuallyDrop::new(self);
        // SAFETY: as in `take`; the slot holds no value after the read, and
        // any byte pattern is a `MaybeUninit`.
        unsafe {
            let at = this.raw.cell.as_ptr() as *mut T;
            let value = at.read();
            zeroize::Zeroize::zeroize(&mut *(at as *mut MaybeUninit<T>));
            Slots::release(this.raw.slots, this.raw.cell);
            value
        }
    }
}

#[cfg(all(test, not(poolable_loom)))]
mod tests {
    use super::*;
    use crate::raw::erased::fill_with;
    use std::sync::Arc;

    /// Move `value` into a free slot of `ledger`: its position, if listed.
    fn fill<T: Send + 'static>(ledger: &mut Ledger, value: T, len: &AtomicUsize) -> Option<usize> {
        let mut place = MaybeUninit::uninit();
        ledger.fill(Moving::new(&mut place, value), len, IDLE).ok()
    }

    /// Whether `ledger` keeps `value` in its hot slot (else it is dropped).
    fn fill_hot<T: Send + 'static>(ledger: &mut Ledger, value: T) -> bool {
        let mut place = MaybeUninit::uninit();
        ledger.fill_hot(Moving::new(&mut place, value)).is_ok()
    }

    /// The `T` in `value`.
    fn value<T: 'static>(value: Moving<'_>) -> T {
        fill_with::<T, _>((), |(), out| assert!(out.fill(value).is_ok(), "a `T`")).expect("filled")
    }

    /// A ledger and its list's length, with `n` values of `rc` listed.
    fn ledger(rc: &Arc<()>, n: usize) -> (Ledger, AtomicUsize) {
        let kind = Kind::of::<Arc<()>>();
        let (mut ledger, len) = (Ledger::new(slots_for(8), kind, 0), AtomicUsize::new(0));
        for i in 0..n {
            assert_eq!(fill(&mut ledger, Arc::clone(rc), &len), Some(i));
        }
        (ledger, len)
    }

    #[test]
    fn a_lease_given_back_is_listed_again_with_its_value_in_place() {
        let rc = Arc::new(());
        let (mut ledger, len) = ledger(&rc, 2);
        let (at, lease) = ledger.pop(&len).expect("listed");
        assert_eq!((at, len.load(Ordering::Relaxed)), (1, 1));
        let cell = lease.cell;
        let mut lease = Some(lease);
        assert_eq!(ledger.restore(&mut lease, &len, IDLE), Some(1));
        assert!(lease.is_none());
        assert_eq!(ledger.list.order[1], cell, "the same slot, listed again");
        assert_eq!(Arc::strong_count(&rc), 3);
        assert!(ledger.oldest(1, &len).next().is_some());
        assert_eq!(ledger.list.order[0], cell, "the rest moved down");
        assert_eq!(ledger.list.order[1], ledger.list.none());
        assert_eq!(Arc::strong_count(&rc), 2);
    }

    /// A lease handed back (as from another thread: the ledger's is 0)
    /// stays in its slot with its value, counted with its size, until the
    /// holder takes it and lists it again.
    #[test]
    fn a_lease_handed_back_is_listed_again_with_its_value_in_place() {
        let rc = Arc::new(());
        let (mut ledger, len) = ledger(&rc, 2);
        let (_, lease) = ledger.pop(&len).expect("listed");
        let cell = lease.cell;
        let handed = Arc::clone(ledger.handed());
        assert!(lease.hand_back(40, 1).is_ok());
        assert_eq!(handed.held(), (1, 40), "counted while handed back");
        assert_eq!(Arc::strong_count(&rc), 3, "nothing dropped");
        let mut back = ledger.take_handed();
        assert_eq!(back.len(), 1);
        assert!(ledger.take_handed().is_empty(), "taken once");
        assert_eq!(ledger.list_handed(&mut back, &len, 1), None, "no room");
        assert_eq!(ledger.list_handed(&mut back, &len, IDLE), Some((1, 40)));
        assert!(back.is_empty());
        assert_eq!(ledger.list.order[1], cell, "the same slot, listed again");
        assert_eq!(handed.held(), (0, 0));
        let (_, again) = ledger.pop(&len).expect("listed");
        assert_eq!(again.cell, cell);
        drop((again, ledger));
        assert_eq!(Arc::strong_count(&rc), 1);
    }

    /// A lease is not handed back on its ledger's own thread, or once the
    /// ledger closed it: it comes back whole, and dropping it drops its
    /// value. A closed ledger's mask counts only what came before.
    #[test]
    fn a_lease_comes_back_on_its_own_thread_and_once_closed() {
        let rc = Arc::new(());
        let kind = Kind::of::<Arc<()>>();
        let (mut ledger, len) = (Ledger::new(slots_for(8), kind, 7), AtomicUsize::new(0));
        for _ in 0..2 {
            assert!(fill(&mut ledger, Arc::clone(&rc), &len).is_some());
        }
        let mut leases: Vec<_> = (0..2)
            .map(|_| ledger.pop(&len).expect("listed").1)
            .collect();
        let own = leases.pop().expect("two").hand_back(8, 7);
        let own = own.expect_err("on its own thread");
        assert!(leases.pop().expect("one").hand_back(8, 1).is_ok());
        ledger.close_handed();
        let closed = own.hand_back(8, 1).expect_err("closed");
        assert_eq!(ledger.handed().held(), (1, 8), "no bit for the refused one");
        let back = ledger.take_handed();
        assert_eq!(back.len(), 1, "the one handed back");
        assert_eq!(Arc::strong_count(&rc), 3);
        drop(closed);
        assert_eq!(Arc::strong_count(&rc), 2);
        // The one handed back: re-handed, then dropped with the ledger.
        ledger.rehand(back);
        let back = ledger.take_handed();
        assert_eq!(back.len(), 1, "handed back again");
        ledger.rehand(back);
        drop(ledger);
        assert_eq!(Arc::strong_count(&rc), 1);
    }

    /// A value handed back can be taken out of its slot (dropped by a
    /// clear), which frees the slot; only by its own ledger.
    #[test]
    fn a_value_handed_back_can_be_taken_out_freeing_its_slot() {
        let rc = Arc::new(());
        let (mut ledger, len) = ledger(&rc, 1);
        let free = ledger.free_slots();
        let (_, lease) = ledger.pop(&len).expect("listed");
        assert!(lease.hand_back(8, 1).is_ok());
        assert_eq!(ledger.free_slots(), free, "not free while handed back");
        let mut back = ledger.take_handed();
        let (mut other, other_len) = self::ledger(&rc, 0);
        assert!(other.handed_value(&mut back).is_none(), "another's slots");
        assert!(other.list_handed(&mut back, &other_len, IDLE).is_none());
        let (moving, bytes) = ledger.handed_value(&mut back).expect("one");
        assert_eq!(bytes, 8);
        let rc2: Arc<()> = value(moving);
        assert!(back.is_empty());
        assert_eq!(ledger.free_slots(), free + 1, "the slot is free again");
        drop(rc2);
        assert_eq!(Arc::strong_count(&rc), 1);
    }

    #[test]
    fn the_hot_slot_keeps_one_lease_in_place_apart_from_the_list() {
        let rc = Arc::new(());
        let (mut ledger, len) = ledger(&rc, 2);
        assert!(ledger.take_hot().is_none(), "empty at first");
        let (_, lease) = ledger.pop(&len).expect("listed");
        let cell = lease.cell;
        let mut lease = Some(lease);
        assert!(ledger.put_hot(&mut lease));
        assert!(lease.is_none());
        assert_eq!(len.load(Ordering::Relaxed), 1, "not listed");
        // Full: a second lease is refused, as is another ledger's.
        let (_, second) = ledger.pop(&len).expect("listed");
        let mut second = Some(second);
        assert!(!ledger.put_hot(&mut second));
        let (mut other, _) = self::ledger(&rc, 0);
        let hot = ledger.take_hot().expect("held");
        assert_eq!(hot.cell, cell, "the same slot");
        let mut hot = Some(hot);
        assert!(!other.put_hot(&mut hot), "another ledger's lease");
        assert!(ledger.take_hot().is_none(), "emptied by the take");
        drop((hot, second, other));
        assert_eq!(Arc::strong_count(&rc), 1);
    }

    #[test]
    fn off_the_fast_path_the_hot_value_is_listed_and_a_list_at_the_cap_blocks_it() {
        let rc = Arc::new(());
        let (mut ledger, len) = ledger(&rc, 3);
        let mut lease = ledger.pop(&len).map(|(_, lease)| lease);
        assert!(ledger.put_hot(&mut lease));
        assert_eq!(ledger.unhot(&len), Some(2), "listed as the newest");
        assert_eq!(len.load(Ordering::Relaxed), 3);
        assert_eq!(ledger.unhot(&len), None, "nothing left in it");
        // At the cap (3), settling blocks the hot slot: no get takes from
        // it, and no return fills it.
        ledger.settle_hot(&len, 3);
        assert!(ledger.take_hot().is_none());
        let (_, popped) = ledger.pop(&len).expect("listed");
        let mut popped = Some(popped);
        // The pop unblocked it (the list is below the cap now).
        assert!(ledger.put_hot(&mut popped));
        assert_eq!(ledger.unhot(&len), Some(2));
        // Below the cap, settling leaves it empty; a blocked slot is
        // emptied by `unhot`, with nothing listed.
        ledger.settle_hot(&len, 4);
        let mut popped = ledger.pop(&len).map(|(_, lease)| lease);
        assert!(ledger.put_hot(&mut popped));
        assert_eq!(ledger.unhot(&len), Some(2));
        ledger.settle_hot(&len, 3);
        assert_eq!(ledger.unhot(&len), None);
        let mut popped = ledger.pop(&len).map(|(_, lease)| lease);
        assert!(ledger.put_hot(&mut popped), "empty again");
        assert_eq!(Arc::strong_count(&rc), 4);
        drop(ledger);
        assert_eq!(Arc::strong_count(&rc), 1, "the hot value dropped too");
    }

    #[test]
    fn a_value_moved_in_fills_an_empty_hot_slot_only() {
        let rc = Arc::new(());
        let (mut ledger, len) = ledger(&rc, 1);
        assert!(!fill_hot(&mut ledger, String::new()), "another kind");
        assert!(fill_hot(&mut ledger, Arc::clone(&rc)), "empty: filled");
        assert_eq!(len.load(Ordering::Relaxed), 1, "not listed");
        assert!(!fill_hot(&mut ledger, Arc::clone(&rc)), "full: refused");
        // A get takes it first; blocked, the slot takes none.
        let hot = ledger.take_hot().expect("held");
        assert_eq!(Arc::strong_count(&rc), 3);
        drop(hot);
        assert_eq!(Arc::strong_count(&rc), 2, "the lease dropped its value");
        ledger.settle_hot(&len, 1);
        assert!(!fill_hot(&mut ledger, Arc::clone(&rc)), "blocked: refused");
        // A refused value is dropped by its `Moving`, not kept.
        assert_eq!(Arc::strong_count(&rc), 2);
        let _ = ledger.pop(&len).expect("listed");
        assert!(
            fill_hot(&mut ledger, Arc::clone(&rc)),
            "unblocked by the pop"
        );
        drop(ledger);
        assert_eq!(Arc::strong_count(&rc), 1, "the hot value dropped too");
    }

    #[test]
    fn another_ledgers_lease_or_a_full_list_is_refused() {
        let rc = Arc::new(());
        let (mut a, a_len) = ledger(&rc, 1);
        let (mut b, b_len) = ledger(&rc, 0);
        let mut lease = a.pop(&a_len).map(|(_, lease)| lease);
        assert_eq!(b.restore(&mut lease, &b_len, IDLE), None);
        assert_eq!(
            a.restore(&mut lease, &a_len, 0),
            None,
            "no room under the cap"
        );
        assert!(lease.is_some());
        drop(lease);
        // Returned by its drop, the value dropped: free again once collected.
        assert_eq!(a.free_slots(), slots_for(8));
        assert_eq!(Arc::strong_count(&rc), 1);
    }

    #[test]
    fn a_ledger_with_every_slot_leased_collects_returned_ones() {
        let rc = Arc::new(());
        let (mut ledger, len) = ledger(&rc, 0);
        let mut leases = Vec::new();
        for _ in 0..slots_for(8) {
            fill(&mut ledger, Arc::clone(&rc), &len).expect("free");
            leases.push(ledger.pop(&len).expect("listed").1);
        }
        let mut place = MaybeUninit::uninit();
        let refused = ledger.fill(Moving::new(&mut place, Arc::clone(&rc)), &len, IDLE);
        let value = refused.expect_err("every slot leased");
        assert_eq!(Arc::strong_count(&rc), 2 + slots_for(8), "given back");
        let last = leases.pop().map(RawLease::typed::<Arc<()>>);
        drop(last.map(|lease| lease.map(Lease::take)));
        assert_eq!(ledger.fill(value, &len, IDLE).ok(), Some(0));
        drop((leases, ledger));
        assert_eq!(Arc::strong_count(&rc), 1);
    }

    #[test]
    fn a_value_of_another_kind_is_given_back() {
        let (mut ledger, len) = ledger(&Arc::new(()), 0);
        let mut place = MaybeUninit::uninit();
        let refused = ledger.fill(Moving::new(&mut place, 7_u64), &len, IDLE);
        assert!(refused.is_err());
        assert_eq!(len.load(Ordering::Relaxed), 0);
        let lease = fill(&mut ledger, Arc::new(()), &len).and_then(|_| ledger.pop(&len));
        let lease = lease.expect("listed").1;
        assert!(lease.typed::<u64>().is_none(), "not a `u64` lease");
    }

    #[test]
    fn the_oldest_leave_in_order_and_the_rest_move_down() {
        let values: Vec<_> = (0..4).map(Arc::new).collect();
        let kind = Kind::of::<Arc<i32>>();
        let (mut ledger, len) = (Ledger::new(slots_for(8), kind, 0), AtomicUsize::new(0));
        for v in &values {
            fill(&mut ledger, Arc::clone(v), &len).expect("room");
        }
        let mut taken = Vec::new();
        let mut oldest = ledger.oldest(3, &len);
        for _ in 0..2 {
            taken.push(*value::<Arc<i32>>(oldest.next().expect("one of 3")));
        }
        drop(oldest);
        assert_eq!(taken, [0, 1]);
        assert_eq!(len.load(Ordering::Relaxed), 2);
        let mut rest = Vec::new();
        let mut oldest = ledger.oldest(IDLE, &len);
        while let Some(v) = oldest.next() {
            rest.push(*value::<Arc<i32>>(v));
        }
        drop(oldest);
        assert_eq!(rest, [2, 3]);
        assert_eq!(ledger.free_slots(), slots_for(8));
        assert!(values.iter().all(|v| Arc::strong_count(v) == 1));
    }

    #[test]
    fn the_newest_is_taken_into_a_place_of_its_type_only() {
        let rc = Arc::new(());
        let (mut ledger, len) = ledger(&rc, 2);
        let other = fill_with::<u64, _>((), |(), out| {
            assert_eq!(ledger.take_newest(&len, out), None)
        });
        assert_eq!((other, len.load(Ordering::Relaxed)), (None, 2));
        let newest = fill_with::<Arc<()>, _>((), |(), out| {
            assert_eq!(ledger.take_newest(&len, out), Some(1))
        });
        assert!(newest.is_some_and(|v| Arc::ptr_eq(&v, &rc)));
        assert_eq!(len.load(Ordering::Relaxed), 1);
        assert_eq!(ledger.free_slots(), slots_for(8) - 1);
        drop(ledger);
        assert_eq!(Arc::strong_count(&rc), 1);
    }

    /// The shift and multiplier divide every multiple of a size by it.
    #[test]
    fn a_divider_divides_the_multiples_of_its_size() {
        for size in (1..=300).chain([4096, 12_345, usize::MAX / 64]) {
            let (shift, inverse) = divider(size);
            for i in [0, 1, 2, 3, 62, 63, 64] {
                let offset = size.wrapping_mul(i);
                assert_eq!((offset >> shift).wrapping_mul(inverse), i, "{size} * {i}");
            }
        }
    }

    /// A slot is known by its cell's address: for values of every size,
    /// each slot's is its own. (A zero-sized type gets no slots: all would
    /// have one address.)
    #[test]
    fn each_slot_is_found_again_from_its_cell() {
        fn check<T: Send + 'static>() {
            let ledger = Ledger::new(slots_for(size_of::<T>()), Kind::of::<T>(), 0);
            let slots = ledger.list.slots();
            for index in 0..ledger.list.all.count_ones() as usize {
                assert_eq!(slots.index_of(slots.cell(index)), index);
            }
        }
        check::<()>();
        check::<u8>();
        check::<[u64; 3]>();
        check::<[u8; 3]>();
        check::<[u16; 3]>();
        check::<[u32; 5]>();
        check::<[u8; 100]>();
        check::<[u64; 7]>();
        check::<[u8; 4096]>();
    }

    #[test]
    fn a_detached_value_leaves_its_slot_wiped_and_free() {
        let kind = Kind::of::<[u8; 16]>();
        let (mut ledger, len) = (Ledger::new(slots_for(16), kind, 0), AtomicUsize::new(0));
        fill(&mut ledger, [0x5a_u8; 16], &len).expect("room");
        let lease = ledger.pop(&len).expect("listed").1.typed::<[u8; 16]>();
        let lease = lease.expect("a `[u8; 16]`");
        let cell = lease.raw.cell;
        assert_eq!(lease.detach(), [0x5a; 16]);
        // SAFETY (test): the slot is free, the ledger untouched since; read
        // its bytes as the next value's would be written over them.
        let bytes = unsafe { &*cell.as_ptr().cast::<[u8; 16]>() };
        assert!(bytes.iter().all(|&b| b == 0), "{bytes:?}");
        assert_eq!(ledger.free_slots(), slots_for(16));
    }

    #[test]
    fn a_value_moved_out_of_its_lease_returns_the_slot() {
        let rc = Arc::new(());
        let (mut ledger, len) = ledger(&rc, 1);
        let lease = ledger.pop(&len).expect("listed").1;
        let moved = lease.moving(value::<Arc<()>>);
        assert!(Arc::ptr_eq(&moved, &rc));
        assert_eq!(ledger.free_slots(), slots_for(8));
        drop(moved);
        assert_eq!(Arc::strong_count(&rc), 1);
    }

    #[test]
    fn the_last_lease_out_frees_the_slots_of_a_dropped_ledger() {
        let rc = Arc::new(());
        let (mut ledger, len) = ledger(&rc, 3);
        let a = ledger.pop(&len).expect("listed").1;
        let b = ledger.pop(&len).expect("listed").1;
        drop(ledger); // drops the one still listed
        assert_eq!(Arc::strong_count(&rc), 3);
        drop(a);
        assert_eq!(Arc::strong_count(&rc), 2);
        // Miri reports a leak if the last one does not free the slots, and
        // a use after free if an earlier one did.
        drop(b.typed::<Arc<()>>().map(Lease::take));
        assert_eq!(Arc::strong_count(&rc), 1);
    }

    /// A cache gets as many slots as 2 KiB of its values, but never fewer
    /// than twice its idle values (a burst that drains it still takes
    /// refills) nor more than a `u64` has bits beside `ORPHAN`; none for a
    /// zero-sized type.
    #[test]
    fn a_cache_has_2_kib_of_slots_within_twice_its_idle_values_and_63() {
        assert_eq!(slots_for(0), 0);
        assert_eq!(slots_for(8), 63, "256 would fit");
        assert_eq!(slots_for(64), 32);
        assert_eq!(slots_for(100), 20);
        assert_eq!(slots_for(4096), 2 * IDLE, "none would fit");
    }

    /// Collecting the slots that leases returned frees those and no
    /// others: a slot still leased is never counted free (nor handed to a
    /// new value over the one its lease holds).
    #[test]
    fn only_the_slots_returned_are_collected_as_free() {
        let rc = Arc::new(());
        let (mut ledger, len) = ledger(&rc, 2);
        let a = ledger.pop(&len).expect("listed").1;
        let b = ledger.pop(&len).expect("listed").1;
        assert_eq!(ledger.free_slots(), slots_for(8) - 2);
        drop(a);
        assert_eq!(ledger.free_slots(), slots_for(8) - 1, "b still leased");
        drop(b);
        assert_eq!(ledger.free_slots(), slots_for(8));
        assert_eq!(Arc::strong_count(&rc), 1);
    }
}
