#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/generics/*.rs");
    t.compile_fail("tests/ui/unsupported-syntax/generics.rs");
    t.compile_fail("tests/ui/unsupported-types/impl-trait-param.rs");
}
