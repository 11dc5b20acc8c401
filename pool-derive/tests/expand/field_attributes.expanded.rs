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
            let __this: &mut __PoolableChecked<Fields> = self;
            <Vec<u8> as ::poolable::Zeroize>::zeroize(&mut __this.token);
            ::poolable::__private::reset((&mut __this.body, &mut __this.token));
            __this.state = <State as ::core::default::Default>::default();
            {
                let __field = &mut __this.seven;
                let reset: fn(&mut u32) = reset_to_seven;
                reset(__field);
            }
            <Vec<u8> as ::poolable::Shrink>::shrink_to(&mut __this.body, 1024);
            {
                let __field = &mut __this.table;
                let reset: fn(&mut Table) = Table::clear;
                reset(__field);
            }
        }
        #[inline]
        fn __measure(
            &self,
            __what: ::poolable::__private::Measure,
        ) -> ::core::option::Option<usize> {
            let __this: &__PoolableChecked<Fields> = self;
            ::core::option::Option::Some(
                match __what {
                    ::poolable::__private::Measure::Heap => {
                        ::poolable::__private::heap_bytes((&__this.body, &__this.token))
                            .saturating_add({
                                let measure: fn(&Table) -> usize = measure;
                                measure(&__this.table)
                            })
                    }
                    ::poolable::__private::Measure::Used => {
                        ::poolable::__private::used_bytes((&__this.body, &__this.token))
                            .saturating_add({
                                let measure: fn(&Table) -> usize = measure;
                                measure(&__this.table)
                            })
                    }
                    ::poolable::__private::Measure::IsReset => {
                        usize::from(
                            ::poolable::__private::is_reset((
                                &__this.body,
                                &__this.token,
                            ))
                                && {
                                    #[allow(unused_imports)]
                                    use ::poolable::__private::{
                                        IsResetFallback as _, IsResetViaReset as _,
                                    };
                                    (&::poolable::__private::IsReset(&__this.state)).is_reset()
                                }
                                && {
                                    let check: fn(&u32) -> bool = is_seven;
                                    check(&__this.seven)
                                }
                                && {
                                    #[allow(unused_imports)]
                                    use ::poolable::__private::{
                                        IsResetFallback as _, IsResetViaReset as _,
                                    };
                                    (&::poolable::__private::IsReset(&__this.table)).is_reset()
                                },
                        )
                    }
                },
            )
        }
        #[inline]
        fn shrink_heap(&mut self, __max_bytes: usize) {
            let __total = ::poolable::Reset::heap_bytes(self);
            let __this: &mut __PoolableChecked<Fields> = self;
            ::poolable::__private::shrink_heap(
                __total,
                (&mut __this.body, &mut __this.token),
                __max_bytes,
            )
        }
    }
    #[automatically_derived]
    impl ::core::ops::Drop for Fields {
        fn drop(&mut self) {
            let __this = self;
            <Vec<u8> as ::poolable::Zeroize>::zeroize(&mut __this.token);
        }
    }
    impl Fields {
        #[doc(hidden)]
        #[inline]
        pub fn pool() -> &'static ::poolable::Pool<__PoolableChecked<Fields>> {
            static POOL: ::core::mem::ManuallyDrop<
                ::poolable::Pool<__PoolableChecked<Fields>>,
            > = ::poolable::__private::pool_by_default();
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
