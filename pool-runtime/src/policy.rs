//! The retention policy: how large a returned value may be, and how many idle
//! values a pool keeps.

use crate::raw::lease;

/// The default `max_bytes`: a returned value whose [`heap_bytes`](crate::Reset::heap_bytes)
/// plus `size_of::<T>()` exceeds 64 KiB is dropped instead of retained.
///
/// This is the cap Go's `fmt` package applies to its pooled print buffers: it
/// keeps the common small buffers warm while one 50 MB request cannot leave a
/// 50 MB buffer resident. Raise it with [`Pool::max_bytes`](crate::Pool::max_bytes)
/// for pools of deliberately large, pre-sized values.
///
/// ```
/// assert_eq!(poolable::DEFAULT_MAX_BYTES, 64 * 1024);
/// ```
pub const DEFAULT_MAX_BYTES: usize = 64 * 1024;

/// How many idle values one thread keeps for one pool in its private cache,
/// before it moves half of them to the shared shards.
///
/// Besides these, a cache holds the values of its own that other threads
/// returned (handed back to their slots) until it takes them up: at its
/// next get or return off the fast path it lists them as far as the cap
/// goes, and at the next trim the rest go to the shards. They stay in the
/// slots they were leased from, so they are never more than the cache's
/// slots (as many values as fit in 2 KiB, 16 to 63).
///
/// ```
/// assert_eq!(poolable::LOCAL_CACHE_SIZE, 8);
/// ```
pub const LOCAL_CACHE_SIZE: usize = 8;

/// A returned value of more bytes than this ([`heap_bytes`](crate::Reset::heap_bytes)
/// plus `size_of::<T>()`) skips the thread caches and goes straight to the
/// pool's shared tier, where every thread finds it: a thread cache lists at
/// most `LOCAL_CACHE_SIZE` values of at most this size, 512 KiB per thread
/// and pool (and holds, until it takes them up, its own values that other
/// threads handed back: [`LOCAL_CACHE_SIZE`]). It is the default
/// `max_bytes`, so it changes nothing for a pool under the default cap; a
/// pool of larger values (a `BufferPool`'s large classes) keeps them where
/// one thread's return can serve another thread's get at once, instead of
/// stranding up to a cache's worth of them per thread.
///
/// ```
/// assert_eq!(poolable::LOCAL_CACHE_MAX_BYTES, 64 * 1024);
/// ```
pub const LOCAL_CACHE_MAX_BYTES: usize = DEFAULT_MAX_BYTES;

/// The default `max_retained` is this many values per CPU, four thread
/// caches' worth: `4 × CPUs × LOCAL_CACHE_SIZE` (64 on a 2-CPU machine).
///
/// ```
/// assert_eq!(poolable::DEFAULT_RETAINED_PER_CPU, 32);
/// ```
pub const DEFAULT_RETAINED_PER_CPU: usize = 4 * LOCAL_CACHE_SIZE;

/// How far the default retention bound may grow under load: a pool without
/// an explicit `max_retained` starts at the default and doubles a shard's
/// room, up to this many times the default, whenever a return finds every
/// shard full; each trim halves it again, down to the default.
///
/// ```
/// assert_eq!(poolable::ADAPTIVE_RETAINED_FACTOR, 8);
/// ```
pub const ADAPTIVE_RETAINED_FACTOR: usize = 8;

/// Upper bound on the number of shards, whatever the CPU count.
const MAX_SHARDS: usize = 64;

/// A thread cache stores its values inline; a type larger than this keeps
/// none there (`LOCAL_CACHE_SIZE` of them would be a large allocation per
/// thread), and its pool works from the shards alone. Pool `Box<T>` instead.
const MAX_CACHED_SIZE: usize = 4096;

/// What a pool does with a returned value whose size is over its cap
/// ([`Pool::max_bytes`](crate::Pool::max_bytes)); set with
/// [`Pool::oversize`](crate::Pool::oversize) or `#[poolable(oversize = "shrink")]`.
///
/// - **`Drop`** (the default) fits values that are rarely over the cap: an
///   outlier is left to the allocator, and the next get constructs a fresh
///   value. It is also the only choice for a value that cannot shrink.
/// - **`Shrink`** fits values that often grow a little over the cap, or
///   whose other parts are costly to build again: a request struct whose
///   body buffer sometimes grows large keeps its other fields' allocations,
///   and only the large buffer is reallocated smaller
///   ([`Reset::shrink_heap`](crate::Reset::shrink_heap)). A value still over
///   the cap after shrinking is dropped.
///
/// ```
/// use poolable::{Oversize, Pool};
///
/// let pool: Pool<Vec<u8>> = Pool::new().max_bytes(4096).oversize(Oversize::Shrink);
/// pool.get().reserve(1 << 20);
/// let stats = pool.stats();
/// assert_eq!((stats.shrunk, stats.dropped_oversize, stats.retained), (1, 0, 1));
/// assert!(pool.get().capacity() <= 4096);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Oversize {
    /// Drop the value (`Stats::dropped_oversize`).
    #[default]
    Drop,
    /// Shrink it under the cap with [`Reset::shrink_heap`](crate::Reset::shrink_heap)
    /// and keep it (`Stats::shrunk`); drop it if it still does not fit.
    Shrink,
}

/// What a pool was configured with; `max_retained == None` means "the default
/// for this machine", resolved when the pool's storage is first allocated.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Policy {
    pub(crate) max_retained: Option<usize>,
    pub(crate) max_bytes: usize,
    /// `min(max_bytes, LOCAL_CACHE_MAX_BYTES)`: what a return may be to go
    /// to a thread cache, the one compare of a return's hot path.
    pub(crate) local_max_bytes: usize,
    /// `max_bytes_auto`: calibrate the cap within `[AUTO_CAP_FLOOR, max_bytes]`.
    pub(crate) auto_cap: bool,
    pub(crate) oversize: Oversize,
    /// The most values a thread cache keeps: `LOCAL_CACHE_SIZE`, or fewer
    /// for a `BufferPool` class of large buffers (a byte bound per cache).
    pub(crate) local_cache_size: usize,
    /// Whether the thread caches have spare slots, beyond their idle
    /// values, for the values their gets lease out (`raw/lease.rs`), so
    /// that a burst of gets can take refills while its first values are
    /// out. Not for a `BufferPool`'s classes, whose caches hold to a byte
    /// bound: there a leased hit holds one of its cache's slots until it
    /// returns.
    pub(crate) spare_slots: bool,
}

impl Policy {
    pub(crate) const DEFAULT: Policy = Policy {
        max_retained: None,
        max_bytes: DEFAULT_MAX_BYTES,
        local_max_bytes: DEFAULT_MAX_BYTES,
        auto_cap: false,
        oversize: Oversize::Drop,
        local_cache_size: LOCAL_CACHE_SIZE,
        spare_slots: true,
    };

    /// Set the size cap (the ceiling, for an adaptive cap).
    pub(crate) const fn set_max_bytes(&mut self, bytes: usize) {
        self.max_bytes = bytes;
        self.local_max_bytes = if bytes < LOCAL_CACHE_MAX_BYTES {
            bytes
        } else {
            LOCAL_CACHE_MAX_BYTES
        };
    }
}

/// The policy resolved against this machine: sizes of the thread caches and shards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    pub(crate) max_bytes: usize,
    /// The cap adapts (`crate::autocap`), with `max_bytes` as its ceiling.
    pub(crate) auto_cap: bool,
    /// Capacity of each thread's private cache.
    pub(crate) local_cap: usize,
    /// Slots of each thread cache (`raw/lease.rs`): its idle values and the
    /// values leased out of it.
    pub(crate) slots: usize,
    /// Capacity of each shard; they add up to `max_retained - local_cap`.
    pub(crate) shard_caps: Vec<usize>,
    /// How far each shard's capacity may grow under load: the same as
    /// `shard_caps` for an explicit `max_retained`, `ADAPTIVE_RETAINED_FACTOR`
    /// times it for the default.
    pub(crate) shard_ceilings: Vec<usize>,
    /// `POOLABLE=chaos`: drop one return in four at random.
    pub(crate) chaos: bool,
}

impl Limits {
    pub(crate) fn resolve(policy: Policy, cpus: usize, size_of_value: usize) -> Limits {
        let cpus = cpus.max(1);
        let max_retained = policy
            .max_retained
            .unwrap_or_else(|| cpus.saturating_mul(DEFAULT_RETAINED_PER_CPU));
        let local_cap = if size_of_value > MAX_CACHED_SIZE {
            0
        } else {
            policy.local_cache_size.min(max_retained)
        };
        // One thread working alone keeps at most `max_retained` values: its
        // cache plus the shards. Each further thread can add one cache.
        let shared = max_retained - local_cap;
        let shards = cpus.min(MAX_SHARDS);
        let shard_caps: Vec<usize> = (0..shards)
            .map(|i| shared / shards + usize::from(i < shared % shards))
            .collect();
        let growth = if policy.max_retained.is_some() {
            1
        } else {
            ADAPTIVE_RETAINED_FACTOR
        };
        let shard_ceilings = shard_caps
            .iter()
            .map(|cap| cap.saturating_mul(growth))
            .collect();
        let slots = if policy.spare_slots {
            lease::slots_for(size_of_value)
        } else {
            local_cap
        };
        Limits {
            max_bytes: policy.max_bytes,
            auto_cap: policy.auto_cap,
            local_cap,
            slots,
            shard_caps,
            shard_ceilings,
            chaos: false,
        }
    }

    /// Apply the process-wide [`Mode`]: `Off` keeps nothing, `Chaos` keeps
    /// no thread caches (every operation takes the slow path, where the
    /// random drops are) and drops returns at random.
    pub(crate) fn with_mode(mut self, mode: Mode) -> Limits {
        match mode {
            Mode::Normal => {}
            Mode::Off => {
                self.local_cap = 0;
                self.shard_caps.iter_mut().for_each(|cap| *cap = 0);
                self.shard_ceilings.iter_mut().for_each(|cap| *cap = 0);
            }
            Mode::Chaos => {
                self.local_cap = 0;
                self.chaos = true;
            }
        }
        self
    }
}

/// What the `POOLABLE` environment variable asks of every pool, read once,
/// at the first pool's first use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Unset, or any other value: pools pool.
    Normal,
    /// `POOLABLE=off`: every get constructs, every return is reset and
    /// dropped (`dropped_full`), so Miri, sanitizers and heap profilers see
    /// real lifetimes. Stats keep counting.
    Off,
    /// `POOLABLE=chaos`: one return in four, at random, is dropped
    /// (`dropped_full`), so code that assumes a warm pool fails in tests.
    Chaos,
}

/// The process's [`Mode`].
#[cfg(not(poolable_loom))]
pub(crate) fn mode() -> Mode {
    static MODE: std::sync::OnceLock<Mode> = std::sync::OnceLock::new();
    *MODE.get_or_init(|| match std::env::var_os("POOLABLE") {
        Some(value) if value == "off" => Mode::Off,
        Some(value) if value == "chaos" => Mode::Chaos,
        _ => Mode::Normal,
    })
}

/// Under loom: always normal.
#[cfg(poolable_loom)]
pub(crate) fn mode() -> Mode {
    Mode::Normal
}

/// Under `POOLABLE=chaos`: true for about one call in four.
pub(crate) fn chaos_drop() -> bool {
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
    static STATE: AtomicU64 = AtomicU64::new(0x853c_49e6_748f_ea9b);
    // splitmix64 over a shared counter: cheap, and spread well enough.
    let mut z = STATE.fetch_add(0x9e37_79b9_7f4a_7c15, Relaxed);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)) % 4 == 0
}

/// The number of CPUs this process may use, read once.
#[cfg(not(poolable_loom))]
pub(crate) fn cpus() -> usize {
    static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CPUS.get_or_init(|| std::thread::available_parallelism().map_or(1, usize::from))
}

/// Under loom: two shards, so that stealing is part of every model.
#[cfg(poolable_loom)]
pub(crate) fn cpus() -> usize {
    2
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What one thread alone can retain: its cache and the shards.
    fn retained_by_one_thread(limits: &Limits) -> usize {
        limits.local_cap + limits.shard_caps.iter().sum::<usize>()
    }

    #[test]
    fn default_retention_is_four_caches_per_cpu() {
        let limits = Limits::resolve(Policy::DEFAULT, 2, 24);
        assert_eq!(retained_by_one_thread(&limits), 64);
        assert_eq!(limits.local_cap, 8);
        assert_eq!(limits.shard_caps, vec![28, 28]);
        assert_eq!(limits.shard_ceilings, vec![224, 224]);
    }

    #[test]
    fn an_explicit_bound_does_not_grow() {
        let policy = Policy {
            max_retained: Some(100),
            ..Policy::DEFAULT
        };
        let limits = Limits::resolve(policy, 2, 24);
        assert_eq!(limits.shard_ceilings, limits.shard_caps);
    }

    #[test]
    fn shard_caps_and_local_cache_add_up_to_max_retained() {
        for max in [0, 1, 5, 9, 100] {
            for cpus in [1, 2, 3, 7] {
                let policy = Policy {
                    max_retained: Some(max),
                    ..Policy::DEFAULT
                };
                let limits = Limits::resolve(policy, cpus, 24);
                assert_eq!(retained_by_one_thread(&limits), max);
            }
        }
    }

    #[test]
    fn zero_retention_disables_every_cache() {
        let policy = Policy {
            max_retained: Some(0),
            ..Policy::DEFAULT
        };
        let limits = Limits::resolve(policy, 4, 24);
        assert_eq!(limits.local_cap, 0);
        assert!(limits.shard_caps.iter().all(|&c| c == 0));
    }

    #[test]
    fn a_large_value_type_keeps_no_thread_cache() {
        let limits = Limits::resolve(Policy::DEFAULT, 2, MAX_CACHED_SIZE + 1);
        assert_eq!(limits.local_cap, 0);
        assert_eq!(limits.shard_caps.iter().sum::<usize>(), 64);
        // A type of exactly the limit keeps its thread caches.
        let limits = Limits::resolve(Policy::DEFAULT, 2, MAX_CACHED_SIZE);
        assert_eq!(limits.local_cap, LOCAL_CACHE_SIZE);
    }
}
