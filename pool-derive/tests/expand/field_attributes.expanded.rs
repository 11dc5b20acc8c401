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
    const __POOLABLE_FIELDS_OK: bool = {
        let _ = <std::time::Instant as ::poolable::__private::SendField>::OK;
        let _ = <State as ::poolable::__private::SendField>::OK;
        let _ = <u32 as ::poolable::__private::SendField>::OK;
        let _ = <Vec<u8> as ::poolable::__private::SendField>::OK;
        let _ = <Vec<u8> as ::poolable::Reset>::reset;
        let _ = <Vec<u8> as ::poolable::__private::SendField>::OK;
        let _ = <Vec<u8> as ::poolable::Reset>::reset;
        let _ = <Table as ::poolable::__private::SendField>::OK;
        let _ = <Fields as ::poolable::__private::NewByDefault>::new_by_default;
        true
    };
    type __PoolableChecked<T> = <T as ::poolable::__private::Checked<
        __POOLABLE_FIELDS_OK,
    >>::Is;
    #[automatically_derived]
    #[diagnostic::do_not_recommend]
    impl ::poolable::Reset for Fields {
        #[inline]
        fn reset(&mut self) {
            let this: &mut __PoolableChecked<Fields> = self;
            <Vec<u8> as ::poolable::Zeroize>::zeroize(&mut this.token);
            ::poolable::__private::reset((&mut this.body, &mut this.token));
            this.state = <State as ::core::default::Default>::default();
            {
                let field = &mut this.seven;
                let reset: fn(&mut u32) = reset_to_seven;
                reset(field);
            }
            <Vec<u8> as ::poolable::Shrink>::shrink_to(&mut this.body, 1024);
            {
                let field = &mut this.table;
                let reset: fn(&mut Table) = Table::clear;
                reset(field);
            }
        }
        #[inline]
        fn __measure(
            &self,
            what: ::poolable::__private::Measure,
        ) -> ::core::option::Option<usize> {
            let this: &__PoolableChecked<Fields> = self;
            ::core::option::Option::Some(
                match what {
                    ::poolable::__private::Measure::Heap => {
                        ::poolable::__private::heap_bytes((&this.body, &this.token))
                            .saturating_add({
                                let measure: fn(&Table) -> usize = measure;
                                measure(&this.table)
                            })
                    }
                    ::poolable::__private::Measure::Used => {
                        ::poolable::__private::used_bytes((&this.body, &this.token))
                            .saturating_add({
                                let measure: fn(&Table) -> usize = measure;
                                measure(&this.table)
                            })
                    }
                    ::poolable::__private::Measure::IsReset => {
                        usize::from(
                            ::poolable::__private::is_reset((&this.body, &this.token))
                                && {
                                    #[allow(unused_imports)]
                                    use ::poolable::__private::{
                                        IsResetFallback as _, IsResetViaReset as _,
                                    };
                                    (&::poolable::__private::IsReset(&this.state)).is_reset()
                                }
                                && {
                                    let check: fn(&u32) -> bool = is_seven;
                                    check(&this.seven)
                                }
                                && {
                                    #[allow(unused_imports)]
                                    use ::poolable::__private::{
                                        IsResetFallback as _, IsResetViaReset as _,
                                    };
                                    (&::poolable::__private::IsReset(&this.table)).is_reset()
                                },
                        )
                    }
                },
            )
        }
        #[inline]
        fn shrink_heap(&mut self, max_bytes: usize) {
            let total = ::poolable::Reset::heap_bytes(self);
            let this: &mut __PoolableChecked<Fields> = self;
            ::poolable::__private::shrink_heap(
                total,
                (&mut this.body, &mut this.token),
                max_bytes,
            )
        }
    }
    #[automatically_derived]
    impl ::core::ops::Drop for Fields {
        fn drop(&mut self) {
            let this = self;
            <Vec<u8> as ::poolable::Zeroize>::zeroize(&mut this.token);
        }
    }
    impl Fields {
        #[doc(hidden)]
        #[inline]
        pub fn pool() -> &'static ::poolable::Pool<__PoolableChecked<Fields>> {
            static POOL: ::core::mem::ManuallyDrop<
                ::poolable::Pool<__PoolableChecked<Fields>>,
            > = ::core::mem::ManuallyDrop::new(
                ::poolable::Pool::with_new(
                    ::poolable::__private::NewByDefault::new_by_default,
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
