use vertex_dsl::prelude::*;

#[vertex_program(intersect = custom)]
pub mod triangles {
    pub type Acc = u64;
    pub fn common() -> Acc { 1 }
}

#[vertex_program(intersect = sum)]
pub mod builtin {
    pub type Acc = u64;
    pub fn common() -> Acc { 1 }
    pub fn identity() -> Acc { 0 }
    pub fn combine(a: Acc, b: Acc) -> Acc { a + b }
}

fn main() {}
