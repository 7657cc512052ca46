use vertex_dsl::prelude::*;

#[vertex_program(intersect = sum, gather = sum)]
pub mod triangles {
    pub type Acc = u64;
    pub fn common() -> Acc { 1 }
}

fn main() {}
