use vertex_dsl::prelude::*;

#[vertex_program(gather = sum)]
pub mod degree {
    #[derive(Clone, Copy, PartialEq)]
    pub struct Count {
        pub edges: u32,
        pub weight: f64,
    }
    pub type State = Count;
    pub type Acc = u32;
    pub fn init(_ctx: Ctx) -> State { Count { edges: 0, weight: 0.0 } }
    pub fn gather(_neighbour: State) -> Acc { 1 }
    pub fn apply(_ctx: Ctx, old: State, count: Acc) -> State { Count { edges: count, ..old } }
}

fn main() {}
