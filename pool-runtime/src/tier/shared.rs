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
use crate::raw::erased::{Entries, Kind, Moving, Out};
use crate::sync::{AtomicU64, CachePadded, Mutex, MutexGuard, Ordering, lock};
use core::mem;

/// Values let go of, for the caller to drop outside every lock
/// ([`Entries::drop_each`]).
pub(crate) type Dead = Entries;

/// A shard's lists are [`Entries`], which name the value type only where a
/// value goes in or out: the code of this module has no type parameter, so
/// it is compiled once, not once per pooled type
/// (`scripts/derive_cost.py`). A thread cache moves its values in and out
/// through a [`Source`] ([`Shards::spill`]) and a [`Sink`]
/// ([`Shards::refill`]), as [`Moving`] values. Each entry is a reset value
/// and the bytes it keeps (heap bytes plus `size_of::<T>()`), measured once
/// when it came back.
pub(crate) struct Shard {
    current: Entries,
    victim: Entries,
    /// How many entries it holds at most now: between `floor` and
    /// `ceiling`, grown by returns that find no room, halved by trims.
    cap: usize,
    floor: usize,
    ceiling: usize,
    /// The pool generation this shard was last stepped to (`decay.rs`).
    generation: u64,
    /// Its index among the pool's shards: where the budget's gauge counts
    /// its values (`budget::add`).
    index: usize,
}

impl Shard {
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

/// Where a spill's entries come from ([`Shards::spill`]): a thread cache's
/// oldest values.
pub(crate) trait Source {
    /// The next entry: a value of the shards' kind and its size.
    fn next_entry(&mut self) -> Option<(Moving<'_>, usize)>;
}

/// Move up to `k` entries of `from` into `list` (a shard's) while the
/// budget admits them (it may be passed by the last one: the check comes
/// before the entry's size is known). Returns how many moved.
fn admit(from: &mut impl Source, list: &mut Entries, index: usize, k: usize) -> usize {
    // The batch's bytes join the budget's count once, at the end: one
    // write to its shared counter per batch, not one per entry. The check
    // counts them meanwhile; another thread's check may miss them until
    // then, which lets the budget be passed by at most a batch, as it may
    // be by the last entry of one. (Wrapping sums, as the counter's own
    // additions are.)
    let (mut moved, mut bytes) = (0, 0usize);
    while moved < k && budget::admits(bytes) {
        let Some((value, size)) = from.next_entry() else {
            break;
        };
        if let Err(value) = list.push_moving(value, size) {
            // Of another kind: never (the thread cache is the storage's,
            // whose kind the shards have). Kept out of the lists, and
            // forgotten, not dropped: no user code runs under a shard's
            // lock.
            core::mem::forget(value);
            break;
        }
        bytes = bytes.wrapping_add(size);
        moved += 1;
    }
    if bytes != 0 {
        budget::add(index, bytes);
    }
    moved
}

/// Move up to `k` entries of `from` into `shard`: the first `aged` of them
/// (idle across a step already) among its victims if the shard was stepped
/// to `generation`, the generation they were aged to, the rest among its
/// current values. (A shard a step has not reached yet takes them all
/// among its current values: that step demotes them.) Returns how many
/// moved.
fn admit_aged(
    from: &mut impl Source,
    shard: &mut Shard,
    k: usize,
    aged: usize,
    generation: u64,
) -> usize {
    let aged = if shard.generation == generation {
        aged.min(k)
    } else {
        0
    };
    let moved = admit(from, &mut shard.victim, shard.index, aged);
    if moved < aged {
        return moved;
    }
    moved + admit(from, &mut shard.current, shard.index, k - aged)
}

/// Where a refill's entries go ([`Shards::refill`]).
pub(crate) trait Sink {
    /// Take `value`, `bytes` big, out of a shard's list.
    fn put(&mut self, value: Moving<'_>, bytes: usize);
}

/// Take up to `k` entries from the end of `list` (a shard's) into `into`,
/// each out of the budget, stopping after one over
/// [`LOCAL_CACHE_MAX_BYTES`] (which no thread cache keeps). Returns how
/// many, and whether it stopped at such a one.
fn take(into: &mut impl Sink, list: &mut Entries, index: usize, k: usize) -> (usize, bool) {
    // The entries leave the budget's count in one write at the end (as
    // `admit` adds them).
    let (mut moved, mut taken, mut large) = (0, 0usize, false);
    while moved < k {
        let Some((value, bytes)) = list.pop_moving() else {
            break;
        };
        taken = taken.wrapping_add(bytes);
        moved += 1;
        into.put(value, bytes);
        if bytes > LOCAL_CACHE_MAX_BYTES {
            large = true;
            break;
        }
    }
    if taken != 0 {
        budget::sub(index, taken);
    }
    (moved, large)
}

/// Entries leaving the shard of index `index` for `dead`: their bytes leave
/// the budget.
fn release(mut entries: Entries, index: usize, dead: &mut Dead) {
    budget::sub(index, counted_bytes(&entries));
    dead.append(&mut entries);
}

/// The bytes `entries` added to the budget's count: their wrapping sum, as
/// the count's own additions are, not [`Entries::total_bytes`]'s
/// saturating one, which takes less out than went in once entries measure
/// near `usize::MAX` (a locked `Mutex` under a disabled cap), and leaves
/// the count wrong for good.
fn counted_bytes(entries: &Entries) -> usize {
    entries
        .bytes()
        .iter()
        .fold(0, |sum, &b| sum.wrapping_add(b))
}

pub(crate) struct Shards {
    /// The values' type.
    kind: Kind,
    shards: Vec<CachePadded<Mutex<Shard>>>,
}

impl Drop for Shards {
    fn drop(&mut self) {
        for shard in &self.shards {
            let shard = lock(shard);
            // Wrapping, as the count's additions are (`counted_bytes`).
            let bytes = counted_bytes(&shard.current).wrapping_add(counted_bytes(&shard.victim));
            budget::sub(shard.index, bytes);
        }
    }
}

impl Shards {
    /// Shards of `caps` entries each, which may grow to `ceilings`, for
    /// values of `kind`.
    pub(crate) fn new(kind: Kind, caps: &[usize], ceilings: &[usize]) -> Self {
        let mut shards = Vec::with_capacity(caps.len());
        for (index, (&cap, &ceiling)) in caps.iter().zip(ceilings).enumerate() {
            shards.push(CachePadded(Mutex::new(Shard {
                current: Entries::new(kind),
                victim: Entries::new(kind),
                cap,
                floor: cap,
                ceiling: ceiling.max(cap),
                generation: 0,
                index,
            })));
        }
        Shards { kind, shards }
    }

    pub(crate) fn len(&self) -> usize {
        self.shards.len()
    }

    /// An empty list for values let go of.
    #[inline]
    pub(crate) fn dead(&self) -> Dead {
        Entries::new(self.kind)
    }

    /// Move up to `n` entries of `from` into the shards, home shard first,
    /// as long as the pool's `generation` is still `expected` under each
    /// shard's lock (see `decay.rs`). The first `aged` of them were idle
    /// across a decay step already (a thread cache's aged prefix): they
    /// join a shard's victims, which the next step drops, where the shard
    /// has taken that step too, so that they do not survive one step more
    /// than the two-trim rule says. Returns how many moved.
    pub(crate) fn spill(
        &self,
        home: usize,
        from: &mut impl Source,
        (n, aged): (usize, usize),
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
            if k > 0 {
                moved += admit_aged(from, &mut shard, k, aged.saturating_sub(moved), expected);
            }
        }
        if moved < n && budget::admits(0) {
            // Every shard is full: the working set is larger than the
            // bound. Grow the home shard, within its ceiling.
            let mut shard = lock(&self.shards[home % self.shards.len()]);
            if generation.load(Ordering::Relaxed) == expected {
                let k = shard.grow(n - moved).min(n - moved);
                if k > 0 {
                    moved += admit_aged(from, &mut shard, k, aged.saturating_sub(moved), expected);
                }
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

    /// Store `value`, `bytes` big, or give it back if every shard is full.
    pub(crate) fn push<'v>(
        &self,
        home: usize,
        value: Moving<'v>,
        bytes: usize,
    ) -> Result<(), Moving<'v>> {
        let Some(mut shard) = self.room_for(home, bytes) else {
            return Err(value);
        };
        shard.current.push_moving(value, bytes)?;
        budget::add(shard.index, bytes);
        Ok(())
    }

    /// The shard a push of `bytes` goes to, locked: the first with room
    /// from `home`, else the home shard grown; `None` if every shard is
    /// full or the budget does not admit it. ([`push`](Self::push)'s work,
    /// not generic.)
    fn room_for(&self, home: usize, bytes: usize) -> Option<MutexGuard<'_, Shard>> {
        if !budget::admits(bytes) {
            return None;
        }
        for i in 0..self.shards.len() {
            let shard = lock(self.nth_from(home, i));
            if shard.room() > 0 {
                return Some(shard);
            }
        }
        // Every shard is full: grow the home shard, within its ceiling.
        let mut shard = lock(&self.shards[home % self.shards.len()]);
        if shard.grow(1) > 0 { Some(shard) } else { None }
    }

    /// Move the most recently returned value into `out`: from the home
    /// shard, else stolen from another. Its size; `None` if there is none
    /// (or `out` is filled).
    pub(crate) fn pop_into(&self, home: usize, out: &mut Out<'_>) -> Option<usize> {
        let mut shard = self.holding(home)?;
        let shard = &mut *shard;
        let list = if shard.current.is_empty() {
            &mut shard.victim
        } else {
            &mut shard.current
        };
        let bytes = list.pop_into(out)?;
        budget::sub(shard.index, bytes);
        Some(bytes)
    }

    /// The first shard from `home` that holds an entry, locked.
    fn holding(&self, home: usize) -> Option<MutexGuard<'_, Shard>> {
        for i in 0..self.shards.len() {
            let shard = lock(self.nth_from(home, i));
            if !shard.current.is_empty() || !shard.victim.is_empty() {
                return Some(shard);
            }
        }
        None
    }

    /// One decay step on every shard (the two-trim rule, `decay.rs`): drop
    /// the victims and demote the current values; two steps drop both, none
    /// only brings the shards to the generation. Each shard is then at the
    /// pool's `generation`. Returns what was dropped, for the caller to drop
    /// outside the locks.
    pub(crate) fn step(&self, steps: u64, generation: u64) -> Dead {
        let mut dead = self.dead();
        for shard in &self.shards {
            let mut shard = lock(shard);
            if steps == 0 {
                shard.generation = generation;
                continue;
            }
            shard.shrink();
            let current = mem::replace(&mut shard.current, self.dead());
            release(
                mem::replace(&mut shard.victim, current),
                shard.index,
                &mut dead,
            );
            if steps >= 2 {
                release(
                    mem::replace(&mut shard.victim, self.dead()),
                    shard.index,
                    &mut dead,
                );
            }
            shard.generation = generation;
        }
        dead
    }

    /// Take the oldest entries out until `bytes` are freed, from the victims
    /// only (`oldest_only`) or from every list. Returns them and their bytes.
    pub(crate) fn shed(&self, oldest_only: bool, bytes: usize) -> (Dead, usize) {
        let (mut dead, mut freed) = (self.dead(), 0);
        for shard in &self.shards {
            let shard = &mut *lock(shard);
            let index = shard.index;
            let lists: &mut [&mut Entries] = if oldest_only {
                &mut [&mut shard.victim]
            } else {
                &mut [&mut shard.victim, &mut shard.current]
            };
            for list in lists {
                let mut n = 0;
                while n < list.len() && freed < bytes {
                    freed = freed.saturating_add(list.bytes()[n]);
                    n += 1;
                }
                release(list.split_front(n), index, &mut dead);
            }
        }
        (dead, freed)
    }

    /// Take up to `n` entries, most recently returned first: from the home
    /// shard, then stolen from the others; it stops after an entry over
    /// [`LOCAL_CACHE_MAX_BYTES`] (which no thread cache keeps). `into`
    /// takes them from the end of each list it is given. With
    /// `Some(generation)` (a thread cache aged to it), only from shards
    /// stepped to the same generation (see `decay.rs`). A shard's victims
    /// are taken only while nothing else has been, so that they come
    /// first: returns how many moved, and how many of the first of them
    /// were victims, idle across a step already, which the thread cache
    /// keeps as aged (the next step drops them, as it would have in the
    /// shard).
    pub(crate) fn refill(
        &self,
        home: usize,
        mut n: usize,
        generation: Option<u64>,
        into: &mut impl Sink,
    ) -> (usize, usize) {
        let (mut moved, mut victims) = (0, 0);
        for i in 0..self.shards.len() {
            let shard = self.nth_from(home, i);
            if moved == n {
                break;
            }
            let shard = &mut *lock(shard);
            if let Some(g) = generation {
                if g != shard.generation {
                    continue;
                }
            }
            // The current values first; the victims only into an empty
            // refill.
            if !shard.current.is_empty() {
                let (got, large) = take(into, &mut shard.current, shard.index, n - moved);
                moved += got;
                if large {
                    // Too large for a thread cache: the refill ends with it.
                    n = moved;
                }
            }
            if moved == 0 && !shard.victim.is_empty() {
                let (got, large) = take(into, &mut shard.victim, shard.index, n);
                (moved, victims) = (got, got);
                if large {
                    n = moved;
                }
            }
        }
        (moved, victims)
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
            bytes = usize::saturating_add(bytes, shard.current.total_bytes())
                .saturating_add(shard.victim.total_bytes());
        }
        (count, bytes)
    }

    /// The `i`th shard counted from `home`, which comes first.
    fn nth_from(&self, home: usize, i: usize) -> &Mutex<Shard> {
        &self.shards[(home + i) % self.shards.len()]
    }
}

#[cfg(all(test, not(poolable_loom)))]
mod tests {
    use super::*;

    /// Push a `()` into `shards`: whether it was kept.
    fn push(shards: &Shards) -> bool {
        let mut place = core::mem::MaybeUninit::uninit();
        shards.push(0, Moving::new(&mut place, ()), 0).is_ok()
    }

    fn shards(cap: usize, ceiling: usize) -> Shards {
        Shards::new(Kind::of::<()>(), &[cap], &[ceiling])
    }

    #[test]
    fn a_full_shard_grows_to_its_ceiling_and_trims_halve_it_back() {
        let shards = shards(2, 8);
        for _ in 0..8 {
            assert!(push(&shards));
        }
        assert!(!push(&shards), "past the ceiling");
        let mut shard = lock(&shards.shards[0]);
        assert_eq!(shard.cap, 8);
        shard.shrink();
        assert_eq!(shard.cap, 4);
        shard.shrink();
        shard.shrink();
        assert_eq!(shard.cap, 2, "not below the floor");
    }

    /// A return that finds the shard full doubles its capacity once, as
    /// far as it needs: from a capacity of 1, to 2 (room for the one), not
    /// on to 4.
    #[test]
    fn a_full_shard_doubles_only_as_far_as_it_needs() {
        let shards = shards(1, 8);
        let mut caps = Vec::new();
        for _ in 0..8 {
            assert!(push(&shards));
            caps.push(lock(&shards.shards[0]).cap);
        }
        assert_eq!(caps, [1, 2, 4, 4, 8, 8, 8, 8]);
    }

    #[test]
    fn a_fixed_shard_does_not_grow() {
        let shards = shards(2, 2);
        assert!(push(&shards));
        assert!(push(&shards));
        assert!(!push(&shards));
    }
}
