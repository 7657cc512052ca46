//! Compiles this crate's `#[vertex_program]`s to PTX (see `nvptx_builder::build_programs`).
fn main() {
    nvptx_builder::build_programs();
}
