//! Each container attribute.
use poolable::Poolable;
#[derive(Poolable)]
#[poolable(
    new = Upload::with_capacity,
    max_retained = 64,
    max_bytes = 1<<20,
    oversize = "shrink",
    name = "uploads"
)]
pub struct Upload {
    pub data: Vec<u8>,
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
    impl ::poolable::Reset for Upload {
        #[inline]
        fn reset(&mut self) {
            <__PoolableChecked<Vec<u8>> as ::poolable::Reset>::reset(&mut self.data);
        }
        #[inline]
        fn heap_bytes(&self) -> usize {
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        Vec<u8>,
                    > as ::poolable::Reset>::heap_bytes(&self.data),
                )
        }
        #[inline]
        fn is_reset(&self) -> bool {
            true
                && <__PoolableChecked<
                    Vec<u8>,
                > as ::poolable::Reset>::is_reset(&self.data)
        }
        #[inline]
        fn used_bytes(&self) -> usize {
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        Vec<u8>,
                    > as ::poolable::Reset>::used_bytes(&self.data),
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
                    > as ::poolable::Reset>::heap_bytes(&self.data),
                ],
                max_bytes,
            );
            <__PoolableChecked<
                Vec<u8>,
            > as ::poolable::Reset>::shrink_heap(&mut self.data, level);
        }
    }
    const __POOLABLE_FIELDS_SEND: bool = true
        & <Vec<u8> as ::poolable::__private::SendField>::OK;
    type __PoolableChecked<T> = <T as ::poolable::__private::Checked<
        __POOLABLE_FIELDS_SEND,
    >>::Is;
    #[automatically_derived]
    impl Upload {
        /// The type's pool: the `static` that `Poolable::pool`
        /// returns, callable without the trait in scope.
        #[doc(hidden)]
        #[inline]
        pub fn pool() -> &'static ::poolable::Pool<__PoolableChecked<Upload>> {
            static POOL: ::core::mem::ManuallyDrop<
                ::poolable::Pool<__PoolableChecked<Upload>>,
            > = ::core::mem::ManuallyDrop::new(
                ::poolable::Pool::<
                    __PoolableChecked<Upload>,
                >::with_new(Upload::with_capacity)
                    .max_retained(64)
                    .max_bytes(1 << 20)
                    .oversize(::poolable::Oversize::Shrink)
                    .name("uploads"),
            );
            &POOL
        }
    }
    #[automatically_derived]
    impl ::poolable::Poolable for Upload
    where
        for<'a> Upload: ::core::marker::Send,
    {
        #[inline]
        fn pool() -> &'static ::poolable::Pool<Self> {
            Upload::pool()
        }
    }
};
#[derive(Poolable, Default)]
#[poolable(max_bytes = "auto", max_bytes = 4<<20)]
pub struct Body {
    pub chunks: Vec<Vec<u8>>,
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
    impl ::poolable::Reset for Body {
        #[inline]
        fn reset(&mut self) {
            <__PoolableChecked<
                Vec<Vec<u8>>,
            > as ::poolable::Reset>::reset(&mut self.chunks);
        }
        #[inline]
        fn heap_bytes(&self) -> usize {
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        Vec<Vec<u8>>,
                    > as ::poolable::Reset>::heap_bytes(&self.chunks),
                )
        }
        #[inline]
        fn is_reset(&self) -> bool {
            true
                && <__PoolableChecked<
                    Vec<Vec<u8>>,
                > as ::poolable::Reset>::is_reset(&self.chunks)
        }
        #[inline]
        fn used_bytes(&self) -> usize {
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        Vec<Vec<u8>>,
                    > as ::poolable::Reset>::used_bytes(&self.chunks),
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
                        Vec<Vec<u8>>,
                    > as ::poolable::Reset>::heap_bytes(&self.chunks),
                ],
                max_bytes,
            );
            <__PoolableChecked<
                Vec<Vec<u8>>,
            > as ::poolable::Reset>::shrink_heap(&mut self.chunks, level);
        }
    }
    const __POOLABLE_FIELDS_SEND: bool = true
        & <Vec<Vec<u8>> as ::poolable::__private::SendField>::OK;
    type __PoolableChecked<T> = <T as ::poolable::__private::Checked<
        __POOLABLE_FIELDS_SEND,
    >>::Is;
    #[automatically_derived]
    impl Body {
        /// The type's pool: the `static` that `Poolable::pool`
        /// returns, callable without the trait in scope.
        #[doc(hidden)]
        #[inline]
        pub fn pool() -> &'static ::poolable::Pool<__PoolableChecked<Body>> {
            static POOL: ::core::mem::ManuallyDrop<
                ::poolable::Pool<__PoolableChecked<Body>>,
            > = ::core::mem::ManuallyDrop::new(
                ::poolable::Pool::<
                    __PoolableChecked<Body>,
                >::with_new(
                        <Body as ::poolable::__private::NewByDefault>::new_by_default,
                    )
                    .max_bytes_auto()
                    .max_bytes(4 << 20),
            );
            &POOL
        }
    }
    #[automatically_derived]
    impl ::poolable::Poolable for Body
    where
        for<'a> Body: ::core::marker::Send,
    {
        #[inline]
        fn pool() -> &'static ::poolable::Pool<Self> {
            Body::pool()
        }
    }
};
#[derive(Poolable, Default)]
#[poolable(crate = "my_crate::poolable")]
pub struct Renamed {
    pub buf: String,
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
    impl my_crate::poolable::Reset for Renamed {
        #[inline]
        fn reset(&mut self) {
            <__PoolableChecked<
                String,
            > as my_crate::poolable::Reset>::reset(&mut self.buf);
        }
        #[inline]
        fn heap_bytes(&self) -> usize {
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        String,
                    > as my_crate::poolable::Reset>::heap_bytes(&self.buf),
                )
        }
        #[inline]
        fn is_reset(&self) -> bool {
            true
                && <__PoolableChecked<
                    String,
                > as my_crate::poolable::Reset>::is_reset(&self.buf)
        }
        #[inline]
        fn used_bytes(&self) -> usize {
            0usize
                .saturating_add(
                    <__PoolableChecked<
                        String,
                    > as my_crate::poolable::Reset>::used_bytes(&self.buf),
                )
        }
        #[inline]
        fn shrink_heap(&mut self, max_bytes: usize) {
            let total = <Self as my_crate::poolable::Reset>::heap_bytes(self);
            if total <= max_bytes {
                return;
            }
            let level = my_crate::poolable::__private::shrink_level(
                total,
                &[
                    <__PoolableChecked<
                        String,
                    > as my_crate::poolable::Reset>::heap_bytes(&self.buf),
                ],
                max_bytes,
            );
            <__PoolableChecked<
                String,
            > as my_crate::poolable::Reset>::shrink_heap(&mut self.buf, level);
        }
    }
    const __POOLABLE_FIELDS_SEND: bool = true
        & <String as my_crate::poolable::__private::SendField>::OK;
    type __PoolableChecked<T> = <T as my_crate::poolable::__private::Checked<
        __POOLABLE_FIELDS_SEND,
    >>::Is;
    #[automatically_derived]
    impl Renamed {
        /// The type's pool: the `static` that `Poolable::pool`
        /// returns, callable without the trait in scope.
        #[doc(hidden)]
        #[inline]
        pub fn pool() -> &'static my_crate::poolable::Pool<__PoolableChecked<Renamed>> {
            static POOL: ::core::mem::ManuallyDrop<
                my_crate::poolable::Pool<__PoolableChecked<Renamed>>,
            > = ::core::mem::ManuallyDrop::new(
                my_crate::poolable::Pool::<
                    __PoolableChecked<Renamed>,
                >::with_new(
                    <Renamed as my_crate::poolable::__private::NewByDefault>::new_by_default,
                ),
            );
            &POOL
        }
    }
    #[automatically_derived]
    impl my_crate::poolable::Poolable for Renamed
    where
        for<'a> Renamed: ::core::marker::Send,
    {
        #[inline]
        fn pool() -> &'static my_crate::poolable::Pool<Self> {
            Renamed::pool()
        }
    }
};
