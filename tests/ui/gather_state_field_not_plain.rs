use vertex_dsl::prelude::*;

#[vertex_program(gather = sum)]
pub mod degree {
    pub static ZERO: u32 = 0;
    #[repr(C)]
    #[derive(Clone, Copy, PartialEq)]
    pub struct Count {
        pub edges: u32,
        pub floor: &'static u32,
        pub parent: Option<u32>,
    }
    pub type State = Count;
    pub type Acc = u32;
    pub fn init(_ctx: Ctx) -> State { Count { edges: 0, floor: &ZERO, parent: None } }
    pub fn gather(_neighbour: State) -> Acc { 1 }
    pub fn apply(_ctx: Ctx, old: State, count: Acc) -> State { Count { edges: count, ..old } }
}

fn main() {}
