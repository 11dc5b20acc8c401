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
    const __POOLABLE_FIELDS_OK: bool = {
        let _ = <Vec<u8> as ::poolable::__private::SendField>::OK;
        let _ = <Vec<u8> as ::poolable::Reset>::reset;
        true
    };
    type __PoolableChecked<T> = <T as ::poolable::__private::Checked<
        __POOLABLE_FIELDS_OK,
    >>::Is;
    #[automatically_derived]
    #[diagnostic::do_not_recommend]
    impl ::poolable::Reset for Upload {
        #[inline]
        fn reset(&mut self) {
            let __this: &mut __PoolableChecked<Upload> = self;
            ::poolable::__private::reset((&mut __this.data,));
        }
        #[inline]
        fn __measure(
            &self,
            __what: ::poolable::__private::Measure,
        ) -> ::core::option::Option<usize> {
            let __this: &__PoolableChecked<Upload> = self;
            ::poolable::__private::measure(__what, (&__this.data,))
        }
        #[inline]
        fn shrink_heap(&mut self, __max_bytes: usize) {
            let __total = ::poolable::Reset::heap_bytes(self);
            let __this: &mut __PoolableChecked<Upload> = self;
            ::poolable::__private::shrink_heap(__total, (&mut __this.data,), __max_bytes)
        }
    }
    impl Upload {
        #[doc(hidden)]
        #[inline]
        pub fn pool() -> &'static ::poolable::Pool<__PoolableChecked<Upload>> {
            static POOL: ::core::mem::ManuallyDrop<
                ::poolable::Pool<__PoolableChecked<Upload>>,
            > = ::core::mem::ManuallyDrop::new(
                ::poolable::Pool::with_new(Upload::with_capacity)
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
    const __POOLABLE_FIELDS_OK: bool = {
        let _ = <Vec<Vec<u8>> as ::poolable::__private::SendField>::OK;
        let _ = <Vec<Vec<u8>> as ::poolable::Reset>::reset;
        let _ = <Body as ::poolable::__private::NewByDefault>::new_by_default;
        true
    };
    type __PoolableChecked<T> = <T as ::poolable::__private::Checked<
        __POOLABLE_FIELDS_OK,
    >>::Is;
    #[automatically_derived]
    #[diagnostic::do_not_recommend]
    impl ::poolable::Reset for Body {
        #[inline]
        fn reset(&mut self) {
            let __this: &mut __PoolableChecked<Body> = self;
            ::poolable::__private::reset((&mut __this.chunks,));
        }
        #[inline]
        fn __measure(
            &self,
            __what: ::poolable::__private::Measure,
        ) -> ::core::option::Option<usize> {
            let __this: &__PoolableChecked<Body> = self;
            ::poolable::__private::measure(__what, (&__this.chunks,))
        }
        #[inline]
        fn shrink_heap(&mut self, __max_bytes: usize) {
            let __total = ::poolable::Reset::heap_bytes(self);
            let __this: &mut __PoolableChecked<Body> = self;
            ::poolable::__private::shrink_heap(
                __total,
                (&mut __this.chunks,),
                __max_bytes,
            )
        }
    }
    impl Body {
        #[doc(hidden)]
        #[inline]
        pub fn pool() -> &'static ::poolable::Pool<__PoolableChecked<Body>> {
            static POOL: ::core::mem::ManuallyDrop<
                ::poolable::Pool<__PoolableChecked<Body>>,
            > = ::core::mem::ManuallyDrop::new(
                ::poolable::Pool::with_new(
                        ::poolable::__private::NewByDefault::new_by_default,
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
    const __POOLABLE_FIELDS_OK: bool = {
        let _ = <String as my_crate::poolable::__private::SendField>::OK;
        let _ = <String as my_crate::poolable::Reset>::reset;
        let _ = <Renamed as my_crate::poolable::__private::NewByDefault>::new_by_default;
        true
    };
    type __PoolableChecked<T> = <T as my_crate::poolable::__private::Checked<
        __POOLABLE_FIELDS_OK,
    >>::Is;
    #[automatically_derived]
    #[diagnostic::do_not_recommend]
    impl my_crate::poolable::Reset for Renamed {
        #[inline]
        fn reset(&mut self) {
            let __this: &mut __PoolableChecked<Renamed> = self;
            my_crate::poolable::__private::reset((&mut __this.buf,));
        }
        #[inline]
        fn __measure(
            &self,
            __what: my_crate::poolable::__private::Measure,
        ) -> ::core::option::Option<usize> {
            let __this: &__PoolableChecked<Renamed> = self;
            my_crate::poolable::__private::measure(__what, (&__this.buf,))
        }
        #[inline]
        fn shrink_heap(&mut self, __max_bytes: usize) {
            let __total = my_crate::poolable::Reset::heap_bytes(self);
            let __this: &mut __PoolableChecked<Renamed> = self;
            my_crate::poolable::__private::shrink_heap(
                __total,
                (&mut __this.buf,),
                __max_bytes,
            )
        }
    }
    impl Renamed {
        #[doc(hidden)]
        #[inline]
        pub fn pool() -> &'static my_crate::poolable::Pool<__PoolableChecked<Renamed>> {
            static POOL: ::core::mem::ManuallyDrop<
                my_crate::poolable::Pool<__PoolableChecked<Renamed>>,
            > = ::core::mem::ManuallyDrop::new(
                my_crate::poolable::Pool::with_new(
                    my_crate::poolable::__private::NewByDefault::new_by_default,
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
