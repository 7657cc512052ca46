use vertex_dsl::prelude::*;

#[vertex_program(gather = sum)]
pub mod degree {
    pub type State = u32;
    pub fn init(_ctx: Ctx) -> State { 0 }
    pub fn gather(_neighbour: State) -> u32 { 1 }
    pub fn apply(_ctx: Ctx, _old: State, count: u32) -> State { count }
}

fn main() {}
