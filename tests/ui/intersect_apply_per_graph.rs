use vertex_dsl::prelude::*;

#[vertex_program(intersect = sum)]
pub mod lcc {
    pub type Acc = u64;
    pub type State = f64;
    pub fn common() -> Acc { 1 }
    pub fn apply(ctx: Ctx, t: Acc) -> State { t as f64 / ctx.degree as f64 }
}

fn main() {}
