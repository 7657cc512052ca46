use vertex_dsl::prelude::*;

#[vertex_program(combine = min)]
pub mod pair {
    #[repr(C)]
    #[derive(Clone, Copy, PartialEq, PartialOrd)]
    pub struct State {
        pub a: u32,
        pub b: u32,
    }
    pub fn init(_v: u32, _s: u32) -> State { State { a: 0, b: 0 } }
    pub fn relax(s: State) -> Option<State> { Some(s) }
}

fn main() {}
