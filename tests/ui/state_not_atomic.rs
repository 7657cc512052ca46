use vertex_dsl::prelude::*;

#[vertex_program(combine = min)]
pub mod wide {
    pub type State = (u64, u64);
    pub fn init(_v: u32, _s: u32) -> State { (0, 0) }
    pub fn relax(s: State) -> Option<State> { Some(s) }
}

fn main() {}
