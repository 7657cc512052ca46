use vertex_dsl::prelude::*;

#[vertex_program(gather = sum)]
pub mod degree {
    #[derive(Clone, Copy, PartialEq)]
    pub struct Range {
        pub lo: u32,
        pub hi: u32,
    }
    #[repr(C)]
    #[derive(Clone, Copy, PartialEq)]
    pub struct Count {
        pub edges: u32,
        pub range: Range,
    }
    pub type State = Count;
    pub type Acc = u32;
    pub fn init(_ctx: Ctx) -> State { Count { edges: 0, range: Range { lo: 0, hi: 0 } } }
    pub fn gather(_neighbour: State) -> Acc { 1 }
    pub fn apply(_ctx: Ctx, old: State, count: Acc) -> State { Count { edges: count, ..old } }
}

fn main() {}
