//! [`Entries`]: a list of values of one type, each with its size in bytes,
//! that names the type only where a value goes in or out. The shared tier
//! keeps its lists in them, and decay collects what it lets go of in them,
//! so that their code (the shards' locking, stepping, shedding and the
//! drops) is compiled once, not once per pooled type: a debug build of a
//! crate compiles every generic function again for each type that uses a
//! pool (`scripts/derive_cost.py`).
//!
//! The values sit in one allocation, `size` bytes each, as a `Vec<T>`
//! would keep them; the type's [`Kind`] (its layout, its drop, its
//! `TypeId`) travels with the list. A value goes in as a [`Moving`] value
//! and out into an [`Out`] place, which carry their type's id and are
//! refused by a list of another: so a list can never be read as another
//! type.
//!
//! [`Moving`] and [`Out`] are how the thread tier moves values without
//! naming their type either (`tier/thread.rs`): a value leaving a guard or
//! a slot is a `Moving` (owned, dropped with its kind's drop if nobody
//! takes it), and a get that takes a value out of a list or a slot fills
//! the caller's `Out`.

use core::alloc::Layout;
use core::any::TypeId;
use core::marker::PhantomData;
use core::mem::MaybeUninit;
use core::ptr::NonNull;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// What a list needs to know of its values' type.
#[derive(Clone, Copy)]
pub(crate) struct Kind {
    /// The layout of one value (its size is a multiple of its alignment).
    layout: Layout,
    /// `ptr::drop_in_place::<T>`, for a pointer to a `T`.
    drop: unsafe fn(*mut u8),
    id: TypeId,
}

impl Kind {
    /// The kind of `T`. `Send`, so that a list of them may be too.
    pub(crate) fn of<T: Send + 'static>() -> Kind {
        /// Drop the `T` at `value`.
        ///
        /// # Safety
        ///
        /// `value` points to a valid `T` that nothing uses again.
        unsafe fn drop_value<T>(value: *mut u8) {
            // SAFETY: the caller's.
            unsafe { core::ptr::drop_in_place(value as *mut T) }
        }
        Kind {
            layout: const { Layout::new::<T>() },
            drop: drop_value::<T>,
            id: TypeId::of::<T>(),
        }
    }

    /// The type's id.
    #[inline]
    pub(crate) fn id(&self) -> TypeId {
        self.id
    }

    /// The size of one value.
    #[inline]
    pub(crate) fn size(&self) -> usize {
        self.layout.size()
    }

    /// The alignment of one value.
    #[inline]
    pub(crate) fn align(&self) -> usize {
        self.layout.align()
    }

    /// Drop the value at `at`.
    ///
    /// # Safety
    ///
    /// `at` points to a valid value of this kind that nothing uses again.
    #[inline]
    pub(crate) unsafe fn drop_at(&self, at: NonNull<u8>) {
        // SAFETY: the caller's.
        unsafe { (self.drop)(at.as_ptr()) }
    }
}

/// One value of a [`Kind`], owned, in a place that nothing else reads or
/// drops while this lives: a local `MaybeUninit`, or a thread cache's slot
/// (`raw/lease.rs`). Whoever takes it moves its bytes out ([`Entries::push_moving`],
/// a ledger's `fill`); dropped, it drops the value.
pub(crate) struct Moving<'a> {
    at: NonNull<u8>,
    kind: Kind,
    _place: PhantomData<&'a mut u8>,
}

impl<'a> Moving<'a> {
    /// `value`, moved into `place`.
    #[inline(always)]
    pub(crate) fn new<T: Send + 'static>(place: &'a mut MaybeUninit<T>, value: T) -> Self {
        Moving {
            // SAFETY: from a reference (raw casts, not `NonNull`'s generic
            // methods: a debug build compiles those once per pooled type).
            at: unsafe { NonNull::new_unchecked(place.write(value) as *mut T as *mut u8) },
            kind: Kind::of::<T>(),
            _place: PhantomData,
        }
    }

    /// The value at `at`, of `kind`, owned from here on.
    ///
    /// # Safety
    ///
    /// `at` holds a valid value of `kind`, which nothing else reads, writes
    /// or drops for `'a`, and which is not used again after this is gone.
    #[inline(always)]
    pub(crate) unsafe fn at(at: NonNull<u8>, kind: Kind) -> Self {
        Moving {
            at,
            kind,
            _place: PhantomData,
        }
    }

    /// The kind of the value.
    #[inline]
    pub(crate) fn kind(&self) -> &Kind {
        &self.kind
    }

    /// Copy the value's bytes to `to` and give up the value (not dropped):
    /// `to`'s owner owns it now.
    ///
    /// # Safety
    ///
    /// `to` is valid for a write of one value of this kind, aligned for
    /// it, and does not overlap the value.
    #[inline(always)]
    pub(crate) unsafe fn move_to(self, to: NonNull<u8>) {
        let this = core::mem::ManuallyDrop::new(self);
        // SAFETY: the caller's for `to`; the value is read once, here, and
        // then forgotten with `this`.
        unsafe { core::ptr::copy_nonoverlapping(this.at.as_ptr(), to.as_ptr(), this.kind.size()) }
    }

    /// The value, if it is a `T`.
    pub(crate) fn downcast_ref<T: 'static>(&self) -> Option<&T> {
        if self.kind.id != TypeId::of::<T>() {
            return None;
        }
        // SAFETY: a valid value (owned by this, not moved out while it
        // lives) of type `T` (the ids agree).
        Some(unsafe { &*(self.at.as_ptr() as *const T) })
    }
}

/// Run `f(arg, out)` on an empty place for a `T`, `out`: the value it put
/// there, if any. `arg` apart from `f`, so that a caller generic over `T`
/// can pass a plain function rather than a closure, which would be one more
/// function compiled for each `T`.
#[inline(always)]
pub(crate) fn fill_with<T: 'static, A>(arg: A, f: impl FnOnce(A, &mut Out<'_>)) -> Option<T> {
    let mut place = const { MaybeUninit::<T>::uninit() };
    let mut out = Out::new(&mut place);
    f(arg, &mut out);
    if out.filled {
        // SAFETY: `fill` wrote a value of the place's type, `T` (it checks
        // the ids), and `out`, the only other way to it, is not used again.
        Some(unsafe { place.assume_init() })
    } else {
        None
    }
}

impl Drop for Moving<'_> {
    fn drop(&mut self) {
        // SAFETY: a valid value that this owns and nothing uses again.
        unsafe { self.kind.drop_at(self.at) }
    }
}

/// A place for one value of a type (a caller's `MaybeUninit<T>`), that a
/// get fills from a list or a slot without naming the type ([`Out::fill`]);
/// see [`fill_with`].
pub(crate) struct Out<'a> {
    at: NonNull<u8>,
    id: TypeId,
    filled: bool,
    _place: PhantomData<&'a mut u8>,
}

impl<'a> Out<'a> {
    /// An empty place at `place`.
    #[inline(always)]
    pub(crate) fn new<T: 'static>(place: &'a mut MaybeUninit<T>) -> Self {
        Out {
            // SAFETY: from a reference (as in `Moving::new`).
            at: unsafe { NonNull::new_unchecked(place as *mut MaybeUninit<T> as *mut u8) },
            id: TypeId::of::<T>(),
            filled: false,
            _place: PhantomData,
        }
    }

    /// Whether a value was put in the place (then [`fill_with`] reads it).
    #[inline(always)]
    pub(crate) fn is_filled(&self) -> bool {
        self.filled
    }

    /// Whether [`fill`](Self::fill) takes a value of `kind` now: the place
    /// is empty and of its type.
    #[inline]
    pub(crate) fn accepts(&self, kind: &Kind) -> bool {
        !self.filled && self.id == kind.id
    }

    /// Move `value` into the place; given back if the place is filled or of
    /// another type.
    #[inline]
    pub(crate) fn fill<'v>(&mut self, value: Moving<'v>) -> Result<(), Moving<'v>> {
        if !self.accepts(&value.kind) {
            return Err(value);
        }
        // SAFETY: the place is a `MaybeUninit` of the value's type (the ids
        // agree) with nothing in it, which `value` cannot overlap (it is
        // owned elsewhere).
        unsafe { value.move_to(self.at) };
        self.filled = true;
        Ok(())
    }
}

/// Values of one [`Kind`] and their sizes, in the order pushed.
pub(crate) struct Entries {
    kind: Kind,
    /// `capacity` values of `kind`'s layout: dangling when nothing is
    /// allocated (no capacity, or a zero-sized type).
    values: NonNull<u8>,
    capacity: usize,
    /// The size of each value held, as given to `push`; its length is the
    /// list's.
    bytes: Vec<usize>,
}

// SAFETY: the values are `T`s of a `Kind::of::<T>()`, which requires
// `T: Send`; the list owns them as a `Vec<T>` would. It has no shared
// mutable state, so `&Entries` across threads only reads.
unsafe impl Send for Entries {}
// SAFETY: as above; no method mutates through `&self`.
unsafe impl Sync for Entries {}

impl Entries {
    /// An empty list of `kind`'s values; allocates nothing.
    #[inline]
    pub(crate) fn new(kind: Kind) -> Self {
        Entries {
            kind,
            values: dangling(kind.layout),
            capacity: 0,
            bytes: Vec::new(),
        }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.bytes.len()
    }

    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The sizes of the values, oldest first.
    #[inline]
    pub(crate) fn bytes(&self) -> &[usize] {
        &self.bytes
    }

    /// The sum of the values' sizes, saturating: a value may measure up to
    /// `usize::MAX` (`Reset::heap_bytes` of a locked `Mutex`).
    pub(crate) fn total_bytes(&self) -> usize {
        self.bytes
            .iter()
            .fold(0, |sum, &bytes| sum.saturating_add(bytes))
    }

    /// An empty list of the same kind.
    #[inline]
    pub(crate) fn empty(&self) -> Self {
        Entries::new(self.kind)
    }

    /// Move every value of `other` (of the same kind) after these, leaving
    /// it empty. Nothing moves if the kinds differ.
    pub(crate) fn append(&mut self, other: &mut Entries) {
        if self.kind.id != other.kind.id || other.is_empty() {
            return;
        }
        let n = other.len();
        self.reserve(n);
        let size = self.kind.layout.size();
        // SAFETY: `other`'s first `n` cells hold values of this kind;
        // `reserve` made room for `n` more after our last one; the two
        // allocations are distinct. `other` forgets them (its sizes are
        // moved out below), so each value has one owner.
        unsafe {
            core::ptr::copy_nonoverlapping(
                other.values.as_ptr(),
                self.cell(self.len()).as_ptr(),
                n * size,
            );
        }
        self.bytes.append(&mut other.bytes);
    }

    /// Take the `n` oldest values (all of them, if there are fewer) out
    /// into a list of their own; the rest move to the front.
    pub(crate) fn split_front(&mut self, n: usize) -> Entries {
        let n = n.min(self.len());
        let mut front = self.empty();
        if n == 0 {
            return front;
        }
        front.reserve(n);
        let size = self.kind.layout.size();
        let rest = self.len() - n;
        // SAFETY: the first `n` cells hold values, copied into `front`'s
        // room for `n` (a distinct allocation); then the `rest` values
        // after them move to the front of ours (`copy`, as the ranges may
        // overlap). Each value is counted by exactly one list afterwards.
        unsafe {
            core::ptr::copy_nonoverlapping(self.values.as_ptr(), front.values.as_ptr(), n * size);
            core::ptr::copy(self.cell(n).as_ptr(), self.values.as_ptr(), rest * size);
        }
        front.bytes = self.bytes.drain(..n).collect();
        front
    }

    /// Drop every value, the last first, each on its own: a `Drop` that
    /// panics is caught, and the rest are still dropped. Returns how many
    /// panicked.
    #[inline(always)]
    pub(crate) fn drop_each(mut self) -> u64 {
        if self.is_empty() {
            return 0;
        }
        self.drop_values().0
    }

    /// Drop every value, the last first, each under `catch_unwind`: how
    /// many panicked, and the first panic's payload.
    #[inline(never)]
    fn drop_values(&mut self) -> (u64, Option<Box<dyn core::any::Any + Send>>) {
        let (mut panicked, mut first) = (0, None);
        while self.bytes.pop().is_some() {
            let value = self.cell(self.len());
            let drop = self.kind.drop;
            // SAFETY: the cell at the old length held a value of the kind,
            // which the length no longer counts: it is dropped once.
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| unsafe { drop(value.as_ptr()) }))
            {
                panicked += 1;
                first.get_or_insert(payload);
            }
        }
        (panicked, first)
    }

    /// The cell of value `index` (at most the capacity).
    #[inline]
    fn cell(&self, index: usize) -> NonNull<u8> {
        // SAFETY: `index * size` is within the allocation, or its end
        // (`index <= capacity`); dangling with zero-sized values, where
        // the offset is 0.
        unsafe { self.values.add(index * self.kind.layout.size()) }
    }

    /// Room for one more value; the cell for it.
    #[inline]
    fn reserve_one(&mut self) -> NonNull<u8> {
        if self.len() == self.capacity {
            self.reserve(1);
        }
        self.cell(self.len())
    }

    /// Room for `n` more values: the capacity at least doubles when it
    /// grows, as a `Vec`'s does.
    #[inline(never)]
    fn reserve(&mut self, n: usize) {
        let Some(need) = self.len().checked_add(n) else {
            capacity_overflow()
        };
        let size = self.kind.layout.size();
        if need <= self.capacity || size == 0 {
            self.capacity = self.capacity.max(need);
            return;
        }
        let capacity = need.max(self.capacity * 2).max(4);
        let layout = array(self.kind.layout, capacity);
        let values = if self.capacity == 0 {
            // SAFETY: `layout`'s size is not zero (`size` is not).
            unsafe { std::alloc::alloc(layout) }
        } else {
            // SAFETY: allocated with the array layout of the old capacity;
            // the new size is not zero and does not overflow (`array`).
            unsafe {
                std::alloc::realloc(
                    self.values.as_ptr(),
                    array(self.kind.layout, self.capacity),
                    layout.size(),
                )
            }
        };
        self.values = match NonNull::new(values) {
            Some(values) => values,
            None => std::alloc::handle_alloc_error(layout),
        };
        self.capacity = capacity;
    }
}

impl Entries {
    /// Append `value`, `bytes` big; given back if it is of another kind.
    #[inline]
    pub(crate) fn push_moving<'v>(
        &mut self,
        value: Moving<'v>,
        bytes: usize,
    ) -> Result<(), Moving<'v>> {
        if value.kind.id != self.kind.id {
            return Err(value);
        }
        let at = self.reserve_one();
        // SAFETY: `at` is the free cell after the last value, inside the
        // allocation (`reserve_one`), aligned for the list's kind, which is
        // the value's; a distinct allocation from the value's place.
        unsafe { value.move_to(at) };
        self.bytes.push(bytes);
        Ok(())
    }

    /// Take the last value out, owned by the caller until it is done with
    /// the list, with its size; `None` if the list is empty.
    #[inline]
    pub(crate) fn pop_moving(&mut self) -> Option<(Moving<'_>, usize)> {
        let bytes = self.bytes.pop()?;
        // SAFETY: the cell at the old length held the last value, which the
        // length no longer counts: the `Moving` alone owns it, and nothing
        // writes the cell while the `Moving` borrows the list.
        let value = unsafe { Moving::at(self.cell(self.len()), self.kind) };
        Some((value, bytes))
    }

    /// Move the last value into `out`, and its size out of the list;
    /// `None` (and nothing moved) if the list is empty, or `out` is filled
    /// or of another type.
    #[inline]
    pub(crate) fn pop_into(&mut self, out: &mut Out<'_>) -> Option<usize> {
        if !out.accepts(&self.kind) {
            return None;
        }
        let (value, bytes) = self.pop_moving()?;
        if let Err(value) = out.fill(value) {
            // Never: accepted above. Forgotten, not dropped: the caller may
            // hold a shard's lock, under which no user code runs.
            core::mem::forget(value);
        }
        Some(bytes)
    }
}

impl Drop for Entries {
    /// Drops the values left, then frees the allocation. A value's `Drop`
    /// that panics is caught and the others are still dropped, then the
    /// panic goes on, as a `Vec`'s drop would do.
    #[inline]
    fn drop(&mut self) {
        if self.capacity > 0 || !self.is_empty() {
            self.drop_slow();
        }
    }
}

impl Entries {
    #[inline(never)]
    fn drop_slow(&mut self) {
        let (_, panic) = self.drop_values();
        if self.capacity > 0 && self.kind.layout.size() > 0 {
            // SAFETY: allocated by `reserve` with this layout.
            unsafe {
                std::alloc::dealloc(self.values.as_ptr(), array(self.kind.layout, self.capacity))
            };
        }
        if let Some(payload) = panic {
            std::panic::resume_unwind(payload);
        }
    }
}

/// A well-aligned pointer for no allocation.
fn dangling(layout: Layout) -> NonNull<u8> {
    NonNull::<u8>::dangling().with_addr(
        core::num::NonZeroUsize::new(layout.align()).unwrap_or(core::num::NonZeroUsize::MIN),
    )
}

/// The layout of `n` values of `one`.
fn array(one: Layout, n: usize) -> Layout {
    match one.size().checked_mul(n) {
        Some(size) => match Layout::from_size_align(size, one.align()) {
            Ok(layout) => layout,
            Err(_) => capacity_overflow(),
        },
        None => capacity_overflow(),
    }
}

#[cold]
fn capacity_overflow() -> ! {
    panic!("capacity overflow")
}

#[cfg(all(test, not(poolable_loom)))]
mod tests {
    use super::*;
    use std::rc::Rc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn strings() -> Entries {
        Entries::new(Kind::of::<String>())
    }

    fn push<T: Send + 'static>(list: &mut Entries, value: T, bytes: usize) {
        let mut place = MaybeUninit::uninit();
        let pushed = list.push_moving(Moving::new(&mut place, value), bytes);
        assert!(pushed.is_ok(), "the list's type");
    }

    fn pop<T: 'static>(list: &mut Entries) -> Option<(T, usize)> {
        let mut bytes = 0;
        let value = fill_with::<T, _>((), |(), out| {
            if let Some(b) = list.pop_into(out) {
                bytes = b;
            }
        });
        value.map(|value| (value, bytes))
    }

    #[test]
    fn values_come_back_last_first_with_their_sizes() {
        let mut list = strings();
        for (i, word) in ["a", "bb", "ccc", "dddd", "eeeee"].iter().enumerate() {
            push(&mut list, word.to_string(), i);
        }
        assert_eq!(list.bytes(), [0, 1, 2, 3, 4]);
        assert_eq!(list.total_bytes(), 10);
        assert_eq!(pop::<String>(&mut list), Some(("eeeee".to_string(), 4)));
        assert_eq!(pop::<String>(&mut list), Some(("dddd".to_string(), 3)));
        assert_eq!(list.len(), 3);
    }

    #[test]
    fn another_type_gets_no_values_in_or_out() {
        let mut list = strings();
        let mut place = MaybeUninit::uninit();
        assert!(list.push_moving(Moving::new(&mut place, 1_u64), 8).is_err());
        push(&mut list, String::from("x"), 1);
        assert_eq!(pop::<Vec<u8>>(&mut list), None);
        assert_eq!(list.len(), 1);
        let mut other = Entries::new(Kind::of::<u64>());
        push(&mut other, 1_u64, 8);
        list.append(&mut other);
        assert_eq!((list.len(), other.len()), (1, 1), "different kinds");
    }

    #[test]
    fn append_and_split_keep_the_order() {
        let (mut a, mut b) = (strings(), strings());
        for i in 0..3 {
            push(&mut a, format!("a{i}"), i);
            push(&mut b, format!("b{i}"), 10 + i);
        }
        a.append(&mut b);
        assert_eq!(b.len(), 0);
        assert_eq!(a.bytes(), [0, 1, 2, 10, 11, 12]);
        let mut front = a.split_front(4);
        assert_eq!(front.bytes(), [0, 1, 2, 10]);
        assert_eq!(a.bytes(), [11, 12]);
        assert_eq!(pop::<String>(&mut front), Some(("b0".to_string(), 10)));
        assert_eq!(pop::<String>(&mut a), Some(("b2".to_string(), 12)));
        assert_eq!(pop::<String>(&mut a), Some(("b1".to_string(), 11)));
        assert_eq!(a.split_front(3).len(), 0);
    }

    /// Counts its drops, and panics in one if asked to.
    struct Counted(Rc<AtomicUsize>, bool);
    // SAFETY (test only): the lists here never leave their thread.
    unsafe impl Send for Counted {}
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
            if self.1 {
                panic!("a value's drop panics");
            }
        }
    }

    #[test]
    fn every_value_is_dropped_once_even_when_one_panics() {
        let drops = Rc::new(AtomicUsize::new(0));
        let mut list = Entries::new(Kind::of::<Counted>());
        for i in 0..5 {
            push(&mut list, Counted(Rc::clone(&drops), i == 2), 0);
        }
        let mut kept = list.split_front(2);
        assert_eq!(list.drop_each(), 1);
        assert_eq!(drops.load(Ordering::Relaxed), 3);
        push(&mut kept, Counted(Rc::clone(&drops), true), 0);
        // The list's own drop: the rest are dropped, then the panic goes on.
        let dropped = catch_unwind(AssertUnwindSafe(move || drop(kept)));
        assert!(dropped.is_err());
        assert_eq!(drops.load(Ordering::Relaxed), 6);
        assert_eq!(Rc::strong_count(&drops), 1, "nothing leaked");
    }

    #[test]
    fn zero_sized_and_over_aligned_values() {
        let mut units = Entries::new(Kind::of::<()>());
        for _ in 0..100 {
            push(&mut units, (), 0);
        }
        assert_eq!(units.split_front(60).len(), 60);
        assert_eq!(pop::<()>(&mut units), Some(((), 0)));

        #[derive(Debug, PartialEq)]
        #[repr(align(64))]
        struct Wide(u8);
        let mut wide = Entries::new(Kind::of::<Wide>());
        for i in 0..9 {
            push(&mut wide, Wide(i), 64);
        }
        let front = wide.split_front(1);
        assert_eq!(front.len(), 1);
        assert_eq!(pop::<Wide>(&mut wide), Some((Wide(8), 64)));
        assert_eq!(wide.drop_each(), 0);
    }
}
