use vertex_dsl::prelude::*;

#[vertex_program(gather = sum)]
pub mod degree {
    #[repr(C)]
    #[derive(Clone, PartialEq)]
    pub struct Count {
        pub edges: u32,
        pub name: String,
    }
    pub type State = Count;
    pub type Acc = u32;
    pub fn init(_ctx: Ctx) -> State { Count { edges: 0, name: String::new() } }
    pub fn gather(_neighbour: State) -> Acc { 1 }
    pub fn apply(_ctx: Ctx, old: State, count: Acc) -> State { Count { edges: count, ..old } }
}

fn main() {}
