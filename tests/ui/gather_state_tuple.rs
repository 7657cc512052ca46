use vertex_dsl::prelude::*;

#[vertex_program(gather = sum)]
pub mod degree {
    pub type State = (u32, f64);
    pub type Acc = u32;
    pub fn init(_ctx: Ctx) -> State { (0, 0.0) }
    pub fn gather(_neighbour: State) -> Acc { 1 }
    pub fn apply(_ctx: Ctx, old: State, count: Acc) -> State { (count, old.1) }
}

fn main() {}
