use vertex_dsl::prelude::*;

#[vertex_program(intersect = sum)]
pub mod triangles {
    pub fn common() -> u64 { 1 }
}

fn main() {}
