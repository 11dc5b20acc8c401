//! A small per-thread memo of `&'static` values keyed by their type: how the
//! pools of generic derived types are found without a lock or a hash lookup
//! on every `T::pool()` call.

use crate::sync::thread_local_const;
use core::any::TypeId;
use core::cell::Cell;
use core::ptr::NonNull;

const WAYS: usize = 4;

/// A type and its value. `NonNull`: its niche is the `Option`'s tag, so
/// an entry is three words and a hit compares them without a tag test.
type Entry = Option<(TypeId, NonNull<()>)>;

struct Memo {
    entries: [Cell<Entry>; WAYS],
    /// The way the next insertion replaces (round robin).
    next: Cell<usize>,
}

thread_local_const! {
    static MEMO: Memo = Memo {
        entries: [const { Cell::new(None) }; WAYS],
        next: Cell::new(0),
    };
}

/// The value memoised for `P` on this thread.
#[inline]
pub(crate) fn get<P: 'static>() -> Option<&'static P> {
    let id = TypeId::of::<P>();
    MEMO.try_with(|memo| {
        memo.entries.iter().find_map(|entry| match entry.get() {
            // SAFETY: entries are only written by `put::<P>`, from a
            // `&'static P`, next to `TypeId::of::<P>()`; the ids match.
            Some((key, ptr)) if key == id => Some(unsafe { ptr.cast::<P>().as_ref() }),
            _ => None,
        })
    })
    .ok()
    .flatten()
}

/// Remember `value` for `P` on this thread.
pub(crate) fn put<P: 'static>(value: &'static P) {
    let _ = MEMO.try_with(|memo| {
        let way = memo.next.get();
        memo.entries[way].set(Some((TypeId::of::<P>(), NonNull::from(value).cast())));
        memo.next.set((way + 1) % WAYS);
    });
}

#[cfg(all(test, not(poolable_loom)))]
mod tests {
    use super::*;

    static A: u8 = 1;
    static B: u16 = 2;

    #[test]
    fn the_memo_answers_by_type_and_forgets_the_oldest() {
        assert!(get::<u32>().is_none());
        put(&A);
        put(&B);
        assert_eq!(get::<u8>(), Some(&1));
        assert_eq!(get::<u16>(), Some(&2));
        // Four more types push both out.
        static C: [u8; 1] = [3];
        static D: [u8; 2] = [4; 2];
        static E: [u8; 3] = [5; 3];
        static F: [u8; 4] = [6; 4];
        put(&C);
        put(&D);
        put(&E);
        put(&F);
        assert!(get::<u8>().is_none() && get::<u16>().is_none());
        assert_eq!(get::<[u8; 4]>(), Some(&[6; 4]));
    }
}
