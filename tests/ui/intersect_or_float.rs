use vertex_dsl::prelude::*;

#[vertex_program(intersect = or)]
pub mod any {
    pub type Acc = f32;
    pub fn common() -> Acc { 1.0 }
}

fn main() {}
