//! # poolable
//!
//! Object pooling that is safe by construction.
//!
//! A pool keeps values that own heap buffers (a `Vec<u8>`, a request struct
//! full of `String`s) between uses, so a hot loop reuses their allocations
//! instead of allocating and freeing them on every iteration. Go's
//! `sync.Pool` made this common practice and also showed its traps; this
//! crate is built so that each of them is either a compile error or handled
//! by the pool for you.
//!
//! ```
//! use poolable::Poolable;
//!
//! #[derive(Poolable, Default)]
//! struct Request {
//!     user: String,
//!     secret: Option<String>,
//!     body: Vec<u8>,
//! }
//!
//! let mut req = Request::pool().get();
//! req.user.push_str("ada");
//! req.secret = Some("hunter2".into());
//! drop(req); // reset field by field, capacity kept, returned to the pool
//!
//! let req = Request::pool().get();
//! assert_eq!(req.user, "");
//! assert_eq!(req.secret, None);
//! ```
//!
//! The pieces:
//!
//! - [`Pool<T>`](Pool): a pool of `T`, usually a `static`
//!   (`static BUFS: Pool<Vec<u8>> = Pool::new();`). [`get`](Pool::get) hands
//!   out a [`Pooled`] guard; dropping the guard resets the value and returns it.
//! - [`Reset`]: how a value is returned to its fresh state. Implemented for the
//!   std types, derivable with `#[derive(Reset)]`.
//! - [`Poolable`]: `#[derive(Poolable)]` derives `Reset` and gives the type a
//!   pool of its own, `T::pool()`.
//! - [`RecycleVec`], [`RecycleOption`]: a vector and an option whose reset
//!   keeps their elements, reset, so nested buffers are reused too.
//! - [`Stats`]: what a pool did (hits, misses, drops by reason, bytes kept).
//! - [`trim`](Pool::trim), [`trim_all`], [`trimmer`]: idle decay.
//!
//! Contents: [the three traps](#the-three-traps) ·
//! [choosing `max_bytes` and `max_retained`](#choosing-max_bytes-and-max_retained) ·
//! [pooling nested data](#pooling-nested-data) ·
//! [when not to pool](#when-not-to-pool) · [measure first](#measure-first) ·
//! [threads and async](#threads-and-async) ·
//! [attribute reference](#attribute-reference) · [`Reset` impls](#reset-impls) ·
//! [cargo features](#cargo-features) · [policy defaults](#policy-defaults).
//!
//! # The three traps
//!
//! ## 1. Dirty reuse
//!
//! A pooled value that is not cleared before its next use carries the last
//! user's data into the next request: a body, a header, a password. With a
//! hand-written reset the bug comes back every time someone adds a field and
//! forgets to clear it.
//!
//! Here the pool resets every value when it comes back, before anyone else can
//! see it, and `#[derive(Poolable)]` writes that reset for you, field by
//! field. A field whose type has no reset rule is a compile error pointing at
//! the field (at the derive, for a type of your own named as a std one, such
//! as a `String` of your own), so a new field cannot be forgotten. Fields that should survive
//! (configuration) say so with `#[poolable(skip)]`; secrets can be wiped,
//! spare capacity included, with `#[poolable(zeroize)]`.
//!
//! ```
//! use poolable::Poolable;
//!
//! #[derive(Poolable, Default)]
//! struct Session {
//!     user: String,
//!     #[poolable(zeroize)] // zeros over the whole buffer, then cleared
//!     password: Vec<u8>,
//!     roles: Vec<String>,
//!     #[poolable(skip)] // kept across uses on purpose
//!     region: &'static str,
//! }
//!
//! let mut s = Session::pool().get();
//! s.user.push_str("ada");
//! s.password.extend_from_slice(b"hunter2");
//! s.roles.push("admin".into());
//! s.region = "eu";
//! drop(s);
//!
//! let s = Session::pool().get();
//! assert!(s.user.is_empty() && s.password.is_empty() && s.roles.is_empty());
//! assert_eq!(s.region, "eu");
//! ```
//!
//! ### Reset verification
//!
//! A reset written by hand (a `with = path` function, or an `impl Reset`)
//! can still leave something behind. So every type also says whether it
//! *is* reset: [`Reset::is_reset`], which the derive writes field by field
//! (empty collections, `None`, zero numbers, nested types) and the std
//! impls provide. In debug builds, and under `POOLABLE=chaos`, the pool
//! checks it after every reset, and a value that fails is dropped
//! (`dropped_panic`) and reported with a panic naming its type: the leak
//! fails the test that caused it. Release builds without chaos never call
//! it.
//!
//! - A `with` or `default` field is checked when its type has a `Reset`
//!   impl; `#[poolable(check = path)]` (a `fn(&FieldType) -> bool`) says what
//!   reset means for a field, and replaces the type's own check.
//! - A `skip` field keeps its state on purpose and is not checked (unless it
//!   has a `check`).
//! - A hand-written `Reset` gets checked by writing `is_reset` too (the
//!   default says `true`); a `reset` that forgets a field then shows up.
//!
//! ```should_panic
//! use poolable::Poolable;
//!
//! fn only_shrink(buf: &mut Vec<u8>) {
//!     buf.shrink_to_fit(); // forgets to clear
//! }
//!
//! #[derive(Poolable, Default)]
//! struct Upload {
//!     #[poolable(with = only_shrink)]
//!     body: Vec<u8>,
//! }
//!
//! let mut upload = Upload::pool().get();
//! upload.body.extend_from_slice(b"secret");
//! drop(upload); // debug build: "`Upload` came back to its pool still holding state"
//! ```
//!
//! ### Secrets: what `zeroize` covers, and what it cannot
//!
//! A `zeroize` field is wiped, spare capacity included, with the writes of
//! the [`zeroize`](https://docs.rs/zeroize) crate, which the compiler cannot
//! remove. The reset wipes every `zeroize` field before it resets any field
//! (a `with` function that panics cannot skip a wipe). A value can also be
//! dropped without a reset: a guard dropped during a panic, a reset that
//! panics, or an `Option`, `Vec` or `default` field whose reset drops the
//! struct holding the secret. (A value the size cap or a trim drops was
//! reset, and so wiped, when it came back.) So a
//! struct with a `zeroize` field also gets a generated `impl Drop` that
//! wipes those fields, like the `zeroize` crate's `ZeroizeOnDrop`: no drop
//! of the struct hands the secret's bytes to the allocator unwiped. The
//! pool drops such a value in place, where its guard holds it (a guard
//! dropped during a panic, a reset that panics), and moves a value only
//! after its reset has wiped it, so an inline secret (`[u8; N]`) in a guard
//! kept in a `Box`, a `Vec` or an async task is wiped there too, not in a
//! moved copy.
//!
//! Because of that `Drop` impl:
//! - the struct cannot implement `Drop` itself (a "conflicting
//!   implementations of trait `Drop`" error points at the `zeroize` key);
//!   wipe in a `with` function or a field type of your own instead;
//! - its fields cannot be moved out: no destructuring by value and no
//!   `..base` struct update from another value of it (`std::mem::take` the
//!   field instead); it cannot be `Copy`;
//! - a generic field marked `zeroize` needs its `Zeroize` bound on the
//!   struct itself, since a `Drop` impl cannot add bounds.
//!
//! What no pool can cover:
//! - **Growth.** A `Vec` or `String` that outgrows its capacity moves to a
//!   new buffer and frees the old one unwiped, secret included, inside the
//!   standard library. Pre-size the buffer so it never grows while it holds a
//!   secret: a constructor with `new = path` that reserves enough (or
//!   `reserve` before writing).
//! - **Moves you make.** A move copies a value's bytes and leaves the old
//!   ones where they were, unwiped; an inline secret (`[u8; N]`) is copied
//!   by every move of the value or of its guard (`Box::new(guard)` after the
//!   secret is written, `Pooled::into_inner(*boxed)`, which frees the box
//!   with the guard's bytes in it). Keep a secret that moves in a heap
//!   buffer (`Vec<u8>`, `Box<[u8]>`): its move copies only the pointer.
//! - **Detaching.** [`Pooled::into_inner`] hands the value to you; the
//!   generated `Drop` still wipes it when you drop it, but copies you make,
//!   or fields you `std::mem::take` out, are yours to wipe.
//! - **Capacity.** The wipe keeps the allocation, so the next user sees its
//!   capacity, which tells how long the previous secret was (at least
//!   roughly). Bound it with `max_capacity`, or pre-size every value the same.
//!
//! ## 2. Use after put
//!
//! In Go, a slice taken from a pooled buffer still points into it after the
//! buffer is put back, and the next user overwrites it. Here the value can
//! only be reached through its [`Pooled`] guard, every reference into it
//! borrows the guard, and the guard cannot be dropped (returning the value)
//! while such a borrow is alive. The bug is a compile error:
//!
//! ```compile_fail
//! use poolable::Pool;
//!
//! static BUFS: Pool<Vec<u8>> = Pool::new();
//!
//! let mut buf = BUFS.get();
//! buf.extend_from_slice(b"user=bob");
//! let name: &[u8] = &buf[5..];
//! drop(buf); // error[E0505]: cannot move out of `buf` because it is borrowed
//! println!("{name:?}");
//! ```
//!
//! [`Pool::put`] takes the value by move, so the same holds for it. To keep
//! data past the return, copy it out, or detach the whole value with
//! [`Pooled::into_inner`] (it then never goes back to the pool):
//!
//! ```
//! use poolable::{Pool, Pooled};
//!
//! static BUFS: Pool<Vec<u8>> = Pool::new();
//!
//! let mut buf = BUFS.get();
//! buf.extend_from_slice(b"user=bob");
//! let name: Vec<u8> = buf[5..].to_vec(); // a copy: fine
//! drop(buf);
//! assert_eq!(name, b"bob");
//!
//! let mut buf = BUFS.get();
//! buf.extend_from_slice(b"keep me");
//! let owned: Vec<u8> = Pooled::into_inner(buf); // detached for good
//! assert_eq!(owned, b"keep me");
//! assert_eq!(BUFS.stats().detached, 1);
//! ```
//!
//! ## 3. Oversized and idle retention
//!
//! A reset keeps capacity; that is the point of pooling. But one 50 MB request
//! would then leave a 50 MB buffer in the pool for good, and without a garbage
//! collector nothing ever empties a pool that is no longer used.
//!
//! - **Size cap.** A value whose [`Reset::heap_bytes`] after the reset, plus
//!   `size_of::<T>()`, exceeds the pool's `max_bytes` (64 KiB by default) is
//!   dropped instead of kept (`Stats::dropped_oversize`). Or shrink instead
//!   of drop, field by field, with `#[poolable(max_capacity = N)]`. The derived `heap_bytes` counts
//!   the fields reset by their own `Reset` impl; a `skip`, `default` or
//!   `with` field is invisible to the cap unless it says how to measure it
//!   (`#[poolable(with = Vec::clear, heap_bytes = Vec::capacity)]`).
//! - **Retention bound.** At most about `max_retained` idle values are kept
//!   (`Stats::dropped_full` counts the rest).
//! - **Idle decay.** [`Pool::trim`] / [`trim_all`] drop values that stayed idle
//!   across two consecutive trims, like Go's two-GC victim cache;
//!   [`trimmer::spawn`] runs `trim_all` on an interval, and
//!   [`trimmer::builder`] adds a memory-pressure check, graded as .NET's
//!   `ArrayPool` grades it ([`trimmer::MemoryPressure`]): under medium
//!   pressure a tick empties every pool's shared tier, under high pressure
//!   it drops everything idle at once ([`clear_all`]).
//!
//! ```
//! use poolable::Pool;
//!
//! static BUFS: Pool<Vec<u8>> = Pool::new().max_bytes(64 << 10);
//!
//! let mut small = BUFS.get();
//! let mut huge = BUFS.get();
//! small.extend_from_slice(b"GET /");
//! huge.resize(50 << 20, 0); // one 50 MiB upload
//! drop(small);
//! drop(huge); // 50 MiB > 64 KiB: dropped, not kept
//!
//! let stats = BUFS.stats();
//! assert_eq!(stats.dropped_oversize, 1);
//! assert_eq!(stats.retained, 1);
//! assert!(stats.retained_bytes <= 64 << 10);
//!
//! // Later, when traffic stops: idle across two trims, dropped.
//! BUFS.trim();
//! BUFS.trim();
//! assert_eq!(BUFS.stats().retained, 0);
//! assert_eq!(BUFS.stats().dropped_idle, 1);
//! ```
//!
//! Shrinking instead of dropping keeps the value (and its other fields) warm:
//!
//! ```
//! use poolable::Poolable;
//!
//! #[derive(Poolable, Default)]
//! struct Upload {
//!     name: String,
//!     #[poolable(max_capacity = 4096)] // bytes, for a Vec<u8>
//!     body: Vec<u8>,
//! }
//!
//! let mut up = Upload::pool().get();
//! up.body.resize(10 << 20, 0);
//! drop(up); // cleared, then shrunk to 4096 bytes: small enough to keep
//!
//! assert_eq!(Upload::pool().stats().dropped_oversize, 0);
//! assert!(Upload::pool().get().body.capacity() <= 4096);
//! ```
//!
//! Byte buffers of mixed sizes are best pooled by size class: a single
//! `Pool<Vec<u8>>` hands its one 60 KiB buffer to a 100-byte request, and
//! every buffer ends up the size of the largest request it has seen. A
//! [`BufferPool`] keeps one pool per size class (powers of two up to 4 KiB,
//! then four classes per doubling: 4, 5, 6, 7, 8, 10 KiB, ...), takes from
//! the smallest class that holds the request, and returns a buffer to the
//! class its capacity fits at return time. A miss allocates less than 1.25
//! times a request over 4 KiB (1.09 times on average over requests of
//! 100 B to 1 MiB). Its classes stop at a ceiling, 64 KiB by default: a
//! buffer that grew past it is dropped on return, so buffers that are
//! routinely larger need [`BufferPool::max_bytes`] raised.
//! [`BufferPool::class_stats`] reports the waste:
//!
//! ```
//! use poolable::BufferPool;
//!
//! static BUFS: BufferPool = BufferPool::new(); // 64 B .. 64 KiB classes
//!
//! let mut head = BUFS.get(200); // from the 256-byte class
//! head.extend_from_slice(b"HTTP/1.1 200 OK\r\n");
//! let body = BUFS.get(40_000); // from the 40 KiB class
//! assert!(head.capacity() >= 200 && body.capacity() >= 40_000);
//! drop((head, body));
//! assert!(BUFS.get(200).capacity() < 1024); // small requests stay small
//! let wasted: u64 = BUFS.class_stats().iter().map(|c| c.wasted_bytes()).sum();
//! assert_eq!(wasted, (256 - 200) + (40 << 10) - 40_000);
//! ```
//!
//! # Choosing a pool shape
//!
//! | you pool | use | why |
//! | --- | --- | --- |
//! | a struct of your own | `#[derive(Poolable)]`, then `T::pool().get()` | the reset is generated and exhaustive; one static pool per type, nothing to declare |
//! | a type you do not own, or one configuration per pool | `static P: Pool<T> = Pool::new()` (or [`Pool::with_new`] and the `const` setters) | a pool is a `static` with no lazy-init macro |
//! | the same, configured at run time | [`Pool::from_fn`] with a closure, in an `Arc<Pool<T>>` | the constructor can capture what the configuration says |
//! | byte buffers of mixed sizes | [`BufferPool`] | size classes at most 1.25 apart from 4 KiB up: small requests get small buffers, one big request does not bloat the others, and no buffer is much larger than its request |
//! | a value that must outlive the scope that holds the pool (a spawned task) | [`Pool::get_owned`] on an `Arc<Pool<T>>`, or a `static` pool | the guard is `'static` |
//! | a burst at start-up that must not miss | [`Pool::reserve`] | values are made before the first request |
//!
//! Every shape hands out the same guard ([`PoolGuard`]), with the same reset,
//! size cap, retention bound, decay and [`Stats`].
//!
//! Across every pool, [`set_retained_budget`] caps the bytes kept idle
//! ([`retained_bytes`]), for a service that must stay under a memory
//! limit: a return into a shared tier that would pass it is dropped, and
//! each [`trim_all`] (or a lower budget) drops idle values until it holds,
//! the shared tiers' oldest first, then the fullest thread caches.
//!
//! # Choosing `max_bytes` and `max_retained`
//!
//! Start with the defaults, run a realistic load, and read [`Pool::stats`].
//!
//! **`max_bytes`** (default [`DEFAULT_MAX_BYTES`] = 64 KiB) decides which
//! values are worth keeping. Set it a little above the size of a *typical*
//! value after use (say the 95th–99th percentile of its buffers' capacity),
//! not the largest: the rare large values are then dropped and the common
//! ones reused.
//! - `dropped_oversize` is a large share of `puts` → the cap is below your
//!   typical size: raise it, or bound the growing field with `max_capacity`.
//! - A pool built with [`Pool::with_new`] that pre-sizes its values needs a
//!   cap at least that size, or every value is dropped on its first return.
//! - `retained_bytes` is the memory the pool holds now; at worst it is about
//!   (retention bound) × `max_bytes`.
//! - **Over the cap: drop or shrink.** By default a value over the cap is
//!   dropped, which is right when such values are rare outliers. When values
//!   often grow a little over it, or are costly to build again,
//!   [`Pool::oversize`]`(`[`Oversize::Shrink`]`)` (`#[poolable(oversize = "shrink")]`)
//!   shrinks them back under the cap and keeps them
//!   ([`Reset::shrink_heap`]; `Stats::shrunk` counts them): a struct's
//!   largest buffer is cut, its small ones keep their allocations.
//! - **Not sure of the typical size, or it shifts?** [`Pool::max_bytes_auto`]
//!   (`#[poolable(max_bytes = "auto")]`) calibrates the cap from what
//!   returned values used, as bytebufferpool does: every
//!   [`AUTO_CAP_WINDOW`] returns, twice the 95th percentile's power-of-two
//!   class, within [`AUTO_CAP_FLOOR`] and `max_bytes`; it rises at once and
//!   falls only after two windows agree. New values are pre-sized to the
//!   most common use. It costs its pool two relaxed atomic adds per return.
//!
//! **`max_retained`** (default `4 × CPUs × LOCAL_CACHE_SIZE`, see
//! [`DEFAULT_RETAINED_PER_CPU`]) decides how many idle values are kept.
//! Unset, it adapts: when a return finds the shared shards full, the values
//! out at once are more than the bound, and the shards grow (doubling, up to
//! [`ADAPTIVE_RETAINED_FACTOR`] = 8 times the default); each trim halves them
//! back. A producer and a consumer with a 128-deep queue between them hit
//! over 95% of the time with no configuration (`tests/adaptive_retention.rs`).
//! Set it to fix the bound, for a hard memory ceiling. Size it
//! to the number of values *in flight* at the busiest moment (threads ×
//! values each holds, plus anything queued between threads): that many come
//! back together, and the next burst wants them all.
//! - `dropped_full` keeps climbing together with `misses` → the bound is too
//!   low for your concurrency: raise it.
//! - `retained` stays high while `hit_rate` is ~100% → you can lower it.
//! - The bound is per thread, not global: one thread alone never keeps more
//!   than `max_retained`; every further thread that uses the pool can hold up
//!   to [`LOCAL_CACHE_SIZE`] more in its private cache.
//! - `max_retained(0)` turns retention off, handy to measure what the pool
//!   buys you.
//!
//! For a derived type, set both on the struct:
//! `#[poolable(max_bytes = 1 << 20, max_retained = 256)]`.
//!
//! ## How retention adapts, up and down
//!
//! What a pool keeps idle follows the values out at once, in each tier:
//!
//! | tier | grows | comes back down |
//! | --- | --- | --- |
//! | thread cache | up to [`LOCAL_CACHE_SIZE`] values per thread and pool (for a [`BufferPool`] class, at most 32 KiB of them), each of at most [`LOCAL_CACHE_MAX_BYTES`] (larger ones skip it) | a trim ages it, the next drops what stayed idle; a thread's exit hands it to the shards |
//! | shared shards | when a return finds them full, doubling up to [`ADAPTIVE_RETAINED_FACTOR`] times the bound | each trim halves the bound and drops what stayed idle across two trims |
//! | every pool | as the tiers do | after each trim, [`set_retained_budget`] holds for all of them |
//!
//! A [`Pool`]'s retention only comes down at trims: between two, it keeps
//! what the busiest moment since the last one needed (a [`BufferPool`]'s
//! large classes also let go between trims, below). Run the [`trimmer`] (or call
//! [`trim_all`] on a timer) in a long-running process.
//!
//! A [`BufferPool`] keeps a pool per class, and each class alone would keep
//! as many buffers as were ever out of it at once. Three rules hold it to
//! what is in use (see [its docs](BufferPool#memory)): a thread caches at
//! most 32 KiB of a class; a get over [`LOCAL_CACHE_MAX_BYTES`] whose class
//! is empty reuses an idle buffer of a larger class (up to twice the
//! request); and one that must allocate when the large buffers alive (out
//! and idle) are already a margin more than were ever out at once lets an
//! idle one it could not use go, so there are never more than that. The
//! margin starts at eight and doubles, up to 64, while misses keep letting
//! buffers go.
//!
//! `tests/working_set.rs` counts the heap on a fixed schedule (a producer
//! thread hands 20,000 buffers of 100 B to 1 MiB to a consumer thread; 2 in
//! flight, with stalls of 8 to 64): its peak is 1.26 times plain
//! allocation's, at 99.2% hits (1.39 times without the first and last
//! rules). `benches/rss_pipeline.rs` runs the same pipeline through a
//! 64-deep channel, where the scheduler decides how many are in flight. On
//! 2 cores, 21 runs of each interleaved a second apart, plain `Vec`s peak
//! at a median of 10.2 MiB of RSS and the pool at 14.6-14.7 MiB (1.43-1.44
//! times, in two such comparisons), hitting 99.4% of the time and holding
//! about 105 buffers at the end; without those two rules, 16.7-18.7 MiB
//! (1.64-1.83 times) and 190 buffers, 9 in each class under 64 KiB.
//! `scripts/rss_pipeline.py` runs the comparison on the current build
//! (plain against pool, medians), and its figures swing by a few MiB from
//! one invocation to the next, plain's most (9.2 to 11.8 MiB of median).
//! Where memory matters more than allocations, bound such a pool with
//! [`set_retained_budget`] or a lower `max_bytes`, and trim it.
//!
//! # Pooling nested data
//!
//! A reset keeps each field's own buffer, but a collection's reset drops its
//! *elements*: a `Vec<(String, String)>` of headers keeps room for the pairs
//! and frees every header string, so each request allocates them all again.
//! An `Option<String>` reset to `None` frees its string the same way. Which
//! types keep what is in the last column of
//! [the table on `Reset`](Reset#what-the-std-impls-do).
//!
//! Two containers keep the inner allocations:
//!
//! - [`RecycleVec<T>`](RecycleVec): its reset resets the elements in use and
//!   keeps them as hidden *spares*. [`push_reset`](RecycleVec::push_reset)
//!   hands back a spare, reset, with its buffers (or a new `T::default()`).
//!   Slices, indexing, iteration, `==`, `Debug` and serde see the live
//!   elements only.
//! - [`RecycleOption<T>`](RecycleOption): an `Option` whose `None` keeps the
//!   reset value out of sight; [`get_or_insert_reset`](RecycleOption::get_or_insert_reset)
//!   brings it back. Empty, it reads as `None` everywhere (`get`, `==`,
//!   `Debug`, serde).
//!
//! ```
//! use poolable::{Poolable, RecycleOption, RecycleVec};
//!
//! #[derive(Poolable, Default)]
//! struct Request {
//!     #[poolable(max_capacity = 64)] // at most 64 header pairs kept
//!     headers: RecycleVec<(String, String)>,
//!     query: RecycleOption<String>,
//!     body: String,
//! }
//!
//! fn parse(req: &mut Request, raw: &str) {
//!     let (head, body) = raw.split_once("\n\n").unwrap_or((raw, ""));
//!     let mut lines = head.lines();
//!     let target = lines.next().unwrap_or_default();
//!     if let Some((_, query)) = target.split_once('?') {
//!         req.query.get_or_insert_reset().push_str(query);
//!     }
//!     for line in lines {
//!         if let Some((name, value)) = line.split_once(": ") {
//!             let (n, v) = req.headers.push_reset(); // a kept pair, reset
//!             n.push_str(name);
//!             v.push_str(value);
//!         }
//!     }
//!     req.body.push_str(body);
//! }
//!
//! let mut req = Request::pool().get();
//! parse(&mut req, "POST /login?user=ada\nhost: example.org\nauthorization: Bearer hunter2\n\nhi");
//! assert_eq!(req.headers.len(), 2);
//! assert_eq!(req.query.get().map(String::as_str), Some("user=ada"));
//! let token_buffer = req.headers[1].1.as_ptr();
//! drop(req); // reset: the pairs and the query string are kept, cleared
//!
//! let mut req = Request::pool().get();
//! assert!(req.headers.is_empty() && req.query.is_none() && req.body.is_empty());
//! assert_eq!(format!("{:?}", req.headers), "[]"); // nothing of the last request
//! parse(&mut req, "GET /\nhost: example.org\nauthorization: Bearer x\n\n");
//! assert_eq!(req.headers[1].1.as_ptr(), token_buffer); // same buffer, no allocation
//! assert!(req.query.is_none());
//! ```
//!
//! Why a separate option type rather than a rule for `Option` fields:
//! `None` is what code matches on. A reset that kept `Some("")` would read as
//! "a query was given", and a derive-level switch would give `Option` two
//! meanings depending on an attribute far from the code that reads it.
//! `RecycleOption` keeps `Option`'s meaning and adds the kept value as a
//! separate, invisible state. `Option<T>`, `Vec<T>`, `VecDeque<T>` and the
//! other std collections keep their reset: elements dropped.
//!
//! What to know:
//!
//! - Fill spares with `push_reset` / `get_or_insert_reset`. [`push`](RecycleVec::push)
//!   and [`insert`](RecycleOption::insert) store a value you built, and drop
//!   the spare in its way (the number of kept elements never grows beyond the
//!   most held at once).
//! - A reset costs as much as the elements used, not the spares: a request
//!   with 3 headers resets 3 pairs, even with 60 spares behind them.
//! - [`Reset::heap_bytes`] counts every element, live and spare, so the
//!   `max_bytes` cap sees all of it. `#[poolable(max_capacity = N)]` on a
//!   `RecycleVec` keeps at most `N` elements, live plus spare.
//! - Spares are reset, not wiped: a cleared `String` still holds its old
//!   bytes in its spare capacity, as any cleared `String` does.
//! - If an element's reset panics, that element (and any not yet reset after
//!   it) is dropped, never kept as a spare.
//!
//! # Values inline, or in a `Box`
//!
//! A pool keeps its values inline: each thread cache has slots of `T`, so a
//! miss allocates nothing beyond what constructing `T` allocates. A get that
//! finds an idle value in its thread's cache hands the guard that value's
//! slot, and the guard's return on the same thread gives the slot back: the
//! value itself does not move. A value from anywhere else (a miss, a refill
//! from the shared tier, a guard dropped on another thread) is moved into
//! the guard, and later into a slot. A pool of `Box<T>` moves a pointer
//! instead, and each of its misses allocates the box as well.
//!
//! Which is faster on a hit, for derived types of several sizes, is in
//! `benches/RESULTS.md` ("Values stored inline against `Box<T>`"). On a
//! 2-core machine the two are within 10% at every size measured, from a
//! 24-byte struct of one `Vec` to 1 KiB of fields, the inline value mostly
//! the faster.
//!
//! Keep `T` inline. Pool `Box<T>` when `T` is over 4 KiB: such a `T` has no
//! thread cache at all ([policy defaults](#policy-defaults)). Pool it too
//! when a large `T` mostly reaches its guard some other way than a hit in
//! its thread's cache (misses, refills from the shared tier, values
//! returned on another thread): each of those moves copies all of `T`,
//! where a box moves a pointer.
//!
//! ```
//! use poolable::{Pool, Poolable};
//!
//! #[derive(Poolable, Default)]
//! struct Frame {
//!     pixels: Vec<u8>,
//!     header: [u64; 32],
//! }
//!
//! static FRAMES: Pool<Box<Frame>> = Pool::new();
//!
//! let mut frame = FRAMES.get(); // a `Box<Frame>`, reset
//! frame.header[0] = 7;
//! frame.pixels.push(255);
//! drop(frame); // reset in its box, and the box is kept
//! assert_eq!(FRAMES.get().header[0], 0);
//! ```
//!
//! # When not to pool
//!
//! - **Small values, or values without heap buffers.** A `[u8; 256]` scratch
//!   array, a 40-byte struct, or a `String` that stays a few bytes long are
//!   cheap to create (on the stack, or from the allocator's own per-thread
//!   cache). A pool round trip (get, reset, put, bookkeeping) can cost as much
//!   as the allocation it saves. Pool values whose *buffers* are worth
//!   keeping: grown `Vec`s, `String`s, maps, many-field request structs.
//! - **Long-lived resources.** Database connections, files, sockets and
//!   threads are not scratch values: they need health checks, timeouts, a
//!   limit on how many are *open* (not just idle), and waiting when none is
//!   free. This pool never blocks, creates values without limit, and drops
//!   idle ones at any trim without closing anything gracefully. Use a
//!   purpose-built connection pool for those.
//! - **When you need a value to be there.** A get may construct a new value
//!   even while other threads hold idle ones; nothing you put is guaranteed to
//!   come back.
//! - **Without a measurement.** A pool adds code and a policy to tune. Reach
//!   for one when a profile shows allocation is a real cost, and measure again
//!   after (next section).
//!
//! # Measure first
//!
//! [`Pool::stats`] tells whether a pool is working: the hit rate, and why
//! values were dropped.
//!
//! ```
//! use poolable::Pool;
//!
//! static BUFS: Pool<Vec<u8>> = Pool::new();
//!
//! for i in 0..1000_u32 {
//!     let mut buf = BUFS.get();
//!     buf.extend_from_slice(&i.to_le_bytes());
//! }
//! let stats = BUFS.stats();
//! assert_eq!((stats.gets, stats.misses), (1000, 1)); // one value, reused 999 times
//! assert!(stats.hit_rate() > 0.99);
//! println!("{stats}"); // gets=1000 hit_rate=99.9% misses=1 puts=1000 dropped(...) ...
//! ```
//!
//! To see what pooling saves, count allocations: a counting global allocator
//! in a test or benchmark binary (or a heap profiler such as heaptrack or
//! DHAT) shows the allocations per operation with and without the pool.
//!
//! ```
//! use poolable::Pool;
//! use std::alloc::{GlobalAlloc, Layout, System};
//! use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
//!
//! struct Counting;
//! static ALLOCS: AtomicUsize = AtomicUsize::new(0);
//!
//! unsafe impl GlobalAlloc for Counting {
//!     unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
//!         ALLOCS.fetch_add(1, Relaxed);
//!         unsafe { System.alloc(layout) }
//!     }
//!     unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
//!         unsafe { System.dealloc(ptr, layout) }
//!     }
//! }
//!
//! #[global_allocator]
//! static GLOBAL: Counting = Counting;
//!
//! static BUFS: Pool<Vec<u8>> = Pool::new();
//!
//! fn allocations(f: impl Fn()) -> usize {
//!     let before = ALLOCS.load(Relaxed);
//!     f();
//!     ALLOCS.load(Relaxed) - before
//! }
//!
//! fn main() {
//!     let work = |buf: &mut Vec<u8>| buf.extend_from_slice(&[7; 1500]);
//!
//!     let fresh = allocations(|| {
//!         for _ in 0..1000 {
//!             let mut buf = Vec::new();
//!             work(&mut buf);
//!         }
//!     });
//!     work(&mut BUFS.get()); // warm the pool: one buffer, grown once
//!     let pooled = allocations(|| {
//!         for _ in 0..1000 {
//!             work(&mut BUFS.get());
//!         }
//!     });
//!     assert!(fresh >= 1000);
//!     assert_eq!(pooled, 0);
//! }
//! ```
//!
//! Run the same comparison on your real workload before and after adding the
//! pool; the crate's own benchmarks (`cargo bench -p poolable-benches`) compare it with a plain
//! allocation and with other pool crates.
//!
//! In a running service, [`pools`] lists every pool that has been used
//! (derived types' pools, statics, heap pools, each class of a
//! [`BufferPool`]) with its name and live [`Stats`], and [`report`] formats
//! them one line per pool for a log, by name (a `BufferPool`'s classes by
//! size). A pool is named after its type unless [`Pool::name`] names it:
//!
//! ```
//! use poolable::Pool;
//!
//! static UPLOADS: Pool<Vec<u8>> = Pool::new().name("uploads");
//! drop(UPLOADS.get());
//! print!("{}", poolable::report()); // uploads gets=1 hit_rate=0.0% misses=1 ...
//! assert!(poolable::pools().iter().any(|pool| pool.name() == "uploads"));
//! ```
//!
//! The stats hold the answer to "does this pool pay?", and [`advice`] reads
//! it for you: one [`Advice`] per finding, a sentence that names the setting
//! to change and a value for it (most returns over the size cap, returns
//! dropped as full while gets miss, values going back on other threads, a
//! `BufferPool` class its buffers outgrow, far more kept than used, values
//! as cheap to build as to pool). [`report`] prints them under the pools. A
//! healthy pool gets none; the rules and their thresholds are listed on
//! [`advice`].
//!
//! ```
//! use poolable::{AdviceKind, BufferPool};
//!
//! static PIPE: BufferPool = BufferPool::new().name("pipe"); // classes up to 64 KiB
//!
//! for _ in 0..poolable::ADVICE_MIN_GETS {
//!     drop(PIPE.get(1 << 20)); // 1 MiB buffers
//! }
//! let advice = poolable::advice();
//! let ceiling = advice.iter().find(|a| a.pool() == "pipe[65536]").unwrap();
//! assert_eq!(ceiling.kind(), AdviceKind::Oversize);
//! println!("{ceiling}");
//! // pipe[65536]: 1000 of 1000 returns (100.0%) were over the `BufferPool`'s ceiling
//! // of 64 KiB and dropped: they reached 1 MiB of heap (95th percentile); raise the
//! // ceiling, `BufferPool::max_bytes(1 << 20)`
//! ```
//!
//! With the `metrics` feature, [`export_metrics`] records the same figures
//! (counters such as `poolable_gets_total`, gauges such as
//! `poolable_retained_bytes`, each labelled `pool = <name>`) on the installed
//! [`metrics`](https://docs.rs/metrics) recorder, so any exporter can publish
//! them. Call it before each scrape or from a timer: a pool's own operations
//! never touch the recorder. `examples/with-deps/examples/prometheus.rs`
//! serves them to Prometheus.
//!
// `export_metrics` exists only with the `metrics` feature: without it, the
// link above goes to the item's page on docs.rs (built with every feature),
// so `cargo doc` is clean with default features too.
#![cfg_attr(
    not(feature = "metrics"),
    doc = "[`export_metrics`]: https://docs.rs/poolable/latest/poolable/fn.export_metrics.html"
)]
//!
//! Two settings of the `POOLABLE` environment variable, read once when the
//! first pool is first used, change every pool of the process:
//!
//! - `POOLABLE=off`: every get constructs and every return is reset and
//!   dropped (`dropped_full`). Miri, sanitizers, valgrind and heap profilers
//!   then see each value's real lifetime. Stats keep counting.
//! - `POOLABLE=chaos`: one return in four, at random, is dropped
//!   (`dropped_full`), and no thread caches are kept. Code that assumes a
//!   warm pool (a value's capacity, or the same value coming back) then fails
//!   in its tests instead of in production, as Go's race-detector build does
//!   for `sync.Pool`. Every return is also checked with
//!   [`Reset::is_reset`], in release builds too ([reset
//!   verification](#reset-verification)).
//!
//! Any other value, or none, pools as usual.
//!
//! # Threads and async
//!
//! A [`Pool`] is `Sync`: one `static` pool serves every thread. Each thread
//! keeps a small private cache per pool ([`LOCAL_CACHE_SIZE`] values), so
//! the common get/put touches no shared memory; the rest live in shared
//! shards that any thread can take from.
//!
//! A [`Pooled`] guard is `Send` when `T` is, so a value can be taken on one
//! thread and returned from another, sent through a channel, or held across
//! an `.await` in a multi-threaded runtime. A guard from a `static` pool (or
//! `T::pool()`) is `Pooled<'static, T>`, so it fits in a spawned task. A
//! pool held in application state as an `Arc<Pool<T>>` hands out such guards
//! too, with [`Pool::get_owned`]: an [`OwnedPooled<T>`](OwnedPooled) holds a
//! clone of the `Arc`, and behaves exactly like [`Pooled`] (both are a
//! [`PoolGuard`]).
//!
//! ```
//! use poolable::{Pool, Pooled};
//!
//! static BUFS: Pool<Vec<u8>> = Pool::new();
//!
//! let (tx, rx) = std::sync::mpsc::channel::<Pooled<'static, Vec<u8>>>();
//! let worker = std::thread::spawn(move || rx.iter().map(|buf| buf.len()).sum::<usize>());
//! for _ in 0..10 {
//!     let mut buf = BUFS.get();
//!     buf.extend_from_slice(b"request");
//!     tx.send(buf).unwrap(); // returned to the pool by the worker
//! }
//! drop(tx);
//! assert_eq!(worker.join().unwrap(), 70);
//! assert_eq!(BUFS.stats().puts, 10);
//! ```
//!
//! ## Guards that outlive a scope
//!
//! A guard borrows its pool. A local `Pool`'s guard is a `Pooled<'_, T>`
//! tied to the local, so moved into a spawned thread, which may outlive
//! it, it gets a bare "`pool` does not live long enough" (E0597):
//!
//! ```compile_fail,E0597
//! use poolable::Pool;
//!
//! let pool: Pool<Vec<u8>> = Pool::new();
//! let mut buf = pool.get();
//! buf.push(1);
//! std::thread::spawn(move || drop(buf)); // error[E0597]: `pool` does not live long enough
//! ```
//!
//! A guard that can go anywhere comes from a pool that lives as long as it
//! does:
//! - an `Arc<Pool<T>>` and [`Pool::get_owned`]: the guard, an
//!   [`OwnedPooled<T>`](OwnedPooled), holds a clone of the `Arc`, so the
//!   pool lives until its last guard is gone (a pool built at run time, in
//!   application state);
//! - a `static` pool, or a derived type's `T::pool()`: its guards are
//!   `Pooled<'static, T>`.
//!
//! Threads that end before the pool does need neither: a scoped thread
//! ([`std::thread::scope`]) can take a local pool's guard.
//!
//! ```
//! use poolable::Pool;
//! use std::sync::Arc;
//!
//! let shared = Arc::new(Pool::<Vec<u8>>::new());
//! let mut buf = shared.get_owned();
//! buf.push(1);
//! std::thread::spawn(move || drop(buf)).join().unwrap();
//! assert_eq!(shared.stats().puts, 1);
//!
//! static BUFS: Pool<Vec<u8>> = Pool::new();
//! let mut buf = BUFS.get();
//! buf.push(1);
//! std::thread::spawn(move || drop(buf)).join().unwrap();
//! assert_eq!(BUFS.stats().puts, 1);
//!
//! let local: Pool<Vec<u8>> = Pool::new();
//! let mut buf = local.get();
//! buf.push(1);
//! std::thread::scope(|scope| {
//!     scope.spawn(move || drop(buf));
//! });
//! assert_eq!(local.stats().puts, 1);
//! ```
//!
//! A guard dropped while its thread panics is dropped, not returned
//! (`Stats::dropped_panic`): the panic may have left the value half-written.
//!
//! The guard also forwards the common traits of `T` (`Display`, `Eq`, `Ord`,
//! `Hash`, `AsRef<T>`, `Borrow<T>`, `io::Read`, `io::Write`, `fmt::Write`,
//! and `serde::Serialize` with the `serde` feature), so it can be passed
//! where a writer or a comparable value is expected; see [`Pooled`].
//!
//! The `examples/` directory has complete programs: `quickstart`, `server` (a
//! threaded request pipeline) and `std_buffers` (`io::Write` into pooled
//! buffers); `examples/with-deps` has those that need tokio, hyper or an
//! exporter: `async_handler`, `prometheus`, and a JSON API on hyper 1 with
//! its load generator.
//!
//! # Attribute reference
//!
//! `#[derive(Poolable)]` and `#[derive(Reset)]` read `#[poolable(...)]`
//! attributes. Without any, every field is reset by its own [`Reset`] impl.
//!
//! | key | where | what it does | example |
//! | --- | --- | --- | --- |
//! | *(none)* | field | `Reset::reset(&mut field)`: clear keeping capacity, `None`, zero, or recurse into a derived type | `body: Vec<u8>` |
//! | `skip` | field | leave the field as it is (configuration that should persist); the size cap does not see its heap unless it also has `heap_bytes = path` | `#[poolable(skip)] region: &'static str` |
//! | `default` | field | assign `Default::default()` (for a type with no `Reset` impl; its old value is dropped); the size cap does not see its heap unless it also has `heap_bytes = path` | `#[poolable(default)] state: State` |
//! | `with = path` | field | call `path(&mut field)`; `path` must be a `fn(&mut FieldType)` returning `()` (generic fns like `Vec::clear` work); the size cap does not see its heap unless it also has `heap_bytes = path` | `#[poolable(with = restart)] started: Instant` |
//! | `max_capacity = N` | field | after the reset, shrink to at most `N` elements via [`Shrink`] (`Vec`, `String`, `VecDeque`, `HashMap`, `HashSet`, `BinaryHeap`, `RecycleVec`, a `RecycleOption` of one of these, and the integrations' collections) | `#[poolable(max_capacity = 4096)] buf: Vec<u8>` |
//! | `zeroize` | field | before any field's reset, write zeros over the whole allocation, spare capacity included, via [`Zeroize`] (`Vec<u8>`, `String`, `Box<[u8]>`, `[u8; N]`); the struct also wipes it on drop (so it cannot implement `Drop` itself, see [secrets](#secrets-what-zeroize-covers-and-what-it-cannot)) | `#[poolable(zeroize)] key: Vec<u8>` |
//! | `check = path` | field | whether the field is reset, for [reset verification](#reset-verification): `path(&field) -> bool` (default: the type's [`Reset::is_reset`]; `skip` fields are not checked) | `#[poolable(with = keep_header, check = header_only)] buf: Vec<u8>` |
//! | `heap_bytes = path` | field | measure the field with `path(&field) -> usize` for the size cap (and `Stats::retained_bytes`). A field with `skip`, `default` or `with` has no `Reset` impl the derive may ask, so without this key the cap cannot see its heap at all: a 1 GiB buffer in such a field counts as 0 bytes | `#[poolable(skip, heap_bytes = Vec::capacity)] table: Vec<u8>` |
//! | `new = path` | struct | constructor used when the pool is empty (default `Default::default`); `Poolable` only | `#[poolable(new = Request::presized)]` |
//! | `max_retained = N` | struct | retention bound of the type's pool; `Poolable` only | `#[poolable(max_retained = 256)]` |
//! | `name = "..."` | struct | the pool's name in [`pools`] and [`report`] (default: the type's name); `Poolable` only | `#[poolable(name = "uploads")]` |
//! | `max_bytes = N` | struct | size cap of the type's pool (default 64 KiB); `Poolable` only | `#[poolable(max_bytes = 1 << 20)]` |
//! | `max_bytes = "auto"` | struct | a size cap calibrated from what returned values used, at their 95th percentile ([`Pool::max_bytes_auto`]), under `max_bytes = N` if also given; `Poolable` only | `#[poolable(max_bytes = "auto")]` |
//! | `oversize = "..."` | struct | `"drop"` (default) or `"shrink"` a value over the size cap ([`Oversize`]); `Poolable` only | `#[poolable(oversize = "shrink")]` |
//! | `crate = "path"` | struct | where the `poolable` crate is, when it is re-exported under another name | `#[poolable(crate = "my_runtime::poolable")]` |
//! | `bound = "..."` | struct | replace the inferred where-clause of the generated impls (a struct with generic parameters; on one without, an error) | `#[poolable(bound = "T: Reset + Clone")]` |
//!
//! Several keys can share one attribute (`#[poolable(zeroize, max_capacity = 64)]`);
//! a key given twice, a key in the wrong place, and combinations that make no
//! sense (`skip` with `default`) are compile errors that point at the key.
//! Values may be any constant expression (`if`, `match`, `Self::CAP`), and
//! may come from a `macro_rules!` fragment (`$cap:expr`, `$new:path`).
//!
//! The inferred where-clause bounds each type parameter a field resets
//! through (`T: Reset` for `Vec<T>`), and a field of an associated type by
//! its own type (`(C::Item, u8): Reset`, not `C: Reset`). The derive takes
//! structs only: not enums or unions (which variant, which field?), and not
//! `#[repr(packed)]` structs, whose fields a reset cannot borrow.
//!
//! The table's examples, together:
//!
//! ```
//! use poolable::{Poolable, Reset};
//! use std::time::Instant;
//!
//! #[derive(Default, PartialEq, Debug)]
//! enum State { #[default] Idle, Busy }
//!
//! fn restart(t: &mut Instant) {
//!     *t = Instant::now();
//! }
//!
//! #[derive(Poolable)]
//! #[poolable(new = Request::presized, max_retained = 256, max_bytes = 1 << 20)]
//! struct Request {
//!     body: Vec<u8>,
//!     #[poolable(skip)]
//!     region: &'static str,
//!     #[poolable(default)]
//!     state: State,
//!     #[poolable(with = restart)]
//!     started: Instant,
//!     #[poolable(max_capacity = 4096)]
//!     buf: Vec<u8>,
//!     #[poolable(zeroize)]
//!     key: Vec<u8>,
//!     #[poolable(skip, heap_bytes = Vec::capacity)]
//!     table: Vec<u8>,
//! }
//!
//! impl Request {
//!     fn presized() -> Self {
//!         Request {
//!             body: Vec::with_capacity(1024),
//!             region: "eu",
//!             state: State::Idle,
//!             started: Instant::now(),
//!             buf: Vec::new(),
//!             key: Vec::new(),
//!             table: vec![0; 256],
//!         }
//!     }
//! }
//!
//! let mut req = Request::pool().get();
//! assert!(req.body.capacity() >= 1024); // made by `new`
//! req.state = State::Busy;
//! req.buf.resize(1 << 16, 0);
//! req.key.extend_from_slice(b"hunter2");
//! drop(req);
//!
//! let req = Request::pool().get();
//! assert_eq!(req.state, State::Idle);
//! assert!(req.buf.capacity() <= 4096 && req.key.is_empty());
//! assert_eq!((req.region, req.table.len()), ("eu", 256)); // skipped: kept
//! assert!(req.heap_bytes() >= 1024 + 256);
//! ```
//!
//! # `Reset` impls
//!
//! The std impls (numbers, `String`, `Vec`, `VecDeque`, `BinaryHeap`, the maps
//! and sets, `Option`, `Box`, arrays, slices, tuples, cells and locks) and
//! what each one's reset and `heap_bytes` do, and which allocations each
//! keeps for the next use, are listed in
//! [the table on `Reset`](Reset#what-the-std-impls-do). [`Shrink`] and
//! [`Zeroize`] list the types that `max_capacity` and `zeroize` accept. The
//! optional integrations add:
//!
//! | type | feature | `Reset` | `heap_bytes` | also |
//! | --- | --- | --- | --- | --- |
//! | `bytes::BytesMut` | `bytes` | `clear()`, capacity kept; an allocation that a split or `advance` hid from `capacity` is taken back, or let go if another handle still shares it | capacity (the whole allocation, after the reset) | `Zeroize` |
//! | `smallvec::SmallVec<A>` | `smallvec` | `clear()`, capacity kept | spilled capacity × item size, 0 while inline | `Shrink`; `Zeroize` for `u8` items |
//! | `indexmap::IndexMap<K, V, S>`, `IndexSet<T, S>` | `indexmap` | `clear()`, capacity kept | capacity × (entry + hash + index + 1) | `Shrink` |
//! | `hashbrown::HashMap<K, V, S>`, `HashSet<T, S>` | `hashbrown` | `clear()`, capacity kept | capacity × (entry + 1) | `Shrink` |
//!
//! [`RecycleVec`] and [`RecycleOption`] keep their elements, reset, for the
//! next use; see [pooling nested data](#pooling-nested-data).
//!
//! For any other type: derive `Reset`, implement it by hand (see [`Reset`]),
//! or use the `default` / `with` field attributes.
//!
//! # Cargo features
//!
//! All off by default. Each adds trait impls for another crate's types, or
//! the one function or type its row names.
//!
//! | feature | adds |
//! | --- | --- |
//! | `serde` | `Serialize` for `Pooled<T>` (serializes the value); `Serialize`, `Deserialize` for `RecycleVec` (the live elements) and `RecycleOption` (as an `Option`) |
//! | `bytes` | `Reset`, `Zeroize` for `bytes::BytesMut` (bytes 1.x) |
//! | `smallvec` | `Reset`, `Shrink`, `Zeroize` for `smallvec::SmallVec` (smallvec 1.x) |
//! | `indexmap` | `Reset`, `Shrink` for `indexmap::{IndexMap, IndexSet}` (indexmap 2.x) |
//! | `hashbrown` | `Reset`, `Shrink` for `hashbrown::{HashMap, HashSet}` (hashbrown 0.17) |
//! | `metrics` | `export_metrics()`: every pool's stats through the `metrics` facade (0.24) |
//! | `http-body` | `PooledBody`: a `'static` pooled `Vec<u8>` guard as an `http_body::Body` (http-body 1.x, hyper 1), returned to its pool once written, with no copy |
//!
//! # Policy defaults
//!
//! | setting | default | change it with |
//! | --- | --- | --- |
//! | size cap | [`DEFAULT_MAX_BYTES`] = 64 KiB; a value's size is its [`Reset::heap_bytes`] plus `size_of::<T>()` (values are stored inline) | [`Pool::max_bytes`], `#[poolable(max_bytes = N)]`; adaptive: [`Pool::max_bytes_auto`] |
//! | over the cap | dropped ([`Oversize::Drop`]) | [`Pool::oversize`], `#[poolable(oversize = "shrink")]` |
//! | retention bound | `4 × CPUs × LOCAL_CACHE_SIZE` (64 on 2 CPUs), growing under load up to 8 times that and halving at trims; one thread alone never retains more than the bound in force, and each further thread can hold one more thread cache | [`Pool::max_retained`], `#[poolable(max_retained = N)]` (fixed) |
//! | thread cache | [`LOCAL_CACHE_SIZE`] = 8 values per thread per pool, for `T` up to 4 KiB (a larger `T` goes straight to the shards; pool `Box<T>` to cache it); half moves to the shards when it is full. Its values sit in slots allocated with the cache: 16 to 63 of them (as many `T` as fit in 2 KiB), which also hold the values guards took from the cache, so a guard dropped on the same thread gives its slot back with the value in place | (fixed) |
//! | idle decay | none until you call [`Pool::trim`] / [`trim_all`] or start [`trimmer::spawn`]; then a value idle across two trims is dropped, in the shards and in every thread's cache, including threads that never touch the pool again | |
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub use pool_derive::{Poolable, Reset};
pub use pool_runtime::*;

/// The README's code blocks, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
