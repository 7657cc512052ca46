use vertex_dsl::prelude::*;

#[vertex_program(gather = sum)]
pub mod weighted_degree {
    pub type State = u32;
    pub type Acc = u32;
    pub fn init(_ctx: Ctx) -> State { 0 }
    pub fn gather(_neighbour: State, w: u32) -> Acc { w }
    pub fn apply(_ctx: Ctx, _old: State, total: Acc) -> State { total }
}

fn main() {}
