//! The compile-fail catalogue: each file under `tests/ui/<category>/` is a kernel that
//! must not compile, and its `.stderr` is what the user sees. Regenerate with
//! `TRYBUILD=overwrite cargo test --test ui` (output depends on the pinned toolchain).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
}
