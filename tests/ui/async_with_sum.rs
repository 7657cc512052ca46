use vertex_dsl::prelude::*;

#[vertex_program(combine = sum, schedule(sync, async))]
pub mod paths {
    pub type State = u64;
    pub fn init(v: u32, source: u32) -> State { (v == source) as u64 }
    pub fn relax(count: State) -> Option<State> { Some(count) }
}

fn main() {}
