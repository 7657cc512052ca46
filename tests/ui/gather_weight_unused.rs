use vertex_dsl::prelude::*;

#[vertex_program(gather = sum)]
pub mod degree {
    pub type State = u32;
    pub type Weight = u32;
    pub type Acc = u32;
    pub fn init(_ctx: Ctx) -> State { 0 }
    pub fn gather(_neighbour: State) -> Acc { 1 }
    pub fn apply(_ctx: Ctx, _old: State, count: Acc) -> State { count }
}

fn main() {}
