use vertex_dsl::prelude::*;

#[vertex_program(gather = sum)]
pub mod pairs {
    #[repr(C)]
    #[derive(Clone, Copy, PartialEq)]
    pub struct Pair {
        pub a: u32,
        pub b: u32,
    }
    pub type State = u32;
    pub type Acc = Pair;
    pub fn init(_ctx: Ctx) -> State { 0 }
    pub fn gather(s: State) -> Acc { Pair { a: s, b: 1 } }
    pub fn apply(_ctx: Ctx, _old: State, acc: Acc) -> State { acc.a + acc.b }
}

#[vertex_program(gather = sum)]
pub mod bytes {
    pub type State = u32;
    pub type Acc = u8;
    pub fn init(_ctx: Ctx) -> State { 0 }
    pub fn gather(_neighbour: State) -> Acc { 1 }
    pub fn apply(_ctx: Ctx, _old: State, count: Acc) -> State { count as u32 }
}

fn main() {}
