//! [`Tenant`]: state that one thread (its owner) reads and writes with no
//! atomic read-modify-write and no lock, and that any other thread (a
//! reclaimer: a trim, a `clear`, a dropped pool) can take over between two of
//! the owner's operations, without the owner's help.
//!
//! The protocol, Dekker's with asymmetric fences (`fence.rs`):
//!
//! - The owner marks each operation: unless its mark is [`BUSY`] (it is
//!   inside an operation already: re-entered), it sets `BUSY` (a plain
//!   store), puts a [`light`](super::fence::light) fence after it, then
//!   loads `pending`. Zero: nothing is asked of it, and it uses the state
//!   directly (the fast path), then clears `BUSY` with a release store and
//!   counts the operation. Non-zero: it takes `lock` and applies the
//!   requests itself (the slow path).
//! - A reclaimer adds to `pending` (a release, so an owner that sees the
//!   request also sees what the reclaimer wrote before it), runs a [`heavy`](super::fence::heavy)
//!   fence, then loads the mark. `BUSY`: the owner is inside an
//!   operation, so it leaves the request pending for the owner's next
//!   operation. Not `BUSY`: it takes `lock` and applies the requests.
//!
//! With a full fence between each side's store and load, at least one side
//! sees the other's store. So a reclaimer that found the owner idle can touch
//! the state: an owner operation that started after that load sees the
//! request, goes to the slow path and waits on `lock`. Requests are applied
//! only under `lock`, each exactly once: whoever applies `n` of them
//! subtracts `n`, after it is done with the state (a release, which the
//! owner's acquire load of `pending` pairs with). Reclaimers are serialised
//! process-wide ([`Reclaim`]), so a request can only be applied by the
//! reclaimer that made it or by the owner.
//!
//! A reclaimer works in a batch ([`Reclaim`]): it posts its requests to
//! every tenant it wants (of every pool a trim visits), runs one heavy fence
//! for all of them ([`Reclaim::fence`]), then reads each tenant's mark
//! and applies its request where the owner is between operations
//! ([`Fenced::apply`]). One fence covers the whole batch: the argument above
//! only asks that each request be stored before the fence and each mark
//! be loaded after it. So a trim makes one system call however many threads
//! and pools there are.

use super::fence;
use crate::sync::{AtomicU32, AtomicU64, Mutex, MutexGuard, Ordering, UnsafeCell, lock};
use core::marker::PhantomData;

/// A thread's state plus an immutable, shared `head` (what reclaimers and
/// statistics read without the protocol).
///
/// Aligned to 128 bytes (two cache lines, as `CachePadded`): its owner
/// writes it on every operation, and two threads' tenants sharing a line
/// made one pool's 2-thread time swing between 12 and 32 ns per operation
/// from run to run (`benches/obj.rs`, the generic derived type).
#[repr(align(128))]
pub(crate) struct Tenant<S, H> {
    /// The owner's mark: [`BUSY`] for the length of each operation, of
    /// either kind (so one load refuses re-entry from inside any of them);
    /// [`FENCED`] set for good where [`fence::asymmetric`] was false when
    /// the tenant was made (after `fence::init`, which the pool runs
    /// before any tenant exists).
    mark: AtomicU32,
    /// Requests not yet applied; the owner's fast path runs only at zero.
    pending: AtomicU32,
    /// How many fast-path operations of each kind ([`Op`]) were counted:
    /// written by the owner alone (one `inc` on x86), read by statistics.
    /// Kept in a mark per kind, beside `BUSY`, they cost each operation the
    /// other kind's mark to load and more to set `BUSY`: 4 instructions
    /// more per get or return (`benches/instructions.rs`).
    counts: [AtomicU64; OPS],
    /// Held by whoever applies requests: the owner's slow path or a reclaimer.
    lock: Mutex<()>,
    state: UnsafeCell<S>,
    pub(crate) head: H,
}

// SAFETY: `state` is only reached through `Owner::fast` (the owner, with no
// request pending, which excludes every reclaimer by the protocol above),
// `Owner::slow` and `Fenced::apply` (under `lock`). So one thread at a time
// has it, and it may be a different thread each time: `S: Send` is enough.
unsafe impl<S: Send, H: Sync> Sync for Tenant<S, H> {}

/// In the mark: the owner is inside an operation.
const BUSY: u32 = 1;
/// In the mark: the owner's side of the protocol is a full fence (no
/// membarrier on this system); else a compiler fence.
const FENCED: u32 = 2;

/// The kinds of fast-path operation, each counted on its own: gets and
/// returns, and (for the thread tier, `tier/thread.rs`) the gets and returns
/// that went through its hot slot, whose difference tells whether that slot
/// holds a value.
#[derive(Clone, Copy)]
pub(crate) enum Op {
    Get = 0,
    Put = 1,
    GetHot = 2,
    PutHot = 3,
}

/// How many kinds [`Op`] has.
pub(crate) const OPS: usize = 4;

/// What the owner's fast path found.
pub(crate) enum Fast<R> {
    /// `f` ran.
    Done(R),
    /// A request is pending (or the tenant was re-entered): take the slow path.
    Slow,
}

impl<S, H> Tenant<S, H> {
    pub(crate) fn new(state: S, head: H) -> Self {
        Tenant {
            mark: AtomicU32::new(if fence::asymmetric() { 0 } else { FENCED }),
            pending: AtomicU32::new(0),
            counts: core::array::from_fn(|_| AtomicU64::new(0)),
            lock: Mutex::new(()),
            state: UnsafeCell::new(state),
            head,
        }
    }

    /// Ask the tenant for `n` more applications of `batch`'s work.
    /// (`_batch` shows that the caller is the process's one reclaimer.)
    pub(crate) fn post(&self, _batch: &Reclaim, n: u32) {
        // Release: an owner whose acquire load sees the request also sees
        // what the reclaimer did before it (a decay step's new generation).
        self.pending.fetch_add(n, Ordering::Release);
    }

    /// How many operations of each kind ([`Op`]) the owner's fast path
    /// counted.
    pub(crate) fn fast_counts(&self) -> [u64; OPS] {
        self.counts.each_ref().map(|c| c.load(Ordering::Relaxed))
    }

    /// Whether the owner is inside an operation (to a reclaimer after its
    /// fence).
    fn busy(&self) -> bool {
        self.mark.load(Ordering::Acquire) & BUSY != 0
    }

    /// Under `lock`: run `f` with every pending request, then retire them.
    fn apply<R>(&self, f: impl FnOnce(&mut S, u32) -> R) -> Option<R> {
        let n = self.pending.load(Ordering::Acquire);
        if n == 0 {
            return None;
        }
        // SAFETY: we hold `lock` and a request is pending, so the owner is
        // not on its fast path (module docs) and no one else holds `lock`.
        let out = f(unsafe { &mut *self.state.get_mut().as_ptr() }, n);
        self.pending.fetch_sub(n, Ordering::Release);
        Some(out)
    }
}

/// A batch of requests to tenants, from one reclaimer (a trim, a clear, a
/// dropped pool): post to every tenant, one heavy fence for all of them,
/// then apply where the owner is idle (module docs).
///
/// It holds the process-wide reclaimer lock from [`begin`](Reclaim::begin)
/// until the [`Fenced`] it becomes is dropped, so batches never overlap and
/// a tenant's requests are applied only by the batch that made them or by
/// its owner. Nothing under it may drop a value or run other user code.
pub(crate) struct Reclaim {
    serial: MutexGuard<'static, ()>,
}

/// A [`Reclaim`] after its fence: requests can be applied, none posted.
pub(crate) struct Fenced {
    _serial: MutexGuard<'static, ()>,
    /// What the heavy fence returned: false leaves every request to its
    /// owner.
    fenced: bool,
}

/// Serialises every reclaimer of the process.
#[cfg(not(poolable_loom))]
fn reclaimers() -> &'static Mutex<()> {
    static RECLAIMERS: Mutex<()> = Mutex::new(());
    &RECLAIMERS
}

/// Serialises every reclaimer of the process (a fresh lock per loom
/// iteration).
#[cfg(poolable_loom)]
fn reclaimers() -> &'static Mutex<()> {
    loom::lazy_static! {
        static ref RECLAIMERS: Mutex<()> = Mutex::new(());
    }
    &RECLAIMERS
}

impl Reclaim {
    /// Start a batch; waits for any other reclaimer to finish its own.
    pub(crate) fn begin() -> Reclaim {
        Reclaim {
            serial: lock(reclaimers()),
        }
    }

    /// The batch's one heavy fence: after it, every posted tenant is either
    /// visibly busy or will see its request at its owner's next operation.
    pub(crate) fn fence(self) -> Fenced {
        Fenced {
            fenced: fence::heavy(),
            _serial: self.serial,
        }
    }
}

impl Fenced {
    /// If the owner of `tenant` (posted to by the [`Reclaim`] this was
    /// fenced from) was between two operations, run `f(head, state,
    /// pending)` now and retire the requests; whether it ran. Otherwise
    /// the owner is inside an operation (or nothing is pending any more)
    /// and applies the requests itself at its next one.
    ///
    /// `f` runs under a lock: it must not drop values or run other user
    /// code.
    pub(crate) fn apply<S, H>(
        &self,
        tenant: &Tenant<S, H>,
        f: impl FnOnce(&H, &mut S, u32),
    ) -> bool {
        if !self.fenced || tenant.busy() {
            return false;
        }
        let _lock = lock(&tenant.lock);
        tenant.apply(|state, n| f(&tenant.head, state, n)).is_some()
    }
}

/// Proof that the calling thread owns a tenant: only this thread's table
/// (`table.rs`) makes one, and it is neither `Send` nor `Sync`.
pub(crate) struct Owner<'a, S, H> {
    tenant: &'a Tenant<S, H>,
    _not_send: PhantomData<*const ()>,
}

impl<'a, S, H> Owner<'a, S, H> {
    /// Only for the tenant in the calling thread's own table.
    pub(super) fn new(tenant: &'a Tenant<S, H>) -> Self {
        Owner {
            tenant,
            _not_send: PhantomData,
        }
    }

    pub(crate) fn head(&self) -> &'a H {
        &self.tenant.head
    }

    /// [`Tenant::fast_counts`].
    pub(crate) fn fast_counts(&self) -> [u64; OPS] {
        self.tenant.fast_counts()
    }

    /// The fast path: `f` with the state, unless a request is pending or this
    /// thread is already inside an operation on the tenant (re-entered from
    /// user code), in which case nothing runs. `f` says what to count the
    /// operation as, if anything ([`Tenant::fast_counts`]).
    #[inline(always)]
    pub(crate) fn fast<R>(&self, f: impl FnOnce(&mut S) -> (R, Option<Op>)) -> Fast<R> {
        let t = self.tenant;
        let idle = t.mark.load(Ordering::Relaxed);
        if idle & (BUSY | FENCED) == 0 {
            t.mark.store(BUSY, Ordering::Relaxed);
            fence::light(true);
        } else if idle & BUSY == 0 {
            t.mark.store(FENCED | BUSY, Ordering::Relaxed);
            fence::light(false);
        } else {
            // `BUSY`: re-entered from inside an operation (whose `f` holds
            // the state). Only the owner writes the mark.
            return Fast::Slow;
        }
        if t.pending.load(Ordering::Acquire) != 0 {
            t.mark.store(idle, Ordering::Release);
            return Fast::Slow;
        }
        // SAFETY: this thread owns the tenant (`Owner`), is not re-entering
        // it (the mark was not `BUSY`), and no request is pending after its
        // `BUSY` store and fence: no reclaimer touches the state until
        // `BUSY` is clear again (module docs).
        let (out, counted) = f(unsafe { &mut *t.state.get_mut().as_ptr() });
        t.mark.store(idle, Ordering::Release);
        if let Some(op) = counted {
            // Only the owner writes it: a load and a store, not a
            // read-modify-write (one `inc` on x86).
            let count = &t.counts[op as usize];
            count.store(count.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        }
        Fast::Done(out)
    }

    /// Whether the owner is neither inside an operation on the tenant nor
    /// asked to retire a request: a caller may then act beside the state
    /// (on what the state does not hold) and leave the slow path for later.
    pub(crate) fn is_quiet(&self) -> bool {
        let t = self.tenant;
        t.mark.load(Ordering::Relaxed) & BUSY == 0 && t.pending.load(Ordering::Relaxed) == 0
    }

    /// The slow path: under the lock, `f(state, pending)`; the pending
    /// requests are retired after it. `None` if this thread is already inside
    /// an operation on the tenant.
    pub(crate) fn slow<R>(&self, f: impl FnOnce(&mut S, u32) -> R) -> Option<R> {
        let t = self.tenant;
        let idle = t.mark.load(Ordering::Relaxed);
        if idle & BUSY != 0 {
            return None;
        }
        // `BUSY` here only detects re-entry (by a fast path or this one);
        // the lock excludes reclaimers.
        t.mark.store(idle | BUSY, Ordering::Relaxed);
        let out = {
            let _lock = lock(&t.lock);
            let n = t.pending.load(Ordering::Acquire);
            // SAFETY: we hold `lock`, and the owner (this thread) is not on
            // its fast path: a reclaimer that found the owner idle waits for
            // `lock`, one that found it busy does not touch the state.
            let out = f(unsafe { &mut *t.state.get_mut().as_ptr() }, n);
            if n > 0 {
                t.pending.fetch_sub(n, Ordering::Release);
            }
            out
        };
        t.mark.store(idle, Ordering::Release);
        Some(out)
    }
}

#[cfg(all(test, not(poolable_loom)))]
mod tests {
    use super::*;
    use crate::sync::try_lock;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool as StdBool;

    /// What ran on a tenant's state: owner operations and applied requests.
    #[derive(Default)]
    struct Log {
        ops: u64,
        applied: u64,
    }

    fn tenant() -> Arc<Tenant<Log, ()>> {
        // As a pool does before its first tenant: else the mode depends on
        // whether another test made a pool first, and run alone these tests
        // never see an unfenced tenant.
        fence::init();
        Arc::new(Tenant::new(Log::default(), ()))
    }

    /// A tenant as this system makes it, and one whose owner fences in
    /// full (as on a system without membarrier, and under Miri and loom).
    /// Not the other way round: the light fence is sound only beside a
    /// membarrier.
    fn tenants() -> [Arc<Tenant<Log, ()>>; 2] {
        let fenced = tenant();
        fenced.mark.store(FENCED, Ordering::Relaxed);
        [tenant(), fenced]
    }

    /// The mark: what an idle owner leaves.
    fn idle(t: &Tenant<Log, ()>) -> u32 {
        t.mark.load(Ordering::Relaxed)
    }

    /// A batch of one: post `n` requests to `t`, fence, and apply them if
    /// its owner is idle. Whether they were applied now.
    fn reclaim(t: &Arc<Tenant<Log, ()>>, n: u32) -> bool {
        let batch = Reclaim::begin();
        t.post(&batch, n);
        batch
            .fence()
            .apply(t, |_, log, n| log.applied += u64::from(n))
    }

    /// One owner operation: the fast path, else the slow path (which applies
    /// what is pending).
    fn op(owner: &Owner<'_, Log, ()>, kind: Op) {
        if let Fast::Slow = owner.fast(|log| (log.ops += 1, Some(kind))) {
            owner
                .slow(|log, n| {
                    log.ops += 1;
                    log.applied += u64::from(n);
                })
                .expect("not re-entered");
        }
    }

    fn log(t: &Tenant<Log, ()>) -> (u64, u64) {
        let owner = Owner::new(t);
        owner.slow(|log, _| (log.ops, log.applied)).unwrap()
    }

    #[test]
    fn a_reclaim_between_operations_runs_at_once_and_is_retired() {
        for t in tenants() {
            let idle = idle(&t);
            let owner = Owner::new(&t);
            op(&owner, Op::Get);
            assert!(reclaim(&t, 2));
            assert_eq!(t.pending.load(Ordering::Relaxed), 0);
            let counted = owner.fast(|log| (log.ops += 1, Some(Op::Put)));
            assert!(matches!(counted, Fast::Done(())));
            let uncounted = owner.fast(|log| (log.ops += 1, None));
            assert!(matches!(uncounted, Fast::Done(())));
            assert_eq!(log(&t), (3, 2));
            assert_eq!(
                t.fast_counts(),
                [1, 1, 0, 0],
                "one get and one return counted"
            );
            assert_eq!(self::idle(&t), idle, "idle again");
        }
    }

    #[test]
    fn a_reclaim_during_an_operation_is_left_to_the_owner() {
        for t in tenants() {
            let idle = idle(&t);
            let owner = Owner::new(&t);
            for op in [Op::Get, Op::Put] {
                let during = owner.fast(|log| {
                    log.ops += 1;
                    // The owner is busy: the request waits for its next
                    // operation.
                    (reclaim(&t, 1), Some(op))
                });
                assert!(matches!(during, Fast::Done(false)));
                assert!(matches!(owner.fast(|_| ((), Some(Op::Get))), Fast::Slow));
                assert!(matches!(owner.fast(|_| ((), Some(Op::Put))), Fast::Slow));
                assert_eq!(owner.slow(|_, n| n), Some(1));
                assert!(matches!(owner.fast(|_| ((), Some(op))), Fast::Done(())));
            }
            assert_eq!(t.fast_counts(), [2, 2, 0, 0]);
            assert_eq!(self::idle(&t), idle, "idle again");
        }
    }

    #[test]
    fn a_reentered_tenant_refuses_both_paths() {
        for t in tenants() {
            let idle = idle(&t);
            let owner = Owner::new(&t);
            for op in [Op::Get, Op::Put] {
                let inner = owner.fast(|_| {
                    let again = Owner::new(&t);
                    let refused = (
                        matches!(again.fast(|_| ((), Some(op))), Fast::Slow),
                        again.slow(|_, _| ()).is_none(),
                    );
                    (refused, Some(op))
                });
                assert!(matches!(inner, Fast::Done((true, true))));
            }
            let inner = owner.slow(|_, _| {
                let again = Owner::new(&t);
                [Op::Get, Op::Put].map(|op| matches!(again.fast(|_| ((), Some(op))), Fast::Slow))
            });
            assert_eq!(inner, Some([true, true]));
            assert_eq!(self::idle(&t), idle, "idle again");
        }
    }

    /// Re-entry by the *other* kind of fast path (a get's `f` reaching a
    /// return of the same tenant, or the other way round) must be refused
    /// too: else two `&mut S` to the state are live at once.
    #[test]
    fn a_fast_path_reentered_by_the_other_kind_is_refused() {
        for t in tenants() {
            let owner = Owner::new(&t);
            for (outer, inner) in [(Op::Get, Op::Put), (Op::Put, Op::Get)] {
                let refused = owner.fast(|log| {
                    let first = &mut log.ops;
                    let again = Owner::new(&t);
                    let refused =
                        matches!(again.fast(|log| (log.ops += 1, Some(inner))), Fast::Slow);
                    *first += 1;
                    (refused, Some(outer))
                });
                assert!(
                    matches!(refused, Fast::Done(true)),
                    "re-entered by the other kind"
                );
            }
        }
    }

    /// The slow path re-entered from inside itself (the mark `BUSY`) is
    /// refused too, not run again under the tenant's lock that the outer
    /// call holds.
    #[test]
    fn a_slow_path_reentered_from_inside_itself_is_refused() {
        for t in tenants() {
            let idle = idle(&t);
            let owner = Owner::new(&t);
            let inner = owner.slow(|_, _| Owner::new(&t).slow(|_, _| ()).is_none());
            assert_eq!(inner, Some(true), "refused");
            assert_eq!(self::idle(&t), idle, "idle again");
        }
    }

    /// A batch holds the process's one reclaimer lock from `begin` until
    /// its `Fenced` is dropped, so no two batches overlap and a request is
    /// applied only by the batch that posted it or by the owner. (Only the
    /// held side is checked: other tests' batches may hold it after.)
    #[test]
    fn a_batch_holds_the_reclaimer_lock_until_it_is_dropped() {
        let batch = Reclaim::begin();
        assert!(try_lock(reclaimers()).is_none(), "begun");
        let fenced = batch.fence();
        assert!(try_lock(reclaimers()).is_none(), "fenced");
        drop(fenced);
    }

    /// An owner thread and a reclaimer thread race; every operation runs
    /// once and every request is applied exactly once (by either side).
    /// Under Miri this is also a data-race check of the protocol.
    #[test]
    fn an_owner_and_a_reclaimer_never_overlap_and_lose_nothing() {
        let (ops, reclaims) = if cfg!(miri) {
            (200, 50)
        } else {
            (200_000, 5_000)
        };
        for t in tenants() {
            let done = Arc::new(StdBool::new(false));
            let reclaimer = {
                let (t, done) = (Arc::clone(&t), Arc::clone(&done));
                std::thread::spawn(move || {
                    for _ in 0..reclaims {
                        reclaim(&t, 1);
                        std::thread::yield_now();
                    }
                    done.store(true, Ordering::Release);
                })
            };
            let owner = Owner::new(&*t);
            for i in 0..ops {
                op(&owner, if i % 2 == 0 { Op::Get } else { Op::Put });
            }
            reclaimer.join().unwrap();
            assert!(done.load(Ordering::Acquire));
            // Requests left pending by a busy owner are applied at its next op.
            op(&owner, Op::Put);
            assert_eq!(log(&t), (ops + 1, reclaims));
        }
    }
}

/// Loom models of the protocol itself, one tenant, no pool around it (the
/// models in `tests/loom.rs` reach it only through `Pool`). Under loom both
/// fences are `SeqCst` and every tenant is `FENCED`.
///
/// ```text
/// CARGO_TARGET_DIR=target/loom RUSTFLAGS="--cfg poolable_loom" LOOM_MAX_PREEMPTIONS=3 \
///     cargo test -p pool-runtime --release --lib raw::owned::loom_models
/// ```
#[cfg(all(test, poolable_loom))]
mod loom_models {
    use super::*;
    use loom::sync::Arc;

    #[derive(Default)]
    struct Log {
        ops: u64,
        applied: u64,
    }

    /// One owner operation, as `tier/thread.rs` makes them: the fast path,
    /// else the slow path. Whether the fast path ran it.
    fn op(owner: &Owner<'_, Log, ()>, kind: Op) -> bool {
        match owner.fast(|log| (log.ops += 1, Some(kind))) {
            Fast::Done(()) => true,
            Fast::Slow => {
                owner
                    .slow(|log, n| {
                        log.ops += 1;
                        log.applied += u64::from(n);
                    })
                    .expect("not re-entered");
                false
            }
        }
    }

    /// A thread that posts one request to `t`, fences, and applies it if
    /// the owner is idle: whether it did.
    fn spawn_reclaimer(t: &Arc<Tenant<Log, ()>>) -> loom::thread::JoinHandle<bool> {
        let t = Arc::clone(t);
        loom::thread::spawn(move || {
            let batch = Reclaim::begin();
            t.post(&batch, 1);
            batch
                .fence()
                .apply(&*t, |_, log, n| log.applied += u64::from(n))
        })
    }

    /// A reclaimer (post, heavy fence, apply if idle) races the owner's
    /// `ops`: the state is never reached by both (loom checks the
    /// `UnsafeCell`), the request is applied exactly once, and each fast
    /// operation is counted once, in its own count.
    fn race(ops: &'static [Op]) {
        loom::model(move || {
            let t = Arc::new(Tenant::new(Log::default(), ()));
            assert_eq!(t.mark.load(Ordering::Relaxed), FENCED);
            let reclaimer = spawn_reclaimer(&t);
            let owner = Owner::new(&*t);
            let mut fast = [0_u64; OPS];
            for &kind in ops {
                if op(&owner, kind) {
                    fast[kind as usize] += 1;
                }
            }
            let applied_by_reclaimer = reclaimer.join().unwrap();
            // A request left pending (the owner was busy) goes to the next op.
            if op(&owner, Op::Put) {
                fast[1] += 1;
            }
            let (ops_run, applied) = owner.slow(|log, _| (log.ops, log.applied)).unwrap();
            assert_eq!(ops_run, ops.len() as u64 + 1);
            assert_eq!(applied, 1, "by the reclaimer: {applied_by_reclaimer}");
            assert_eq!(t.pending.load(Ordering::Relaxed), 0);
            assert_eq!(t.fast_counts(), fast);
            assert_eq!(t.mark.load(Ordering::Relaxed), FENCED, "idle again");
        });
    }

    #[test]
    fn a_reclaimer_racing_a_put() {
        race(&[Op::Put]);
    }

    #[test]
    fn a_reclaimer_racing_a_get() {
        race(&[Op::Get]);
    }

    /// The reclaimer's mark load against a get followed by a put (the mark
    /// set and cleared twice).
    #[test]
    fn a_reclaimer_racing_a_get_then_a_put() {
        race(&[Op::Get, Op::Put]);
    }

    /// The owner's slow path racing the reclaimer directly.
    #[test]
    fn a_reclaimer_racing_the_slow_path() {
        loom::model(|| {
            let t = Arc::new(Tenant::new(Log::default(), ()));
            let reclaimer = spawn_reclaimer(&t);
            let owner = Owner::new(&*t);
            owner
                .slow(|log, n| {
                    log.ops += 1;
                    log.applied += u64::from(n);
                })
                .unwrap();
            reclaimer.join().unwrap();
            let (ops, applied) = owner
                .slow(|log, n| {
                    log.applied += u64::from(n);
                    (log.ops, log.applied)
                })
                .unwrap();
            assert_eq!((ops, applied), (1, 1));
            assert_eq!(t.fast_counts(), [0; OPS]);
        });
    }

    /// Two reclaimers race with the owner idle: each applies its own
    /// request, never the other's too (batches are serialised by
    /// `Reclaim`, so a request is applied only by the batch that posted it
    /// or by the owner).
    #[test]
    fn two_reclaimers_each_apply_only_their_own_request() {
        loom::model(|| {
            let t = Arc::new(Tenant::new(Log::default(), ()));
            let reclaimers = [(); 2].map(|()| {
                let t = Arc::clone(&t);
                loom::thread::spawn(move || {
                    let batch = Reclaim::begin();
                    t.post(&batch, 1);
                    batch.fence().apply(&*t, |_, log, n| {
                        assert_eq!(n, 1, "another batch's request applied too");
                        log.applied += u64::from(n);
                    })
                })
            });
            for reclaimer in reclaimers {
                assert!(reclaimer.join().unwrap(), "the owner was idle");
            }
            let owner = Owner::new(&*t);
            assert_eq!(owner.slow(|log, n| (log.applied, n)), Some((2, 0)));
        });
    }
}
