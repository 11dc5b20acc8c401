//! Each thread's table of its tenants (one per pool it has used), indexed
//! by the pool's [`Key`]: the lookup on every get and return. The fast path
//! reaches the table through a destructor-less thread-local pointer
//! (`FAST`), so it pays no lazy-registration check.
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
use core::cell::{Cell, UnsafeCell};
use core::marker::PhantomData;
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
            unique: AtomicU64::new(NONE),
            _types: PhantomData,
        }
    }

    /// Copy `key`'s numbers (the same ones on every call for one pool).
    pub(crate) fn set(&self, key: &Key<S, H>) {
        self.index.store(key.index, Ordering::Relaxed);
        // Release: whoever reads this unique number reads this index too.
        self.unique.store(key.unique, Ordering::Release);
    }
}

/// What a lookup needs: a key, or a pool's copy of one.
pub(crate) trait Lookup<S, H> {
    /// The table index and the unique number to match there.
    fn numbers(&self) -> (usize, u64);
}

impl<S, H> Lookup<S, H> for Key<S, H> {
    #[inline(always)]
    fn numbers(&self) -> (usize, u64) {
        (self.index, self.unique)
    }
}

impl<S, H> Lookup<S, H> for KeyCopy<S, H> {
    #[inline(always)]
    fn numbers(&self) -> (usize, u64) {
        let unique = self.unique.load(Ordering::Acquire);
        (self.index.load(Ordering::Relaxed), unique)
    }
}

/// Free table indexes, reused so that tables stay as short as the number of
/// live pools. (A `std` lock even under loom: held for a few instructions,
/// with no loom operation inside.)
struct Indexes {
    free: Vec<usize>,
    next: usize,
}

static INDEXES: std::sync::Mutex<Indexes> = std::sync::Mutex::new(Indexes {
    free: Vec::new(),
    next: 0,
});

static UNIQUE: AtomicU64 = AtomicU64::new(1);

impl<S, H> Key<S, H> {
    pub(crate) fn new() -> Self {
        let mut indexes = INDEXES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let index = indexes.free.pop().unwrap_or_else(|| {
            indexes.next += 1;
            indexes.next - 1
        });
        Key {
            index,
            unique: UNIQUE.fetch_add(1, Ordering::Relaxed),
            _types: PhantomData,
        }
    }
}

impl<S, H> Drop for Key<S, H> {
    fn drop(&mut self) {
        INDEXES
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .free
            .push(self.index);
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
        FAST.with(|fast| fast.set(core::ptr::null()));
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
    /// check: the fast path's way in.
    static FAST: Cell<*const Table> = const { Cell::new(core::ptr::null()) };
}

/// Run `f` with this thread's table, if it has one that is not being
/// destroyed.
#[inline(always)]
fn current<R>(f: impl FnOnce(&Table) -> Option<R>) -> Option<R> {
    #[cfg(not(poolable_loom))]
    {
        let table = FAST.with(Cell::get);
        if table.is_null() {
            return None;
        }
        // SAFETY: a non-null `FAST` was set by `link` to this thread's
        // `TABLE`, which lives until the thread's destructors run, and whose
        // destructor nulls `FAST` before anything else: the table is alive.
        f(unsafe { &*table })
    }
    // Under loom, the plain path (loom's thread-locals have their own rules
    // for access during destruction).
    #[cfg(poolable_loom)]
    {
        TABLE.try_with(f).ok().flatten()
    }
}

/// Run `f` with this thread's tenant for `key`. `None` if there is none
/// (never linked, or the thread is exiting and its table is gone).
#[inline(always)]
pub(crate) fn with<S, H, R>(
    key: &impl Lookup<S, H>,
    f: impl FnOnce(Owner<'_, S, H>) -> R,
) -> Option<R> {
    current(|table| {
        let (index, unique) = key.numbers();
        let tenant = table.find(index, unique)?;
        // SAFETY: the entry matched the unique number of a `Key<S, H>` (a
        // `KeyCopy<S, H>` holds one or matches nothing), so it was linked
        // with that key and holds a `Tenant<S, H>` (module docs). Its `Arc`
        // stays in the table while `f` runs: `link` keeps the entries of
        // live keys, and the pool of `key` is borrowed, so its key is live
        // (module docs).
        let tenant = unsafe { &*tenant.cast::<Tenant<S, H>>() };
        Some(f(Owner::new(tenant)))
    })
}

/// Give this thread the tenant for `key`. False if it cannot: the thread is
/// exiting.
pub(crate) fn link<S: Send + 'static, H: Head<S>>(
    key: &Key<S, H>,
    tenant: Arc<Tenant<S, H>>,
) -> bool {
    TABLE
        .try_with(|table| {
            // SAFETY: no reference into the list is live (lookups copy out
            // of it); the clone allocates (user code, if the allocator is)
            // while the old list is still whole and untouched.
            let old = unsafe { &*table.entries.get() };
            let len = old.len().max(key.index + 1);
            let mut new: Vec<Entry> = Vec::with_capacity(len);
            new.extend(old.iter().cloned());
            new.resize(len, Entry::EMPTY);
            // Drop the entries of pools that are gone, and whatever held the slot.
            for (i, entry) in new.iter_mut().enumerate() {
                if i == key.index || entry.owner.as_ref().is_some_and(|o| o.is_closed()) {
                    *entry = Entry::EMPTY;
                }
            }
            new[key.index] = Entry {
                unique: key.unique,
                tenant: Arc::as_ptr(&tenant).cast(),
                owner: Some(tenant),
            };
            // SAFETY: as above; one pointer swap, no user code.
            let old = core::mem::replace(unsafe { &mut *table.entries.get() }, new);
            #[cfg(not(poolable_loom))]
            FAST.with(|fast| fast.set(table));
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
        copy.set(&key);
        let found = with(&copy, |owner| Arc::clone(&owner.head().0));
        assert!(found.is_some_and(|p| Arc::ptr_eq(&p, &probe)));
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
