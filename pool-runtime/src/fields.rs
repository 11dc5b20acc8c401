//! What a derived [`Reset`] impl calls for the fields that its own `Reset`
//! impl handles (no `with`, `default`, `skip`, `heap_bytes` or `check`
//! rule): one tuple of references to them, `(&mut self.a, &mut self.b)`,
//! passed to [`reset`], [`measure`] (or, beside fields with rules of their
//! own, [`heap_bytes`], [`used_bytes`] and [`is_reset`]) or [`shrink_heap`].
//! The generated impl names each such field once per method, not once per
//! field and method with its type spelt out: that is most of what a derive
//! costs to compile, and the code is the same once inlined.
//!
//! A tuple holds up to 12 fields; the derive nests tuples for more, and
//! nesting does not change what [`shrink_heap`] keeps (it sees every field).

use crate::reset::{Measure, Reset, for_each_tuple, shrink_level_by};

/// Fields seen through shared references: `&T` for a `T: Reset`, and
/// tuples of them.
pub trait Fields {
    /// The sum of the fields' [`Reset::heap_bytes`].
    fn heap_bytes(&self) -> usize;
    /// The sum of the fields' [`Reset::used_bytes`].
    fn used_bytes(&self) -> usize;
    /// Whether every field [`Reset::is_reset`].
    fn is_reset(&self) -> bool;
}

/// Fields seen through mutable references: `&mut T` for a `T: Reset`, and
/// tuples of them.
pub trait FieldsMut {
    /// Reset each field, in order.
    fn reset(&mut self);
    /// Call `f` with each field's heap bytes, in order, nested tuples
    /// flattened.
    fn each_heap_bytes(&self, f: &mut dyn FnMut(usize));
    /// [`Reset::shrink_heap`] each field to `level`.
    fn shrink(&mut self, level: usize);
}

impl<T: Reset + ?Sized> Fields for &T {
    #[inline]
    fn heap_bytes(&self) -> usize {
        T::heap_bytes(self)
    }
    #[inline]
    fn used_bytes(&self) -> usize {
        T::used_bytes(self)
    }
    #[inline]
    fn is_reset(&self) -> bool {
        T::is_reset(self)
    }
}

impl<T: Reset + ?Sized> FieldsMut for &mut T {
    #[inline]
    fn reset(&mut self) {
        T::reset(self);
    }
    fn each_heap_bytes(&self, f: &mut dyn FnMut(usize)) {
        f(T::heap_bytes(self));
    }
    fn shrink(&mut self, level: usize) {
        T::shrink_heap(self, level);
    }
}

macro_rules! fields_tuple {
    ($($name:ident . $idx:tt),+) => {
        impl<$($name: Fields),+> Fields for ($($name,)+) {
            #[inline]
            fn heap_bytes(&self) -> usize {
                0_usize $(.saturating_add(self.$idx.heap_bytes()))+
            }
            #[inline]
            fn used_bytes(&self) -> usize {
                0_usize $(.saturating_add(self.$idx.used_bytes()))+
            }
            #[inline]
            fn is_reset(&self) -> bool {
                true $(&& self.$idx.is_reset())+
            }
        }

        impl<$($name: FieldsMut),+> FieldsMut for ($($name,)+) {
            #[inline]
            fn reset(&mut self) {
                $(self.$idx.reset();)+
            }
            fn each_heap_bytes(&self, f: &mut dyn FnMut(usize)) {
                $(self.$idx.each_heap_bytes(f);)+
            }
            fn shrink(&mut self, level: usize) {
                $(self.$idx.shrink(level);)+
            }
        }
    };
}

for_each_tuple!(fields_tuple);

/// Reset the fields.
#[inline]
pub fn reset(mut fields: impl FieldsMut) {
    fields.reset();
}

/// The fields' heap bytes.
#[inline]
pub fn heap_bytes(fields: impl Fields) -> usize {
    fields.heap_bytes()
}

/// The fields' used bytes.
#[inline]
pub fn used_bytes(fields: impl Fields) -> usize {
    fields.used_bytes()
}

/// Whether every field is reset.
#[inline]
pub fn is_reset(fields: impl Fields) -> bool {
    fields.is_reset()
}

/// A derived `Reset::__measure` of a struct whose fields are all plain:
/// the fields' measure `what`, `is_reset` as 0 or 1.
#[inline]
pub fn measure(what: Measure, fields: impl Fields) -> Option<usize> {
    Some(match what {
        Measure::Heap => fields.heap_bytes(),
        Measure::Used => fields.used_bytes(),
        Measure::IsReset => usize::from(fields.is_reset()),
    })
}

/// A derived `shrink_heap`: for a struct of `total` heap bytes, cut the
/// fields to one common level so that the struct keeps at most `max_bytes`
/// (see [`Reset::shrink_heap`]); nothing if it already fits.
pub fn shrink_heap(total: usize, mut fields: impl FieldsMut, max_bytes: usize) {
    if total <= max_bytes {
        return;
    }
    let level = shrink_level_by(total, max_bytes, |f| fields.each_heap_bytes(f));
    fields.shrink(level);
}

/// [`shrink_heap`] for a struct whose heap bytes are its fields': their
/// total is worked out here, not by the derived code.
#[inline]
pub fn shrink_fields(fields: impl FieldsMut, max_bytes: usize) {
    let mut total = 0_usize;
    fields.each_heap_bytes(&mut |bytes| total = total.saturating_add(bytes));
    shrink_heap(total, fields, max_bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tuple_of_fields_does_what_each_field_would() {
        let (mut a, mut b, mut c) = (vec![1_u8, 2], String::from("x"), 7_u32);
        assert!(!is_reset((&a, &b, &c)));
        reset((&mut a, (&mut b,), &mut c));
        assert!(is_reset((&a, (&b,), &c)));
        assert_eq!(heap_bytes((&a, &b)), a.capacity() + b.capacity());
        assert_eq!(used_bytes((&a, &b)), 0);
    }

    #[test]
    fn shrinking_nested_tuples_sees_every_field() {
        let (mut small, mut big, mut other) = (
            Vec::<u8>::with_capacity(100),
            Vec::<u8>::with_capacity(10_000),
            Vec::<u8>::with_capacity(10_000),
        );
        let total = small.capacity() + big.capacity() + other.capacity();
        // `big` and `other` in one nested tuple: each is cut to the level,
        // as if the three were side by side.
        shrink_heap(total, (&mut small, (&mut big, &mut other)), 4_100);
        assert_eq!(small.capacity(), 100);
        assert!(big.capacity() <= 2_000 && other.capacity() <= 2_000);
        assert!(small.capacity() + big.capacity() + other.capacity() <= 4_100);
    }
}
