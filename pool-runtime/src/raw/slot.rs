//! [`move_into`]: move a value from one `Option` slot into an empty one
//! with one copy. Safe code (`mem::replace(dst, src.take())`) copies it
//! twice, through a temporary on the stack, because `src` is written (with
//! `None`) between the two copies; on the thread tier's hot path that was
//! about 6 instructions per move and a stack frame (measured with
//! callgrind in `benches/instructions.rs`).

/// Move the value in `src` (if any) into `dst`, leaving `src` `None`.
/// `dst` must be `None`: a value in it would be forgotten, not dropped.
#[inline(always)]
pub(crate) fn move_into<T>(dst: &mut Option<T>, src: &mut Option<T>) {
    debug_assert!(dst.is_none(), "`move_into` forgets what `dst` held");
    // SAFETY: two `&mut` never overlap, and both point to valid, aligned
    // `Option<T>`s. After the copy, `dst` owns the value and `src` holds a
    // bitwise duplicate of it, which is overwritten with `None` before any
    // code (and so any panic) can observe or drop it; `write` does not drop
    // the duplicate. `dst`'s old contents are overwritten without being
    // dropped: the caller keeps `dst` `None`, and forgetting is safe anyway.
    unsafe {
        core::ptr::copy_nonoverlapping(src, dst, 1);
        core::ptr::write(src, None);
    }
}

#[cfg(all(test, not(poolable_loom)))]
mod tests {
    use super::*;
    use std::rc::Rc;

    #[test]
    fn a_moved_value_is_owned_once_and_the_source_is_empty() {
        let value = Rc::new(String::from("moved"));
        let (mut src, mut dst) = (Some(Rc::clone(&value)), None);
        move_into(&mut dst, &mut src);
        assert!(src.is_none());
        assert_eq!(dst.as_deref().map(String::as_str), Some("moved"));
        // One owner besides `value`: nothing duplicated, nothing leaked.
        assert_eq!(Rc::strong_count(&value), 2);
        drop(dst);
        assert_eq!(Rc::strong_count(&value), 1);
    }

    #[test]
    fn moving_from_an_empty_slot_leaves_both_empty() {
        let (mut src, mut dst) = (None::<Box<u8>>, None);
        move_into(&mut dst, &mut src);
        assert!(src.is_none() && dst.is_none());
    }
}
