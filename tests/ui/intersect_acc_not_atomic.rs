use vertex_dsl::prelude::*;

#[vertex_program(intersect = sum)]
pub mod triangles {
    pub type Acc = (u32, u32);
    pub fn common() -> Acc { (1, 1) }
}

fn main() {}
