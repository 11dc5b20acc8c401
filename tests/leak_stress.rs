//! The `user=ada secret=hunter2` scenario under load: no data crosses from
//! one use of a pooled value to the next, and every value the pool creates is
//! accounted for.
//!
//! 8 worker threads each serve N requests. Each request writes its own secret
//! (thread id + sequence number) into every field of a derived `Request`, and
//! every `get` first checks that all fields are pristine. Requests are
//! disposed of in every way the API offers: guard dropped in place, guard sent
//! to another thread and dropped there, `Pooled::into_inner` (detached),
//! detached then `put` back dirty, guard dropped while panicking, and an
//! oversized value (dropped on return). A trimmer thread calls `trim()`
//! meanwhile.
//!
//! The default N is small enough for CI; the full run (200k requests per
//! thread) is `cargo test --release --test leak_stress -- --ignored`.
//! `LEAK_STRESS_N=<n>` overrides the default N.

mod common {
    pub mod balance;
    pub mod planned_panic;
}

use common::balance::assert_balanced;
use common::planned_panic::{planned_panic, quiet_planned_panics};
use poolable::{Poolable, Pooled, Reset, Stats};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

const THREADS: usize = 8;
const DEFAULT_N: usize = 25_000;
const FULL_N: usize = 200_000;
const MAX_BYTES: usize = 16 << 10;

#[derive(Reset, Default, Debug, PartialEq)]
struct Session {
    token: String,
    scopes: Vec<String>,
    expires: u64,
}

#[derive(Poolable, Default, Debug)]
#[poolable(max_bytes = 16 << 10)]
struct Request {
    user: String,
    #[poolable(zeroize)]
    secret: Vec<u8>,
    note: Option<String>,
    session: Session,
    key: [u8; 16],
    headers: Vec<(String, String)>,
}

/// A pool identical to `Request`'s, for the full run, so the two tests never
/// share counters.
#[derive(Poolable, Default, Debug)]
#[poolable(max_bytes = 16 << 10)]
struct FullRequest(Request);

/// What the scenario needs from the type under test.
trait Scenario: Poolable {
    fn req(&mut self) -> &mut Request;
}

impl Scenario for Request {
    fn req(&mut self) -> &mut Request {
        self
    }
}

impl Scenario for FullRequest {
    fn req(&mut self) -> &mut Request {
        &mut self.0
    }
}

/// True if every byte of `v`'s spare capacity is zero.
fn spare_capacity_is_zero(v: &mut Vec<u8>) -> bool {
    v.spare_capacity_mut().iter().all(|byte| {
        // SAFETY: every byte up to the capacity was written: `write_secret`
        // fills the whole capacity after writing the secret (so even with the
        // zeroize missing, the spare bytes are initialised), and a fresh
        // value has capacity 0. Zeroize keeps the allocation.
        unsafe { byte.assume_init() == 0 }
    })
}

/// Describe every field of `r` that is not in its fresh state.
fn dirt(r: &mut Request) -> Vec<String> {
    let mut dirt = Vec::new();
    if !r.user.is_empty() {
        dirt.push(format!("user = {:?}", r.user));
    }
    if !r.secret.is_empty() {
        dirt.push(format!("secret = {:?}", String::from_utf8_lossy(&r.secret)));
    }
    if !spare_capacity_is_zero(&mut r.secret) {
        dirt.push("secret's spare capacity is not zeroed".into());
    }
    if r.note.is_some() {
        dirt.push(format!("note = {:?}", r.note));
    }
    if r.session != Session::default() {
        dirt.push(format!("session = {:?}", r.session));
    }
    if r.key != [0; 16] {
        dirt.push(format!("key = {:?}", r.key));
    }
    if !r.headers.is_empty() {
        dirt.push(format!("headers = {:?}", r.headers));
    }
    dirt
}

/// Write this request's own secret into every field.
fn write_secret(r: &mut Request, tid: usize, seq: usize) {
    let tag = format!("t{tid}-s{seq}");
    r.user.push_str("ada-");
    r.user.push_str(&tag);
    r.secret
        .extend_from_slice(format!("user=ada secret=hunter2-{tag}").as_bytes());
    // Initialise the spare capacity too (with non-zero bytes), so that a
    // missing zeroize leaves visible dirt there.
    let len = r.secret.len();
    r.secret.resize(r.secret.capacity(), 0xEE);
    r.secret.truncate(len);
    r.note = Some(format!("note-{tag}"));
    r.session.token.push_str(&format!("token-{tag}"));
    r.session.scopes.push(format!("scope-{tag}"));
    r.session.expires = ((seq as u64) << 8) | tid as u64 | 1;
    r.key = [(seq as u8) | 1; 16];
    r.key[0] = tid as u8 | 0x80;
    r.headers
        .push(("authorization".into(), format!("Bearer hunter2-{tag}")));
    r.headers.push(("x-user".into(), tag));
}

/// What the workers did, to balance against the pool's counters.
#[derive(Default)]
struct Tally {
    requests: AtomicU64,
    contaminated: AtomicU64,
    first_dirt: Mutex<Option<String>>,
    detached: AtomicU64,
    put_back: AtomicU64,
    panicked: AtomicU64,
    oversize: AtomicU64,
    sent: AtomicU64,
}

impl Tally {
    fn check(&self, r: &mut Request, tid: usize, seq: usize) {
        self.requests.fetch_add(1, Relaxed);
        let dirt = dirt(r);
        if !dirt.is_empty() {
            self.contaminated.fetch_add(1, Relaxed);
            let mut first = self.first_dirt.lock().unwrap();
            first.get_or_insert_with(|| format!("thread {tid} request {seq} got {dirt:?}"));
        }
    }
}

/// Run the scenario on `T`'s pool and return its final counters.
fn run<T: Scenario>(n: usize) -> (Stats, Tally, Duration) {
    quiet_planned_panics();
    let start = Instant::now();
    let tally = Tally::default();
    let done = AtomicBool::new(false);
    let (to_dropper, from_workers) = mpsc::channel::<Pooled<'static, T>>();
    let from_workers = Mutex::new(from_workers);

    thread::scope(|s| {
        // Two threads that drop guards taken on other threads.
        let droppers: Vec<_> = (0..2)
            .map(|_| {
                s.spawn(|| {
                    loop {
                        let guard = from_workers.lock().unwrap().recv();
                        match guard {
                            Ok(guard) => drop(guard),
                            Err(_) => break,
                        }
                    }
                })
            })
            .collect();
        let trimmer = s.spawn(|| {
            while !done.load(Relaxed) {
                T::pool().trim();
                thread::sleep(Duration::from_millis(2));
            }
        });
        let workers: Vec<_> = (0..THREADS)
            .map(|tid| {
                let to_dropper = to_dropper.clone();
                let tally = &tally;
                s.spawn(move || {
                    for seq in 0..n {
                        let mut guard = T::pool().get();
                        tally.check(guard.req(), tid, seq);
                        write_secret(guard.req(), tid, seq);
                        match seq % 64 {
                            // Returned from another thread.
                            1 | 9 | 17 | 33 | 49 => {
                                tally.sent.fetch_add(1, Relaxed);
                                to_dropper.send(guard).unwrap();
                            }
                            // Detached for good.
                            5 | 37 => {
                                tally.detached.fetch_add(1, Relaxed);
                                drop(Pooled::into_inner(guard));
                            }
                            // Detached, dirtied some more, and put back.
                            13 | 45 => {
                                tally.detached.fetch_add(1, Relaxed);
                                tally.put_back.fetch_add(1, Relaxed);
                                let mut value = Pooled::into_inner(guard);
                                value.req().user.push_str(" again");
                                T::pool().put(value);
                            }
                            // Dropped during a panic.
                            21 => {
                                tally.panicked.fetch_add(1, Relaxed);
                                let caught = panic::catch_unwind(AssertUnwindSafe(move || {
                                    let _held = guard;
                                    planned_panic();
                                }));
                                assert!(caught.is_err());
                            }
                            // Too large to keep.
                            29 => {
                                tally.oversize.fetch_add(1, Relaxed);
                                guard.req().user.reserve(2 * MAX_BYTES);
                            }
                            _ => drop(guard),
                        }
                    }
                })
            })
            .collect();
        drop(to_dropper);
        // Join explicitly: a thread's cache is flushed by its thread-local
        // destructor, which has run once `join` returns.
        for w in workers {
            w.join().unwrap();
        }
        done.store(true, Relaxed);
        trimmer.join().unwrap();
        for d in droppers {
            d.join().unwrap();
        }
    });
    (T::pool().stats(), tally, start.elapsed())
}

fn assert_clean_and_balanced(stats: Stats, tally: &Tally, n: usize) {
    let total = (THREADS * n) as u64;
    assert_eq!(tally.requests.load(Relaxed), total);
    assert_eq!(
        tally.contaminated.load(Relaxed),
        0,
        "contaminated gets; first: {:?}",
        tally.first_dirt.lock().unwrap()
    );
    let put_back = tally.put_back.load(Relaxed);
    // Nothing is held now: every get ended in a return, a detach, or a drop
    // during a panic; the detached values put back are extra returns.
    assert_eq!(stats.gets, total, "{stats}");
    assert_eq!(stats.detached, tally.detached.load(Relaxed), "{stats}");
    assert_eq!(stats.dropped_panic, tally.panicked.load(Relaxed), "{stats}");
    assert_eq!(
        stats.dropped_oversize,
        tally.oversize.load(Relaxed),
        "{stats}"
    );
    // Every value the pool created, plus the ones put back, is retained or
    // was dropped or detached, exactly once.
    assert_balanced(stats, 0, put_back);
    assert!(tally.sent.load(Relaxed) > 0);
}

fn n_from_env(default: usize) -> usize {
    std::env::var("LEAK_STRESS_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn no_secret_crosses_requests_and_counters_balance() {
    let n = n_from_env(DEFAULT_N);
    let (stats, tally, took) = run::<Request>(n);
    eprintln!("{THREADS} threads x {n} requests in {took:?}: {stats}");
    assert_clean_and_balanced(stats, &tally, n);
}

/// `cargo test --release --test leak_stress -- --ignored`
#[test]
#[ignore = "full run, 8 x 200k requests: cargo test --release --test leak_stress -- --ignored"]
fn no_secret_crosses_requests_and_counters_balance_full() {
    let n = n_from_env(FULL_N);
    let (stats, tally, took) = run::<FullRequest>(n);
    eprintln!("{THREADS} threads x {n} requests in {took:?}: {stats}");
    assert_clean_and_balanced(stats, &tally, n);
}
