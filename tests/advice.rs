//! `advice()`: each finding from a real pool that shows it, and none for a
//! healthy one. Every pool here has a name of its own, since `advice()`
//! covers every pool of the process (the tests run in parallel).

use poolable::{ADVICE_MIN_GETS, Advice, AdviceKind, BufferPool, Pool, Poolable, Pooled};
use std::sync::mpsc;
use std::sync::{Arc, Barrier};

/// The findings for the pool named `pool`.
fn advice_for(pool: &str) -> Vec<Advice> {
    poolable::advice()
        .into_iter()
        .filter(|advice| advice.pool() == pool)
        .collect()
}

fn kinds(advice: &[Advice]) -> Vec<AdviceKind> {
    advice.iter().map(Advice::kind).collect()
}

/// The one finding for `pool`, which must be of `kind`.
fn only(pool: &str, kind: AdviceKind) -> Advice {
    let advice = advice_for(pool);
    assert_eq!(kinds(&advice), [kind], "{advice:#?}");
    advice.into_iter().next().unwrap()
}

const ROUNDS: u64 = ADVICE_MIN_GETS;

#[test]
fn a_buffer_pool_whose_buffers_pass_its_ceiling_is_told_to_raise_it() {
    static PIPE: BufferPool = BufferPool::new().name("advice-pipe"); // classes up to 64 KiB
    for _ in 0..ROUNDS {
        drop(PIPE.get(1 << 20)); // 1 MiB buffers
    }
    let advice = only("advice-pipe[65536]", AdviceKind::Oversize);
    assert!(advice.value().is_some_and(|cap| cap >= 1 << 20), "{advice}");
    let text = advice.to_string();
    assert!(text.contains("max_bytes(1 << 20)"), "{text}");
}

#[test]
fn a_pool_whose_values_pass_its_cap_is_told_a_cap_over_their_size() {
    static BODIES: Pool<Vec<u8>> = Pool::new().name("advice-bodies");
    for _ in 0..ROUNDS {
        BODIES.get().reserve_exact(100_000);
    }
    let advice = only("advice-bodies", AdviceKind::Oversize);
    let cap = advice.value().unwrap();
    // The pool keeps a 100 000-byte buffer under that cap.
    let kept: Pool<Vec<u8>> = Pool::new().max_bytes(cap);
    kept.get().reserve_exact(100_000);
    assert_eq!(kept.stats().retained, 1, "{advice}");
    assert!(advice.to_string().contains(&format!("max_bytes({cap})")));
    assert!(advice.to_string().contains("max_bytes_auto()"));
}

#[test]
fn a_full_pool_that_misses_is_told_to_keep_as_many_as_are_out() {
    static FULL: Pool<Vec<u8>> = Pool::new().name("advice-full").max_retained(16);
    for _ in 0..ROUNDS / 64 + 1 {
        let out: Vec<_> = (0..64)
            .map(|_| {
                let mut buf = FULL.get();
                buf.reserve(100);
                buf
            })
            .collect();
        drop(out);
    }
    let advice = only("advice-full", AdviceKind::Full);
    assert!(advice.value().is_some_and(|n| n >= 64), "{advice}");
    assert!(advice.to_string().contains("max_retained("), "{advice}");
}

#[test]
fn values_returned_on_other_threads_are_said_to_be_why_gets_miss() {
    static HANDED_OFF: Pool<Vec<u8>> = Pool::new().name("advice-handed-off");
    // Each consumer returns fewer values than its cache holds, and stays
    // alive until the advice is read: its cache never spills.
    const EACH: u64 = 7;
    let consumers = ROUNDS.div_ceil(EACH) as usize;
    let done = Arc::new(Barrier::new(consumers + 1));
    let mut senders = Vec::new();
    let mut threads = Vec::new();
    for _ in 0..consumers {
        let (tx, rx) = mpsc::channel::<Pooled<'static, Vec<u8>>>();
        let done = Arc::clone(&done);
        threads.push(std::thread::spawn(move || {
            for buf in rx.iter().take(EACH as usize) {
                drop(buf);
            }
            done.wait();
        }));
        senders.push(tx);
    }
    for tx in &senders {
        for _ in 0..EACH {
            let mut buf = HANDED_OFF.get();
            buf.reserve(64);
            tx.send(buf).unwrap();
        }
    }
    // Every value is back once every consumer has taken its share.
    while HANDED_OFF.stats().puts < EACH * consumers as u64 {
        std::thread::yield_now();
    }
    let advice = advice_for("advice-handed-off");
    done.wait();
    threads.into_iter().for_each(|t| t.join().unwrap());
    assert_eq!(kinds(&advice), [AdviceKind::OtherThreads], "{advice:#?}");
    assert!(advice[0].to_string().contains("other threads"));
}

#[test]
fn a_buffer_class_whose_buffers_grow_out_of_it_is_said() {
    static GROWING: BufferPool = BufferPool::new().name("advice-growing");
    for _ in 0..ROUNDS {
        let mut buf = GROWING.get(4096);
        buf.reserve(30_000); // 32 KiB: back to that class, under the ceiling
    }
    let advice = only("advice-growing[4096]", AdviceKind::OutgrowsClass);
    assert!(advice.to_string().contains("`get(n)`"), "{advice}");
    // The class they grow into is fine.
    assert_eq!(kinds(&advice_for("advice-growing[32768]")), []);
}

#[test]
fn a_pool_that_keeps_far_more_than_it_has_out_is_told_a_lower_bound() {
    fn eight_kib() -> Vec<u8> {
        Vec::with_capacity(8 << 10)
    }
    static PREFILLED: Pool<Vec<u8>> = Pool::with_new(eight_kib)
        .name("advice-prefilled")
        .max_retained(1024);
    assert_eq!(PREFILLED.reserve(600), 600);
    for _ in 0..ROUNDS {
        drop(PREFILLED.get()); // one out at a time
    }
    let advice = only("advice-prefilled", AdviceKind::KeepsTooMuch);
    assert!(advice.value().is_some_and(|n| n < 600), "{advice}");
    assert!(advice.to_string().contains("max_retained("), "{advice}");
}

#[test]
fn values_without_heap_memory_may_not_pay() {
    static NAMES: Pool<String> = Pool::new().name("advice-unwritten");
    for _ in 0..ROUNDS {
        drop(NAMES.get()); // never written: nothing on the heap to keep
    }
    let advice = only("advice-unwritten", AdviceKind::MayNotPay);
    assert_eq!(advice.value(), Some(0));
    assert!(advice.to_string().contains("`max_retained(0)`"), "{advice}");
}

#[test]
fn a_pool_whose_gets_nearly_all_miss_may_not_pay() {
    static KEPT_BY_CALLERS: Pool<Vec<u8>> = Pool::new().name("advice-detached");
    let mut kept = Vec::new();
    for _ in 0..ROUNDS {
        let mut buf = KEPT_BY_CALLERS.get();
        buf.push(1);
        kept.push(Pooled::into_inner(buf)); // never comes back
    }
    let advice = only("advice-detached", AdviceKind::MayNotPay);
    assert!(advice.to_string().contains("0.0% of gets hit"), "{advice}");
}

#[derive(Poolable, Default)]
#[poolable(name = "advice-healthy-request")]
struct Request {
    path: String,
    body: Vec<u8>,
}

#[test]
fn healthy_pools_get_no_advice() {
    static SCRATCH: Pool<Vec<u8>> = Pool::new().name("advice-healthy-scratch");
    for i in 0..10 * ROUNDS {
        let mut buf = SCRATCH.get();
        buf.extend_from_slice(&i.to_le_bytes());
        let mut req = Request::pool().get();
        req.path.push_str("/items");
        req.body.extend_from_slice(&buf);
    }
    // A producer and a consumer: values cross threads, and still hit.
    static PIPELINE: Pool<Vec<u8>> = Pool::new().name("advice-healthy-pipeline");
    let (tx, rx) = mpsc::sync_channel::<Pooled<'static, Vec<u8>>>(16);
    let consumer = std::thread::spawn(move || rx.iter().map(|buf| buf.len()).sum::<usize>());
    for _ in 0..10 * ROUNDS {
        let mut buf = PIPELINE.get();
        buf.extend_from_slice(b"message");
        tx.send(buf).unwrap();
    }
    drop(tx);
    consumer.join().unwrap();

    for pool in [
        "advice-healthy-scratch",
        "advice-healthy-request",
        "advice-healthy-pipeline",
    ] {
        assert!(
            poolable::pools().iter().any(|p| p.name() == pool),
            "{pool} is used"
        );
        assert_eq!(kinds(&advice_for(pool)), [], "{pool}");
    }
}

#[test]
fn no_advice_before_the_minimum_of_gets() {
    static FEW: Pool<Vec<u8>> = Pool::new().name("advice-few").max_bytes(1024);
    for _ in 0..ROUNDS - 1 {
        FEW.get().reserve(4096); // every return over the cap
    }
    assert_eq!(kinds(&advice_for("advice-few")), []);
    FEW.get().reserve(4096);
    assert_eq!(kinds(&advice_for("advice-few")), [AdviceKind::Oversize]);
}

#[test]
fn the_report_prints_the_advice_under_the_pools() {
    static REPORTED: Pool<String> = Pool::new().name("advice-reported");
    for _ in 0..ROUNDS {
        drop(REPORTED.get());
    }
    let report = poolable::report().to_string();
    let lines: Vec<&str> = report.lines().collect();
    let pool_line = lines
        .iter()
        .position(|line| line.starts_with("advice-reported "))
        .expect("a line for the pool");
    let advice_line = lines
        .iter()
        .position(|line| line.starts_with("advice: advice-reported: "))
        .expect("a line for its advice");
    let first_advice = lines
        .iter()
        .position(|line| line.starts_with("advice: "))
        .unwrap();
    assert!(pool_line < first_advice && first_advice <= advice_line);
    assert_eq!(
        lines[first_advice - 1],
        "",
        "a blank line between the pools and the advice: {report}"
    );
    assert!(
        lines[first_advice..]
            .iter()
            .all(|line| line.starts_with("advice: ")),
        "the advice comes after every pool's line: {report}"
    );
}

/// Values with no heap that are over the cap by their own size: the
/// finding says their heap is 0 B, and the cap it gives is their size,
/// which keeps them.
#[test]
fn a_pool_whose_values_pass_its_cap_by_their_own_size_is_told_that_size() {
    static WIDE: Pool<[u64; 32]> = Pool::new().name("advice-wide").max_bytes(64);
    for _ in 0..ROUNDS {
        drop(WIDE.get());
    }
    let advice = only("advice-wide", AdviceKind::Oversize);
    let text = advice.to_string();
    assert!(text.contains("reached 0 B of heap"), "{text}");
    assert_eq!(advice.value(), Some(size_of::<[u64; 32]>()), "{text}");
    let kept: Pool<[u64; 32]> = Pool::new().max_bytes(advice.value().unwrap());
    drop(kept.get());
    assert_eq!(kept.stats().retained, 1, "{advice}");
}
