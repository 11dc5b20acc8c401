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
#[automatically_derived]
#[diagnostic::do_not_recommend]
impl ::poolable::Reset for Upload {
    #[inline]
    fn reset(&mut self) {
        ::poolable::__private::reset((&mut self.data,));
    }
    #[inline]
    fn __measure(
        &self,
        __what: ::poolable::__private::Measure,
    ) -> ::core::option::Option<usize> {
        ::poolable::__private::measure(__what, (&self.data,))
    }
    #[inline]
    fn shrink_heap(&mut self, __max_bytes: usize) {
        ::poolable::__private::shrink_fields((&mut self.data,), __max_bytes)
    }
}
impl Upload {
    #[doc(hidden)]
    #[inline]
    pub fn pool() -> &'static ::poolable::Pool<Upload> {
        static POOL: ::core::mem::ManuallyDrop<::poolable::Pool<Upload>> = ::core::mem::ManuallyDrop::new(
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
impl ::poolable::Poolable for Upload {
    #[inline]
    fn pool() -> &'static ::poolable::Pool<Self> {
        Upload::pool()
    }
}
#[derive(Poolable, Default)]
#[poolable(max_bytes = "auto", max_bytes = 4<<20)]
pub struct Body {
    pub chunks: Vec<Vec<u8>>,
}
#[automatically_derived]
#[diagnostic::do_not_recommend]
impl ::poolable::Reset for Body {
    #[inline]
    fn reset(&mut self) {
        ::poolable::__private::reset((&mut self.chunks,));
    }
    #[inline]
    fn __measure(
        &self,
        __what: ::poolable::__private::Measure,
    ) -> ::core::option::Option<usize> {
        ::poolable::__private::measure(__what, (&self.chunks,))
    }
    #[inline]
    fn shrink_heap(&mut self, __max_bytes: usize) {
        ::poolable::__private::shrink_fields((&mut self.chunks,), __max_bytes)
    }
}
impl Body {
    #[doc(hidden)]
    #[inline]
    pub fn pool() -> &'static ::poolable::Pool<Body> {
        static POOL: ::core::mem::ManuallyDrop<::poolable::Pool<Body>> = ::core::mem::ManuallyDrop::new(
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
impl ::poolable::Poolable for Body {
    #[inline]
    fn pool() -> &'static ::poolable::Pool<Self> {
        Body::pool()
    }
}
#[derive(Poolable, Default)]
#[poolable(crate = "my_crate::poolable")]
pub struct Renamed {
    pub buf: String,
}
#[automatically_derived]
#[diagnostic::do_not_recommend]
impl my_crate::poolable::Reset for Renamed {
    #[inline]
    fn reset(&mut self) {
        my_crate::poolable::__private::reset((&mut self.buf,));
    }
    #[inline]
    fn __measure(
        &self,
        __what: my_crate::poolable::__private::Measure,
    ) -> ::core::option::Option<usize> {
        my_crate::poolable::__private::measure(__what, (&self.buf,))
    }
    #[inline]
    fn shrink_heap(&mut self, __max_bytes: usize) {
        my_crate::poolable::__private::shrink_fields((&mut self.buf,), __max_bytes)
    }
}
impl Renamed {
    #[doc(hidden)]
    #[inline]
    pub fn pool() -> &'static my_crate::poolable::Pool<Renamed> {
        static POOL: ::core::mem::ManuallyDrop<my_crate::poolable::Pool<Renamed>> = my_crate::poolable::__private::pool_by_default();
        &POOL
    }
}
#[automatically_derived]
impl my_crate::poolable::Poolable for Renamed {
    #[inline]
    fn pool() -> &'static my_crate::poolable::Pool<Self> {
        Renamed::pool()
    }
}
