//! The shared tier: cache-padded shards of idle values that every thread can
//! reach. A thread cache spills half of itself into its home shard when it is
//! full and refills from it, stealing from the others, when it is empty; a
//! thread without a cache (exiting, or re-entered from a `Drop`) uses the
//! shards directly.
//!
//! Each shard keeps two lists, as Go's `sync.Pool` keeps `local` and
//! `victim`: values returned since the last trim (`current`) and values that
//! have already survived one (`victim`); `decay.rs` says what a trim does
//! with them.
//!
//! No user code runs while a shard lock is held: values are moved in and out
//! of the lists, and whatever must be dropped is handed back to the caller to
//! drop after the guard is gone. So a panicking `Drop` cannot poison a shard
//! and a `Drop` that uses the pool cannot deadlock on it.

use crate::LOCAL_CACHE_MAX_BYTES;
use crate::budget;
use crate::sync::{AtomicU64, CachePadded, Mutex, Ordering, lock};
use core::mem;

/// A reset value and the bytes it keeps (heap bytes plus `size_of::<T>()`),
/// measured once when it came back.
pub(crate) struct Entry<T> {
    pub(crate) value: T,
    pub(crate) bytes: usize,
}

pub(crate) struct Shard<T> {
    current: Vec<Entry<T>>,
    victim: Vec<Entry<T>>,
    /// How many entries it holds at most now: between `floor` and
    /// `ceiling`, grown by returns that find no room, halved by trims.
    cap: usize,
    floor: usize,
    ceiling: usize,
    /// The pool generation this shard was last stepped to (`decay.rs`).
    generation: u64,
}

impl<T> Shard<T> {
    fn room(&self) -> usize {
        self.cap
            .saturating_sub(self.current.len() + self.victim.len())
    }

    /// Make room for `n` more entries by doubling the capacity, within the
    /// ceiling; returns the room there is afterwards.
    fn grow(&mut self, n: usize) -> usize {
        while self.room() < n && self.cap < self.ceiling {
            self.cap = self.cap.saturating_mul(2).max(1).min(self.ceiling);
        }
        self.room()
    }

    /// One decay step of the capacity: halve it, down to the floor. Entries
    /// above the new capacity stay until they are taken or decay.
    fn shrink(&mut self) {
        self.cap = (self.cap / 2).max(self.floor);
    }
}

/// Move up to `k` entries of `from` into `list` while the budget admits
/// them (it may be passed by the last one: the check comes before the
/// entry's size is known). Returns how many moved.
fn admit<T>(
    list: &mut Vec<Entry<T>>,
    from: &mut impl Iterator<Item = Entry<T>>,
    k: usize,
) -> usize {
    let mut moved = 0;
    while moved < k && budget::admits(0) {
        let Some(entry) = from.next() else { break };
        budget::add(entry.bytes);
        list.push(entry);
        moved += 1;
    }
    moved
}

/// Values let go of, for the caller to drop outside every lock: entries,
/// like the shards' lists (their bytes are not used again), so a debug
/// build compiles `Vec`'s functions for one element type per pooled type
/// instead of two.
pub(crate) type Dead<T> = Vec<Entry<T>>;

/// Entries leaving the shards for `dead`: their bytes leave the budget.
///
/// This module's loops are plain loops rather than iterator chains, and
/// they empty a `Vec` by `pop` rather than `into_iter`: each function here
/// is compiled again for every pooled type, and an iterator brings its
/// adapters' copies with it (a debug build of a used pool compiles them
/// all; `scripts/derive_cost.py`).
fn release<T>(mut entries: Vec<Entry<T>>, dead: &mut Dead<T>) {
    let mut bytes = 0;
    dead.reserve(entries.len());
    while let Some(entry) = entries.pop() {
        bytes += entry.bytes;
        dead.push(entry);
    }
    budget::sub(bytes);
}

/// The bytes of `entries`.
fn bytes_of<T>(entries: &[Entry<T>]) -> usize {
    let mut bytes = 0;
    for entry in entries {
        bytes += entry.bytes;
    }
    bytes
}

pub(crate) struct Shards<T> {
    /// Never resized (a `Vec` for one conversion less per pooled type).
    shards: Vec<CachePadded<Mutex<Shard<T>>>>,
}

impl<T> Drop for Shards<T> {
    fn drop(&mut self) {
        budget::sub(self.retained().1);
    }
}

impl<T> Shards<T> {
    /// Shards of `caps` entries each, which may grow to `ceilings`.
    pub(crate) fn new(caps: &[usize], ceilings: &[usize]) -> Self {
        let mut shards = Vec::with_capacity(caps.len());
        for (&cap, &ceiling) in caps.iter().zip(ceilings) {
            shards.push(CachePadded(Mutex::new(Shard {
                current: Vec::new(),
                victim: Vec::new(),
                cap,
                floor: cap,
                ceiling: ceiling.max(cap),
                generation: 0,
            })));
        }
        Shards { shards }
    }

    pub(crate) fn len(&self) -> usize {
        self.shards.len()
    }

    /// Move up to `n` entries of `from` into the shards, home shard first,
    /// as long as the pool's `generation` is still `expected` under each
    /// shard's lock (see `decay.rs`). Returns how many moved.
    pub(crate) fn spill(
        &self,
        home: usize,
        from: &mut impl Iterator<Item = Entry<T>>,
        n: usize,
        (generation, expected): (&AtomicU64, u64),
    ) -> usize {
        let mut moved = 0;
        for i in 0..self.shards.len() {
            let shard = self.nth_from(home, i);
            if moved == n {
                break;
            }
            let mut shard = lock(shard);
            if generation.load(Ordering::Relaxed) != expected {
                break;
            }
            let k = (n - moved).min(shard.room());
            moved += admit(&mut shard.current, from, k);
        }
        if moved < n && budget::admits(0) {
            // Every shard is full: the working set is larger than the
            // bound. Grow the home shard, within its ceiling.
            let mut shard = lock(&self.shards[home % self.shards.len()]);
            if generation.load(Ordering::Relaxed) == expected {
                let k = shard.grow(n - moved).min(n - moved);
                moved += admit(&mut shard.current, from, k);
            }
        }
        moved
    }

    /// Whether some shard has room for one more entry.
    pub(crate) fn has_room(&self) -> bool {
        for shard in &self.shards {
            if lock(shard).room() > 0 {
                return true;
            }
        }
        false
    }

    /// Store one entry, or give it back if every shard is full.
    pub(crate) fn push(&self, home: usize, entry: Entry<T>) -> Result<(), Entry<T>> {
        if !budget::admits(entry.bytes) {
            return Err(entry);
        }
        for i in 0..self.shards.len() {
            let shard = self.nth_from(home, i);
            let mut shard = lock(shard);
            if shard.room() > 0 {
                budget::add(entry.bytes);
                shard.current.push(entry);
                return Ok(());
            }
        }
        // Every shard is full: grow the home shard, within its ceiling.
        let mut shard = lock(&self.shards[home % self.shards.len()]);
        if shard.grow(1) > 0 {
            budget::add(entry.bytes);
            shard.current.push(entry);
            return Ok(());
        }
        Err(entry)
    }

    /// One decay step on every shard (the two-trim rule, `decay.rs`): drop
    /// the victims and demote the current values; two steps drop both, none
    /// only brings the shards to the generation. Each shard is then at the
    /// pool's `generation`. Returns what was dropped, for the caller to drop
    /// outside the locks.
    pub(crate) fn step(&self, steps: u64, generation: u64) -> Dead<T> {
        let mut dead = Vec::new();
        for shard in &self.shards {
            let mut shard = lock(shard);
            if steps == 0 {
                shard.generation = generation;
                continue;
            }
            shard.shrink();
            let current = mem::take(&mut shard.current);
            release(mem::replace(&mut shard.victim, current), &mut dead);
            if steps >= 2 {
                release(mem::take(&mut shard.victim), &mut dead);
            }
            shard.generation = generation;
        }
        dead
    }

    /// Take the oldest entries out until `bytes` are freed, from the victims
    /// only (`oldest_only`) or from every list. Returns them and their bytes.
    pub(crate) fn shed(&self, oldest_only: bool, bytes: usize) -> (Dead<T>, usize) {
        let (mut dead, mut freed) = (Vec::new(), 0);
        for shard in &self.shards {
            let shard = &mut *lock(shard);
            let lists: &mut [&mut Vec<Entry<T>>] = if oldest_only {
                &mut [&mut shard.victim]
            } else {
                &mut [&mut shard.victim, &mut shard.current]
            };
            for list in lists {
                let mut n = 0;
                while n < list.len() && freed < bytes {
                    freed += list[n].bytes;
                    n += 1;
                }
                let rest = list.split_off(n);
                release(mem::replace(*list, rest), &mut dead);
            }
        }
        (dead, freed)
    }

    /// Take up to `n` entries, most recently returned first: from the home
    /// shard, then stolen from the others; it stops after an entry over
    /// [`LOCAL_CACHE_MAX_BYTES`] (which no thread cache keeps). `into` gets
    /// each one. With
    /// `Some(generation)` (a thread cache aged to it), only from shards
    /// stepped to the same generation (see `decay.rs`).
    pub(crate) fn refill(
        &self,
        home: usize,
        mut n: usize,
        generation: Option<u64>,
        mut into: impl FnMut(Entry<T>),
    ) -> usize {
        let mut moved = 0;
        for i in 0..self.shards.len() {
            let shard = self.nth_from(home, i);
            if moved == n {
                break;
            }
            let mut shard = lock(shard);
            if let Some(g) = generation {
                if g != shard.generation {
                    continue;
                }
            }
            while moved < n {
                // The current values first, then the victims.
                let entry = match shard.current.pop() {
                    Some(entry) => entry,
                    None => match shard.victim.pop() {
                        Some(entry) => entry,
                        None => break,
                    },
                };
                budget::sub(entry.bytes);
                moved += 1;
                if entry.bytes > LOCAL_CACHE_MAX_BYTES {
                    // Too large for a thread cache: the refill ends with it.
                    n = moved;
                }
                into(entry);
            }
        }
        moved
    }

    /// How many entries the shards may hold now, all together.
    pub(crate) fn capacity(&self) -> usize {
        let mut cap = 0usize;
        for shard in &self.shards {
            cap = cap.saturating_add(lock(shard).cap);
        }
        cap
    }

    /// Values and bytes held, read shard by shard.
    pub(crate) fn retained(&self) -> (usize, usize) {
        let (mut count, mut bytes) = (0, 0);
        for shard in &self.shards {
            let shard = lock(shard);
            count += shard.current.len() + shard.victim.len();
            bytes += bytes_of(&shard.current) + bytes_of(&shard.victim);
        }
        (count, bytes)
    }

    /// The `i`th shard counted from `home`, which comes first.
    fn nth_from(&self, home: usize, i: usize) -> &Mutex<Shard<T>> {
        &self.shards[(home + i) % self.shards.len()]
    }
}

#[cfg(all(test, not(poolable_loom)))]
mod tests {
    use super::*;

    fn entry() -> Entry<()> {
        Entry {
            value: (),
            bytes: 0,
        }
    }

    #[test]
    fn a_full_shard_grows_to_its_ceiling_and_trims_halve_it_back() {
        let shards = Shards::new(&[2], &[8]);
        for _ in 0..8 {
            assert!(shards.push(0, entry()).is_ok());
        }
        assert!(shards.push(0, entry()).is_err(), "past the ceiling");
        let mut shard = lock(&shards.shards[0]);
        assert_eq!(shard.cap, 8);
        shard.shrink();
        assert_eq!(shard.cap, 4);
        shard.shrink();
        shard.shrink();
        assert_eq!(shard.cap, 2, "not below the floor");
    }

    #[test]
    fn a_fixed_shard_does_not_grow() {
        let shards = Shards::new(&[2], &[2]);
        assert!(shards.push(0, entry()).is_ok());
        assert!(shards.push(0, entry()).is_ok());
        assert!(shards.push(0, entry()).is_err());
    }
}
