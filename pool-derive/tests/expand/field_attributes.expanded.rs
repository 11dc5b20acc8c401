//! Each field attribute.
use poolable::Poolable;
fn reset_to_seven(n: &mut u32) {
    *n = 7;
}
fn is_seven(n: &u32) -> bool {
    *n == 7
}
fn measure(table: &Table) -> usize {
    table.bytes()
}
#[derive(Poolable, Default)]
pub struct Fields {
    #[poolable(skip)]
    pub created: std::time::Instant,
    #[poolable(default)]
    pub state: State,
    #[poolable(with = reset_to_seven, check = is_seven)]
    pub seven: u32,
    #[poolable(max_capacity = 1024)]
    pub body: Vec<u8>,
    #[poolable(zeroize)]
    pub token: Vec<u8>,
    #[poolable(heap_bytes = measure, with = Table::clear)]
    pub table: Table,
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
    #[diagnostic::do_not_recommend]
    impl ::poolable::Reset for Fields {
        #[inline]
        fn reset(&mut self) {
            <Vec<u8> as ::poolable::Zeroize>::zeroize(&mut self.token);
            self.state = <State as ::core::default::Default>::default();
            {
                let field = &mut self.seven;
                let reset: fn(&mut u32) = reset_to_seven;
                reset(field);
            }
            <__PoolableChecked<Vec<u8>> as ::poolable::Reset>::reset(&mut self.body);
            <Vec<u8> as ::poolable::Shrink>::shrink_to(&mut self.body, 1024);
            <__PoolableChecked<Vec<u8>> as ::poolable::Reset>::reset(&mut self.token);
            {
                let field = &mut self.table;
                let reset: fn(&mut Table) = Table::clear;
                reset(field);
            }
        }
        #[inline]
        fn heap_bytes(&self) -> usize {
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        Vec<u8>,
                    > as ::poolable::Reset>::heap_bytes(&self.body),
                )
                .saturating_add(
                    <__PoolableChecked<
                        Vec<u8>,
                    > as ::poolable::Reset>::heap_bytes(&self.token),
                )
                .saturating_add({
                    let measure: fn(&Table) -> usize = measure;
                    measure(&self.table)
                })
        }
        #[inline]
        fn is_reset(&self) -> bool {
            true
                && {
                    #[allow(unused_imports)]
                    use ::poolable::__private::{
                        IsResetFallback as _, IsResetViaReset as _,
                    };
                    (&::poolable::__private::IsReset(&self.state)).is_reset()
                }
                && {
                    let check: fn(&u32) -> bool = is_seven;
                    check(&self.seven)
                }
                && <__PoolableChecked<
                    Vec<u8>,
                > as ::poolable::Reset>::is_reset(&self.body)
                && <__PoolableChecked<
                    Vec<u8>,
                > as ::poolable::Reset>::is_reset(&self.token)
                && {
                    #[allow(unused_imports)]
                    use ::poolable::__private::{
                        IsResetFallback as _, IsResetViaReset as _,
                    };
                    (&::poolable::__private::IsReset(&self.table)).is_reset()
                }
        }
        #[inline]
        fn used_bytes(&self) -> usize {
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        Vec<u8>,
                    > as ::poolable::Reset>::used_bytes(&self.body),
                )
                .saturating_add(
                    <__PoolableChecked<
                        Vec<u8>,
                    > as ::poolable::Reset>::used_bytes(&self.token),
                )
                .saturating_add({
                    let measure: fn(&Table) -> usize = measure;
                    measure(&self.table)
                })
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
                    > as ::poolable::Reset>::heap_bytes(&self.body),
                    <__PoolableChecked<
                        Vec<u8>,
                    > as ::poolable::Reset>::heap_bytes(&self.token),
                ],
                max_bytes,
            );
            <__PoolableChecked<
                Vec<u8>,
            > as ::poolable::Reset>::shrink_heap(&mut self.body, level);
            <__PoolableChecked<
                Vec<u8>,
            > as ::poolable::Reset>::shrink_heap(&mut self.token, level);
        }
    }
    #[automatically_derived]
    impl ::core::ops::Drop for Fields {
        fn drop(&mut self) {
            <Vec<u8> as ::poolable::Zeroize>::zeroize(&mut self.token);
        }
    }
    const __POOLABLE_FIELDS_SEND: bool = true
        & <std::time::Instant as ::poolable::__private::SendField>::OK
        & <State as ::poolable::__private::SendField>::OK
        & <u32 as ::poolable::__private::SendField>::OK
        & <Vec<u8> as ::poolable::__private::SendField>::OK
        & <Vec<u8> as ::poolable::__private::SendField>::OK
        & <Table as ::poolable::__private::SendField>::OK;
    type __PoolableChecked<T> = <T as ::poolable::__private::Checked<
        __POOLABLE_FIELDS_SEND,
    >>::Is;
    #[automatically_derived]
    impl Fields {
        /// The type's pool: the `static` that `Poolable::pool`
        /// returns, callable without the trait in scope.
        #[doc(hidden)]
        #[inline]
        pub fn pool() -> &'static ::poolable::Pool<__PoolableChecked<Fields>> {
            static POOL: ::core::mem::ManuallyDrop<
                ::poolable::Pool<__PoolableChecked<Fields>>,
            > = ::core::mem::ManuallyDrop::new(
                ::poolable::Pool::<
                    __PoolableChecked<Fields>,
                >::with_new(
                    <Fields as ::poolable::__private::NewByDefault>::new_by_default,
                ),
            );
            &POOL
        }
    }
    #[automatically_derived]
    impl ::poolable::Poolable for Fields
    where
        for<'a> Fields: ::core::marker::Send,
    {
        #[inline]
        fn pool() -> &'static ::poolable::Pool<Self> {
            Fields::pool()
        }
    }
};
