//! Pooled values held across `.await` in a multi-threaded tokio runtime.
//!
//! A `Pooled` guard is `Send` when its value is, and a guard from a `static`
//! pool (or from `T::pool()`) borrows nothing shorter than `'static`, so a
//! handler that keeps a guard across an `.await` is still a `Send + 'static`
//! future that `tokio::spawn` accepts. When the task is resumed on another
//! worker thread, the guard moves with it and returns to the pool from
//! whichever thread drops it.
//!
//! Run with `cargo run -p poolable-examples --example async_handler`.

use poolable::{Pool, Poolable, Pooled};
use std::time::Duration;

/// Request bodies, shared by every task.
static BODIES: Pool<Vec<u8>> = Pool::new();

/// Per-request context, with its own derived pool.
#[derive(Poolable, Default)]
struct Context {
    user: String,
    #[poolable(zeroize)]
    token: Vec<u8>,
    trace: Vec<u64>,
}

const TASKS: u32 = 2_000;

/// What one handler saw: did its guards return from another thread than the
/// one that took them?
struct Outcome {
    moved_threads: bool,
    body_len: usize,
}

async fn handle(id: u32) -> Outcome {
    let mut ctx = Context::pool().get();
    let mut body = BODIES.get();
    let taken_on = std::thread::current().id();

    // A value is never seen dirty, whichever thread returned it last.
    assert!(ctx.user.is_empty() && ctx.token.is_empty() && ctx.trace.is_empty());
    assert!(body.is_empty());

    ctx.user.push_str("user-");
    ctx.user.push_str(&id.to_string());
    ctx.token.extend_from_slice(b"secret-token");
    body.extend_from_slice(b"chunk one;");

    // Both guards are held across these awaits: the task may be resumed on
    // another worker thread.
    tokio::time::sleep(Duration::from_micros(200 + u64::from(id % 5) * 100)).await;
    ctx.trace.push(u64::from(id));
    tokio::task::yield_now().await;
    body.extend_from_slice(b"chunk two;");

    let outcome = Outcome {
        moved_threads: std::thread::current().id() != taken_on,
        body_len: body.len(),
    };
    drop(body); // returned to BODIES from the current worker thread
    drop(ctx); // reset (token zeroed) and returned from the current thread
    outcome
}

fn assert_send<T: Send>() {}

#[tokio::main(flavor = "multi_thread", worker_threads = 4)]
async fn main() {
    // Compile-time facts this example relies on.
    assert_send::<Pooled<'static, Vec<u8>>>();
    assert_send::<Pooled<'static, Context>>();

    let tasks: Vec<_> = (0..TASKS).map(|id| tokio::spawn(handle(id))).collect();
    let mut moved = 0;
    for task in tasks {
        let outcome = task.await.expect("a handler panicked");
        assert_eq!(outcome.body_len, 20);
        moved += usize::from(outcome.moved_threads);
    }

    // A guard can also be sent to another task explicitly.
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Pooled<'static, Vec<u8>>>(8);
    let consumer = tokio::spawn(async move {
        let mut total = 0;
        while let Some(buf) = rx.recv().await {
            total += buf.len();
        } // each buffer returns to BODIES from the consumer's thread
        total
    });
    for i in 0..100_u8 {
        let mut buf = BODIES.get();
        buf.extend_from_slice(&[i; 16]);
        tx.send(buf).await.expect("the consumer is running");
    }
    drop(tx);
    assert_eq!(consumer.await.expect("the consumer panicked"), 100 * 16);

    let (bodies, contexts) = (BODIES.stats(), Context::pool().stats());
    println!(
        "{TASKS} handlers, {moved} resumed on another worker thread before dropping their guards"
    );
    println!("BODIES  {bodies}");
    println!("Context {}", contexts);

    // Every guard came back, wherever it was dropped.
    assert_eq!(bodies.gets, u64::from(TASKS) + 100);
    assert_eq!(bodies.puts, bodies.gets);
    assert_eq!(contexts.gets, u64::from(TASKS));
    assert_eq!(contexts.puts, contexts.gets);
    // With 2,000 handlers in flight at once, more values come back than the
    // pools keep (`max_retained`): the surplus is dropped (`dropped_full`).
    assert_eq!(contexts.dropped_panic + bodies.dropped_panic, 0);
}
