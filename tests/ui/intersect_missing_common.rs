use vertex_dsl::prelude::*;

#[vertex_program(intersect = sum)]
pub mod triangles {
    pub type Acc = u64;
}

fn main() {}
