use vertex_dsl::prelude::*;

#[vertex_program(intersect = sum, per = vertex)]
pub mod lcc {
    pub type Acc = u64;
    pub type State = f64;
    pub fn common() -> Acc { 1 }
}

#[vertex_program(intersect = sum, per = vertex)]
pub mod lcc2 {
    pub type Acc = u64;
    pub fn common() -> Acc { 1 }
    pub fn apply(_ctx: Ctx, t: Acc) -> f64 { t as f64 }
}

fn main() {}
