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
    const __POOLABLE_FIELDS_OK: bool = {
        let _ = <Vec<(String, String)> as ::poolable::__private::SendField>::OK;
        let _ = <Vec<(String, String)> as ::poolable::Reset>::reset;
        let _ = <Request as ::poolable::__private::NewByDefault>::new_by_default;
        true
    };
    type __PoolableChecked<T> = <T as ::poolable::__private::Checked<
        __POOLABLE_FIELDS_OK,
    >>::Is;
    #[automatically_derived]
    #[diagnostic::do_not_recommend]
    impl ::poolable::Reset for Request {
        #[inline]
        fn reset(&mut self) {
            let __this: &mut __PoolableChecked<Request> = self;
            ::poolable::__private::reset((
                &mut __this.id,
                &mut __this.path,
                &mut __this.headers,
            ));
        }
        #[inline]
        fn __measure(
            &self,
            __what: ::poolable::__private::Measure,
        ) -> ::core::option::Option<usize> {
            let __this: &__PoolableChecked<Request> = self;
            ::poolable::__private::measure(
                __what,
                (&__this.id, &__this.path, &__this.headers),
            )
        }
        #[inline]
        fn shrink_heap(&mut self, __max_bytes: usize) {
            let __this: &mut __PoolableChecked<Request> = self;
            ::poolable::__private::shrink_fields(
                (&mut __this.id, &mut __this.path, &mut __this.headers),
                __max_bytes,
            )
        }
    }
    impl Request {
        #[doc(hidden)]
        #[inline]
        pub fn pool() -> &'static ::poolable::Pool<__PoolableChecked<Request>> {
            static POOL: ::core::mem::ManuallyDrop<
                ::poolable::Pool<__PoolableChecked<Request>>,
            > = ::poolable::__private::pool_by_default();
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
#[automatically_derived]
#[diagnostic::do_not_recommend]
impl ::poolable::Reset for Pair {
    #[inline]
    fn reset(&mut self) {
        ::poolable::__private::reset((&mut self.0, &mut self.1));
    }
    #[inline]
    fn __measure(
        &self,
        __what: ::poolable::__private::Measure,
    ) -> ::core::option::Option<usize> {
        ::poolable::__private::measure(__what, (&self.0, &self.1))
    }
    #[inline]
    fn shrink_heap(&mut self, __max_bytes: usize) {
        ::poolable::__private::shrink_fields((&mut self.0, &mut self.1), __max_bytes)
    }
}
