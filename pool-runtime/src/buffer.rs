//! [`BufferPool`]: byte buffers by size class, one [`Pool<Vec<u8>>`](Pool)
//! per class capacity (powers of two up to 4 KiB, then four classes per
//! doubling), so small requests get small buffers, no buffer is much larger
//! than the request it serves, and a buffer that grew moves up a class
//! instead of bloating the small ones.
//!
//! The classes are rungs of one ladder, the same for every `BufferPool`:
//! rung `g` is `2^g` bytes up to rung `FINE_SHIFT` (12, 4 KiB), and above it
//! each doubling `2^k .. 2^(k+1)` has four rungs, `2^k`, `1.25 * 2^k`,
//! `1.5 * 2^k` and `1.75 * 2^k` (jemalloc's and mimalloc's size classes). A
//! pool uses the rungs from its `min_bytes` to its `max_bytes`. A request's
//! rung and a capacity's rung are each one leading-zero count, a shift and
//! a mask: no table, no search.

use crate::LOCAL_CACHE_MAX_BYTES;
use crate::guard::{PoolGuard, sealed};
use crate::pool::Pool;
use crate::stats::{Event, Stats};
use core::fmt;
// Plain std atomics, under loom too: they are counters that order nothing,
// and the array of them is built in a `const fn` (loom's are not `const`).
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};

/// log2 of the largest power-of-two class (4 KiB): above it, each doubling
/// has [`STEPS`] classes. Below it a class is twice the one below, which
/// wastes at most a few KiB per buffer.
const FINE_SHIFT: u32 = 12;

/// log2 of [`STEPS`]: a request's class above 4 KiB is its leading one and
/// the two bits after it.
const STEP_BITS: u32 = 2;

/// Classes per doubling above 4 KiB: each is at most 1.25 times the one
/// below.
const STEPS: u32 = 1 << STEP_BITS;

/// The largest rung: the largest class capacity a `Vec` can have
/// (`isize::MAX` rounded down to a class, `1.75 * 2^62` on 64-bit targets).
const TOP_RUNG: u32 = floor_rung(isize::MAX as usize);

/// The most classes a [`BufferPool`] has: the smallest class and 160 above
/// it, which is 40 doublings of four classes, so any `min_bytes` ..
/// `max_bytes` range up to 2^40 apart (more below 4 KiB, where a doubling
/// is one class).
const MAX_CLASSES: usize = 1 + 40 * STEPS as usize;

/// How many more large buffers (over [`LOCAL_CACHE_MAX_BYTES`]) than were
/// ever out at once a `BufferPool` keeps alive at first: a get that must
/// allocate past this lets an idle one go. A few idle buffers of sizes
/// spread over a doubling or more miss too often: with no such margin
/// (every miss letting one go), the pipeline of `benches/rss_pipeline.rs`
/// hit 80-99% of the time, run to run; with a fixed margin of eight, four
/// threads holding 1 to 12 buffers each (`tests/buffer_pool.rs`) hit 94%,
/// hence the growth ([`MAX_KEEP_IDLE_LARGE`]).
const KEEP_IDLE_LARGE: u64 = 8;

/// The most the margin of [`KEEP_IDLE_LARGE`] grows to, doubling, for a mix
/// of sizes that misses with fewer idle buffers.
const MAX_KEEP_IDLE_LARGE: u64 = 64;

/// Large gets between two looks at how many buffers the margin let go of.
const LARGE_WINDOW: u64 = 256;

/// What one thread's cache of one class keeps at most, in bytes of buffer
/// capacity (and at least one buffer, at most `LOCAL_CACHE_SIZE`): eight
/// buffers up to 4 KiB, then fewer, one from 32 KiB up. A consumer thread
/// that only returns buffers would otherwise strand eight of each class.
const THREAD_CACHE_BYTES: usize = 32 << 10;

/// What the pool itself stores per buffer, which counts toward the size cap
/// as it does for every [`Pool`].
const VEC_SIZE: usize = size_of::<Vec<u8>>();

/// How much larger than the request an idle buffer of a larger class may
/// be, as `(numerator, denominator)`, for a get over
/// [`LOCAL_CACHE_MAX_BYTES`] to take it rather than allocate: twice.
const REUSE_UP_TO: (usize, usize) = (2, 1);

/// Byte buffers sorted by capacity into size classes, from
/// [`min_bytes`](BufferPool::min_bytes) (default 64) up to
/// [`max_bytes`](BufferPool::max_bytes) (default 64 KiB): powers of two up
/// to 4 KiB, then four classes per doubling (4, 5, 6, 7, 8, 10, 12, 14,
/// 16 KiB, ...), 23 classes by default.
///
/// A single `Pool<Vec<u8>>` serving mixed sizes ends up holding only large
/// buffers: each one grows to the largest request it has seen. Here
/// [`get(n)`](BufferPool::get) takes from the smallest class whose buffers
/// hold `n` bytes, and a returned buffer goes to the class its capacity fits
/// *then*: one that grew moves up, and one past `max_bytes` is dropped. Each
/// class is a [`Pool`], with the same thread-local fast path, retention
/// bound and decay.
///
/// ```
/// use poolable::BufferPool;
/// use std::io::Write;
///
/// static BUFS: BufferPool = BufferPool::new();
///
/// let mut small = BUFS.get(100);
/// assert!(small.is_empty() && small.capacity() >= 100);
/// write!(small, "GET /items/{} HTTP/1.1\r\n", 7).unwrap();
/// drop(small); // cleared, back in the 128-byte class
///
/// let big = BUFS.get(10_000); // the 10 KiB class: the small buffer stays small
/// assert_eq!(big.capacity(), 10 << 10);
/// drop(big);
/// assert_eq!(BUFS.stats().retained, 2);
/// ```
///
/// # Waste
///
/// A miss allocates its class's capacity with `Vec::with_capacity` (which
/// promises at least that, and gives exactly that), so the class layout
/// decides how many bytes a buffer has beyond the request. Above 4 KiB a
/// class is at most 1.25 times the one below, so a request of `n` bytes
/// gets less than `1.25 * n`; below, less than `2 * n` (and at least
/// `min_bytes`). On requests spread evenly from 100 B to 1 MiB the mean of
/// capacity / request is 1.09, against 1.39 with one class per power of
/// two; the buffers hold 1.08 times the bytes requested, against 1.33
/// (`the_mean_waste_on_a_uniform_mix_is_about_a_tenth` in
/// `tests/buffer_pool.rs` measures both). A buffer that grew in use keeps
/// its capacity and goes to the largest class it holds, so a hit can hand
/// out up to just under the next class's capacity.
///
/// # Memory
///
/// A pool per class would keep, in each class, as many buffers as were
/// ever out of it at once, and the sum of those is more than were ever out
/// at once. Three rules keep what the pool holds near what is in use:
///
/// - **Small classes, thread caches bounded in bytes.** A thread caches at
///   most 32 KiB of a class (eight 4 KiB buffers, two of 16 KiB, one from
///   32 KiB up), not eight buffers whatever their size; the rest goes to
///   the shared tier, where any thread finds it.
/// - **Large classes reuse larger buffers.** A get over
///   [`LOCAL_CACHE_MAX_BYTES`] (whose buffers only the shared tier keeps)
///   whose class has no idle buffer takes one of a larger class, up to
///   twice the request.
/// - **A large get that allocates lets go of one it could not use.** A
///   `BufferPool` counts the large buffers out and the most out at once. If
///   none fits and the large buffers alive (out and idle) are already a
///   margin more than were ever out at once, the get also drops one idle
///   buffer outside that range (the largest first, which the allocator can
///   carve the new one from), counted as `dropped_idle`. The margin starts
///   at eight and doubles, up to 64, whenever more than one large get in 64
///   lets a buffer go: a mix of sizes that needs more idle buffers to hit
///   gets them, instead of trading one buffer for another at each miss. So
///   the large buffers alive are at most the margin more than were ever
///   out at once, whatever their classes, and their sizes follow the
///   requests.
///
/// `tests/working_set.rs` counts it on a fixed schedule (a producer and a
/// consumer thread, 20,000 buffers of 100 B to 1 MiB, 2 in flight with
/// stalls of 8 to 64): the heap's peak is 1.26 times plain allocation's,
/// at 99.2% hits, against 1.39 times without the first and last rules.
/// `benches/rss_pipeline.rs` (the same pipeline through a 64-deep channel,
/// peak RSS, 21 runs of each, interleaved a second apart on 2 cores) gave
/// medians of 14.6-14.7 MiB against plain's 10.2 MiB (1.43-1.44 times), at
/// 99.4% hits, against 16.7-18.7 MiB (1.64-1.83 times) without them; on a
/// later day, with the count above unchanged, 16.3 MiB against 10.4 MiB
/// (1.56 times): a peak RSS follows the buffers in flight, which the
/// scheduler decides (21 at most in the pool's median run that day, 16 in
/// plain's), where the count above does not move.
///
/// [`class_stats`](BufferPool::class_stats) reports the waste per class:
/// the layout's bound ([`ClassStats::smallest_request`] against
/// [`ClassStats::capacity`]) and what the class's allocations asked for
/// against what they got ([`ClassStats::requested_bytes`],
/// [`ClassStats::allocated_bytes`]). These two are counted where a get
/// allocates (a miss), two relaxed atomic adds beside the allocation,
/// never on a get that reuses a buffer: a hit costs what it did. The
/// allocations are what the pool's memory is made of; a hit only lends out
/// a buffer that exists already.
///
/// # Stats
///
/// [`stats`](BufferPool::stats) adds up the classes, and the identity of
/// [`Stats`] holds for the totals. [`class_stats`](BufferPool::class_stats)
/// shows each class: a get is counted in the class it took from and a return
/// in the class it went to, so a buffer that grew shows in two classes and
/// the identity holds only for the totals. A buffer taken out with
/// [`into_inner`](PoolGuard::into_inner) or dropped in a panic, and a get
/// over the largest class (also one that panics), are counted in the
/// largest class.
pub struct BufferPool {
    classes: [Pool<Vec<u8>>; MAX_CLASSES],
    /// What each class's allocations asked for and got.
    allocated: [Allocated; MAX_CLASSES],
    /// Large buffers (over [`LOCAL_CACHE_MAX_BYTES`]) out now, and the most
    /// out at once: lent by a get, back by a guard's return (see
    /// [Memory](BufferPool#memory)).
    large: Large,
    /// The rung of the smallest class.
    min_rung: u32,
    /// The capacity of the smallest class.
    min_capacity: usize,
    /// How many classes are in use.
    len: usize,
    /// What `pools()` calls it (its classes are `name[capacity]`).
    name: &'static str,
}

/// A buffer from a [`BufferPool`]: derefs to `Vec<u8>`, implements
/// [`io::Write`](std::io::Write), and goes back to the class that fits its
/// capacity when dropped. It is the same guard as [`Pooled`](crate::Pooled),
/// so [`into_inner`](PoolGuard::into_inner) and a drop during a panic
/// behave alike.
pub type PooledBuf<'a> = PoolGuard<Vec<u8>, &'a BufferPool>;

/// One class of a [`BufferPool`]: the capacity of its buffers, the
/// requests it serves, the bytes its allocations asked for and got, and its
/// counters.
///
/// ```
/// use poolable::BufferPool;
///
/// let bufs = BufferPool::new();
/// drop(bufs.get(9000)); // a miss: allocates the 10 KiB class's capacity
/// let class = bufs.class_stats().into_iter().find(|c| c.stats.misses == 1).unwrap();
/// assert_eq!((class.smallest_request, class.capacity), (8193, 10240));
/// assert_eq!((class.requested_bytes, class.allocated_bytes), (9000, 10240));
/// assert_eq!(class.wasted_bytes(), 1240);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ClassStats {
    /// The capacity every buffer of this class has at least, and the
    /// capacity a miss allocates. A buffer is kept in the largest class
    /// whose capacity it holds, so it has less than the next class's
    /// (except in the largest class, where the size cap drops it).
    pub capacity: usize,
    /// The smallest request this class serves: `get(n)` takes from it when
    /// `smallest_request <= n <= capacity`. One more than the capacity of
    /// the class below, 0 for the smallest class (it serves every request
    /// up to `min_bytes`). `capacity / smallest_request` bounds what a miss
    /// of the class allocates per requested byte: under 1.25 above 4 KiB,
    /// under 2 below.
    pub smallest_request: usize,
    /// The bytes asked for by the gets that allocated a buffer of this
    /// class: its misses, and the rare get that found a buffer returned
    /// with less than `min_bytes` in the smallest class. A get over the
    /// largest class allocates exactly what it asks for and is not counted.
    pub requested_bytes: u64,
    /// The bytes those gets allocated: the class's capacity each.
    pub allocated_bytes: u64,
    /// The class's counters.
    pub stats: Stats,
}

impl ClassStats {
    /// The bytes the class's allocations hold beyond what their gets asked
    /// for: `allocated_bytes - requested_bytes`.
    #[must_use]
    pub fn wasted_bytes(&self) -> u64 {
        self.allocated_bytes.saturating_sub(self.requested_bytes)
    }
}

/// What a class's allocations asked for and got, counted next to each
/// allocation (off the path of a get that reuses a buffer).
struct Allocated {
    requested: AtomicU64,
    bytes: AtomicU64,
}

impl Allocated {
    const fn new() -> Self {
        Allocated {
            requested: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
        }
    }
}

/// The large buffers a `BufferPool` has lent: counted by a get over
/// [`LOCAL_CACHE_MAX_BYTES`] and by the return of a buffer over it, so off
/// the path of small buffers. Signed: a buffer that grew past
/// `LOCAL_CACHE_MAX_BYTES` in use comes back as a large one it was not
/// lent as, and one shrunk below it in use, or taken out for good, is not
/// counted back; a read counts below zero as zero. (A guard does not
/// remember how it was lent: the counts steer which idle buffer a miss
/// lets go of, and a drift moves only that.)
struct Large {
    out: AtomicI64,
    most_out: AtomicU64,
    /// How many more than `most_out` may be alive: [`KEEP_IDLE_LARGE`],
    /// doubled (up to [`MAX_KEEP_IDLE_LARGE`]) by each window of
    /// [`LARGE_WINDOW`] lends that let more than a 64th as many go.
    margin: AtomicU64,
    lends: AtomicU64,
    let_go: AtomicU64,
}

impl Large {
    const fn new() -> Self {
        Large {
            out: AtomicI64::new(0),
            most_out: AtomicU64::new(0),
            margin: AtomicU64::new(KEEP_IDLE_LARGE),
            lends: AtomicU64::new(0),
            let_go: AtomicU64::new(0),
        }
    }

    fn lend(&self) {
        let out = self.out.fetch_add(1, Relaxed).saturating_add(1);
        self.most_out.fetch_max(out.max(0) as u64, Relaxed);
        if self.lends.fetch_add(1, Relaxed).wrapping_add(1) % LARGE_WINDOW == 0 {
            // The sizes asked for need more idle buffers than the margin
            // keeps: each miss lets one go that a later get would have
            // used. Keep more.
            if self.let_go.swap(0, Relaxed) * 64 > LARGE_WINDOW {
                let margin = self.margin.load(Relaxed);
                self.margin
                    .store((margin * 2).min(MAX_KEEP_IDLE_LARGE), Relaxed);
            }
        }
    }

    /// A buffer let go of before an allocation.
    fn let_go(&self) {
        self.let_go.fetch_add(1, Relaxed);
    }

    fn back(&self) {
        self.out.fetch_sub(1, Relaxed);
    }

    /// Out now, and the most that may be alive: the most out at once and
    /// the margin.
    fn counts(&self) -> (u64, u64) {
        (
            self.out.load(Relaxed).max(0) as u64,
            self.most_out.load(Relaxed) + self.margin.load(Relaxed),
        )
    }
}

impl BufferPool {
    /// Classes of 64 bytes to 64 KiB (23 classes: 64 B to 4 KiB by powers of
    /// two, then four per doubling).
    #[must_use]
    pub const fn new() -> Self {
        BufferPool {
            classes: [const { Pool::new() }; MAX_CLASSES],
            allocated: [const { Allocated::new() }; MAX_CLASSES],
            large: Large::new(),
            min_rung: 0,
            min_capacity: 0,
            len: 0,
            name: "BufferPool",
        }
        .classes_for(64, crate::DEFAULT_MAX_BYTES)
    }

    /// The largest class, and the size cap: a buffer whose capacity is over
    /// it is dropped on return. Rounded up to a class capacity (a power of
    /// two up to 4 KiB, then a multiple of a quarter of one: 5 KiB, 6 KiB,
    /// 7 KiB, 8 KiB, 10 KiB, ...), and to `min_bytes`; at most 160 classes
    /// above `min_bytes` (at least 2^40 times it), and at most `isize::MAX`
    /// rounded down to a class.
    ///
    /// ```
    /// use poolable::BufferPool;
    ///
    /// static BUFS: BufferPool = BufferPool::new().max_bytes(1 << 20);
    /// assert_eq!(BUFS.class_stats().last().unwrap().capacity, 1 << 20);
    /// ```
    #[must_use]
    pub const fn max_bytes(self, bytes: usize) -> Self {
        let min = self.min_capacity();
        self.classes_for(min, bytes)
    }

    /// The smallest class: every buffer has at least this capacity. Rounded
    /// up to a class capacity (see [`max_bytes`](BufferPool::max_bytes); at
    /// least 1, at most `isize::MAX` rounded down to a class); `max_bytes`
    /// is raised to it if it was below.
    ///
    /// ```
    /// use poolable::BufferPool;
    ///
    /// static BUFS: BufferPool = BufferPool::new().min_bytes(1024);
    /// assert!(BUFS.get(1).capacity() >= 1024);
    /// ```
    #[must_use]
    pub const fn min_bytes(self, bytes: usize) -> Self {
        let max = self.max_capacity();
        self.classes_for(bytes, max)
    }

    /// Set the classes to cover `min ..= max` (see the setters' rounding).
    const fn classes_for(mut self, min: usize, max: usize) -> Self {
        let min_rung = {
            let rung = ceil_rung(min);
            if rung > TOP_RUNG { TOP_RUNG } else { rung }
        };
        let max_rung = {
            let rung = ceil_rung(max);
            let top = {
                let top = min_rung + (MAX_CLASSES as u32 - 1);
                if top > TOP_RUNG { TOP_RUNG } else { top }
            };
            if rung < min_rung {
                min_rung
            } else if rung > top {
                top
            } else {
                rung
            }
        };
        self.min_rung = min_rung;
        self.min_capacity = rung_capacity(min_rung);
        self.len = (max_rung - min_rung) as usize + 1;
        // One cap for every class: only the largest class ever sees a
        // buffer over it (returns go to the class their capacity fits).
        let cap = rung_capacity(max_rung).saturating_add(VEC_SIZE);
        self.name_classes();
        let mut i = 0;
        while i < MAX_CLASSES {
            self.classes[i].set_max_bytes(cap);
            let capacity = if i < self.len {
                self.class_capacity(i)
            } else {
                1
            };
            let per_cache = THREAD_CACHE_BYTES / capacity;
            self.classes[i].set_local_cache_size(if per_cache == 0 { 1 } else { per_cache });
            self.classes[i].set_no_spare_slots();
            i += 1;
        }
        self
    }

    /// The name [`pools`](crate::pools) shows for each class, followed by
    /// the class's capacity in brackets (`"uploads[4096]"`); by default
    /// `"BufferPool"`.
    ///
    /// ```
    /// use poolable::BufferPool;
    ///
    /// static BODIES: BufferPool = BufferPool::new().name("bodies");
    /// drop(BODIES.get(3000));
    /// assert!(poolable::pools().iter().any(|p| p.name() == "bodies[4096]"));
    /// ```
    #[must_use]
    pub const fn name(mut self, name: &'static str) -> Self {
        self.name = name;
        self.name_classes();
        self
    }

    const fn name_classes(&mut self) {
        let mut i = 0;
        while i < MAX_CLASSES {
            let capacity = if i < self.len {
                self.class_capacity(i)
            } else {
                0
            };
            self.classes[i].set_class_name(self.name, capacity);
            i += 1;
        }
    }

    const fn min_capacity(&self) -> usize {
        self.min_capacity
    }

    const fn max_capacity(&self) -> usize {
        self.class_capacity(self.len - 1)
    }

    /// The capacity of class `i`.
    #[inline]
    const fn class_capacity(&self, i: usize) -> usize {
        rung_capacity(self.min_rung + i as u32)
    }

    /// An empty buffer with `capacity() >= min_capacity`, from the smallest
    /// class that holds that much (a miss allocates the class's capacity:
    /// less than 1.25 times `min_capacity` above 4 KiB, less than twice
    /// below, and at least `min_bytes`; a hit can be a buffer that grew in
    /// use, up to just under the next class's capacity). Above
    /// `max_bytes` it is a fresh buffer of `min_capacity` (dropped on
    /// return).
    ///
    /// # Panics
    ///
    /// As [`Vec::with_capacity`] does, if `min_capacity` is over
    /// `isize::MAX`. The get is counted (a get and a miss in the largest
    /// class) and so is the buffer it did not hand out (a `dropped_panic`),
    /// so the books still balance.
    ///
    /// ```
    /// use poolable::BufferPool;
    ///
    /// static BUFS: BufferPool = BufferPool::new();
    ///
    /// let mut buf = BUFS.get(3000); // from the 4 KiB class
    /// assert!(buf.is_empty() && buf.capacity() >= 3000);
    /// buf.extend_from_slice(&[1; 3000]);
    /// drop(buf);
    /// assert!(BUFS.get(3000).is_empty());
    /// ```
    #[inline(always)]
    #[must_use = "a buffer taken and dropped at once goes straight back"]
    pub fn get(&self, min_capacity: usize) -> PooledBuf<'_> {
        let Some(class) = self.class_to_take(min_capacity) else {
            let mut guard = PoolGuard::empty(self);
            self.fresh(guard.slot(), min_capacity);
            return guard;
        };
        let mut guard = if self.class_capacity(class) <= LOCAL_CACHE_MAX_BYTES {
            // As `Pool::get`: a hit stays leased in its thread cache's slot.
            let pool = &self.classes[class];
            match pool.take() {
                Some(lease) => PoolGuard::leased(self, lease),
                None => PoolGuard::inline(self, pool.take_slow()),
            }
        } else {
            PoolGuard::inline(self, self.take_large(class, min_capacity))
        };
        // A buffer kept in a class holds the class's capacity, so one that
        // holds less than the request (or than the smallest class) is new
        // (empty, no allocation yet) or was put back below `min_bytes`.
        let buf: &mut Vec<u8> = &mut guard;
        if buf.capacity() < min_capacity.max(self.min_capacity) {
            self.allocate(class, buf, min_capacity);
        }
        guard
    }

    /// A get of `requested` bytes from `class`, over
    /// [`LOCAL_CACHE_MAX_BYTES`] (whose buffers only the shared tier keeps),
    /// counted as lent: an idle buffer that fits ([`take_larger`](Self::take_larger)),
    /// else the class's own get (a miss, as a rule).
    #[cold]
    #[inline(never)]
    fn take_large(&self, class: usize, requested: usize) -> Vec<u8> {
        self.large.lend();
        match self.take_larger(class, requested) {
            Some(buf) => buf,
            None => self.classes[class].take_slow(),
        }
    }

    /// An idle buffer of `class`, else of the next classes up to
    /// [`REUSE_UP_TO`] times `requested`, counted as a get; `None`, with
    /// nothing counted, if there is none (and then one idle
    /// buffer it could not use may be let go of: [`evict_outside`](Self::evict_outside)).
    fn take_larger(&self, class: usize, requested: usize) -> Option<Vec<u8>> {
        let limit = requested.saturating_mul(REUSE_UP_TO.0) / REUSE_UP_TO.1;
        for larger in class..self.len {
            if larger > class && self.class_capacity(larger) > limit {
                break;
            }
            if let Some(buf) = self.classes[larger].take_idle(Event::Get) {
                return Some(buf);
            }
        }
        self.evict_outside(class, limit);
        None
    }

    /// Before a large get of `class` allocates: if the large buffers alive
    /// (out, this one included, and idle) are already the margin (see
    /// [`Large`]) more than were ever out at once, drop an idle one it could not use,
    /// the largest over `limit` first, then the smallest below `class`. So
    /// the allocation replaces a buffer rather than adds one.
    #[cold]
    #[inline(never)]
    fn evict_outside(&self, class: usize, limit: usize) {
        let first_large = self
            .class_to_take(LOCAL_CACHE_MAX_BYTES + 1)
            .unwrap_or(self.len);
        let idle: u64 = (first_large..self.len)
            .map(|c| self.classes[c].idle_shared() as u64)
            .sum();
        let (out, most_alive) = self.large.counts();
        if out + idle < most_alive {
            return;
        }
        let candidates = (class + 1..self.len)
            .rev()
            .filter(|&c| self.class_capacity(c) > limit)
            .chain(first_large..class);
        for c in candidates {
            if let Some(buf) = self.classes[c].take_idle(Event::DroppedIdle) {
                self.large.let_go();
                drop(buf);
                return;
            }
        }
    }

    /// A get of `requested` bytes whose class had no buffer (its pool made
    /// an empty `Vec`), or only one returned with less than `min_bytes`:
    /// give it exactly the class's capacity, and count the waste.
    #[cold]
    #[inline(never)]
    fn allocate(&self, class: usize, buf: &mut Vec<u8>, requested: usize) {
        // `buf` is empty (new, or reset). `with_capacity` allocates exactly
        // the capacity asked for (it promises at least; the tests check it
        // is exact), and if it fails `buf` is still the guard's, which
        // accounts for it.
        *buf = Vec::with_capacity(self.class_capacity(class));
        let allocated = &self.allocated[class];
        allocated.requested.fetch_add(requested as u64, Relaxed);
        allocated.bytes.fetch_add(buf.capacity() as u64, Relaxed);
    }

    /// A get over the largest class: counted there as a miss, and made
    /// fresh. The empty buffer is in the guard's slot before it allocates:
    /// if that panics (`min_capacity` over `isize::MAX`), the guard drops
    /// it as a `dropped_panic`, so the counted miss is balanced as
    /// [`Pool`]'s panicking constructors are.
    #[cold]
    #[inline(never)]
    fn fresh(&self, slot: &mut Option<Vec<u8>>, min_capacity: usize) {
        self.classes[self.len - 1].count_fresh();
        slot.insert(Vec::new()).reserve_exact(min_capacity);
        // Lent once it is: a panicking `reserve_exact` hands nothing out.
        if min_capacity > LOCAL_CACHE_MAX_BYTES {
            self.large.lend();
        }
    }

    /// Reset `buf` and keep it in the class its capacity fits, or drop it if
    /// it is over `max_bytes`. Dropping a [`PooledBuf`] does the same.
    ///
    /// ```
    /// use poolable::BufferPool;
    ///
    /// let bufs = BufferPool::new();
    /// bufs.put(Vec::with_capacity(500)); // into the 256-byte class
    /// assert_eq!(bufs.stats().retained, 1);
    /// assert!(bufs.get(200).capacity() >= 500);
    /// ```
    pub fn put(&self, buf: Vec<u8>) {
        self.home(buf.capacity()).put(buf);
    }

    /// The smallest class whose buffers hold `n` bytes; `None` above them all.
    #[inline]
    fn class_to_take(&self, n: usize) -> Option<usize> {
        let class = (ceil_rung(n).saturating_sub(self.min_rung)) as usize;
        (class < self.len).then_some(class)
    }

    /// The class a buffer of `capacity` goes back to: the largest whose
    /// capacity it has (the smallest if it has less than them all; the
    /// largest, which drops it, if it is over them all).
    #[inline]
    fn class_to_keep(&self, capacity: usize) -> usize {
        let class = floor_rung(capacity).saturating_sub(self.min_rung) as usize;
        class.min(self.len - 1)
    }

    /// The pool of the class a buffer of `capacity` belongs to.
    #[inline]
    fn home(&self, capacity: usize) -> &Pool<Vec<u8>> {
        &self.classes[self.class_to_keep(capacity)]
    }

    fn classes(&self) -> &[Pool<Vec<u8>>] {
        &self.classes[..self.len]
    }

    /// The counters of every class added up.
    ///
    /// ```
    /// use poolable::BufferPool;
    ///
    /// let bufs = BufferPool::new();
    /// drop((bufs.get(10), bufs.get(10_000)));
    /// let stats = bufs.stats();
    /// assert_eq!((stats.gets, stats.misses, stats.retained), (2, 2, 2));
    /// ```
    #[must_use]
    pub fn stats(&self) -> Stats {
        let mut total = Stats::default();
        for class in self.classes() {
            total.add(&class.stats());
        }
        total
    }

    /// Each class, smallest first, with its capacity, the requests it
    /// serves, what its allocations asked for and got (see [Waste](#waste)),
    /// and its counters.
    ///
    /// ```
    /// use poolable::BufferPool;
    ///
    /// let bufs = BufferPool::new();
    /// drop(bufs.get(100));
    /// let classes = bufs.class_stats();
    /// assert_eq!(classes.len(), 23); // 64 B .. 4 KiB by doubling, then 4 per doubling to 64 KiB
    /// assert_eq!((classes[1].capacity, classes[1].stats.retained), (128, 1));
    /// assert_eq!((classes[1].requested_bytes, classes[1].wasted_bytes()), (100, 28));
    /// let sizes: Vec<usize> = classes[6..11].iter().map(|c| c.capacity >> 10).collect();
    /// assert_eq!(sizes, [4, 5, 6, 7, 8]); // KiB
    /// ```
    #[must_use]
    pub fn class_stats(&self) -> Vec<ClassStats> {
        self.classes()
            .iter()
            .zip(&self.allocated)
            .enumerate()
            .map(|(i, (class, allocated))| ClassStats {
                capacity: self.class_capacity(i),
                smallest_request: match i {
                    0 => 0,
                    _ => self.class_capacity(i - 1) + 1,
                },
                requested_bytes: allocated.requested.load(Relaxed),
                allocated_bytes: allocated.bytes.load(Relaxed),
                stats: class.stats(),
            })
            .collect()
    }

    /// One decay step on every class (see [`Pool::trim`]). `trim_all` and
    /// the trimmer reach the classes too.
    pub fn trim(&self) {
        self.classes().iter().for_each(Pool::trim);
    }

    /// Drop every idle buffer of every class (see [`Pool::clear`]).
    pub fn clear(&self) {
        self.classes().iter().for_each(Pool::clear);
    }
}

impl Default for BufferPool {
    /// Same as [`BufferPool::new`].
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for BufferPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BufferPool")
            .field("min_bytes", &self.min_capacity())
            .field("max_bytes", &self.max_capacity())
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl sealed::Home<Vec<u8>> for &BufferPool {
    #[inline]
    fn put_from(&self, slot: &mut Option<Vec<u8>>) {
        if let Some(buf) = slot {
            let capacity = buf.capacity();
            if capacity > LOCAL_CACHE_MAX_BYTES {
                self.large.back();
            }
            self.home(capacity).put_from(slot);
        }
    }

    /// A buffer leased from a class's thread cache (`get`): back to the
    /// class its capacity now fits, in its slot if that is the class it
    /// came from (`Pool`'s `put_lease` moves it out for another), or out of
    /// the slot as `put_from` if it grew past the thread caches' limit.
    #[inline]
    fn put_lease(&self, lease: crate::raw::lease::Lease<Vec<u8>>) {
        let capacity = lease.get().capacity();
        if capacity > LOCAL_CACHE_MAX_BYTES {
            return self.put_from(&mut Some(lease.take()));
        }
        sealed::Home::put_lease(&self.home(capacity), lease);
    }

    fn count_detached(&self) {
        self.classes[self.len - 1].count_unreturned(Event::Detached);
    }

    fn count_panicked(&self) {
        self.classes[self.len - 1].count_unreturned(Event::DroppedPanic);
    }
}

/// The rung of the smallest class capacity `>= n` (0 for 0 and 1).
#[inline]
const fn ceil_rung(n: usize) -> u32 {
    if n <= 1 << FINE_SHIFT {
        ceil_log2(n)
    } else {
        // n - 1 is in 2^k ..= 2^(k+1) - 1, and the two bits after its
        // leading one say which quarter of that doubling it is past.
        let m = n - 1;
        let k = floor_log2(m);
        let quarter = ((m >> (k - STEP_BITS)) & (STEPS as usize - 1)) as u32;
        FINE_SHIFT + STEPS * (k - FINE_SHIFT) + quarter + 1
    }
}

/// The rung of the largest class capacity `<= capacity` (0 for 0 and 1).
#[inline]
const fn floor_rung(capacity: usize) -> u32 {
    if capacity < 1 << FINE_SHIFT {
        floor_log2(capacity)
    } else {
        let k = floor_log2(capacity);
        let quarter = ((capacity >> (k - STEP_BITS)) & (STEPS as usize - 1)) as u32;
        FINE_SHIFT + STEPS * (k - FINE_SHIFT) + quarter
    }
}

/// The capacity of rung `rung` (at most [`TOP_RUNG`]): `2^rung` up to
/// 4 KiB, then `(4 + q) * 2^(k - 2)` for the `q`th quarter of `2^k`.
#[inline]
const fn rung_capacity(rung: u32) -> usize {
    if rung <= FINE_SHIFT {
        1 << rung
    } else {
        let above = rung - FINE_SHIFT;
        let k = FINE_SHIFT + above / STEPS;
        let quarter = (above % STEPS) as usize;
        (STEPS as usize + quarter) << (k - STEP_BITS)
    }
}

/// The exponent of the smallest power of two `>= n` (0 for 0 and 1).
const fn ceil_log2(n: usize) -> u32 {
    if n <= 1 {
        0
    } else {
        usize::BITS - (n - 1).leading_zeros()
    }
}

/// The exponent of the largest power of two `<= n` (0 for 0 and 1).
const fn floor_log2(n: usize) -> u32 {
    if n <= 1 {
        0
    } else {
        usize::BITS - 1 - n.leading_zeros()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs() {
        assert_eq!([0, 1, 2, 3, 4, 1024].map(ceil_log2), [0, 0, 1, 2, 2, 10]);
        assert_eq!([0, 1, 2, 3, 4, 1025].map(floor_log2), [0, 0, 1, 1, 2, 10]);
        assert_eq!(ceil_log2(usize::MAX), usize::BITS);
    }

    #[test]
    fn the_ladder_is_powers_of_two_then_quarters() {
        let kib: Vec<usize> = (10..=20).map(|rung| rung_capacity(rung) >> 10).collect();
        assert_eq!(kib, [1, 2, 4, 5, 6, 7, 8, 10, 12, 14, 16]);
        assert_eq!(
            (0..=6).map(rung_capacity).collect::<Vec<_>>(),
            [1, 2, 4, 8, 16, 32, 64]
        );
        assert!(rung_capacity(TOP_RUNG) <= isize::MAX as usize);
        assert!(rung_capacity(TOP_RUNG) > (isize::MAX as usize) / 8 * 7);
        #[cfg(target_pointer_width = "64")]
        assert_eq!((TOP_RUNG, rung_capacity(TOP_RUNG)), (215, 7 << 60));
    }

    /// `ceil_rung(n)` is the smallest class capacity that holds `n`, under
    /// 1.25 * n above 4 KiB; `floor_rung(c)` the largest that `c` holds.
    fn check_rungs(n: usize) {
        let up = ceil_rung(n);
        assert!(rung_capacity(up) >= n, "{n}");
        assert!(up == 0 || rung_capacity(up - 1) < n, "{n}");
        if n > 1 << FINE_SHIFT {
            assert!((rung_capacity(up) as u128) * 4 < (n as u128) * 5, "{n}");
        }
        let down = floor_rung(n);
        assert!(rung_capacity(down) <= n.max(1), "{n}");
        assert!(down == TOP_RUNG || rung_capacity(down + 1) > n, "{n}");
    }

    #[test]
    fn a_request_rounds_up_and_a_capacity_down_to_a_class() {
        // Every size up to 1 MiB; under Miri, whose interpreter takes
        // minutes over a million sizes of pure arithmetic, every 61st (and
        // each class edge below).
        let step = if cfg!(miri) { 61 } else { 1 };
        (0..=1 << 20).step_by(step).for_each(check_rungs);
        for rung in 0..=TOP_RUNG {
            let capacity = rung_capacity(rung);
            [capacity - 1, capacity, capacity + 1]
                .into_iter()
                .filter(|&n| n <= rung_capacity(TOP_RUNG))
                .for_each(check_rungs);
            assert_eq!((ceil_rung(capacity), floor_rung(capacity)), (rung, rung));
        }
        assert!(ceil_rung(usize::MAX) > TOP_RUNG);
        assert!(ceil_rung(rung_capacity(TOP_RUNG) + 1) > TOP_RUNG);
    }

    #[test]
    fn classes_round_and_clamp() {
        let p = BufferPool::new();
        assert_eq!((p.min_capacity(), p.max_capacity(), p.len), (64, 65536, 23));
        let p = BufferPool::new().min_bytes(100).max_bytes(1000);
        assert_eq!((p.min_capacity(), p.max_capacity()), (128, 1024));
        let p = BufferPool::new().min_bytes(5000).max_bytes(9000);
        assert_eq!(
            (p.min_capacity(), p.max_capacity(), p.len),
            (5120, 10240, 5)
        );
        let p = BufferPool::new().min_bytes(0).max_bytes(0);
        assert_eq!((p.min_capacity(), p.max_capacity(), p.len), (1, 1, 1));
        let p = BufferPool::new().min_bytes(4096).max_bytes(10);
        assert_eq!((p.min_capacity(), p.max_capacity()), (4096, 4096));
        let p = BufferPool::new().max_bytes(usize::MAX);
        assert_eq!(p.len, MAX_CLASSES);
        // 160 classes above 4 KiB are 40 doublings.
        let p = BufferPool::new().min_bytes(4096).max_bytes(usize::MAX);
        assert_eq!((p.max_capacity(), p.len), (4096 << 40, MAX_CLASSES));
    }

    #[test]
    fn classes_stop_at_the_largest_capacity_a_vec_can_have() {
        let top = rung_capacity(TOP_RUNG);
        let p = BufferPool::new().min_bytes(usize::MAX);
        assert_eq!((p.min_capacity(), p.max_capacity(), p.len), (top, top, 1));
        let p = BufferPool::new().min_bytes(top / 2).max_bytes(usize::MAX);
        assert_eq!((p.min_capacity(), p.max_capacity()), (top / 2, top));
        assert_eq!(p.class_to_take(top), Some(p.len - 1));
        assert_eq!(p.class_to_take(top + 1), None);
        assert_eq!(p.class_to_keep(usize::MAX), p.len - 1);
    }

    #[test]
    fn gets_and_returns_pick_classes_by_capacity() {
        let p = BufferPool::new();
        assert_eq!(p.class_to_take(0), Some(0));
        assert_eq!(p.class_to_take(64), Some(0));
        assert_eq!(p.class_to_take(65), Some(1));
        assert_eq!(p.class_to_take(4096), Some(6));
        assert_eq!(p.class_to_take(4097), Some(7));
        assert_eq!(p.class_to_take(5120), Some(7));
        assert_eq!(p.class_to_take(5121), Some(8));
        assert_eq!(p.class_to_take(65536), Some(22));
        assert_eq!(p.class_to_take(65537), None);
        assert_eq!(p.class_to_keep(0), 0);
        assert_eq!(p.class_to_keep(127), 0);
        assert_eq!(p.class_to_keep(128), 1);
        assert_eq!(p.class_to_keep(5119), 6);
        assert_eq!(p.class_to_keep(5120), 7);
        assert_eq!(p.class_to_keep(1 << 30), 22);
    }

    /// A get too large for a `Vec` panics before it hands anything out, so
    /// it does not count a large buffer as lent: one that did would stay
    /// out for good, and every later large get would find one more buffer
    /// alive than there is.
    #[test]
    fn a_get_that_panics_lends_no_large_buffer() {
        let p = BufferPool::new();
        let got = std::panic::catch_unwind(|| drop(p.get(usize::MAX)));
        assert!(got.is_err());
        assert_eq!(p.large.counts().0, 0);
        drop(p.get(LOCAL_CACHE_MAX_BYTES * 32)); // over the largest class
        assert_eq!(p.large.counts().0, 0);
    }

    /// The count of large buffers out follows the buffers over
    /// `LOCAL_CACHE_MAX_BYTES` only: a get over the largest class is lent
    /// (and counted back) when it is over that limit, and a buffer of
    /// exactly the limit is neither lent nor counted back, whether it came
    /// from a class or fresh from over a smaller largest class.
    #[test]
    fn large_counts_follow_only_buffers_over_the_thread_caches_limit() {
        let p = BufferPool::new();
        let fresh = p.get(LOCAL_CACHE_MAX_BYTES * 32); // over the largest class
        assert_eq!(p.large.counts().0, 1, "a fresh large buffer is lent");
        drop(fresh);
        assert_eq!(p.large.counts().0, 0);

        let held = p.get(LOCAL_CACHE_MAX_BYTES + 1);
        assert_eq!(p.large.counts().0, 1);
        // The 64 KiB class: not large, its return is not counted back.
        drop(p.get(LOCAL_CACHE_MAX_BYTES));
        drop(p.get(LOCAL_CACHE_MAX_BYTES));
        assert_eq!(p.large.counts().0, 1, "the large one is still out");
        drop(held);
        assert_eq!(p.large.counts().0, 0);

        // Over a 4 KiB ceiling, a fresh buffer of exactly the limit is not
        // large either: lent, it would never be counted back.
        let p = BufferPool::new().max_bytes(4096);
        let fresh = p.get(LOCAL_CACHE_MAX_BYTES);
        assert_eq!(fresh.capacity(), LOCAL_CACHE_MAX_BYTES);
        assert_eq!(p.large.counts().0, 0);
        drop(fresh);
        assert_eq!(p.large.counts().0, 0);
    }

    /// The margin of idle large buffers starts at eight and doubles, up to
    /// 64, after a window of `LARGE_WINDOW` large gets in which more than
    /// one in 64 let a buffer go; a window that lets one in 64 go (four),
    /// or fewer, leaves it, and each window counts its own.
    #[test]
    fn the_large_margin_doubles_after_a_window_that_lets_more_than_one_in_64_go() {
        let large = Large::new();
        let margin = |large: &Large| large.margin.load(Relaxed);
        // One window of large gets, `let_go` of which let a buffer go.
        let window = |large: &Large, let_go: u64| {
            for i in 0..LARGE_WINDOW {
                if i < let_go {
                    large.let_go();
                }
                large.lend();
                large.back();
            }
        };
        assert_eq!(margin(&large), KEEP_IDLE_LARGE);
        window(&large, LARGE_WINDOW / 64);
        assert_eq!(margin(&large), KEEP_IDLE_LARGE, "one in 64: no growth");
        window(&large, LARGE_WINDOW / 64 + 1);
        assert_eq!(margin(&large), 2 * KEEP_IDLE_LARGE);
        window(&large, 0);
        assert_eq!(margin(&large), 2 * KEEP_IDLE_LARGE, "a quiet window");
        for _ in 0..4 {
            window(&large, LARGE_WINDOW);
        }
        assert_eq!(margin(&large), MAX_KEEP_IDLE_LARGE);
        // Each large get was back before the next: one out at most.
        assert_eq!(large.counts(), (0, 1 + MAX_KEEP_IDLE_LARGE));
    }

    /// A hit stays leased in its class's thread-cache slot while its guard
    /// lives. Every way back takes it out of that slot and to the class its
    /// capacity fits, as a miss's return would: grown into a larger class,
    /// shrunk to nothing, grown past the thread caches' limit, grown past
    /// `max_bytes` (dropped), detached, dropped on another thread. (CI runs
    /// this under Miri: each is a different path of the lease code in
    /// `raw/`.)
    #[test]
    #[cfg(not(poolable_loom))]
    fn a_leased_hit_leaves_its_slot_by_every_way_back() {
        let _every_pool = crate::registry::tests::every_pool();
        // `static`: its last guard is dropped on a thread that is joined,
        // not scoped (a scope may end before the thread hands its caches
        // back).
        static BUFS: BufferPool = BufferPool::new().max_bytes(1 << 20);
        let retained = |class: usize| BUFS.class_stats()[class].stats.retained;
        let small = BUFS.class_to_take(100).unwrap();
        let lease = || {
            drop(BUFS.get(100)); // a miss: the class is empty each time
            let buf = BUFS.get(100); // a hit: leased
            assert_eq!(retained(small), 0);
            buf
        };

        let mut buf = lease();
        buf.extend_from_slice(&[1; 1000]);
        let grown = BUFS.class_to_keep(buf.capacity());
        assert!(grown > small);
        drop(buf);
        assert_eq!((retained(small), retained(grown)), (0, 1));

        // A hit in the class it grew into, leased there: no miss.
        let mut buf = BUFS.get(BUFS.class_capacity(grown));
        assert_eq!(BUFS.stats().misses, 1);
        buf.shrink_to_fit();
        drop(buf);
        assert_eq!((retained(grown), retained(0)), (0, 1));

        let mut buf = lease();
        buf.reserve(LOCAL_CACHE_MAX_BYTES * 2);
        let large = BUFS.class_to_keep(buf.capacity());
        drop(buf);
        assert_eq!((retained(small), retained(large)), (0, 1));

        let mut buf = lease();
        buf.reserve(2 << 20);
        drop(buf);
        assert_eq!((retained(small), BUFS.stats().dropped_oversize), (0, 1));

        let detached: Vec<u8> = PooledBuf::into_inner(lease());
        assert!(detached.capacity() >= 100);
        assert_eq!(retained(small), 0);

        let buf = lease();
        std::thread::spawn(move || drop(buf)).join().unwrap();
        assert_eq!(retained(small), 1);

        let stats = BUFS.stats();
        assert_eq!((stats.misses, stats.detached), (5, 1), "{stats}");
        assert_eq!(stats.unaccounted(0, 0), 0, "{stats}");
    }
}
