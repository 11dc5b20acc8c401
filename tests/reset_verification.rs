//! Reset verification: `Reset::is_reset`, derived field by field and given
//! by the std impls, is checked after every reset in debug builds (and under
//! `POOLABLE=chaos`, see `pool-runtime/src/tier/thread.rs`), so a reset that
//! leaves state behind fails the user's tests instead of leaking one user's
//! data to the next.

use poolable::{Pool, Poolable, Reset};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

#[derive(Reset, Default)]
struct Inner {
    tags: Vec<String>,
    seen: Option<u64>,
}

#[derive(Poolable, Default)]
struct Request {
    id: u64,
    body: String,
    inner: Inner,
    /// Kept across uses on purpose: never checked.
    #[poolable(skip)]
    config: Vec<u8>,
}

#[test]
fn a_derived_type_checks_every_field_it_resets() {
    let mut req = Request {
        config: vec![1, 2, 3],
        ..Request::default()
    };
    assert!(req.is_reset(), "fresh, and `skip` fields are not checked");
    for dirty in [
        |r: &mut Request| r.id = 7,
        |r: &mut Request| r.body.push('x'),
        |r: &mut Request| r.inner.tags.push(String::new()),
        |r: &mut Request| r.inner.seen = Some(1),
    ] {
        dirty(&mut req);
        assert!(!req.is_reset());
        req.reset();
        assert!(req.is_reset());
    }
    assert_eq!(req.config, [1, 2, 3]);
}

#[test]
fn std_impls_check_what_their_reset_does() {
    assert!(!vec![1].is_reset() && Vec::<u8>::new().is_reset());
    assert!(!Some(1).is_reset() && None::<u8>.is_reset());
    assert!(!(1, String::new()).is_reset() && (0, String::new()).is_reset());
    assert!(![0_u8, 1].is_reset() && [0_u8; 2].is_reset());
    assert!(!true.is_reset() && !'a'.is_reset() && !0.5_f32.is_reset());
    assert!(Box::new(0_u8).is_reset() && !Box::new(String::from("x")).is_reset());
    let mut m = std::sync::Mutex::new(vec![1]);
    assert!(!m.is_reset());
    m.reset();
    assert!(m.is_reset());
}

/// Leaves the contents in place: a broken `with` function.
fn forget_contents(v: &mut Vec<u8>) {
    v.shrink_to_fit();
}

#[derive(Poolable, Default)]
struct Leaky {
    #[poolable(with = forget_contents)]
    secret: Vec<u8>,
}

/// A return of a value that is not reset panics in debug builds; the value
/// is dropped (`dropped_panic`), never handed out again.
#[test]
#[cfg(debug_assertions)]
fn a_broken_with_function_is_caught_on_return() {
    let mut leaky = Leaky::pool().get();
    leaky.secret.extend_from_slice(b"hunter2");
    let returned = catch_unwind(AssertUnwindSafe(|| drop(leaky)));
    let message = returned.expect_err("the return is refused");
    let message = message.downcast_ref::<String>().unwrap();
    assert!(
        message.contains("Leaky` came back to its pool still holding state"),
        "{message}"
    );
    let stats = Leaky::pool().stats();
    assert_eq!((stats.dropped_panic, stats.retained), (1, 0), "{stats}");
    assert!(
        Leaky::pool().get().secret.is_empty(),
        "a fresh value, not the leaky one"
    );
}

/// A hand-written `Reset` whose `reset` forgets a field its `is_reset` checks.
#[derive(Default)]
struct Session {
    user: String,
    token: String,
}

impl Reset for Session {
    fn reset(&mut self) {
        self.user.clear(); // forgets `token`
    }
    fn is_reset(&self) -> bool {
        self.user.is_empty() && self.token.is_empty()
    }
}

#[test]
#[cfg(debug_assertions)]
fn a_hand_written_reset_that_forgets_a_field_is_caught() {
    let pool: Pool<Session> = Pool::new();
    let mut session = pool.get();
    session.user.push_str("ada");
    drop(session); // `token` empty: passes
    let mut session = pool.get();
    session.token.push_str("t0k3n");
    assert!(catch_unwind(AssertUnwindSafe(|| drop(session))).is_err());
    assert!(catch_unwind(AssertUnwindSafe(|| pool.put(Session::default()))).is_ok());
    let stats = pool.stats();
    assert_eq!(stats.dropped_panic, 1);
    assert!(stats.is_balanced(), "{stats}");
}

fn restart(at: &mut Instant) {
    *at = Instant::now();
}

#[allow(clippy::ptr_arg)] // `check` takes a `fn(&FieldType) -> bool`
fn first_byte_only(v: &Vec<u8>) -> bool {
    v.len() <= 1
}

fn keep_first_byte(v: &mut Vec<u8>) {
    v.truncate(1);
}

#[derive(Poolable)]
#[poolable(new = Timed::new)]
struct Timed<T: Default + Send + 'static> {
    /// No `Reset` impl: a `with` field of such a type is not checked.
    #[poolable(with = restart)]
    started: Instant,
    /// `check = path` says what reset means for this field.
    #[poolable(with = keep_first_byte, check = first_byte_only)]
    header: Vec<u8>,
    /// A generic `default` field: checked when `T` has a `Reset` impl.
    #[poolable(default)]
    tag: T,
}

impl<T: Default + Send + 'static> Timed<T> {
    fn new() -> Self {
        Timed {
            started: Instant::now(),
            header: Vec::new(),
            tag: T::default(),
        }
    }
}

#[test]
fn check_paths_and_types_without_a_reset_impl() {
    // `RandomState` has no `Reset` impl: its field is not checked.
    let mut t = Timed::<std::collections::hash_map::RandomState>::new();
    t.header.extend_from_slice(b"ab");
    assert!(!t.is_reset());
    t.reset();
    assert_eq!(t.header, b"a");
    assert!(t.is_reset(), "the check path accepts the first byte");
    // The pool accepts the return.
    let mut timed = Timed::<u8>::pool().get();
    timed.header.extend_from_slice(b"xyz");
    drop(timed);
    assert_eq!(Timed::<u8>::pool().stats().dropped_panic, 0);
}
