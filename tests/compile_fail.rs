//! Misuses of `#[derive(Poolable)]` and `#[derive(Reset)]` that must not
//! compile, each with the diagnostic a user sees (`tests/ui/*.stderr`).
//! Regenerate the snapshots with `TRYBUILD=overwrite cargo test -p poolable-tests --test compile_fail`.

#[test]
fn derive_misuse_is_a_spanned_compile_error() {
    trybuild::TestCases::new().compile_fail("ui/*.rs");
}
