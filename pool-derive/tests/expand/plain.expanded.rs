//! A plain struct: each field reset by its type's `Reset` impl.
use poolable::Poolable;
#[derive(Poolable, Default)]
pub struct Request {
    pub id: u64,
    pub path: String,
    pub headers: Vec<(String, String)>,
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
    impl ::poolable::Reset for Request {
        #[inline]
        fn reset(&mut self) {
            <__PoolableChecked<u64> as ::poolable::Reset>::reset(&mut self.id);
            <__PoolableChecked<String> as ::poolable::Reset>::reset(&mut self.path);
            <__PoolableChecked<
                Vec<(String, String)>,
            > as ::poolable::Reset>::reset(&mut self.headers);
        }
        #[inline]
        fn heap_bytes(&self) -> usize {
            0usize
                .saturating_add(
                    <__PoolableChecked<u64> as ::poolable::Reset>::heap_bytes(&self.id),
                )
                .saturating_add(
                    <__PoolableChecked<
                        String,
                    > as ::poolable::Reset>::heap_bytes(&self.path),
                )
                .saturating_add(
                    <__PoolableChecked<
                        Vec<(String, String)>,
                    > as ::poolable::Reset>::heap_bytes(&self.headers),
                )
        }
        #[inline]
        fn is_reset(&self) -> bool {
            true && <__PoolableChecked<u64> as ::poolable::Reset>::is_reset(&self.id)
                && <__PoolableChecked<String> as ::poolable::Reset>::is_reset(&self.path)
                && <__PoolableChecked<
                    Vec<(String, String)>,
                > as ::poolable::Reset>::is_reset(&self.headers)
        }
        #[inline]
        fn used_bytes(&self) -> usize {
            0usize
                .saturating_add(
                    <__PoolableChecked<u64> as ::poolable::Reset>::used_bytes(&self.id),
                )
                .saturating_add(
                    <__PoolableChecked<
                        String,
                    > as ::poolable::Reset>::used_bytes(&self.path),
                )
                .saturating_add(
                    <__PoolableChecked<
                        Vec<(String, String)>,
                    > as ::poolable::Reset>::used_bytes(&self.headers),
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
                    <__PoolableChecked<u64> as ::poolable::Reset>::heap_bytes(&self.id),
                    <__PoolableChecked<
                        String,
                    > as ::poolable::Reset>::heap_bytes(&self.path),
                    <__PoolableChecked<
                        Vec<(String, String)>,
                    > as ::poolable::Reset>::heap_bytes(&self.headers),
                ],
                max_bytes,
            );
            <__PoolableChecked<
                u64,
            > as ::poolable::Reset>::shrink_heap(&mut self.id, level);
            <__PoolableChecked<
                String,
            > as ::poolable::Reset>::shrink_heap(&mut self.path, level);
            <__PoolableChecked<
                Vec<(String, String)>,
            > as ::poolable::Reset>::shrink_heap(&mut self.headers, level);
        }
    }
    const __POOLABLE_FIELDS_SEND: bool = true
        & <u64 as ::poolable::__private::SendField>::OK
        & <String as ::poolable::__private::SendField>::OK
        & <Vec<(String, String)> as ::poolable::__private::SendField>::OK;
    type __PoolableChecked<T> = <T as ::poolable::__private::Checked<
        __POOLABLE_FIELDS_SEND,
    >>::Is;
    #[automatically_derived]
    impl Request {
        /// The type's pool: the `static` that `Poolable::pool`
        /// returns, callable without the trait in scope.
        #[doc(hidden)]
        #[inline]
        pub fn pool() -> &'static ::poolable::Pool<__PoolableChecked<Request>> {
            static POOL: ::core::mem::ManuallyDrop<
                ::poolable::Pool<__PoolableChecked<Request>>,
            > = ::core::mem::ManuallyDrop::new(
                ::poolable::Pool::<
                    __PoolableChecked<Request>,
                >::with_new(
                    <Request as ::poolable::__private::NewByDefault>::new_by_default,
                ),
            );
            &POOL
        }
    }
    #[automatically_derived]
    impl ::poolable::Poolable for Request
    where
        for<'a> Request: ::core::marker::Send,
    {
        #[inline]
        fn pool() -> &'static ::poolable::Pool<Self> {
            Request::pool()
        }
    }
};
/// A tuple struct, reset only (no pool).
#[derive(poolable::Reset, Default)]
pub struct Pair(Vec<u8>, Option<u32>);
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
    impl ::poolable::Reset for Pair {
        #[inline]
        fn reset(&mut self) {
            <__PoolableChecked<Vec<u8>> as ::poolable::Reset>::reset(&mut self.0);
            <__PoolableChecked<Option<u32>> as ::poolable::Reset>::reset(&mut self.1);
        }
        #[inline]
        fn heap_bytes(&self) -> usize {
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        Vec<u8>,
                    > as ::poolable::Reset>::heap_bytes(&self.0),
                )
                .saturating_add(
                    <__PoolableChecked<
                        Option<u32>,
                    > as ::poolable::Reset>::heap_bytes(&self.1),
                )
        }
        #[inline]
        fn is_reset(&self) -> bool {
            true && <__PoolableChecked<Vec<u8>> as ::poolable::Reset>::is_reset(&self.0)
                && <__PoolableChecked<
                    Option<u32>,
                > as ::poolable::Reset>::is_reset(&self.1)
        }
        #[inline]
        fn used_bytes(&self) -> usize {
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        Vec<u8>,
                    > as ::poolable::Reset>::used_bytes(&self.0),
                )
                .saturating_add(
                    <__PoolableChecked<
                        Option<u32>,
                    > as ::poolable::Reset>::used_bytes(&self.1),
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
                    > as ::poolable::Reset>::heap_bytes(&self.0),
                    <__PoolableChecked<
                        Option<u32>,
                    > as ::poolable::Reset>::heap_bytes(&self.1),
                ],
                max_bytes,
            );
            <__PoolableChecked<
                Vec<u8>,
            > as ::poolable::Reset>::shrink_heap(&mut self.0, level);
            <__PoolableChecked<
                Option<u32>,
            > as ::poolable::Reset>::shrink_heap(&mut self.1, level);
        }
    }
};
