//! Generic structs: inferred bounds (`T: Reset` for the parameters a reset
//! field uses, none for `PhantomData<T>`), and the pool from the runtime's
//! per-type registry instead of a `static`.
use poolable::Poolable;
use std::marker::PhantomData;
#[derive(Poolable, Default)]
pub struct Wrapper<T> {
    pub items: Vec<T>,
}
#[doc(hidden)]
#[allow(non_upper_case_globals, unused_qualifications)]
const _: () = {
    mod __poolable_unchecked {
        pub type __PoolableChecked<T> = T;
    }
    #[allow(unused_imports)]
    use __poolable_unchecked::*;
    #[automatically_derived]
    impl<T> ::poolable::Reset for Wrapper<T>
    where
        T: ::poolable::Reset,
    {
        #[inline]
        fn reset(&mut self) {
            <__PoolableChecked<Vec<T>> as ::poolable::Reset>::reset(&mut self.items);
        }
        #[inline]
        fn heap_bytes(&self) -> usize {
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        Vec<T>,
                    > as ::poolable::Reset>::heap_bytes(&self.items),
                )
        }
        #[inline]
        fn is_reset(&self) -> bool {
            true
                && <__PoolableChecked<
                    Vec<T>,
                > as ::poolable::Reset>::is_reset(&self.items)
        }
        #[inline]
        fn used_bytes(&self) -> usize {
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        Vec<T>,
                    > as ::poolable::Reset>::used_bytes(&self.items),
                )
        }
        #[inline]
        fn shrink_heap(&mut self, max_bytes: usize) {
            let total = <Self as ::poolable::Reset>::heap_bytes(self);
            if total <= max_bytes {
                return;
            }
            let level = ::poolable::__private::shrink_level(
                total,
                &[
                    <__PoolableChecked<
                        Vec<T>,
                    > as ::poolable::Reset>::heap_bytes(&self.items),
                ],
                max_bytes,
            );
            <__PoolableChecked<
                Vec<T>,
            > as ::poolable::Reset>::shrink_heap(&mut self.items, level);
        }
    }
    #[automatically_derived]
    impl<T> ::poolable::Poolable for Wrapper<T>
    where
        T: ::poolable::Reset,
        T: ::core::marker::Send + 'static,
        Wrapper<T>: ::core::default::Default,
    {
        fn pool() -> &'static ::poolable::Pool<Self> {
            ::poolable::__private::generic_pool::<
                Self,
            >(|| {
                ::poolable::Pool::<
                    Self,
                >::with_new(
                    <Wrapper<T> as ::poolable::__private::NewByDefault>::new_by_default,
                )
            })
        }
    }
};
#[derive(Poolable)]
#[poolable(new = Tagged::new)]
pub struct Tagged<U: Send + 'static> {
    pub bytes: Vec<u8>,
    pub unit: PhantomData<U>,
}
#[doc(hidden)]
#[allow(non_upper_case_globals, unused_qualifications)]
const _: () = {
    mod __poolable_unchecked {
        pub type __PoolableChecked<T> = T;
    }
    #[allow(unused_imports)]
    use __poolable_unchecked::*;
    #[automatically_derived]
    impl<U: Send + 'static> ::poolable::Reset for Tagged<U> {
        #[inline]
        fn reset(&mut self) {
            <__PoolableChecked<Vec<u8>> as ::poolable::Reset>::reset(&mut self.bytes);
            <__PoolableChecked<
                PhantomData<U>,
            > as ::poolable::Reset>::reset(&mut self.unit);
        }
        #[inline]
        fn heap_bytes(&self) -> usize {
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        Vec<u8>,
                    > as ::poolable::Reset>::heap_bytes(&self.bytes),
                )
                .saturating_add(
                    <__PoolableChecked<
                        PhantomData<U>,
                    > as ::poolable::Reset>::heap_bytes(&self.unit),
                )
        }
        #[inline]
        fn is_reset(&self) -> bool {
            true
                && <__PoolableChecked<
                    Vec<u8>,
                > as ::poolable::Reset>::is_reset(&self.bytes)
                && <__PoolableChecked<
                    PhantomData<U>,
                > as ::poolable::Reset>::is_reset(&self.unit)
        }
        #[inline]
        fn used_bytes(&self) -> usize {
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        Vec<u8>,
                    > as ::poolable::Reset>::used_bytes(&self.bytes),
                )
                .saturating_add(
                    <__PoolableChecked<
                        PhantomData<U>,
                    > as ::poolable::Reset>::used_bytes(&self.unit),
                )
        }
        #[inline]
        fn shrink_heap(&mut self, max_bytes: usize) {
            let total = <Self as ::poolable::Reset>::heap_bytes(self);
            if total <= max_bytes {
                return;
            }
            let level = ::poolable::__private::shrink_level(
                total,
                &[
                    <__PoolableChecked<
                        Vec<u8>,
                    > as ::poolable::Reset>::heap_bytes(&self.bytes),
                    <__PoolableChecked<
                        PhantomData<U>,
                    > as ::poolable::Reset>::heap_bytes(&self.unit),
                ],
                max_bytes,
            );
            <__PoolableChecked<
                Vec<u8>,
            > as ::poolable::Reset>::shrink_heap(&mut self.bytes, level);
            <__PoolableChecked<
                PhantomData<U>,
            > as ::poolable::Reset>::shrink_heap(&mut self.unit, level);
        }
    }
    #[automatically_derived]
    impl<U: Send + 'static> ::poolable::Poolable for Tagged<U>
    where
        U: ::core::marker::Send + 'static,
    {
        fn pool() -> &'static ::poolable::Pool<Self> {
            ::poolable::__private::generic_pool::<
                Self,
            >(|| { ::poolable::Pool::<Self>::with_new(Tagged::new) })
        }
    }
};
#[derive(poolable::Reset)]
#[poolable(bound = "T: poolable::Reset + Clone")]
pub struct Bounded<'a, T> {
    pub borrowed: &'a mut T,
}
#[doc(hidden)]
#[allow(non_upper_case_globals, unused_qualifications)]
const _: () = {
    mod __poolable_unchecked {
        pub type __PoolableChecked<T> = T;
    }
    #[allow(unused_imports)]
    use __poolable_unchecked::*;
    #[automatically_derived]
    impl<'a, T> ::poolable::Reset for Bounded<'a, T>
    where
        T: poolable::Reset + Clone,
    {
        #[inline]
        fn reset(&mut self) {
            <__PoolableChecked<
                &'a mut T,
            > as ::poolable::Reset>::reset(&mut self.borrowed);
        }
        #[inline]
        fn heap_bytes(&self) -> usize {
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        &'a mut T,
                    > as ::poolable::Reset>::heap_bytes(&self.borrowed),
                )
        }
        #[inline]
        fn is_reset(&self) -> bool {
            true
                && <__PoolableChecked<
                    &'a mut T,
                > as ::poolable::Reset>::is_reset(&self.borrowed)
        }
        #[inline]
        fn used_bytes(&self) -> usize {
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        &'a mut T,
                    > as ::poolable::Reset>::used_bytes(&self.borrowed),
                )
        }
        #[inline]
        fn shrink_heap(&mut self, max_bytes: usize) {
            let total = <Self as ::poolable::Reset>::heap_bytes(self);
            if total <= max_bytes {
                return;
            }
            let level = ::poolable::__private::shrink_level(
                total,
                &[
                    <__PoolableChecked<
                        &'a mut T,
                    > as ::poolable::Reset>::heap_bytes(&self.borrowed),
                ],
                max_bytes,
            );
            <__PoolableChecked<
                &'a mut T,
            > as ::poolable::Reset>::shrink_heap(&mut self.borrowed, level);
        }
    }
};
