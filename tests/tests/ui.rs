//! Compile-fail tests: every error `#[vertex_program]` promises, with its message
//! and span checked against the `.stderr` snapshot beside each case.

#[test]
fn ui() {
    // The cases only exercise the macro: skip building GPU kernels in trybuild's
    // own target directory (it would repeat the nightly PTX build for nothing).
    std::env::set_var("VERTEX_SKIP_PTX", "1");
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
    t.pass("ui/pass/*.rs");
}
