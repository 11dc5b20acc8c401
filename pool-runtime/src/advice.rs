//! [`Advice`]: which pools do not pay, and what to change. The rules read
//! what a pool's counters and its slow paths recorded (an [`Observation`]),
//! nothing more, so each is a pure function tested on constructed values;
//! [`advice`](crate::advice()) applies them to every pool.
//!
//! Nothing here costs a get or a return. The counters exist anyway; the
//! rest is recorded where the pool already takes a slow path: the sizes of
//! values dropped over the size cap (on that drop), the returns each
//! thread made beyond its own gets (summed when the counters are read, and
//! when a thread exits), and the most values seen out at once (sampled
//! when the counters are read and at each trim). A true high-water mark of
//! the values out at once is not recorded: a new peak can come from a hit
//! on a thread cache, the path that must stay cheapest.

use crate::policy::LOCAL_CACHE_SIZE;
use crate::stats::Bytes;
use crate::tier::storage::Observation;
use core::fmt;

/// A pool is judged once it has seen this many gets, or this many returns
/// (a class of a [`BufferPool`](crate::BufferPool) can receive buffers
/// taken from a smaller class): before that, [`advice`](crate::advice())
/// says nothing about it.
///
/// ```
/// assert_eq!(poolable::ADVICE_MIN_GETS, 1000);
/// ```
pub const ADVICE_MIN_GETS: u64 = 1000;

/// A share of returns dropped over the size cap at or above which the cap
/// is too low: half.
const OVERSIZE_SHARE: f64 = 0.5;
/// A hit rate below which a pool that drops returns as full wants more room.
const FULL_HIT_RATE: f64 = 0.9;
/// A share of returns dropped as full at or above which the bound matters.
const FULL_SHARE: f64 = 0.1;
/// A hit rate below which the other rules look for where the values went.
const LOW_HIT_RATE: f64 = 0.5;
/// A share of returns made beyond the returning thread's own gets at or
/// above which values go back on other threads.
const ELSEWHERE_SHARE: f64 = 0.5;
/// A hit rate below which nearly every get builds a value.
const MISS_ALMOST_ALWAYS: f64 = 0.05;
/// Idle bytes below which a pool does not keep too much to matter.
const KEEPS_MIN_BYTES: usize = 1 << 20;
/// Idle values this many times the most seen out at once are too many.
const KEEPS_FACTOR: u64 = 4;

/// What a pool's counters say is wrong with it, and what to change: one
/// finding of [`advice`](crate::advice()). `Display` gives it as one
/// sentence, starting with the pool's name and naming the setting to
/// change and a value for it.
///
/// ```
/// use poolable::{AdviceKind, BufferPool};
///
/// static PIPE: BufferPool = BufferPool::new().name("advice-doc-pipe"); // classes up to 64 KiB
///
/// for _ in 0..poolable::ADVICE_MIN_GETS {
///     drop(PIPE.get(1 << 20)); // 1 MiB buffers: over the largest class
/// }
/// let advice = poolable::advice();
/// let oversize = advice.iter().find(|a| a.pool() == "advice-doc-pipe[65536]").unwrap();
/// assert_eq!(oversize.kind(), AdviceKind::Oversize);
/// assert_eq!(oversize.value(), Some(1 << 20));
/// println!("{oversize}"); // advice-doc-pipe[65536]: 1000 of 1000 returns (100.0%) ...
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Advice {
    pool: Box<str>,
    kind: AdviceKind,
    value: Option<usize>,
    sentence: String,
}

/// Which finding an [`Advice`] is. The rules and their thresholds are
/// listed under [`advice`](crate::advice()).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AdviceKind {
    /// Most returns were over the size cap and dropped: raise the cap
    /// (`max_bytes`, a `BufferPool`'s ceiling), or let it adapt
    /// (`max_bytes_auto`). [`Advice::value`] is the cap to set.
    Oversize,
    /// A low hit rate, with returns dropped because the pool was full:
    /// raise `max_retained` to [`Advice::value`].
    Full,
    /// A low hit rate because values go back on other threads than the ones
    /// that took them, into those threads' caches, out of the getting
    /// threads' reach.
    OtherThreads,
    /// A class of a `BufferPool` whose buffers grow past its capacity and
    /// go back to larger classes: ask `get` for the size they reach.
    OutgrowsClass,
    /// The pool keeps far more idle values than it was seen to have out at
    /// once: lower `max_retained` to [`Advice::value`], or trim it.
    KeepsTooMuch,
    /// Values as cheap to build as to pool: they keep no heap memory, or
    /// nearly every get builds one anyway. Compare with retention off
    /// (`max_retained(0)`).
    MayNotPay,
}

impl Advice {
    /// The pool's name, as [`pools`](crate::pools) gives it.
    ///
    /// ```
    /// # use poolable::Pool;
    /// static EMPTY: Pool<String> = Pool::new().name("advice-doc-empty-strings");
    /// for _ in 0..poolable::ADVICE_MIN_GETS {
    ///     drop(EMPTY.get()); // never written: no heap memory to keep
    /// }
    /// let advice = poolable::advice();
    /// assert!(advice.iter().any(|a| a.pool() == "advice-doc-empty-strings"));
    /// ```
    pub fn pool(&self) -> &str {
        &self.pool
    }

    /// Which finding this is.
    ///
    /// ```
    /// # use poolable::{AdviceKind, Pool};
    /// static EMPTY: Pool<String> = Pool::new().name("advice-doc-kind");
    /// for _ in 0..poolable::ADVICE_MIN_GETS {
    ///     drop(EMPTY.get());
    /// }
    /// let advice = poolable::advice();
    /// let found = advice.iter().find(|a| a.pool() == "advice-doc-kind").unwrap();
    /// assert_eq!(found.kind(), AdviceKind::MayNotPay);
    /// ```
    pub fn kind(&self) -> AdviceKind {
        self.kind
    }

    /// The value the sentence names for its setting: the size cap (bytes)
    /// for [`Oversize`](AdviceKind::Oversize), the retention bound (values)
    /// for [`Full`](AdviceKind::Full), [`KeepsTooMuch`](AdviceKind::KeepsTooMuch)
    /// and [`MayNotPay`](AdviceKind::MayNotPay) (0: retention off, to
    /// compare); `None` for a finding with no setting to change.
    ///
    /// ```
    /// # use poolable::Pool;
    /// static EMPTY: Pool<String> = Pool::new().name("advice-doc-value");
    /// for _ in 0..poolable::ADVICE_MIN_GETS {
    ///     drop(EMPTY.get());
    /// }
    /// let advice = poolable::advice();
    /// let found = advice.iter().find(|a| a.pool() == "advice-doc-value").unwrap();
    /// assert_eq!(found.value(), Some(0));
    /// ```
    pub fn value(&self) -> Option<usize> {
        self.value
    }
}

impl fmt::Display for Advice {
    /// `pool: sentence`.
    ///
    /// ```
    /// # use poolable::Pool;
    /// static EMPTY: Pool<String> = Pool::new().name("advice-doc-display");
    /// for _ in 0..poolable::ADVICE_MIN_GETS {
    ///     drop(EMPTY.get());
    /// }
    /// let advice = poolable::advice();
    /// let found = advice.iter().find(|a| a.pool() == "advice-doc-display").unwrap();
    /// assert!(found.to_string().starts_with("advice-doc-display: "));
    /// assert!(found.to_string().contains("`max_retained(0)`"));
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pool, self.sentence)
    }
}

/// The findings for one pool, in the order of [`AdviceKind`].
pub(crate) fn findings(pool: &str, seen: &Observation) -> Vec<Advice> {
    let s = &seen.stats;
    if s.gets.max(s.puts) < ADVICE_MIN_GETS {
        return Vec::new();
    }
    let advice = |kind, value, sentence| Advice {
        pool: pool.into(),
        kind,
        value,
        sentence,
    };
    let hit = s.hit_rate();
    let hits = Percent(hit);
    // Returns of values the pool handed out (or, for a class, that grew
    // into it), not `put`s of values made elsewhere.
    let returns = s.puts.saturating_sub(s.external);
    let mut found = Vec::new();

    // `dropped_oversize` also counts a value `reserve` made over the cap
    // (one per call at most): no more returns than there were.
    let dropped_oversize = s.dropped_oversize.min(s.puts);
    let oversize = s.puts > 0 && share(dropped_oversize, s.puts) >= OVERSIZE_SHARE;
    if oversize {
        let (value, change) = raise_cap(seen);
        let limit = match seen.class {
            Some(capacity) => format!("the `BufferPool`'s ceiling of {}", Bytes(capacity)),
            None => format!("the size cap of {}", Bytes(seen.max_bytes)),
        };
        found.push(advice(
            AdviceKind::Oversize,
            Some(value),
            format!(
                "{dropped_oversize} of {} returns ({}) were over {limit} and dropped: {change}",
                s.puts,
                Percent(share(dropped_oversize, s.puts)),
            ),
        ));
    }

    let full = hit < FULL_HIT_RATE
        && s.puts > 0
        && share(s.dropped_full, s.puts) >= FULL_SHARE
        && seen.retention > 0;
    if full {
        // In a cycle of n values out at once, a pool that keeps r of them
        // hits r / n of the gets: n is about r / hit rate.
        let needed = (seen.retention as f64 / hit.max(1.0 / 64.0)).ceil() as usize;
        let value = needed
            .max(seen.retention.saturating_mul(2))
            .div_ceil(LOCAL_CACHE_SIZE)
            .saturating_mul(LOCAL_CACHE_SIZE);
        found.push(advice(
            AdviceKind::Full,
            Some(value),
            format!(
                "{hits} of gets hit, and {} of {} returns ({}) were dropped because the pool was \
                 full at {} idle values; let it keep about as many as are out at once, \
                 `max_retained({value})` (`#[poolable(max_retained = {value})]` on a derived type)",
                s.dropped_full,
                s.puts,
                Percent(share(s.dropped_full, s.puts)),
                seen.retention,
            ),
        ));
    }

    let low = hit < LOW_HIT_RATE && !oversize && !full;
    let elsewhere = low
        && returns > 0
        && share(seen.returns_beyond_gets, returns) >= ELSEWHERE_SHARE
        && share(returns, s.gets) >= 0.5;
    if elsewhere {
        found.push(advice(
            AdviceKind::OtherThreads,
            None,
            format!(
                "{} of gets missed, and {} of {returns} returns ({}) were made on other threads \
                 than the ones that took the values: each thread keeps up to {LOCAL_CACHE_SIZE} \
                 values it returns in a cache of its own, which the threads that get do not \
                 reach until it is full; return values on the thread that took them, or from \
                 fewer threads",
                Percent(1.0 - hit),
                seen.returns_beyond_gets,
                Percent(share(seen.returns_beyond_gets, returns)),
            ),
        ));
    }

    let outgrows = low && !elsewhere && seen.class.is_some() && share(returns, s.gets) < 0.5;
    if let Some(capacity) = seen.class.filter(|_| outgrows) {
        found.push(advice(
            AdviceKind::OutgrowsClass,
            None,
            format!(
                "{} of gets missed, and {returns} of {} buffers came back to this class: they \
                 grow past {} and go back to a larger class (or are dropped over the ceiling); \
                 ask `get(n)` for the size they reach",
                Percent(1.0 - hit),
                s.gets,
                Bytes(capacity),
            ),
        ));
    }

    let most_out = seen.most_held.max(1);
    let keeps_too_much = seen.class.is_none()
        && hit >= LOW_HIT_RATE
        && s.retained_bytes >= KEEPS_MIN_BYTES
        && s.retained as u64 >= KEEPS_FACTOR.saturating_mul(most_out);
    if keeps_too_much {
        let value = usize::try_from(2 * most_out)
            .unwrap_or(usize::MAX)
            .max(LOCAL_CACHE_SIZE)
            .next_power_of_two();
        found.push(advice(
            AdviceKind::KeepsTooMuch,
            Some(value),
            format!(
                "it keeps {} idle values ({}), more than {KEEPS_FACTOR} times the most seen out \
                 at once ({}, sampled when its stats were read and at trims); lower the \
                 retention, `max_retained({value})`, or trim it (`trim_all()`, the `trimmer`)",
                s.retained,
                Bytes(s.retained_bytes),
                seen.most_held,
            ),
        ));
    }

    let no_heap = s.retained > 0 && s.retained_bytes <= s.retained.saturating_mul(seen.value_size);
    let almost_all_miss = hit < MISS_ALMOST_ALWAYS && !oversize && !full && !elsewhere && !outgrows;
    if no_heap || almost_all_miss {
        let why = if no_heap {
            "the values it keeps own no heap memory (`Reset::heap_bytes` is 0), so a new one \
             is as cheap to build as a pooled one"
                .to_string()
        } else {
            format!("{hits} of gets hit: nearly every get builds a new value anyway")
        };
        found.push(advice(
            AdviceKind::MayNotPay,
            Some(0),
            format!(
                "{why}; pooling may not pay: compare with retention off, `max_retained(0)`, \
                 counting allocations"
            ),
        ));
    }
    found
}

/// What to change for a pool whose returns are mostly over its size cap,
/// and the cap to set: one that covers 95% of the sizes dropped.
fn raise_cap(seen: &Observation) -> (usize, String) {
    let heap = seen
        .oversize_heap_p95
        .unwrap_or_else(|| seen.max_bytes.saturating_mul(2));
    let reached = format!("they reached {} of heap (95th percentile)", Bytes(heap));
    if seen.class.is_some() {
        // A class's cap is its capacity plus the `Vec` itself, and the
        // ceiling rounds up to a power of two: the heap size is the value.
        let set = format!("`BufferPool::max_bytes({})`", size_expr(heap));
        return (heap, format!("{reached}; raise the ceiling, {set}"));
    }
    // The cap counts the value itself beside its heap: the size reached,
    // plus that, rounded up to a quarter of the power of two.
    let step = (heap / 4).max(1);
    let value = heap
        .saturating_add(seen.value_size)
        .div_ceil(step)
        .saturating_mul(step);
    let set = format!("`max_bytes({})` ({})", size_expr(value), Bytes(value));
    let change = if seen.auto_cap {
        format!(
            "{reached}, over the adaptive cap's ceiling of {}; raise the ceiling, {set} beside \
             `max_bytes_auto()`",
            Bytes(seen.ceiling),
        )
    } else {
        format!(
            "{reached}; raise the cap to cover them, {set} (`#[poolable(max_bytes = {value})]` \
             on a derived type), or let it follow the sizes under that ceiling with \
             `max_bytes_auto()`"
        )
    };
    (value, change)
}

/// `part / whole`, 0 for an empty whole.
fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

/// A share as a percentage with one decimal.
struct Percent(f64);

impl fmt::Display for Percent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.1}%", self.0 * 100.0)
    }
}

/// A byte count as code: `1 << 20` for a power of two from 1 KiB up, the
/// number otherwise.
fn size_expr(bytes: usize) -> String {
    if bytes.is_power_of_two() && bytes >= 1024 {
        format!("1 << {}", bytes.trailing_zeros())
    } else {
        bytes.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Stats;

    /// A pool of 24-byte values with the default policy on 2 CPUs, after
    /// `gets` gets that all hit and came back (none retained yet).
    fn seen(gets: u64) -> Observation {
        let stats = Stats {
            gets,
            puts: gets,
            ..Stats::default()
        };
        Observation {
            stats,
            returns_beyond_gets: 0,
            most_held: 1,
            oversize_heap_p95: None,
            retention: 64,
            value_size: 24,
            max_bytes: 64 << 10,
            ceiling: 64 << 10,
            auto_cap: false,
            class: None,
        }
    }

    fn kinds(seen: &Observation) -> Vec<AdviceKind> {
        findings("p", seen).iter().map(Advice::kind).collect()
    }

    #[test]
    fn a_healthy_pool_gets_no_advice() {
        let mut healthy = seen(100_000);
        healthy.stats.misses = 10;
        healthy.stats.retained = 10;
        healthy.stats.retained_bytes = 10 * (24 + 4096);
        assert_eq!(kinds(&healthy), []);
    }

    #[test]
    fn no_advice_before_the_minimum_of_gets() {
        let mut few = seen(ADVICE_MIN_GETS - 1);
        few.stats.misses = few.stats.gets;
        few.stats.dropped_oversize = few.stats.puts;
        assert_eq!(kinds(&few), []);
        few.stats.gets += 1;
        few.stats.puts += 1;
        few.stats.misses += 1;
        few.stats.dropped_oversize += 1;
        assert_eq!(kinds(&few), [AdviceKind::Oversize]);
    }

    #[test]
    fn mostly_oversize_names_a_cap_over_the_sizes_seen() {
        let mut big = seen(5000);
        big.stats.misses = 4700;
        big.stats.dropped_oversize = 4668;
        big.oversize_heap_p95 = Some(1 << 20);
        let advice = findings("uploads", &big);
        assert_eq!(advice.len(), 1, "{advice:?}");
        let (kind, value) = (advice[0].kind(), advice[0].value());
        assert_eq!(kind, AdviceKind::Oversize);
        // 1 MiB of heap plus the 24-byte value, rounded up to 1.25 MiB.
        assert_eq!(value, Some(1_310_720));
        let text = advice[0].to_string();
        assert!(
            text.starts_with("uploads: 4668 of 5000 returns (93.4%)"),
            "{text}"
        );
        assert!(text.contains("`max_bytes(1310720)` (1.3 MiB)"), "{text}");
        assert!(text.contains("`max_bytes_auto()`"), "{text}");
    }

    /// A value `reserve` made over the cap is dropped as oversize without
    /// a return: the sentence counted more dropped returns than returns.
    #[test]
    fn oversize_counts_no_more_returns_than_there_were() {
        let mut big = seen(3000);
        big.stats.misses = 3000;
        big.stats.prefilled = 1;
        big.stats.dropped_oversize = 3001;
        let text = findings("p", &big)[0].to_string();
        assert!(
            text.starts_with("p: 3000 of 3000 returns (100.0%)"),
            "{text}"
        );
    }

    #[test]
    fn a_buffer_class_over_the_ceiling_names_the_ceiling() {
        let mut class = seen(5000);
        class.class = Some(64 << 10);
        class.stats.misses = 5000;
        class.stats.dropped_oversize = 5000;
        class.oversize_heap_p95 = Some(1 << 20);
        let advice = findings("pipe[65536]", &class);
        assert_eq!(advice[0].kind(), AdviceKind::Oversize);
        assert_eq!(advice[0].value(), Some(1 << 20));
        let text = advice[0].to_string();
        assert!(text.contains("`BufferPool::max_bytes(1 << 20)`"), "{text}");
        assert!(
            text.contains("over the `BufferPool`'s ceiling of 64 KiB"),
            "{text}"
        );
    }

    #[test]
    fn an_adaptive_cap_names_its_ceiling() {
        let mut auto = seen(5000);
        auto.auto_cap = true;
        auto.max_bytes = 4096;
        auto.stats.dropped_oversize = 3000;
        auto.oversize_heap_p95 = Some(256 << 10);
        let text = findings("p", &auto)[0].to_string();
        assert!(text.contains("adaptive cap's ceiling of 64 KiB"), "{text}");
        assert!(text.contains("beside `max_bytes_auto()`"), "{text}");
    }

    #[test]
    fn a_full_pool_with_a_low_hit_rate_names_max_retained() {
        let mut full = seen(10_000);
        full.stats.misses = 7500; // 25% hits
        full.stats.dropped_full = 7400;
        full.stats.retained = 64;
        full.stats.retained_bytes = 64 * 4120;
        let advice = findings("p", &full);
        assert_eq!(advice.len(), 1, "{advice:?}");
        assert_eq!(advice[0].kind(), AdviceKind::Full);
        // 64 kept at 25% hits: about 256 out at once.
        assert_eq!(advice[0].value(), Some(256));
        assert!(advice[0].to_string().contains("`max_retained(256)`"));
    }

    /// `max_retained(usize::MAX)`, the natural way to write "unbounded",
    /// with drops as full all the same (a retained-bytes budget's, or
    /// chaos mode's): the advice once doubled the retention with an
    /// overflowing multiply.
    #[test]
    fn a_full_pool_of_unbounded_retention_is_advised_without_overflow() {
        let mut full = seen(1000);
        full.retention = usize::MAX;
        full.stats.misses = 919;
        full.stats.dropped_full = 910;
        let advice = findings("p", &full);
        assert_eq!(advice.len(), 1, "{advice:?}");
        assert_eq!(advice[0].kind(), AdviceKind::Full);
    }

    /// A pool whose retention is off (`max_retained(0)`, as `MayNotPay`
    /// suggests to compare) drops every return as full; it is not told to
    /// set `max_retained` to what it already is.
    #[test]
    fn a_pool_with_retention_off_is_not_told_it_is_full() {
        let mut off = seen(10_000);
        off.retention = 0;
        off.stats.misses = 10_000;
        off.stats.dropped_full = 10_000;
        assert!(
            !kinds(&off).contains(&AdviceKind::Full),
            "{:?}",
            kinds(&off)
        );
    }

    /// Each rule's hit-rate and share thresholds sit where `advice()`'s
    /// table puts them: "under 90%", "under 50%", "under 5%", "fewer than
    /// half came back". At the threshold itself the rule is silent.
    #[test]
    fn each_threshold_is_exclusive_where_the_table_says_under() {
        // Full: a hit rate under 90%, with 10% of returns dropped as full.
        let mut full = seen(10_000);
        full.stats.dropped_full = 1000;
        full.stats.retained = 10;
        full.stats.retained_bytes = 10 * 4120;
        full.stats.misses = 1000; // 90.0% hits
        assert_eq!(kinds(&full), []);
        full.stats.misses = 1001;
        assert_eq!(kinds(&full), [AdviceKind::Full]);

        // OtherThreads: a hit rate under 50%.
        let mut stranded = seen(2000);
        stranded.returns_beyond_gets = 2000;
        stranded.stats.retained = 10;
        stranded.stats.retained_bytes = 10 * 4120;
        stranded.stats.misses = 1000; // 50.0% hits
        assert_eq!(kinds(&stranded), []);
        stranded.stats.misses = 1001;
        assert_eq!(kinds(&stranded), [AdviceKind::OtherThreads]);

        // OutgrowsClass: fewer than half the buffers taken came back.
        let mut class = seen(3000);
        class.class = Some(4096);
        class.stats.misses = 3000;
        class.stats.puts = 1500; // half came back
        assert!(!kinds(&class).contains(&AdviceKind::OutgrowsClass));
        class.stats.puts = 1499;
        assert_eq!(kinds(&class), [AdviceKind::OutgrowsClass]);

        // MayNotPay: a hit rate under 5%.
        let mut detached = seen(10_000);
        detached.stats.puts = 500;
        detached.stats.misses = 9_500; // 5.0% hits
        detached.stats.detached = 9_500;
        assert_eq!(kinds(&detached), []);
        detached.stats.misses = 9_501;
        detached.stats.detached = 9_501;
        assert_eq!(kinds(&detached), [AdviceKind::MayNotPay]);
    }

    #[test]
    fn drops_as_full_with_a_good_hit_rate_are_no_finding() {
        let mut fine = seen(10_000);
        fine.stats.misses = 500;
        fine.stats.dropped_full = 450;
        fine.stats.retained = 8;
        fine.stats.retained_bytes = 8 * 4120;
        assert_eq!(kinds(&fine), []);
    }

    #[test]
    fn returns_on_other_threads_with_misses_are_said() {
        let mut stranded = seen(2000);
        stranded.stats.misses = 1900;
        stranded.stats.retained = 1900;
        stranded.stats.retained_bytes = 1900 * 4120;
        stranded.returns_beyond_gets = 2000;
        stranded.most_held = 1;
        let advice = findings("p", &stranded);
        assert_eq!(kinds(&stranded), [AdviceKind::OtherThreads], "{advice:?}");
        assert_eq!(advice[0].value(), None);
        assert!(advice[0].to_string().contains("other threads"));
    }

    #[test]
    fn a_class_whose_buffers_grow_out_of_it_is_said() {
        let mut small = seen(3000);
        small.class = Some(4096);
        small.stats.puts = 0;
        small.stats.misses = 3000;
        let advice = findings("pipe[4096]", &small);
        assert_eq!(kinds(&small), [AdviceKind::OutgrowsClass], "{advice:?}");
        assert!(advice[0].to_string().contains("grow past 4 KiB"));
    }

    #[test]
    fn keeping_far_more_than_was_out_names_a_lower_bound() {
        let mut prefilled = seen(10_000);
        prefilled.stats.prefilled = 1000;
        prefilled.stats.retained = 1000;
        prefilled.stats.retained_bytes = 1000 * (24 + 4096);
        prefilled.most_held = 3;
        let advice = findings("p", &prefilled);
        assert_eq!(kinds(&prefilled), [AdviceKind::KeepsTooMuch], "{advice:?}");
        assert_eq!(advice[0].value(), Some(8));
        // Twice the most seen out, rounded up to a power of two: 40 -> 64.
        prefilled.most_held = 20;
        assert_eq!(findings("p", &prefilled)[0].value(), Some(64));
        prefilled.most_held = 3;
        // Under 1 MiB idle, it does not matter.
        prefilled.stats.retained_bytes = (1 << 20) - 1;
        assert_eq!(kinds(&prefilled), []);
    }

    #[test]
    fn values_without_heap_memory_may_not_pay() {
        let mut plain = seen(10_000);
        plain.stats.misses = 1;
        plain.stats.retained = 1;
        plain.stats.retained_bytes = 24;
        let advice = findings("p", &plain);
        assert_eq!(kinds(&plain), [AdviceKind::MayNotPay], "{advice:?}");
        assert_eq!(advice[0].value(), Some(0));
        assert!(advice[0].to_string().contains("own no heap memory"));
    }

    #[test]
    fn nearly_every_get_a_miss_may_not_pay() {
        let mut detached = seen(10_000);
        detached.stats.misses = 9_990;
        detached.stats.puts = 5;
        detached.stats.detached = 9_995;
        let advice = findings("p", &detached);
        assert_eq!(kinds(&detached), [AdviceKind::MayNotPay], "{advice:?}");
        assert!(advice[0].to_string().contains("0.1% of gets hit"));
    }
}
