//! User code that calls back into a pool from inside the library returns
//! (issue 24, item 1): every public operation, called from every hook, on
//! every path that runs the hook.
//!
//! The hooks are a value's `Reset::reset`, its `Drop`, the pool's
//! constructor and a derived field's `with` function. The operations are a
//! get, a put, a trim, a clear, `trim_all`, `clear_all`, dropping a pool,
//! `stats`, `report`, `pools` and `set_retained_budget`. A `Drop` runs on
//! every path that lets go of idle values: a clear, two trims, `trim_all`,
//! `clear_all`, the drop of the pool, and the retained budget; the other
//! hooks run on a return (`reset`, `with`) or a miss (the constructor).
//!
//! Each scenario runs on a thread of its own and must finish within a
//! timeout. Before the fix, a `Drop` that re-entered a decay step of its own
//! pool (a clear during a clear, `trim_all` during the drop of a heap pool,
//! a value holding the last `Arc` of its pool during `clear_all`) blocked
//! forever on the pool's decay lock.

use poolable::{Pool, Reset};
use std::cell::Cell;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, mpsc};
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hook {
    Reset,
    Drop,
    New,
    With,
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Get,
    Put,
    Trim,
    Clear,
    TrimAll,
    ClearAll,
    DropPool,
    Stats,
    Report,
    Pools,
    Budget,
}

const OPS: [Op; 11] = [
    Op::Get,
    Op::Put,
    Op::Trim,
    Op::Clear,
    Op::TrimAll,
    Op::ClearAll,
    Op::DropPool,
    Op::Stats,
    Op::Report,
    Op::Pools,
    Op::Budget,
];

/// The paths on which the library drops idle values (and so runs `Drop`).
#[derive(Clone, Copy, Debug)]
enum Path {
    Clear,
    TwoTrims,
    TwoTrimAlls,
    ClearAll,
    DropPool,
    Budget,
}

const PATHS: [Path; 6] = [
    Path::Clear,
    Path::TwoTrims,
    Path::TwoTrimAlls,
    Path::ClearAll,
    Path::DropPool,
    Path::Budget,
];

/// Which hook re-enters which operation now.
static PLAN: Mutex<Option<(Hook, Op)>> = Mutex::new(None);
/// The pool the hooks operate on. A scenario's main path holds no other
/// `Arc` of it where the path allows, so that `Op::DropPool` drops the last.
static TARGET: Mutex<Option<Arc<Pool<Probe>>>> = Mutex::new(None);

fn locked<T>(mutex: &'static Mutex<T>) -> MutexGuard<'static, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

thread_local! {
    /// Set while a hook runs its operation: one re-entry per hook call.
    static INSIDE: Cell<bool> = const { Cell::new(false) };
}

/// Run the planned operation if `at` is the planned hook.
fn hook(at: Hook) {
    let plan = *locked(&PLAN);
    let Some((hook, op)) = plan else { return };
    if hook != at || INSIDE.with(Cell::get) {
        return;
    }
    INSIDE.with(|inside| inside.set(true));
    run(op);
    INSIDE.with(|inside| inside.set(false));
}

fn run(op: Op) {
    let pool = locked(&TARGET).clone();
    match op {
        Op::Get => {
            if let Some(pool) = &pool {
                drop(pool.get());
            }
        }
        Op::Put => {
            if let Some(pool) = &pool {
                pool.put(Probe::default());
            }
        }
        Op::Trim => pool.iter().for_each(|p| p.trim()),
        Op::Clear => pool.iter().for_each(|p| p.clear()),
        Op::TrimAll => poolable::trim_all(),
        Op::ClearAll => poolable::clear_all(),
        Op::DropPool => {
            drop(pool);
            let taken = locked(&TARGET).take();
            drop(taken);
        }
        Op::Stats => {
            if let Some(pool) = &pool {
                let _ = pool.stats();
            }
        }
        Op::Report => {
            let _ = poolable::report().to_string();
        }
        Op::Pools => {
            let _ = poolable::pools();
        }
        Op::Budget => {
            poolable::set_retained_budget(Some(0));
            poolable::set_retained_budget(None);
        }
    }
}

/// A derived field whose reset is a `with` function.
#[derive(poolable::Reset, Default)]
struct Field {
    #[poolable(with = with_hook)]
    data: Vec<u8>,
}

fn with_hook(data: &mut Vec<u8>) {
    hook(Hook::With);
    data.clear();
}

/// A value whose reset and drop call back into the pools.
#[derive(Default)]
struct Probe {
    field: Field,
}

impl Reset for Probe {
    fn reset(&mut self) {
        hook(Hook::Reset);
        Reset::reset(&mut self.field);
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        hook(Hook::Drop);
    }
}

fn new_pool() -> Arc<Pool<Probe>> {
    Arc::new(Pool::from_fn(|| {
        hook(Hook::New);
        Probe::default()
    }))
}

/// One scenario: the hook armed with the operation, then the path that runs
/// the hook.
fn scenario(hook: Hook, op: Op, path: Option<Path>) {
    let pool = new_pool();
    *locked(&TARGET) = Some(Arc::clone(&pool));
    if hook == Hook::Drop {
        // Idle values in the thread cache and in the shards.
        let held: Vec<_> = (0..20).map(|_| pool.get()).collect();
        drop(held);
    }
    *locked(&PLAN) = Some((hook, op));
    match (hook, path) {
        (Hook::New, _) => drop(pool.get()),
        (Hook::Reset | Hook::With, _) => {
            // An owned guard keeps the pool alive across its return, so a
            // hook that drops the pool drops the last `Arc` after it.
            let guard = pool.get_owned();
            drop(pool);
            drop(guard);
        }
        (Hook::Drop, Some(Path::Clear)) => pool.clear(),
        (Hook::Drop, Some(Path::TwoTrims)) => {
            pool.trim();
            pool.trim();
        }
        (Hook::Drop, Some(Path::TwoTrimAlls)) => {
            drop(pool);
            poolable::trim_all();
            poolable::trim_all();
        }
        (Hook::Drop, Some(Path::ClearAll)) => {
            drop(pool);
            poolable::clear_all();
        }
        (Hook::Drop, Some(Path::DropPool)) => {
            drop(pool);
            let taken = locked(&TARGET).take();
            drop(taken);
        }
        (Hook::Drop, Some(Path::Budget)) => {
            drop(pool);
            poolable::set_retained_budget(Some(0));
            poolable::set_retained_budget(None);
        }
        (Hook::Drop, None) => unreachable!("a Drop scenario names its path"),
    }
    *locked(&PLAN) = None;
    let rest = locked(&TARGET).take();
    drop(rest);
}

#[test]
fn every_operation_from_every_hook_returns() {
    let mut cases = Vec::new();
    for op in OPS {
        for hook in [Hook::Reset, Hook::New, Hook::With] {
            cases.push((hook, op, None));
        }
        for path in PATHS {
            cases.push((Hook::Drop, op, Some(path)));
        }
    }
    let mut hung = Vec::new();
    for (hook, op, path) in cases {
        let (done, finished) = mpsc::channel();
        std::thread::spawn(move || {
            scenario(hook, op, path);
            let _ = done.send(());
        });
        match finished.recv_timeout(Duration::from_secs(5)) {
            Ok(()) => {}
            Err(mpsc::RecvTimeoutError::Timeout) => {
                hung.push(format!("{op:?} from {hook:?} on {path:?}"));
                // The hung thread keeps the plan armed: disarm it for the
                // next scenario, which gets pools of its own.
                *locked(&PLAN) = None;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                panic!("{op:?} from {hook:?} on {path:?} panicked");
            }
        }
    }
    assert!(hung.is_empty(), "hung: {hung:#?}");
}
