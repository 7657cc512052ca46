//! Compiles this crate's `#[vertex_program]`s to PTX (nightly + rust-src; without
//! them the crate still builds, CPU only, and the GPU path says why).
fn main() {
    nvptx_builder::build_programs();
}
