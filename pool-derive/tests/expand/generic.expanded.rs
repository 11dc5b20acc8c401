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
    type __PoolableChecked<T> = T;
    #[automatically_derived]
    impl<T> ::poolable::Reset for Wrapper<T>
    where
        T: ::poolable::Reset,
    {
        #[inline]
        fn reset(&mut self) {
            let __this = self;
            <__PoolableChecked<Vec<T>> as ::poolable::Reset>::reset(&mut __this.items);
        }
        #[inline]
        fn heap_bytes(&self) -> usize {
            let __this = self;
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        Vec<T>,
                    > as ::poolable::Reset>::heap_bytes(&__this.items),
                )
        }
        #[inline]
        fn is_reset(&self) -> bool {
            let __this = self;
            true
                && <__PoolableChecked<
                    Vec<T>,
                > as ::poolable::Reset>::is_reset(&__this.items)
        }
        #[inline]
        fn used_bytes(&self) -> usize {
            let __this = self;
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        Vec<T>,
                    > as ::poolable::Reset>::used_bytes(&__this.items),
                )
        }
        #[inline]
        fn shrink_heap(&mut self, __max_bytes: usize) {
            let __total = <Self as ::poolable::Reset>::heap_bytes(self);
            if __total <= __max_bytes {
                return;
            }
            let __this: &mut Self = self;
            let level = ::poolable::__private::shrink_level(
                __total,
                &[
                    <__PoolableChecked<
                        Vec<T>,
                    > as ::poolable::Reset>::heap_bytes(&__this.items),
                ],
                __max_bytes,
            );
            <__PoolableChecked<
                Vec<T>,
            > as ::poolable::Reset>::shrink_heap(&mut __this.items, level);
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
            >(|| const {
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
    type __PoolableChecked<T> = T;
    #[automatically_derived]
    impl<U: Send + 'static> ::poolable::Reset for Tagged<U> {
        #[inline]
        fn reset(&mut self) {
            let __this = self;
            <__PoolableChecked<Vec<u8>> as ::poolable::Reset>::reset(&mut __this.bytes);
            <__PoolableChecked<
                PhantomData<U>,
            > as ::poolable::Reset>::reset(&mut __this.unit);
        }
        #[inline]
        fn heap_bytes(&self) -> usize {
            let __this = self;
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        Vec<u8>,
                    > as ::poolable::Reset>::heap_bytes(&__this.bytes),
                )
                .saturating_add(
                    <__PoolableChecked<
                        PhantomData<U>,
                    > as ::poolable::Reset>::heap_bytes(&__this.unit),
                )
        }
        #[inline]
        fn is_reset(&self) -> bool {
            let __this = self;
            true
                && <__PoolableChecked<
                    Vec<u8>,
                > as ::poolable::Reset>::is_reset(&__this.bytes)
                && <__PoolableChecked<
                    PhantomData<U>,
                > as ::poolable::Reset>::is_reset(&__this.unit)
        }
        #[inline]
        fn used_bytes(&self) -> usize {
            let __this = self;
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        Vec<u8>,
                    > as ::poolable::Reset>::used_bytes(&__this.bytes),
                )
                .saturating_add(
                    <__PoolableChecked<
                        PhantomData<U>,
                    > as ::poolable::Reset>::used_bytes(&__this.unit),
                )
        }
        #[inline]
        fn shrink_heap(&mut self, __max_bytes: usize) {
            let __total = <Self as ::poolable::Reset>::heap_bytes(self);
            if __total <= __max_bytes {
                return;
            }
            let __this: &mut Self = self;
            let level = ::poolable::__private::shrink_level(
                __total,
                &[
                    <__PoolableChecked<
                        Vec<u8>,
                    > as ::poolable::Reset>::heap_bytes(&__this.bytes),
                    <__PoolableChecked<
                        PhantomData<U>,
                    > as ::poolable::Reset>::heap_bytes(&__this.unit),
                ],
                __max_bytes,
            );
            <__PoolableChecked<
                Vec<u8>,
            > as ::poolable::Reset>::shrink_heap(&mut __this.bytes, level);
            <__PoolableChecked<
                PhantomData<U>,
            > as ::poolable::Reset>::shrink_heap(&mut __this.unit, level);
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
            >(|| const { ::poolable::Pool::<Self>::with_new(Tagged::new) })
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
    type __PoolableChecked<T> = T;
    #[automatically_derived]
    impl<'a, T> ::poolable::Reset for Bounded<'a, T>
    where
        T: poolable::Reset + Clone,
    {
        #[inline]
        fn reset(&mut self) {
            let __this = self;
            <__PoolableChecked<
                &'a mut T,
            > as ::poolable::Reset>::reset(&mut __this.borrowed);
        }
        #[inline]
        fn heap_bytes(&self) -> usize {
            let __this = self;
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        &'a mut T,
                    > as ::poolable::Reset>::heap_bytes(&__this.borrowed),
                )
        }
        #[inline]
        fn is_reset(&self) -> bool {
            let __this = self;
            true
                && <__PoolableChecked<
                    &'a mut T,
                > as ::poolable::Reset>::is_reset(&__this.borrowed)
        }
        #[inline]
        fn used_bytes(&self) -> usize {
            let __this = self;
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        &'a mut T,
                    > as ::poolable::Reset>::used_bytes(&__this.borrowed),
                )
        }
        #[inline]
        fn shrink_heap(&mut self, __max_bytes: usize) {
            let __total = <Self as ::poolable::Reset>::heap_bytes(self);
            if __total <= __max_bytes {
                return;
            }
            let __this: &mut Self = self;
            let level = ::poolable::__private::shrink_level(
                __total,
                &[
                    <__PoolableChecked<
                        &'a mut T,
                    > as ::poolable::Reset>::heap_bytes(&__this.borrowed),
                ],
                __max_bytes,
            );
            <__PoolableChecked<
                &'a mut T,
            > as ::poolable::Reset>::shrink_heap(&mut __this.borrowed, level);
        }
    }
};
