//! Each thread's table of its tenants (one per pool it has used), indexed
//! by the pool's [`Key`]: the lookup on every get and return.
//!
//! The first [`NEAR_LEN`] entries are mirrored in `NEAR`, a destructor-less
//! thread-local array of the two words a lookup reads, so a lookup of a key
//! with a small index (every pool, in a program with fewer live pools) is
//! one thread-local load at a fixed offset and a compare: no pointer to the
//! list, no length, no bounds check. Keys past it reach the list through
//! `FAST`, a destructor-less thread-local pointer, so they pay no
//! lazy-registration check either. `link` writes the mirror right after it
//! swaps the list in, with no user code between, and the table's destructor
//! empties it first: a mirrored entry is always the list's entry.
//!
//! An entry is two plain words read on the fast path (the key's unique
//! number and a pointer to the tenant) plus the owning `Arc` behind a trait
//! object, used only at thread exit and when entries are replaced. A key's
//! unique number is minted when the key is made and never reused, and only a
//! `Key<S, H>` can make or find an entry, so an entry whose number matches
//! holds a `Tenant<S, H>`: the pointer cast below is checked by construction.
//!
//! No user code runs while a reference into the table is live: lookups copy
//! the two words out, and `link` builds the new entry list before it swaps
//! it in and drops what it replaced after. A closure that `with` runs holds
//! a tenant, not a reference into the list, and `link` (which user code in
//! such a closure can reach, through a value's `Drop`) never frees that
//! tenant: it carries every entry over (cloning its `Arc`) except the slot
//! it fills and the entries of closed pools. The slot belongs to a new
//! `Key`, whose index no live key has, and the running closure's pool is
//! neither dropped nor closed while the closure borrows its key. Only the
//! table's own destructor, at thread exit, empties the list, after it has
//! turned every lookup away (`FAST`).

use super::owned::{Owner, Tenant};
use crate::sync::{Arc, thread_local_const};
#[cfg(not(poolable_loom))]
use core::cell::Cell;
use core::cell::UnsafeCell;
use core::cmp::Reverse;
use core::marker::PhantomData;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// A pool's place in every thread's table.
pub(crate) struct Key<S, H> {
    index: usize,
    unique: u64,
    _types: PhantomData<fn() -> (S, H)>,
}

/// A copy of a [`Key`]'s numbers that a pool keeps among its own fields, so
/// that a lookup reads them without first reaching the pool's storage (one
/// pointer chase and a null check less per operation). It finds nothing
/// until [`set`](KeyCopy::set) from the pool's key: [`NONE`] matches no
/// entry. Only a `Key<S, H>` can set a `KeyCopy<S, H>`, so an entry it
/// matches holds a `Tenant<S, H>`, as for the key itself. (`std` atomics
/// even under loom: it must be `const`, and it is written once.)
pub(crate) struct KeyCopy<S, H> {
    index: AtomicUsize,
    /// [`near_offset`] of `index`, worked out once: the hot lookup adds it
    /// to the mirror's address (two instructions less per lookup).
    near: AtomicUsize,
    unique: AtomicU64,
    _types: PhantomData<fn() -> (S, H)>,
}

/// The unique number no key has (they count up from 1) and no entry holds
/// (an empty entry holds 0).
const NONE: u64 = u64::MAX;

impl<S, H> KeyCopy<S, H> {
    pub(crate) const fn new() -> Self {
        KeyCopy {
            index: AtomicUsize::new(0),
            near: AtomicUsize::new(0),
            unique: AtomicU64::new(NONE),
            _types: PhantomData,
        }
    }

    /// Whether the key's entries are past the mirror (for tests that need
    /// such a key).
    #[cfg(test)]
    pub(crate) fn is_far(&self) -> bool {
        self.index.load(Ordering::Relaxed) >= NEAR_LEN
    }

    /// Copy `key`'s numbers (the same ones on every call for one pool).
    pub(crate) fn set(&self, key: &Key<S, H>) {
        self.index.store(key.index, Ordering::Relaxed);
        self.near.store(near_offset(key.index).0, Ordering::Relaxed);
        // Release: whoever reads this unique number reads this index too.
        self.unique.store(key.unique, Ordering::Release);
    }
}

/// A key's numbers as one lookup read them, from a [`Key`] or a
/// [`KeyCopy`]: a plain value, so that a slow path that takes it is
/// compiled once per pool type, whichever of the two its caller had. Made
/// only from a `Key<S, H>` or a `KeyCopy<S, H>`, so an entry it matches
/// holds a `Tenant<S, H>`, as for the key itself.
pub(crate) struct Numbers<S, H> {
    index: usize,
    unique: u64,
    _types: PhantomData<fn() -> (S, H)>,
}

impl<S, H> Clone for Numbers<S, H> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S, H> Copy for Numbers<S, H> {}

/// What a lookup needs: a key, a pool's copy of one, or their numbers.
pub(crate) trait Lookup<S, H> {
    /// The table index and the unique number to match there.
    fn numbers(&self) -> Numbers<S, H>;

    /// The [`near_offset`] of the index, and the unique number.
    #[cfg_attr(poolable_loom, allow(dead_code))] // loom reads the list
    #[inline(always)]
    fn near(&self) -> (NearOffset, u64) {
        let Numbers { index, unique, .. } = self.numbers();
        (near_offset(index), unique)
    }
}

impl<S, H> Lookup<S, H> for Key<S, H> {
    #[inline(always)]
    fn numbers(&self) -> Numbers<S, H> {
        Numbers {
            index: self.index,
            unique: self.unique,
            _types: PhantomData,
        }
    }
}

impl<S, H> Lookup<S, H> for KeyCopy<S, H> {
    #[inline(always)]
    fn numbers(&self) -> Numbers<S, H> {
        let unique = self.unique.load(Ordering::Acquire);
        Numbers {
            index: self.index.load(Ordering::Relaxed),
            unique,
            _types: PhantomData,
        }
    }

    #[inline(always)]
    fn near(&self) -> (NearOffset, u64) {
        let unique = self.unique.load(Ordering::Acquire);
        (NearOffset(self.near.load(Ordering::Relaxed)), unique)
    }
}

impl<S, H> Lookup<S, H> for Numbers<S, H> {
    #[inline(always)]
    fn numbers(&self) -> Numbers<S, H> {
        *self
    }
}

/// Free table indexes, reused so that tables stay as short as the number of
/// live pools. The lowest free one goes first: a new pool's key stays in
/// the mirror (`NEAR_LEN`) whenever fewer pools are alive, also after a
/// burst of pools has come and gone (the last one freed is the highest of
/// the burst as often as not). (A `std` lock even under loom: held for a
/// few instructions, with no loom operation inside.)
struct Indexes {
    free: BinaryHeap<Reverse<usize>>,
    next: usize,
}

impl Indexes {
    const fn new() -> Self {
        Indexes {
            free: BinaryHeap::new(),
            next: 0,
        }
    }

    /// The lowest free index, for a new key.
    fn take(&mut self) -> usize {
        match self.free.pop() {
            Some(Reverse(index)) => index,
            None => {
                self.next += 1;
                self.next - 1
            }
        }
    }

    /// `index` is free again: its key is gone.
    fn give(&mut self, index: usize) {
        self.free.push(Reverse(index));
    }
}

static INDEXES: std::sync::Mutex<Indexes> = std::sync::Mutex::new(Indexes::new());

static UNIQUE: AtomicU64 = AtomicU64::new(1);

impl<S, H> Key<S, H> {
    pub(crate) fn new() -> Self {
        let (index, unique) = new_numbers();
        Key {
            index,
            unique,
            _types: PhantomData,
        }
    }
}

/// A free index and a new unique number, for a new key (not generic: it
/// is compiled once, not once per pooled type).
fn new_numbers() -> (usize, u64) {
    let index = INDEXES
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take();
    (index, UNIQUE.fetch_add(1, Ordering::Relaxed))
}

impl<S, H> Drop for Key<S, H> {
    fn drop(&mut self) {
        INDEXES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .give(self.index);
    }
}

/// What a table needs of a tenant's head beyond the fast path.
pub(crate) trait Head<S>: Sized + Send + Sync + 'static {
    /// The owning thread is exiting: empty the tenant.
    fn evict(owner: Owner<'_, S, Self>);
    /// Whether the tenant's pool is gone, so the entry can be dropped.
    fn is_closed(&self) -> bool;
}

/// The type-erased side of an entry.
trait Resident {
    fn evict(&self);
    fn is_closed(&self) -> bool;
}

impl<S: Send + 'static, H: Head<S>> Resident for Tenant<S, H> {
    fn evict(&self) {
        // Called by the table of the thread that owns the tenant.
        H::evict(Owner::new(self));
    }

    fn is_closed(&self) -> bool {
        self.head.is_closed()
    }
}

#[derive(Clone)]
struct Entry {
    unique: u64,
    tenant: *const (),
    owner: Option<Arc<dyn Resident>>,
}

impl Entry {
    const EMPTY: Entry = Entry {
        unique: 0,
        tenant: core::ptr::null(),
        owner: None,
    };
}

/// How many of the table's first entries `NEAR` mirrors.
const NEAR_LEN: usize = 64;

/// The two words of an entry a lookup reads, as `NEAR` mirrors them.
#[derive(Clone, Copy)]
struct Near {
    unique: u64,
    tenant: *const (),
}

impl Near {
    const EMPTY: Near = Near {
        unique: 0,
        tenant: core::ptr::null(),
    };
}

struct Table {
    entries: UnsafeCell<Vec<Entry>>,
}

impl Table {
    const fn new() -> Self {
        Table {
            entries: UnsafeCell::new(Vec::new()),
        }
    }

    /// The tenant pointer for `key`, if this thread has one.
    #[inline(always)]
    fn find(&self, index: usize, unique: u64) -> Option<*const ()> {
        // SAFETY: a shared look at the list, with no user code until it ends;
        // the list is only replaced whole by `link`, never while borrowed.
        let entries = unsafe { &*self.entries.get() };
        match entries.get(index) {
            Some(entry) if entry.unique == unique => Some(entry.tenant),
            _ => None,
        }
    }
}

/// Every tenant in `entries` hands its values back to its pool.
fn evict(entries: Vec<Entry>) {
    for entry in entries {
        if let Some(owner) = entry.owner {
            owner.evict();
        }
    }
}

impl Drop for Table {
    /// Thread exit.
    fn drop(&mut self) {
        // From here on, lookups (from the values' `Drop`s below) find nothing.
        #[cfg(not(poolable_loom))]
        {
            FAST.with(|fast| fast.set(core::ptr::null()));
            mirror(&[]);
        }
        evict(core::mem::take(self.entries.get_mut()));
    }
}

thread_local_const! {
    static TABLE: Table = Table::new();
}

#[cfg(not(poolable_loom))]
std::thread_local! {
    /// This thread's `TABLE` once `link` has used it, null before that and
    /// from the start of the table's destructor. It has no destructor of its
    /// own, so reading it is one thread-local load with no registration
    /// check: the way in for keys past `NEAR`.
    static FAST: Cell<*const Table> = const { Cell::new(core::ptr::null()) };

    /// The lookup words of the list's first `NEAR_LEN` entries (module docs).
    static NEAR: [Cell<Near>; NEAR_LEN] = const { [const { Cell::new(Near::EMPTY) }; NEAR_LEN] };
}

/// Make `NEAR` mirror `entries` (no user code runs here).
#[cfg(not(poolable_loom))]
fn mirror(entries: &[Entry]) {
    NEAR.with(|near| {
        for (i, cell) in near.iter().enumerate() {
            cell.set(entries.get(i).map_or(Near::EMPTY, |entry| Near {
                unique: entry.unique,
                tenant: entry.tenant,
            }));
        }
    });
}

/// The tenant pointer of the mirror's entry at `index` (modulo the
/// mirror's length), if that entry holds `unique`.
///
/// This and [`find`] read the thread-locals outside the generic lookups
/// ([`with_near`], [`with`]): those are instantiated once per pool
/// type and call site, and each would instantiate the thread-local's
/// accessors again (a debug build of a used pool compiles every copy).
#[cfg(not(poolable_loom))]
#[inline(always)]
fn near(index: usize, unique: u64) -> Option<*const ()> {
    near_at(near_offset(index), unique)
}

/// Where an entry of the mirror is, in bytes from its start: made only by
/// [`near_offset`] (its field is private to this module), so it is always
/// an entry's.
#[derive(Clone, Copy)]
pub(crate) struct NearOffset(usize);

/// The [`NearOffset`] of the mirror's entry for a key at `index`. Masked,
/// not bounds-checked: a key past the mirror lands on another key's entry
/// (or an empty one), whose unique number is not its own.
const fn near_offset(index: usize) -> NearOffset {
    NearOffset(index % NEAR_LEN * size_of::<Near>())
}

/// [`near`] with the entry's [`NearOffset`].
#[cfg(not(poolable_loom))]
#[inline(always)]
fn near_at(offset: NearOffset, unique: u64) -> Option<*const ()> {
    let near = NEAR.with(|near| {
        // SAFETY: a `NearOffset` is an entry's (`near_offset`; a
        // `Cell<Near>` is laid out as a `Near`).
        unsafe {
            &*near
                .as_ptr()
                .cast::<u8>()
                .add(offset.0)
                .cast::<Cell<Near>>()
        }
        .get()
    });
    (near.unique == unique).then_some(near.tenant)
}

/// The tenant pointer of this thread's table at `index`, if the entry there
/// holds `unique` (and the thread has a table that is not being destroyed).
#[inline(always)]
fn find(index: usize, unique: u64) -> Option<*const ()> {
    #[cfg(not(poolable_loom))]
    {
        let table = FAST.with(Cell::get);
        if table.is_null() {
            return None;
        }
        // SAFETY: a non-null `FAST` was set by `link` to this thread's
        // `TABLE`, which lives until the thread's destructors run, and whose
        // destructor nulls `FAST` before anything else: the table is alive.
        unsafe { &*table }.find(index, unique)
    }
    // Under loom, the plain path (loom's thread-locals have their own rules
    // for access during destruction).
    #[cfg(poolable_loom)]
    {
        TABLE
            .try_with(|table| table.find(index, unique))
            .ok()
            .flatten()
    }
}

/// Run `f` with this thread's tenant for `key`. `None` if there is none
/// (never linked, or the thread is exiting and its table is gone).
#[inline(always)]
pub(crate) fn with<S, H, R>(
    key: &impl Lookup<S, H>,
    f: impl FnOnce(Owner<'_, S, H>) -> R,
) -> Option<R> {
    let Numbers { index, unique, .. } = key.numbers();
    // A `match`, not `Option::map` and a closure: one instance less per
    // pool type and call site (see `near`).
    #[allow(clippy::manual_map)]
    match lookup(index, unique) {
        // SAFETY: see `owner`.
        Some(tenant) => Some(f(unsafe { owner(tenant) })),
        None => None,
    }
}

/// The tenant pointer for a key's numbers: through the mirror if it holds
/// them, else through the list. Not generic, so that [`with`]'s copies (one
/// per pool type and call site) hold only the call of `f`.
fn lookup(index: usize, unique: u64) -> Option<*const ()> {
    #[cfg(not(poolable_loom))]
    if index < NEAR_LEN {
        return near(index, unique);
    }
    find(index, unique)
}

/// [`with`] for a key the mirror holds (the hot paths): `None` also for a
/// key past it, which the caller's slow path looks up with [`with`]. A
/// call in the hot path would cost it a stack frame.
#[inline(always)]
pub(crate) fn with_near<S, H, R>(
    key: &impl Lookup<S, H>,
    f: impl FnOnce(Owner<'_, S, H>) -> R,
) -> Option<R> {
    // Under loom, every lookup reads the list.
    #[cfg(poolable_loom)]
    let found = {
        let Numbers { index, unique, .. } = key.numbers();
        find(index, unique)
    };
    #[cfg(not(poolable_loom))]
    let found = {
        let (offset, unique) = key.near();
        near_at(offset, unique)
    };
    // As in `with`, a `match`.
    #[allow(clippy::manual_map)]
    match found {
        // SAFETY: see `owner`; a mirrored entry equals the list's entry
        // (module docs), and the destructor empties the mirror first.
        Some(tenant) => Some(f(unsafe { owner(tenant) })),
        None => None,
    }
}

/// [`with`] for a key past the mirror, the one lookup [`with_near`] does
/// not make: `None` for a key the mirror holds (and under loom, where
/// `with_near` reads the list for every key).
#[inline]
pub(crate) fn with_far<S, H, R>(
    key: &impl Lookup<S, H>,
    f: impl FnOnce(Owner<'_, S, H>) -> R,
) -> Option<R> {
    let Numbers { index, unique, .. } = key.numbers();
    if cfg!(poolable_loom) || index < NEAR_LEN {
        return None;
    }
    // As in `with`, a `match`.
    #[allow(clippy::manual_map)]
    match find(index, unique) {
        // SAFETY: see `owner`.
        Some(tenant) => Some(f(unsafe { owner(tenant) })),
        None => None,
    }
}

/// The owner of the tenant an entry points to.
///
/// # Safety
///
/// `tenant` comes from an entry of this thread's table (or its mirror)
/// that matched the unique number of a `Key<S, H>` (a `KeyCopy<S, H>` holds
/// one or matches nothing), so it was linked with that key and holds a
/// `Tenant<S, H>` (module docs). Its `Arc` stays in the table while the
/// owner is used: `link` keeps the entries of live keys, and the pool of
/// the key is borrowed by the lookup, so its key is live (module docs).
#[inline(always)]
unsafe fn owner<'a, S, H>(tenant: *const ()) -> Owner<'a, S, H> {
    // SAFETY: the caller's (above).
    Owner::new(unsafe { &*tenant.cast::<Tenant<S, H>>() })
}

/// Give this thread the tenant for `key`. False if it cannot: the thread is
/// exiting.
pub(crate) fn link<S: Send + 'static, H: Head<S>>(
    key: &Key<S, H>,
    tenant: Arc<Tenant<S, H>>,
) -> bool {
    let entry = Entry {
        unique: key.unique,
        tenant: Arc::as_ptr(&tenant).cast(),
        owner: Some(tenant),
    };
    link_entry(key.index, entry)
}

/// [`link`]'s work, not generic: `entry` into the slot `index`.
fn link_entry(index: usize, entry: Entry) -> bool {
    TABLE
        .try_with(|table| {
            // SAFETY: no reference into the list is live (lookups copy out
            // of it); the clone allocates (user code, if the allocator is)
            // while the old list is still whole and untouched.
            let old = unsafe { &*table.entries.get() };
            let len = old.len().max(index + 1);
            let mut new: Vec<Entry> = Vec::with_capacity(len);
            new.extend(old.iter().cloned());
            new.resize(len, Entry::EMPTY);
            // Drop the entries of pools that are gone, and whatever held the slot.
            for (i, entry) in new.iter_mut().enumerate() {
                if i == index || entry.owner.as_ref().is_some_and(|o| o.is_closed()) {
                    *entry = Entry::EMPTY;
                }
            }
            new[index] = entry;
            // SAFETY: as above; one pointer swap, no user code.
            let old = core::mem::replace(unsafe { &mut *table.entries.get() }, new);
            #[cfg(not(poolable_loom))]
            {
                // SAFETY: as above: a shared look at the list just swapped in.
                mirror(unsafe { &*table.entries.get() });
                FAST.with(|fast| fast.set(table));
            }
            // The replaced entries (and their tenants, if these were the last
            // references) are freed now that the table is consistent again.
            drop(old);
        })
        .is_ok()
}

/// Do now what this thread's exit will do: empty and drop its tenants. For
/// the loom models, whose `join` returns before thread-local destructors run.
/// Not from inside a lookup's closure (the models call it between operations).
#[cfg(poolable_loom)]
pub(crate) fn evict_all() {
    let entries = TABLE.try_with(|table| {
        // SAFETY: no reference into the list is live (lookups copy out of
        // it), and no closure of this thread's lookups is running.
        core::mem::take(unsafe { &mut *table.entries.get() })
    });
    evict(entries.unwrap_or_default());
}

#[cfg(all(test, not(poolable_loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicUsize};

    /// Counts its evictions; closed on request.
    #[derive(Default)]
    struct Probe {
        evicted: AtomicUsize,
        closed: AtomicBool,
    }

    /// A head sharing a probe with the test.
    struct TestHead(Arc<Probe>);

    impl Head<()> for TestHead {
        fn evict(owner: Owner<'_, (), Self>) {
            owner.head().0.evicted.fetch_add(1, Ordering::Relaxed);
        }

        fn is_closed(&self) -> bool {
            self.0.closed.load(Ordering::Relaxed)
        }
    }

    fn tenant() -> (Arc<Tenant<(), TestHead>>, Arc<Probe>) {
        let probe = Arc::new(Probe::default());
        (
            Arc::new(Tenant::new((), TestHead(Arc::clone(&probe)))),
            probe,
        )
    }

    /// The probe of the tenant `key` finds on this thread, if any.
    fn found(key: &Key<(), TestHead>) -> Option<Arc<Probe>> {
        with(key, |owner| Arc::clone(&owner.head().0))
    }

    #[test]
    fn a_key_finds_only_the_tenant_linked_to_it() {
        let (a, b) = (Key::new(), Key::new());
        assert!(found(&a).is_none());
        let (tenant, probe) = tenant();
        assert!(link(&a, tenant));
        assert!(Arc::ptr_eq(&found(&a).unwrap(), &probe));
        assert!(found(&b).is_none());
    }

    /// A pool's copy of its key finds nothing until it is set (not even the
    /// empty entries a table is padded with), then what the key finds.
    #[test]
    fn a_key_copy_finds_nothing_until_set_then_the_keys_tenant() {
        let (filler, key) = (Key::new(), Key::new());
        // Pad this thread's table past `key.index` with empty entries.
        assert!(link(&filler, tenant().0));
        let copy = KeyCopy::<(), TestHead>::new();
        assert!(with(&copy, |_| ()).is_none());
        let (linked, probe) = tenant();
        assert!(link(&key, linked));
        assert!(with(&copy, |_| ()).is_none(), "not set yet");
        assert!(with_near(&copy, |_| ()).is_none(), "not set yet");
        copy.set(&key);
        let found = with(&copy, |owner| Arc::clone(&owner.head().0));
        assert!(found.is_some_and(|p| Arc::ptr_eq(&p, &probe)));
    }

    /// A key copy's mirror offset is its key's entry, at any index the
    /// mirror holds; past it, the hot lookup finds nothing. (Other tests'
    /// keys take indexes too, so a key's index is not known in advance.)
    #[test]
    fn a_key_copy_finds_its_entry_in_the_mirror_at_any_index() {
        let keys: Vec<Key<(), TestHead>> = (0..NEAR_LEN).map(|_| Key::new()).collect();
        for key in &keys {
            let (linked, probe) = tenant();
            assert!(link(key, linked));
            let copy = KeyCopy::<(), TestHead>::new();
            copy.set(key);
            let found = with_near(&copy, |owner| Arc::clone(&owner.head().0));
            if key.index < NEAR_LEN {
                assert!(
                    found.is_some_and(|p| Arc::ptr_eq(&p, &probe)),
                    "index {}",
                    key.index
                );
            } else {
                assert!(found.is_none(), "index {} is past the mirror", key.index);
            }
        }
    }

    /// Keys past the mirror (`NEAR_LEN`) are found in the list, by both
    /// lookups that can: `with`, not `with_near` (whose caller falls back).
    #[test]
    fn a_key_past_the_mirror_is_found_in_the_list() {
        let keys: Vec<Key<(), TestHead>> = (0..=NEAR_LEN).map(|_| Key::new()).collect();
        let far = keys
            .iter()
            .find(|k| k.index >= NEAR_LEN)
            .expect("a key past the mirror");
        let near = keys.iter().find(|k| k.index < NEAR_LEN);
        let (tenant, probe) = tenant();
        assert!(link(far, tenant));
        assert!(found(far).is_some_and(|p| Arc::ptr_eq(&p, &probe)));
        assert!(with_near(far, |_| ()).is_none());
        // A near key (if another test has not taken every low index) is
        // found by both, through the mirror.
        if let Some(near) = near {
            assert!(link(near, self::tenant().0));
            assert!(with_near(near, |_| ()).is_some() && found(near).is_some());
        }
    }

    /// The mirror is indexed modulo its length, with no bounds check: an
    /// index past it lands on the entry of another key, whose unique number
    /// (never reused) is not the one looked up, so it finds nothing there.
    #[test]
    fn an_index_past_the_mirror_lands_on_an_entry_that_does_not_match() {
        let entries: Vec<Entry> = (0..4u64)
            .map(|i| Entry {
                unique: 100 + i,
                tenant: core::ptr::dangling(),
                owner: None,
            })
            .collect();
        mirror(&entries);
        assert_eq!(near(2, 102), Some(core::ptr::dangling()));
        // A far key's own number, on the entry its index aliases.
        assert_eq!(near(2 + NEAR_LEN, 7), None);
        assert_eq!(near(2 + 5 * NEAR_LEN, 102 + 1), None);
        // Past the list: empty entries (0) match no key (numbers from 1).
        assert_eq!(near(10 + NEAR_LEN, 1), None);
        mirror(&[]);
        assert_eq!(near(2, 102), None);
    }

    /// At thread exit, a value's `Drop` run by the eviction looks its pool
    /// up and finds nothing (not the tenant being emptied): the mirror is
    /// emptied before the list.
    #[test]
    fn lookups_during_the_exit_eviction_find_nothing() {
        struct LookupOnEvict(Arc<AtomicBool>, Arc<Key<(), LookupOnEvict>>);
        impl Head<()> for LookupOnEvict {
            fn evict(owner: Owner<'_, (), Self>) {
                let head = owner.head();
                let found = with(&*head.1, |_| ()).is_some();
                head.0.store(found, Ordering::Relaxed);
            }
            fn is_closed(&self) -> bool {
                false
            }
        }
        let found = Arc::new(AtomicBool::new(true));
        let key = Arc::new(Key::new());
        let (found_there, key_there) = (Arc::clone(&found), Arc::clone(&key));
        std::thread::spawn(move || {
            let head = LookupOnEvict(found_there, Arc::clone(&key_there));
            let tenant = Arc::new(Tenant::new((), head));
            assert!(link(&*key_there, tenant));
            assert!(with(&*key_there, |_| ()).is_some());
        })
        .join()
        .unwrap();
        assert!(
            !found.load(Ordering::Relaxed),
            "a lookup found a tenant being evicted"
        );
    }

    /// After a burst of pools is dropped, a new pool takes the lowest free
    /// index, not the last one freed: the one that is left keeps an index
    /// inside the mirror (`NEAR_LEN`), and its gets and returns keep the
    /// fast path. (It took the last index freed: one pool made after 100
    /// were dropped in order got index 99 and, past the mirror, took the
    /// slow path on every operation, 8.7 times slower.)
    #[test]
    fn a_new_key_takes_the_lowest_free_index() {
        let mut indexes = Indexes::new();
        let burst: Vec<usize> = (0..100).map(|_| indexes.take()).collect();
        assert_eq!(burst, (0..100).collect::<Vec<_>>());
        for &index in &burst {
            indexes.give(index);
        }
        assert_eq!(indexes.take(), 0, "the lowest free index");
        assert_eq!(indexes.take(), 1);
        indexes.give(0);
        assert_eq!(indexes.take(), 0);
        assert_eq!(indexes.take(), 2);
    }

    #[test]
    fn a_reused_index_does_not_find_the_old_tenant() {
        let old = Key::<(), TestHead>::new();
        assert!(link(&old, tenant().0));
        let index = old.index;
        drop(old);
        let new = Key::<(), TestHead>::new();
        // Another test may take the freed index first; when this key has it,
        // the old entry must not answer for it.
        if new.index == index {
            assert!(found(&new).is_none());
        }
    }

    /// User code inside an operation (a value's `Drop`) can link another
    /// pool; the tenant the operation holds stays alive and in the table.
    /// Under Miri this checks that the list swap frees nothing in use.
    #[test]
    fn a_link_from_inside_an_operation_keeps_the_running_tenant() {
        let (outer, inner) = (Key::new(), Key::new());
        let (tenant_outer, probe) = tenant();
        assert!(link(&outer, tenant_outer));
        let linked = with(&outer, |owner| {
            let linked = link(&inner, tenant().0);
            // The running tenant is still readable, and still the one found.
            let same = Arc::ptr_eq(&owner.head().0, &probe);
            (
                linked,
                same && found(&outer).is_some_and(|p| Arc::ptr_eq(&p, &probe)),
            )
        });
        assert_eq!(linked, Some((true, true)));
        assert!(found(&inner).is_some());
    }

    #[test]
    fn closed_tenants_leave_the_table_at_the_next_link() {
        let (a, b) = (Key::new(), Key::new());
        let (tenant_a, probe_a) = tenant();
        assert!(link(&a, tenant_a));
        probe_a.closed.store(true, Ordering::Relaxed);
        assert!(found(&a).is_some());
        assert!(link(&b, tenant().0));
        assert!(found(&a).is_none());
        // Leaving the table is not an eviction: the pool is gone.
        assert_eq!(probe_a.evicted.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn an_exiting_thread_evicts_each_of_its_tenants_once() {
        let keys = Arc::new((Key::new(), Key::new()));
        let (tenant_a, probe_a) = tenant();
        let (tenant_b, probe_b) = tenant();
        // `join`, not a scope: it waits for the thread's destructors.
        let keys_there = Arc::clone(&keys);
        std::thread::spawn(move || {
            assert!(link(&keys_there.0, tenant_a));
            assert!(link(&keys_there.1, tenant_b));
        })
        .join()
        .unwrap();
        assert_eq!(probe_a.evicted.load(Ordering::Relaxed), 1);
        assert_eq!(probe_b.evicted.load(Ordering::Relaxed), 1);
    }
}
